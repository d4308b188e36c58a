//! Kept releases: every version of a predictions, odds or books object that
//! linecast has seen, recorded in the database (`ReleaseLog`) and kept as
//! bytes in the object store under the archive prefix (`ReleaseArchive`),
//! content-addressed and written once.

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, Utc};
use linecast_domain::artifacts::{ArtifactRef, BookRow, OddsRow, PredictionTable, keys};
use linecast_domain::{ModelType, Sport};

use crate::{AccountsError, ObjectVersion, StoreError, Versioned};

/// The prefix of the archive in the object store.
pub const ARCHIVE_PREFIX: &str = "archive";

/// Which object a release is a version of: one sport's predictions of one
/// market, its odds, or its named books' prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Series {
    Predictions(Sport, ModelType),
    Odds(Sport),
    Books(Sport),
}

impl Series {
    /// Every series, in catalog order.
    pub fn all() -> impl Iterator<Item = Self> {
        Sport::ALL.iter().flat_map(|sport| {
            ModelType::ALL
                .iter()
                .map(|model_type| Self::Predictions(*sport, *model_type))
                .chain([Self::Odds(*sport), Self::Books(*sport)])
        })
    }

    pub const fn sport(self) -> Sport {
        match self {
            Self::Predictions(sport, _) | Self::Odds(sport) | Self::Books(sport) => sport,
        }
    }

    /// `predictions`, `odds` or `books`.
    pub const fn artifact(self) -> &'static str {
        match self {
            Self::Predictions(..) => "predictions",
            Self::Odds(_) => "odds",
            Self::Books(_) => "books",
        }
    }

    pub const fn model_type(self) -> Option<ModelType> {
        match self {
            Self::Predictions(_, model_type) => Some(model_type),
            Self::Odds(_) | Self::Books(_) => None,
        }
    }

    /// `{sport}/predictions/{model_type}`, `{sport}/odds` or `{sport}/books`: how the
    /// release log names the series.
    pub fn code(self) -> String {
        match self {
            Self::Predictions(sport, model_type) => format!("{sport}/predictions/{model_type}"),
            Self::Odds(sport) => format!("{sport}/odds"),
            Self::Books(sport) => format!("{sport}/books"),
        }
    }

    /// The series from its parts as the release log stores them.
    pub fn from_parts(sport: Sport, artifact: &str, model_type: Option<ModelType>) -> Option<Self> {
        match (artifact, model_type) {
            ("predictions", Some(model_type)) => Some(Self::Predictions(sport, model_type)),
            ("odds", None) => Some(Self::Odds(sport)),
            ("books", None) => Some(Self::Books(sport)),
            _ => None,
        }
    }

    /// The store key of the object (what the pipeline overwrites).
    pub fn key(self) -> String {
        match self {
            Self::Predictions(sport, model_type) => keys::predictions(sport, model_type),
            Self::Odds(sport) => keys::odds(sport),
            Self::Books(sport) => keys::books(sport),
        }
    }

    /// The series a watched object key names; `None` for any other key.
    pub fn of_key(key: &str) -> Option<Self> {
        match ArtifactRef::parse(key)? {
            ArtifactRef::Predictions(sport, model_type) => Some(Self::Predictions(sport, model_type)),
            ArtifactRef::Odds(sport) => Some(Self::Odds(sport)),
            ArtifactRef::Books(sport) => Some(Self::Books(sport)),
            _ => None,
        }
    }

    /// Where the bytes of the version with `digest` are kept:
    /// `archive/{sport}/predictions/{model_type}/{digest}.csv` or
    /// `archive/{sport}/odds/{digest}.csv` or `archive/{sport}/books/{digest}.csv`.
    pub fn archive_key(self, digest: &str) -> String {
        match self {
            Self::Predictions(sport, model_type) => {
                format!("{ARCHIVE_PREFIX}/{sport}/predictions/{model_type}/{digest}.csv")
            }
            Self::Odds(sport) => format!("{ARCHIVE_PREFIX}/{sport}/odds/{digest}.csv"),
            Self::Books(sport) => format!("{ARCHIVE_PREFIX}/{sport}/books/{digest}.csv"),
        }
    }
}

/// One kept version of a series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptRelease {
    pub series: Series,
    /// The object's last-modified time when linecast read it (what the
    /// change stream reports as `published_at`).
    pub published_at: DateTime<Utc>,
    /// SHA-256 of the object's bytes, lowercase hex.
    pub digest: String,
    /// Rows (games) of the object.
    pub game_count: u32,
    /// Bytes of the object.
    pub size: u64,
}

/// One game of a kept predictions release, as the index of games holds it:
/// everything a history entry needs without reading the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedGame {
    pub game_id: String,
    /// The row's position in the release (0 first).
    pub ordinal: u32,
    /// The game's row and the release's model columns, encoded by
    /// `services::game_index`: one line (no line feed), opaque otherwise
    /// to the log.
    pub row: String,
}

/// The record of kept releases, and the index of the games each kept
/// predictions release carried.
#[async_trait]
pub trait ReleaseLog: Send + Sync {
    /// Records `release` once: `true` when this call recorded it, `false`
    /// when a release of the same series and `published_at` was already
    /// recorded (by this or another instance).
    async fn record(&self, release: &KeptRelease) -> Result<bool, AccountsError>;
    /// Every kept release of `series`, oldest first.
    async fn releases(&self, series: Series) -> Result<Vec<KeptRelease>, AccountsError>;
    /// Forgets the releases published before `before`, and their indexed
    /// games; returns the releases.
    async fn forget_before(&self, before: DateTime<Utc>) -> Result<Vec<KeptRelease>, AccountsError>;
    /// Indexes the games `release` carried, idempotently: a game already
    /// indexed for that release is left as it is (a release indexed twice,
    /// or by two instances, gives the same rows).
    async fn index_games(&self, release: &KeptRelease, games: &[IndexedGame]) -> Result<(), AccountsError>;
    /// The recorded releases of `series` that carried `game_id`, oldest
    /// first, with the game as each indexed it (one indexed read).
    async fn game_releases(
        &self,
        series: Series,
        game_id: &str,
    ) -> Result<Vec<(KeptRelease, IndexedGame)>, AccountsError>;
    /// The recorded releases of `series` that carry games but have none
    /// indexed (kept before the index existed), oldest first.
    async fn unindexed(&self, series: Series) -> Result<Vec<KeptRelease>, AccountsError>;
}

/// The bytes of kept releases, beside the data contract's objects.
#[async_trait]
pub trait ReleaseArchive: Send + Sync {
    /// The current bytes of a watched object and the version they are.
    async fn current(&self, key: &str) -> Result<(ObjectVersion, Bytes), StoreError>;
    /// Keeps `bytes` under the archive key `key`, once: a key already
    /// written is left as it is (its name is its content's digest).
    async fn keep(&self, key: &str, bytes: Bytes) -> Result<(), StoreError>;
    /// Deletes an archived object (retention); a missing one is no error.
    async fn delete(&self, key: &str) -> Result<(), StoreError>;
    /// Reads `bytes` as a version of `series` (the data contract's rules),
    /// for its game count; a broken object is `Corrupt`, naming `object`.
    fn count_games(&self, series: Series, object: &str, bytes: &[u8]) -> Result<u32, StoreError>;
    /// Reads `bytes` as a version of the predictions of `sport` and
    /// `model_type` (the data contract's rules); a broken object is
    /// `Corrupt`, naming `object`.
    fn read_predictions(
        &self,
        sport: Sport,
        model_type: ModelType,
        object: &str,
        bytes: &[u8],
    ) -> Result<PredictionTable, StoreError>;
    /// The kept predictions of `release`, parsed once per digest.
    async fn kept_predictions(&self, release: &KeptRelease) -> Result<Versioned<PredictionTable>, StoreError>;
    /// The kept odds of `release`, parsed once per digest.
    async fn kept_odds(&self, release: &KeptRelease) -> Result<Versioned<Vec<OddsRow>>, StoreError>;
    /// The kept books of `release`, parsed once per digest.
    async fn kept_books(&self, release: &KeptRelease) -> Result<Versioned<Vec<BookRow>>, StoreError>;
}
