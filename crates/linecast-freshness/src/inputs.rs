//! What the caller read from storage for one sport and one slate date. The
//! caller (a use case in `linecast-core`) does the reads; this module only
//! names the shapes.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use linecast_domain::artifacts::ReleaseManifest;
use linecast_domain::{ModelType, Sport};

/// Storage could not say whether today's manifest exists (unreachable store,
/// or an object that breaks the data contract). It turns the report into
/// `unknown` with `release_unavailable`.
///
/// `reason` is for the caller's logs; it never reaches the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageFailure {
    pub reason: String,
}

/// What the store says about one market's predictions object
/// (`predictions/{sport}/{model_type}.csv`), independent of the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectPresence {
    Present,
    /// The object does not exist, whatever the manifest claims.
    Missing,
    /// The object exists but cannot be read or breaks the data contract:
    /// `/predictions` answers 503 for it, so the market is `unknown` and the
    /// sport not operational.
    Unreadable,
}

/// Store-side observations of the day's artifacts. Markets left out were not
/// checked, and the manifest is trusted for them; `Default` checks nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArtifactMetadata {
    pub predictions: BTreeMap<ModelType, ObjectPresence>,
}

impl ArtifactMetadata {
    pub(crate) fn is_missing(&self, model_type: ModelType) -> bool {
        self.predictions.get(&model_type) == Some(&ObjectPresence::Missing)
    }

    pub(crate) fn is_unreadable(&self, model_type: ModelType) -> bool {
        self.predictions.get(&model_type) == Some(&ObjectPresence::Unreadable)
    }
}

/// Everything [`crate::evaluate`] needs besides `now`.
#[derive(Debug, Clone, PartialEq)]
pub struct FreshnessInputs {
    pub sport: Sport,
    /// Today's ET date; [`crate::et_date`] computes it from `now`.
    pub slate_date: NaiveDate,
    /// `releases/{sport}/{slate_date}.json`: `Ok(None)` when the object does
    /// not exist, `Err` when storage could not tell.
    pub today: Result<Option<ReleaseManifest>, StorageFailure>,
    /// The newest manifest before `slate_date`: the release still served
    /// while today's is not. Ignored unless it is for `sport` and an earlier
    /// slate date.
    pub previous: Option<ReleaseManifest>,
    /// The model types the sport normally publishes (the catalog's list).
    pub expected_markets: Vec<ModelType>,
    pub artifacts: ArtifactMetadata,
}

impl FreshnessInputs {
    /// The previous manifest if it can describe what is served today.
    pub(crate) fn usable_previous(&self) -> Option<&ReleaseManifest> {
        self.previous
            .as_ref()
            .filter(|m| m.sport == self.sport && m.slate_date < self.slate_date)
    }
}
