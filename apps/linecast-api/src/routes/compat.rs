//! Compatibility endpoints that need a key and discovery. They return
//! explicit empty payloads because no validated betting selector is active.

use actix_web::{HttpResponse, get, web};
use linecast_domain::{ModelType, Sport};
use serde::Serialize;
use utoipa::ToSchema;

use super::edge_picks::NO_SELECTOR_NOTE;
use crate::error::ApiError;
use crate::params::{self, RawQuery};
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct PicksSummary {
    pub total_picks: u32,
    #[schema(value_type = Object)]
    pub by_sport: serde_json::Map<String, serde_json::Value>,
}

/// An empty picks payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct PicksResponse {
    /// `YYYY-MM-DD` (ET).
    pub date: String,
    #[schema(value_type = Vec<Object>)]
    pub picks: Vec<serde_json::Value>,
    pub summary: PicksSummary,
    pub note: String,
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

fn empty_picks(date: String) -> PicksResponse {
    PicksResponse {
        date,
        picks: vec![],
        summary: PicksSummary {
            total_picks: 0,
            by_sport: serde_json::Map::new(),
        },
        note: NO_SELECTOR_NOTE.to_owned(),
    }
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

#[utoipa::path(
    operation_id = "picks_today", tag = "compatibility",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Empty payload", body = PicksResponse),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/today")]
pub async fn picks_today(state: web::Data<AppState>) -> HttpResponse {
    let today = linecast_core::services::slate::et_date(state.clock.now());
    HttpResponse::Ok().json(empty_picks(today.format("%Y-%m-%d").to_string()))
}

#[utoipa::path(
    operation_id = "picks_performance", tag = "compatibility",
    params(
        ("sport" = Option<crate::schema::LegacySportCode>, Query, description = "MLB, NBA, NFL, NHL, NCAAF, NCAAB"),
        ("market" = Option<crate::schema::LegacyMarketCode>, Query, description = "spread, total, moneyline")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Zeroed performance windows", body = PerformanceResponse),
        (status = 400, description = "Unknown sport or market", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/performance")]
pub async fn picks_performance(query: web::Query<RawQuery>) -> Result<HttpResponse, ApiError> {
    let codes: Vec<String> = Sport::ALL.iter().map(|s| s.upper_code()).collect();
    let sport = match query.get("sport") {
        None => None,
        Some(s) if codes.contains(s) => Some(s.clone()),
        Some(s) => return Err(ApiError::invalid_param("sport", s, &codes.join(", "))),
    };
    let market = match query.get("market").map(String::as_str) {
        None => None,
        Some(m @ ("spread" | "total" | "moneyline")) => Some(m.to_owned()),
        Some(m) => return Err(ApiError::invalid_param("market", m, "spread, total, moneyline")),
    };
    Ok(HttpResponse::Ok().json(PerformanceResponse {
        sport,
        market,
        windows: PerformanceWindows {
            last_7_days: zero(),
            last_30_days: zero(),
            season: zero(),
            all_time: zero(),
        },
        note: NO_SELECTOR_NOTE.to_owned(),
    }))
}

#[utoipa::path(
    operation_id = "picks_for_date", tag = "compatibility",
    params(("date" = String, Path, format = Date, description = "YYYY-MM-DD", example = "2026-11-21")),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Empty payload for the date", body = PicksResponse),
        (status = 400, description = "Malformed date", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{date}")]
pub async fn picks_for_date(path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let date = params::date("date", &path)?;
    Ok(HttpResponse::Ok().json(empty_picks(date.format("%Y-%m-%d").to_string())))
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

#[utoipa::path(
    operation_id = "sports", tag = "data",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Sports and model types", body = SportsResponse),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/sports")]
pub async fn sports() -> HttpResponse {
    HttpResponse::Ok().json(SportsResponse {
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
    })
}
