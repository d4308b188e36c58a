//! Compatibility endpoints that need a key, and discovery. The picks
//! listings are explicit empty payloads because no validated betting
//! selector is active (`Slate::picks_today`, `Slate::picks_for`); the
//! shapes are `linecast_payloads::compat`.

use crate::routes::read::{NoPath, Read};
use actix_web::HttpResponse;
use linecast_domain::Sport;
use linecast_operation::operation;
use linecast_payloads::compat::{PerformanceResponse, PicksResponse, SportsResponse};

use crate::error::ApiError;
use crate::params::DatePath;

/// Legacy picks of today: always an empty list
///
/// Returns `{date, picks: [], summary: {total_picks: 0, by_sport: {}}, note}`: no validated betting
/// selector is active. Any valid key on a plan with API access may call it; each call counts as one
/// request of the monthly quota.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "compatibility",
    responses(
        (status = 200, description = "Empty payload", body = PicksResponse),
    )
)]
pub async fn picks_today(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    read.fresh(&PicksResponse::from(
        read.state.slate.picks_today(read.state.clock.now()),
    ))
}

/// Legacy pick performance: every window at zero
///
/// Returns `{sport, market, windows, note}` with the `last_7_days`, `last_30_days`, `season` and
/// `all_time` windows at zero (null win rate and ROI). `sport` (`MLB`, `NBA`, `NFL`, `NHL`, `NCAAF`,
/// `NCAAB`) and `market` (`spread`, `total`, `moneyline`) are optional and echoed; any other value is a
/// 400. Any valid key on a plan with API access may call it; each call counts as one request of the
/// monthly quota.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "compatibility",
    params(
        ("sport" = Option<linecast_payloads::schema::LegacySportCode>, Query, description = "MLB, NBA, NFL, NHL, NCAAF, NCAAB"),
        ("market" = Option<linecast_payloads::schema::LegacyMarketCode>, Query, description = "spread, total, moneyline")
    ),
    responses(
        (status = 200, description = "Zeroed performance windows", body = PerformanceResponse),
        (status = 400, description = "Unknown sport or market", body = crate::error::ErrorBody),
    )
)]
pub async fn picks_performance(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    let codes: Vec<String> = Sport::ALL.iter().map(|s| s.upper_code()).collect();
    let sport = match read.query.get("sport") {
        None => None,
        Some(s) if codes.contains(s) => Some(s.clone()),
        Some(s) => return Err(ApiError::invalid_param("sport", s, &codes.join(", "))),
    };
    let market = match read.query.get("market").map(String::as_str) {
        None => None,
        Some(m @ ("spread" | "total" | "moneyline")) => Some(m.to_owned()),
        Some(m) => return Err(ApiError::invalid_param("market", m, "spread, total, moneyline")),
    };
    read.fresh(&PerformanceResponse::zeroed(sport, market))
}

/// Legacy picks of one date: always an empty list
///
/// Returns `{date, picks: [], summary: {total_picks: 0, by_sport: {}}, note}` for `date`, which must be
/// a real calendar date written `YYYY-MM-DD` (anything else is a 400); no validated betting selector is
/// active. Any valid key on a plan with API access may call it; each call counts as one request of the
/// monthly quota.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "compatibility",
    params(("date" = String, Path, format = Date, max_length = 10, description = "YYYY-MM-DD", example = "2026-11-21")),
    responses(
        (status = 200, description = "Empty payload for the date", body = PicksResponse),
        (status = 400, description = "Malformed date", body = crate::error::ErrorBody),
    )
)]
pub async fn picks_for_date(read: Read<DatePath>) -> Result<HttpResponse, ApiError> {
    let DatePath(date) = read.path;
    read.fresh(&PicksResponse::from(read.state.slate.picks_for(Some(date))))
}

/// The sports and model types the API serves
///
/// Returns `sports` and `model_types`, each as `{code, name}`: the codes are the values of the `sport`
/// and `model_type` path segments, and the model types are Over/Under, Moneyline and Point Spread. Needs
/// an active subscription; each call counts as one request of the monthly quota.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "data",
    responses(
        (status = 200, description = "Sports and model types", body = SportsResponse),
    )
)]
pub async fn sports(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    read.fresh(&SportsResponse::catalog())
}
