//! Strategy leaderboards and replays. `accounting` absent means the
//! deprecated `legacy_v1`, announced with a `Deprecation` header.

use actix_web::{HttpRequest, HttpResponse, get, web};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_strategies::{Accounting, Leaderboard, Replay, strategy_ids};
use serde::Serialize;
use utoipa::ToSchema;

use super::security::{rfc3339, season as parse_season};
use crate::error::ApiError;
use crate::params::{self, RawQuery};
use crate::responses::{CacheKey, PRIVATE};
use crate::state::AppState;

/// The leaderboard of the sixteen strategies.
#[derive(Debug, Serialize, ToSchema)]
pub struct StrategiesResponse<'a> {
    pub season: String,
    /// Publication time of the season store.
    pub last_updated: String,
    /// sport, market, min_sample (30), accounting, price_basis, strategies
    /// [{id, name, signal, rank, wins, losses, record, win_pct, roi, n, ranked,
    /// units; recorded_v2 adds pushes, candidates, exclusions}].
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub leaderboard: &'a Leaderboard,
}

/// One strategy replayed game by game.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReplayResponse<'a> {
    pub season: String,
    pub last_updated: String,
    /// sport, market, min_sample, accounting, price_basis, strategy (the
    /// leaderboard entry plus units), games_considered, games (oldest first:
    /// date, time_est, teams, scores, side, price, open_line, close_line, won,
    /// outcome, profit_units, running_units), excluded_rows (with
    /// include_excluded=true).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub replay: &'a Replay,
}

fn accounting(query: &RawQuery) -> Result<Accounting, ApiError> {
    match query.get("accounting") {
        None => Ok(Accounting::LegacyV1),
        Some(raw) => {
            Accounting::parse(raw).map_err(|_| ApiError::invalid_param("accounting", raw, "legacy_v1, recorded_v2"))
        }
    }
}

async fn season(
    state: &AppState,
    sport: Sport,
    model_type: ModelType,
    query: &RawQuery,
) -> Result<SeasonLabel, ApiError> {
    match query.get("season") {
        Some(raw) => parse_season(sport, raw),
        None => state
            .history
            .seasons(sport, model_type)
            .await?
            .first()
            .copied()
            .ok_or_else(|| ApiError::NotFound(format!("No season store for {sport} {model_type}"))),
    }
}

/// When `legacy_v1` became deprecated: 2026-11-21T00:00:00Z, the first
/// linecast release, which shipped `recorded_v2` as its replacement (D15).
pub const LEGACY_V1_DEPRECATED_AT: i64 = 1_795_219_200;

/// The RFC 9745 `Deprecation` value: `@` and the Unix seconds of the
/// deprecation date (a Structured Fields date).
pub fn deprecation_header_value() -> String {
    format!("@{LEGACY_V1_DEPRECATED_AT}")
}

/// Serves the body of `key` from the response cache (rendering it on a
/// miss), with the deprecation header of legacy_v1.
async fn respond<T: Serialize>(
    req: &HttpRequest,
    state: &AppState,
    key: CacheKey,
    accounting: Accounting,
    render: impl FnOnce() -> T,
) -> Result<HttpResponse, ApiError> {
    let body = state.responses.get_or_render(key, || Ok(render())).await?;
    let mut res = body.respond(req, PRIVATE);
    if accounting.is_deprecated()
        && let Ok(value) = actix_web::http::header::HeaderValue::from_str(&deprecation_header_value())
    {
        res.headers_mut()
            .insert(actix_web::http::header::HeaderName::from_static("deprecation"), value);
    }
    Ok(res)
}

#[utoipa::path(
    operation_id = "strategies", tag = "strategies",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points"),
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "YYYY for mlb, YYYY-YY otherwise; default the latest season in the store"),
        ("accounting" = Option<crate::schema::AccountingCode>, Query, description = "legacy_v1 (default, deprecated) or recorded_v2")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "The leaderboard; legacy_v1 carries a Deprecation header", body = StrategiesResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type, malformed season or accounting", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn strategies(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = path.into_inner();
    let sport = params::sport(&sport)?;
    let model_type = params::model_type(&model_type)?;
    let accounting = accounting(&query)?;
    let season = season(&state, sport, model_type, &query).await?;
    let data = state.history.season(sport, model_type, season).await?;
    let key = CacheKey::new("strategies")
        .with(sport)
        .with(model_type)
        .with(season)
        .with(&data.version.version)
        .with(accounting.code());
    let board = data.strategies(accounting);
    respond(&req, &state, key, accounting, || StrategiesResponse {
        season: season.to_string(),
        last_updated: rfc3339(data.version.last_modified),
        leaderboard: &board,
    })
    .await
}

#[utoipa::path(
    operation_id = "strategy_replay", tag = "strategies",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points"),
        ("strategy_id" = crate::schema::StrategyId, Path, description = "One of the sixteen ids, e.g. line-pb, edge-nf, hybrid-pb-pb", example = "edge-pb"),
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "YYYY for mlb, YYYY-YY otherwise; default the latest season in the store"),
        ("accounting" = Option<crate::schema::AccountingCode>, Query, description = "legacy_v1 (default, deprecated) or recorded_v2"),
        ("include_excluded" = Option<bool>, Query, description = "true adds excluded_rows with a reason each")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "The replay; its totals equal the leaderboard entry", body = ReplayResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown strategy id (the detail lists the valid ids), sport or model type; malformed season, accounting or include_excluded", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/replay/{strategy_id}")]
pub async fn replay(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String, String)>,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type, strategy_id) = path.into_inner();
    let sport = params::sport(&sport)?;
    let model_type = params::model_type(&model_type)?;
    if !strategy_ids().contains(&strategy_id.as_str()) {
        return Err(ApiError::invalid_param(
            "strategy_id",
            &strategy_id,
            &strategy_ids().join(", "),
        ));
    }
    let accounting = accounting(&query)?;
    let include_excluded = params::boolean(&query, "include_excluded", false)?;
    let season = season(&state, sport, model_type, &query).await?;
    let data = state.history.season(sport, model_type, season).await?;
    let replay = if include_excluded {
        data.replay(accounting, &strategy_id)
    } else {
        data.replay_without_excluded(accounting, &strategy_id)
    }
    .map_err(|e| ApiError::invalid_param("strategy_id", &e.id, &strategy_ids().join(", ")))?;
    let key = CacheKey::new("replay")
        .with(sport)
        .with(model_type)
        .with(season)
        .with(&data.version.version)
        .with(accounting.code())
        .with(&strategy_id)
        .with(include_excluded);
    respond(&req, &state, key, accounting, || ReplayResponse {
        season: season.to_string(),
        last_updated: rfc3339(data.version.last_modified),
        replay: &replay,
    })
    .await
}
