//! The JSON shapes of the legacy picks family (`/picks`, `/edge-picks`) and
//! of sports discovery. The listings are explicit empty payloads because no
//! validated betting selector is active (`linecast_core::services::slate::NoPicks`).

use linecast_core::services::slate::NoPicks;
use linecast_domain::{ModelType, Sport};
use serde::Serialize;
use utoipa::ToSchema;

pub(crate) const NO_SELECTOR_NOTE: &str = "No validated betting selector is active; this endpoint returns an explicit empty payload. Model outputs are research signals, not picks.";

/// A list that is always empty: no validated betting selector is active, so
/// no pick (and no graded pick) exists.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoItems;

impl Serialize for NoItems {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        s.serialize_seq(Some(0))?.end()
    }
}

impl utoipa::PartialSchema for NoItems {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder};
        ArrayBuilder::new()
            .items(ObjectBuilder::new())
            .max_items(Some(0))
            .description(Some("Always empty: no validated betting selector is active."))
            .into()
    }
}

impl ToSchema for NoItems {}

/// Picks per sport; always empty (no validated betting selector is active).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPicksBySport;

impl Serialize for NoPicksBySport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        s.serialize_map(Some(0))?.end()
    }
}

impl utoipa::PartialSchema for NoPicksBySport {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some(
                "Picks per sport: always the empty object, no validated betting selector is active.",
            ))
            .into()
    }
}

impl ToSchema for NoPicksBySport {}

/// An empty edge-picks payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct EdgePicksResponse {
    /// The date asked for, or null for the undated listing.
    #[schema(format = Date)]
    pub date: Option<String>,
    /// Always empty.
    pub picks: NoItems,
    /// Always 0.
    pub total: u32,
    pub note: String,
}

/// An empty track record.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackRecordResponse {
    pub total_picks: u32,
    pub wins: u32,
    pub losses: u32,
    /// Null: no graded pick exists.
    pub win_pct: Option<f64>,
    /// Null: no graded pick exists.
    pub roi: Option<f64>,
    pub history: NoItems,
    pub note: String,
}

impl From<NoPicks> for EdgePicksResponse {
    fn from(listing: NoPicks) -> Self {
        Self {
            date: listing.date.map(|d| d.format("%Y-%m-%d").to_string()),
            picks: NoItems,
            total: 0,
            note: NO_SELECTOR_NOTE.into(),
        }
    }
}

impl TrackRecordResponse {
    /// The track record of a selector that never picked.
    pub fn empty() -> Self {
        Self {
            total_picks: 0,
            wins: 0,
            losses: 0,
            win_pct: None,
            roi: None,
            history: NoItems,
            note: NO_SELECTOR_NOTE.into(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PicksSummary {
    pub total_picks: u32,
    pub by_sport: NoPicksBySport,
}

/// An empty picks payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct PicksResponse {
    /// `YYYY-MM-DD` (ET).
    #[schema(format = Date)]
    pub date: String,
    pub picks: NoItems,
    pub summary: PicksSummary,
    pub note: String,
}

impl From<NoPicks> for PicksResponse {
    fn from(listing: NoPicks) -> Self {
        Self {
            date: listing
                .date
                .map(|d| d.format("%Y-%m-%d").to_string())
                .unwrap_or_default(),
            picks: NoItems,
            summary: PicksSummary {
                total_picks: 0,
                by_sport: NoPicksBySport,
            },
            note: NO_SELECTOR_NOTE.to_owned(),
        }
    }
}

/// One zeroed performance window.
#[derive(Debug, Serialize, ToSchema)]
pub struct PerformanceWindow {
    pub picks: u32,
    pub wins: u32,
    pub losses: u32,
    pub pushes: u32,
    pub win_pct: Option<f64>,
    pub roi: Option<f64>,
    pub units: f64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PerformanceWindows {
    pub last_7_days: PerformanceWindow,
    pub last_30_days: PerformanceWindow,
    pub season: PerformanceWindow,
    pub all_time: PerformanceWindow,
}

/// Zeroed performance.
#[derive(Debug, Serialize, ToSchema)]
pub struct PerformanceResponse {
    /// The requested sport (upper case) or null for all.
    pub sport: Option<String>,
    /// The requested market or null for all.
    pub market: Option<String>,
    pub windows: PerformanceWindows,
    pub note: String,
}

fn zero() -> PerformanceWindow {
    PerformanceWindow {
        picks: 0,
        wins: 0,
        losses: 0,
        pushes: 0,
        win_pct: None,
        roi: None,
        units: 0.0,
    }
}

impl PerformanceResponse {
    /// Zeroed windows for the sport and market asked for.
    pub fn zeroed(sport: Option<String>, market: Option<String>) -> Self {
        Self {
            sport,
            market,
            windows: PerformanceWindows {
                last_7_days: zero(),
                last_30_days: zero(),
                season: zero(),
                all_time: zero(),
            },
            note: NO_SELECTOR_NOTE.to_owned(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CodeName {
    pub code: String,
    pub name: String,
}

/// What the API covers.
#[derive(Debug, Serialize, ToSchema)]
pub struct SportsResponse {
    pub sports: Vec<CodeName>,
    pub model_types: Vec<CodeName>,
}

impl SportsResponse {
    /// Every sport and model type of the catalog.
    pub fn catalog() -> Self {
        Self {
            sports: Sport::ALL
                .iter()
                .map(|s| CodeName {
                    code: s.code().to_owned(),
                    name: s.name().to_owned(),
                })
                .collect(),
            model_types: ModelType::ALL
                .iter()
                .map(|m| CodeName {
                    code: m.code().to_owned(),
                    name: m.name().to_owned(),
                })
                .collect(),
        }
    }
}
