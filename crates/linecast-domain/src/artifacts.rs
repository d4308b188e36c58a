//! Typed forms of the artifacts of the data contract (`docs/data-contract.md`).
//! Parsing and writing live in the adapters; this module only names the
//! shapes, the column names both sides must agree on, the object keys
//! (`keys`) and their inverse (`ArtifactRef`), which says in a customer's
//! terms what a key holds, so that no answer has to show the key itself.

use std::fmt;
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
    /// The public game id, numbered over the artifact ([`crate::assign_game_ids`]).
    pub game_id: crate::GameId,
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
    /// The public game id, numbered over the artifact ([`crate::assign_game_ids`]).
    pub game_id: crate::GameId,
    pub lines: Lines,
    /// UTC, written `YYYY-MM-DD HH:MM:SS`.
    pub last_updated: NaiveDateTime,
}

/// One game and book of `books/{sport}.csv`: a named sportsbook's prices
/// for one game.
#[derive(Debug, Clone, PartialEq)]
pub struct BookRow {
    pub match_id: String,
    pub key: GameKey,
    /// The public game id, numbered over the artifact's games.
    pub game_id: crate::GameId,
    /// The book's key (1 to 32 characters of `a-z`, `0-9`, `_`).
    pub book: crate::shared::SharedStr,
    /// The book's display name.
    pub title: crate::shared::SharedStr,
    pub lines: Lines,
    /// When the book last changed any of this game's prices.
    pub last_update: DateTime<Utc>,
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
    pub fn books(sport: Sport) -> String {
        format!("books/{sport}.csv")
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

/// One object of the data contract, read back from its key: what a missing
/// object is called in an answer (sport, model type, season or date), where
/// the key itself, a storage path, must not appear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactRef {
    Teams(Sport),
    Scores(Sport),
    Predictions(Sport, ModelType),
    Odds(Sport),
    /// Every named book's prices (`keys::books`).
    Books(Sport),
    /// Every season of one sport and model type (`keys::seasons_prefix`).
    Seasons(Sport, ModelType),
    Season(Sport, ModelType, SeasonLabel),
    Markets(Sport),
    /// Every release of one sport (`keys::releases_prefix`).
    Releases(Sport),
    Release(Sport, NaiveDate),
    ProductCatalog,
    /// A downloadable dataset file; the file name is not shown.
    Dataset(Sport, String),
}

impl ArtifactRef {
    /// The artifact a key names, if the key is exactly what one of the
    /// `keys` builders writes; `None` for any other layout.
    pub fn parse(key: &str) -> Option<Self> {
        let parsed = Self::parse_loose(key)?;
        // Only canonical keys: "2026-1-5" or "+2026" would parse above.
        (parsed.key() == key).then_some(parsed)
    }

    fn parse_loose(key: &str) -> Option<Self> {
        fn sport(code: &str) -> Option<Sport> {
            Sport::parse(code).ok()
        }
        fn csv(file: &str) -> Option<&str> {
            file.strip_suffix(".csv")
        }
        if key == keys::PRODUCT_CATALOG {
            return Some(Self::ProductCatalog);
        }
        if let Some(rest) = key.strip_prefix("datasets/") {
            let (code, filename) = rest.split_once('/')?;
            if filename.is_empty() {
                return None;
            }
            return Some(Self::Dataset(sport(code)?, filename.to_owned()));
        }
        let parts: Vec<&str> = key.split('/').collect();
        Some(match parts.as_slice() {
            ["teams", file] => Self::Teams(sport(csv(file)?)?),
            ["scores", file] => Self::Scores(sport(csv(file)?)?),
            ["odds", file] => Self::Odds(sport(csv(file)?)?),
            ["books", file] => Self::Books(sport(csv(file)?)?),
            ["markets", file] => Self::Markets(sport(csv(file)?)?),
            ["predictions", code, file] => Self::Predictions(sport(code)?, ModelType::parse(csv(file)?).ok()?),
            ["seasons", code, model_type] => Self::Seasons(sport(code)?, ModelType::parse(model_type).ok()?),
            ["seasons", code, model_type, file] => {
                let sport = sport(code)?;
                let season = SeasonLabel::parse(sport, csv(file)?).ok()?;
                Self::Season(sport, ModelType::parse(model_type).ok()?, season)
            }
            ["releases", code] => Self::Releases(sport(code)?),
            ["releases", code, file] => {
                let date = NaiveDate::parse_from_str(file.strip_suffix(".json")?, "%Y-%m-%d").ok()?;
                Self::Release(sport(code)?, date)
            }
            _ => return None,
        })
    }

    /// The object key, written by the `keys` builder of this artifact.
    pub fn key(&self) -> String {
        match self {
            Self::Teams(sport) => keys::teams(*sport),
            Self::Scores(sport) => keys::scores(*sport),
            Self::Predictions(sport, model_type) => keys::predictions(*sport, *model_type),
            Self::Odds(sport) => keys::odds(*sport),
            Self::Books(sport) => keys::books(*sport),
            Self::Seasons(sport, model_type) => keys::seasons_prefix(*sport, *model_type),
            Self::Season(sport, model_type, season) => keys::season(*sport, *model_type, *season),
            Self::Markets(sport) => keys::markets(*sport),
            Self::Releases(sport) => keys::releases_prefix(*sport),
            Self::Release(sport, date) => keys::release(*sport, *date),
            Self::ProductCatalog => keys::PRODUCT_CATALOG.to_owned(),
            Self::Dataset(sport, filename) => keys::dataset(*sport, filename),
        }
    }

    /// Why an answer is empty when the object behind `key` is missing, in a
    /// customer's terms; a key of no known layout gets a generic sentence,
    /// never the key.
    pub fn describe_missing(key: &str) -> String {
        Self::parse(key).map_or_else(
            || "The requested data is not available".to_owned(),
            |a| format!("No {a}"),
        )
    }
}

/// What the artifact holds, named by sport, model type and season or date,
/// for example `nba over_under data for season 2025-26`.
impl fmt::Display for ArtifactRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Teams(sport) => write!(f, "{sport} team list"),
            Self::Scores(sport) => write!(f, "{sport} scores"),
            Self::Predictions(sport, model_type) => write!(f, "{sport} predictions for {model_type}"),
            Self::Odds(sport) => write!(f, "{sport} odds"),
            Self::Books(sport) => write!(f, "{sport} sportsbook prices"),
            Self::Seasons(sport, model_type) => write!(f, "{sport} {model_type} seasons"),
            Self::Season(sport, model_type, season) => write!(f, "{sport} {model_type} data for season {season}"),
            Self::Markets(sport) => write!(f, "{sport} prediction-market prices"),
            Self::Releases(sport) => write!(f, "{sport} releases"),
            Self::Release(sport, date) => write!(f, "{sport} release for {}", date.format("%Y-%m-%d")),
            Self::ProductCatalog => f.write_str("dataset catalog"),
            Self::Dataset(sport, _) => write!(f, "{sport} dataset file"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    /// Every key each builder writes, for every sport and model type, with
    /// the artifact it must parse back to.
    fn every_built_key() -> Vec<(String, ArtifactRef)> {
        let mut out = vec![(keys::PRODUCT_CATALOG.to_owned(), ArtifactRef::ProductCatalog)];
        for &sport in Sport::ALL {
            out.push((keys::teams(sport), ArtifactRef::Teams(sport)));
            out.push((keys::scores(sport), ArtifactRef::Scores(sport)));
            out.push((keys::odds(sport), ArtifactRef::Odds(sport)));
            out.push((keys::books(sport), ArtifactRef::Books(sport)));
            out.push((keys::markets(sport), ArtifactRef::Markets(sport)));
            out.push((keys::releases_prefix(sport), ArtifactRef::Releases(sport)));
            for day in [date(2026, 11, 21), date(2027, 1, 5), date(1999, 12, 31)] {
                out.push((keys::release(sport, day), ArtifactRef::Release(sport, day)));
            }
            for filename in ["nba_history.csv", "all-seasons.zip", "v2/history.csv.gz"] {
                let dataset = ArtifactRef::Dataset(sport, filename.to_owned());
                out.push((keys::dataset(sport, filename), dataset));
            }
            for &model_type in ModelType::ALL {
                out.push((
                    keys::predictions(sport, model_type),
                    ArtifactRef::Predictions(sport, model_type),
                ));
                out.push((
                    keys::seasons_prefix(sport, model_type),
                    ArtifactRef::Seasons(sport, model_type),
                ));
                for start in [1900, 2025, 9999] {
                    let season = SeasonLabel::starting(sport, start);
                    let artifact = ArtifactRef::Season(sport, model_type, season);
                    out.push((keys::season(sport, model_type, season), artifact));
                }
            }
        }
        out
    }

    #[test]
    fn every_key_a_builder_writes_parses_back_to_its_artifact_and_rebuilds_the_same_key() {
        for (key, artifact) in every_built_key() {
            assert_eq!(ArtifactRef::parse(&key).as_ref(), Some(&artifact), "{key}");
            assert_eq!(artifact.key(), key);
        }
    }

    #[test]
    fn no_description_of_a_built_key_shows_the_key_or_a_path() {
        for (key, _) in every_built_key() {
            let said = ArtifactRef::describe_missing(&key);
            assert!(
                !said.contains('/') && !said.contains(".csv") && !said.contains(".json"),
                "{key}: {said}"
            );
            assert!(!said.contains("seasons/") && !said.contains(&key), "{key}: {said}");
        }
    }

    #[test]
    fn descriptions_name_the_sport_model_type_season_and_date() {
        let cases = [
            (
                "seasons/nba/over_under/9999-00.csv",
                "No nba over_under data for season 9999-00",
            ),
            (
                "seasons/mlb/won_on_points/2031.csv",
                "No mlb won_on_points data for season 2031",
            ),
            ("seasons/nba/over_under", "No nba over_under seasons"),
            ("predictions/nba/over_under.csv", "No nba predictions for over_under"),
            ("odds/nhl.csv", "No nhl odds"),
            ("teams/nfl.csv", "No nfl team list"),
            ("scores/ncaab.csv", "No ncaab scores"),
            ("markets/nba.csv", "No nba prediction-market prices"),
            ("releases/nba/2026-11-21.json", "No nba release for 2026-11-21"),
            ("releases/nba", "No nba releases"),
            ("products/catalog.json", "No dataset catalog"),
            ("datasets/nba/nba_history.csv", "No nba dataset file"),
        ];
        for (key, said) in cases {
            assert_eq!(ArtifactRef::describe_missing(key), said, "{key}");
        }
    }

    #[test]
    fn a_key_of_no_known_layout_gets_the_generic_sentence() {
        for key in [
            "",
            "seasons/nba/over_under/9999-00.parquet",
            "seasons/nba/over_under/2025-27.csv",
            "seasons/curling/over_under/2025-26.csv",
            "seasons/nba/spread/2025-26.csv",
            "predictions/NBA/over_under.csv",
            "odds/nba.csv/extra",
            "releases/nba/2026-1-5.json",
            "releases/nba/2026-02-30.json",
            "datasets/nba/",
            "../etc/passwd",
            "secret/bucket/path.csv",
        ] {
            assert_eq!(ArtifactRef::parse(key), None, "{key}");
            assert_eq!(
                ArtifactRef::describe_missing(key),
                "The requested data is not available",
                "{key}"
            );
        }
    }
}
