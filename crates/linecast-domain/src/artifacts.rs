//! Typed forms of the artifacts of the data contract (`docs/data-contract.md`).
//! Parsing and writing live in the adapters; this module only names the
//! shapes and the column names both sides must agree on.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use crate::{GameKey, Lines, ModelProbs, ModelType, SeasonLabel, SeasonRow, SeasonType, Sport};

/// Column names of the canonical game key, in contract order.
pub const KEY_COLUMNS: [&str; 4] = ["date", "time_est", "away_team", "home_team"];

/// One team of `teams/{sport}.csv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamRow {
    pub slug: String,
    pub display_name: String,
    pub abbreviation: String,
}

/// `teams/{sport}.csv`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamTable {
    pub teams: Vec<TeamRow>,
}

impl TeamTable {
    pub fn find(&self, slug: &str) -> Option<&TeamRow> {
        self.teams.iter().find(|t| t.slug == slug)
    }
}

/// Game status on the score tape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameStatus {
    Scheduled,
    InProgress,
    Final,
    Postponed,
}

impl GameStatus {
    pub fn parse(value: &str) -> Option<Self> {
        Some(match value {
            "scheduled" => GameStatus::Scheduled,
            "in_progress" => GameStatus::InProgress,
            "final" => GameStatus::Final,
            "postponed" => GameStatus::Postponed,
            _ => return None,
        })
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            GameStatus::Scheduled => "scheduled",
            GameStatus::InProgress => "in_progress",
            GameStatus::Final => "final",
            GameStatus::Postponed => "postponed",
        }
    }
}

/// One game of `scores/{sport}.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRow {
    pub key: GameKey,
    pub season: SeasonLabel,
    pub season_type: SeasonType,
    pub away_score: Option<f64>,
    pub home_score: Option<f64>,
    pub status: GameStatus,
}

/// One game of `predictions/{sport}/{model_type}.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionRow {
    pub key: GameKey,
    /// Only the line fields of the artifact's model type are set.
    pub lines: Lines,
    pub models: ModelProbs,
    pub extras: Vec<(Arc<str>, String)>,
}

/// `predictions/{sport}/{model_type}.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionTable {
    pub sport: Sport,
    pub model_type: ModelType,
    /// Model columns present in the header, in catalog order.
    pub models_present: Vec<crate::ModelColumn>,
    pub rows: Vec<PredictionRow>,
}

/// One game of `odds/{sport}.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct OddsRow {
    pub match_id: String,
    pub key: GameKey,
    pub lines: Lines,
    /// UTC, written `YYYY-MM-DD HH:MM:SS`.
    pub last_updated: NaiveDateTime,
}

/// `seasons/{sport}/{model_type}/{season}.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct SeasonTable {
    pub sport: Sport,
    pub model_type: ModelType,
    pub season: SeasonLabel,
    /// Every header column, in artifact order.
    pub columns: Vec<Arc<str>>,
    pub rows: Vec<SeasonRow>,
}

/// One game of `markets/{sport}.csv`.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketPriceRow {
    pub key: GameKey,
    pub ticker: String,
    pub home_price: Option<f64>,
    pub away_price: Option<f64>,
    pub captured_at: DateTime<Utc>,
}

/// `releases/{sport}/{slate_date}.json`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ReleaseManifest {
    pub sport: Sport,
    pub slate_date: NaiveDate,
    pub release_id: String,
    pub run_started_at: Option<DateTime<Utc>>,
    pub run_completed_at: Option<DateTime<Utc>>,
    pub slate: SlateKind,
    pub source_as_of: Option<DateTime<Utc>>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub artifacts: ReleaseArtifacts,
    #[cfg_attr(feature = "serde", serde(default))]
    pub markets: std::collections::BTreeMap<ModelType, ReleaseMarket>,
}

/// Whether the run found games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum SlateKind {
    Active,
    OffDay,
}

/// Publication times of the day's derived artifacts.
#[derive(Debug, Clone, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ReleaseArtifacts {
    pub predictions: Option<DateTime<Utc>>,
    pub results: Option<DateTime<Utc>>,
    pub summaries: Option<DateTime<Utc>>,
    pub model_tracking: Option<DateTime<Utc>>,
}

/// One market (model type) of a release manifest.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct ReleaseMarket {
    pub expected: bool,
    pub published_at: Option<DateTime<Utc>>,
    pub release_id: Option<String>,
    pub source_as_of: Option<DateTime<Utc>>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub held_games: Vec<String>,
    /// Latest odds arrival.
    pub odds_arrived_at: Option<DateTime<Utc>>,
    /// Latest prediction rebuild.
    pub predictions_rebuilt_at: Option<DateTime<Utc>>,
    /// The first odds arrival the current predictions have not absorbed:
    /// set by the pipeline when odds arrive and it is null, cleared by a
    /// rebuild. The refresh deadline counts from it, so a pipeline that keeps
    /// ingesting odds without rebuilding cannot push the deadline forever.
    /// Optional: absent, the deadline counts from `odds_arrived_at`.
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "Option::is_none"))]
    pub odds_pending_since: Option<DateTime<Utc>>,
}

/// `products/catalog.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProductCatalog {
    pub products: Vec<Product>,
}

/// A downloadable historical dataset.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Product {
    pub product_id: String,
    pub sport: Sport,
    pub filename: String,
    pub key: String,
    pub refreshable: bool,
}

/// Object keys of the data contract.
pub mod keys {
    use chrono::NaiveDate;

    use crate::{ModelType, SeasonLabel, Sport};

    pub fn teams(sport: Sport) -> String {
        format!("teams/{sport}.csv")
    }
    pub fn scores(sport: Sport) -> String {
        format!("scores/{sport}.csv")
    }
    pub fn predictions(sport: Sport, model_type: ModelType) -> String {
        format!("predictions/{sport}/{model_type}.csv")
    }
    pub fn odds(sport: Sport) -> String {
        format!("odds/{sport}.csv")
    }
    pub fn seasons_prefix(sport: Sport, model_type: ModelType) -> String {
        format!("seasons/{sport}/{model_type}")
    }
    pub fn season(sport: Sport, model_type: ModelType, season: SeasonLabel) -> String {
        format!("seasons/{sport}/{model_type}/{season}.csv")
    }
    pub fn markets(sport: Sport) -> String {
        format!("markets/{sport}.csv")
    }
    pub fn releases_prefix(sport: Sport) -> String {
        format!("releases/{sport}")
    }
    pub fn release(sport: Sport, slate_date: NaiveDate) -> String {
        // Plain integer formatting: this key is built on every slate lookup.
        use chrono::Datelike;
        format!(
            "releases/{sport}/{:04}-{:02}-{:02}.json",
            slate_date.year(),
            slate_date.month(),
            slate_date.day()
        )
    }
    pub const PRODUCT_CATALOG: &str = "products/catalog.json";
    pub fn dataset(sport: Sport, filename: &str) -> String {
        format!("datasets/{sport}/{filename}")
    }
}
