//! Compatibility endpoints that need a key, and discovery. The picks
//! listings are explicit empty payloads because no validated betting
//! selector is active (`Slate::picks_today`, `Slate::picks_for`); the
//! shapes are `presentation::compat`.

use actix_web::{HttpResponse, get, web};
use linecast_domain::Sport;

use crate::error::ApiError;
use crate::params::{DatePath, RawQuery};
use crate::presentation::compat::{PerformanceResponse, PicksResponse, SportsResponse};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "picks_today", tag = "compatibility",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Empty payload", body = PicksResponse),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/today")]
pub async fn picks_today(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok().json(PicksResponse::from(state.slate.picks_today(state.clock.now())))
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
    Ok(HttpResponse::Ok().json(PerformanceResponse::zeroed(sport, market)))
}

#[utoipa::path(
    operation_id = "picks_for_date", tag = "compatibility",
    params(("date" = String, Path, format = Date, description = "YYYY-MM-DD", example = "2026-11-21")),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Empty payload for the date", body = PicksResponse),
        (status = 400, description = "Malformed date", body = crate::error::ErrorBody),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{date}")]
pub async fn picks_for_date(state: web::Data<AppState>, path: DatePath) -> HttpResponse {
    let DatePath(date) = path;
    HttpResponse::Ok().json(PicksResponse::from(state.slate.picks_for(Some(date))))
}

#[utoipa::path(
    operation_id = "sports", tag = "data",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Sports and model types", body = SportsResponse),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/sports")]
pub async fn sports() -> HttpResponse {
    HttpResponse::Ok().json(SportsResponse::catalog())
}
