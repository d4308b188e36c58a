//! What the archive says of one result row (`ArchiveCheck`) and the check
//! with what it was judged on (`RowCheck`): the values the history's rows
//! carry, below the service that makes them (`super`), so the history
//! imports them without importing the service that reads the history.

use std::sync::Arc;

use crate::ports::releases::KeptRelease;

/// What the archive says of one result row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArchiveCheck {
    /// The kept release named by `forecast_published_at`, published before
    /// the start, carries the game with the row's BLEND.
    Matched,
    /// That release exists but was published at or after the start, does
    /// not carry the game, or carries another BLEND.
    Mismatch,
    /// No kept release was published at that instant (or the row has no
    /// `forecast_published_at`).
    NotKept,
    /// Not a live forecast (walk-forward, reconstructed, no prediction).
    NotApplicable,
}

impl ArchiveCheck {
    pub const ALL: [Self; 4] = [Self::Matched, Self::Mismatch, Self::NotKept, Self::NotApplicable];

    /// The served value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Matched => "matched",
            Self::Mismatch => "mismatch",
            Self::NotKept => "not_kept",
            Self::NotApplicable => "not_applicable",
        }
    }
}

/// The check of one row, with what it was judged on.
#[derive(Debug, Clone, PartialEq)]
pub struct RowCheck {
    pub check: ArchiveCheck,
    /// The kept release the row's `forecast_published_at` names (set for
    /// `matched` and `mismatch`; shared by the rows naming it).
    pub release: Option<Arc<KeptRelease>>,
    /// Whether that release carried the game.
    pub carried: bool,
    /// The game's BLEND in that release (`None`: not carried, or empty).
    pub release_blend: Option<f64>,
    /// The no-vig probability of the positive side in that release
    /// (`None`: not carried, or without both prices): the market the
    /// forecast faced when it was published.
    pub release_no_vig: Option<f64>,
}

impl RowCheck {
    pub(crate) const fn alone(check: ArchiveCheck) -> Self {
        Self {
            check,
            release: None,
            carried: false,
            release_blend: None,
            release_no_vig: None,
        }
    }

    /// The release's SHA-256 when `matched`, else `None`.
    pub fn forecast_digest(&self) -> Option<&str> {
        match (self.check, &self.release) {
            (ArchiveCheck::Matched, Some(release)) => Some(&release.digest),
            _ => None,
        }
    }
}
