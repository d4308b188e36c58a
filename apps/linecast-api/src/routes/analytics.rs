//! Per-season aggregates: summary, model tracking, team form, rolling
//! curves and density grids. All come from the graded season cache, so they
//! agree with `/results` row for row.

use std::collections::HashMap;

use actix_web::{HttpRequest, HttpResponse, get, web};
use chrono::NaiveDate;
use linecast_core::StoreError;
use linecast_core::services::history::SeasonData;
use linecast_core::services::slate::et_date;
use linecast_domain::artifacts::{GameStatus, ScoreRow};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::{Density, Rolling, SummaryEntry, TeamForm, Tracking, team_form};
use serde::Serialize;
use utoipa::ToSchema;

use super::security::{rfc3339, season as parse_season};
use crate::error::ApiError;
use crate::params::{self, RawQuery};
use crate::responses::{CacheKey, PRIVATE};
use crate::schema::GradingRules;
use crate::state::AppState;

fn sport_and_type(path: &(String, String)) -> Result<(Sport, ModelType), ApiError> {
    Ok((params::sport(&path.0)?, params::model_type(&path.1)?))
}

/// Per-model performance for the current season.
#[derive(Debug, Serialize, ToSchema)]
pub struct SummaryResponse {
    pub sport: String,
    pub model_type: String,
    pub season: String,
    /// One entry per model with a graded pick (ENSEMBLE included). Keys:
    /// `model`, `total_games`, `wins`, `losses`, `abstained`, `win %`,
    /// `fade %`, `win % 1W`, `win % 4W`, `<pos> %`, `<neg> %`, their 1W and
    /// 4W variants (`over/under` or `home/away`), `ev roi`, `ev roi 1W`,
    /// `ev roi 4W`, `ev roi season`, `bt bets`, `bt wins`, `bt losses`,
    /// `bt units`. Percentages are 0-100 with one decimal, null without a
    /// denominator.
    #[schema(value_type = Vec<Object>)]
    pub summaries: Vec<SummaryEntry>,
    /// Publication time of the season store the summary was computed from.
    pub generated_date: String,
    /// The grading rules: rule name → the rule in one sentence.
    pub grading: GradingRules,
}

#[utoipa::path(
    operation_id = "summary", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Per-model summary", body = SummaryResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn summary(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = sport_and_type(&path.into_inner())?;
    let resolution = format!("summary|{sport}|{model_type}|{}", et_date(state.clock.now()));
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let season = state.history.current(sport, model_type, state.clock.now()).await?;
    let data = state.history.season(sport, model_type, season).await?;
    let key = CacheKey::new("summary")
        .with(sport)
        .with(model_type)
        .with(season)
        .with(&data.version.version);
    let summary = data.summary();
    respond_cached_as(&req, &state, key, Some(resolution), || SummaryResponse {
        sport: sport.code().to_owned(),
        model_type: model_type.code().to_owned(),
        season: season.to_string(),
        summaries: summary.entries.clone(),
        generated_date: rfc3339(data.version.last_modified),
        grading: GradingRules,
    })
    .await
}

/// Serves the body of `key` from the response cache, rendering it on a miss.
async fn respond_cached<T: Serialize>(
    req: &HttpRequest,
    state: &AppState,
    key: CacheKey,
    render: impl FnOnce() -> T,
) -> Result<HttpResponse, ApiError> {
    respond_cached_as(req, state, key, None, render).await
}

/// `respond_cached`, remembering which body the request's resolution led to.
async fn respond_cached_as<T: Serialize>(
    req: &HttpRequest,
    state: &AppState,
    key: CacheKey,
    resolution: Option<String>,
    render: impl FnOnce() -> T,
) -> Result<HttpResponse, ApiError> {
    let body = state.responses.get_or_render(key, || Ok(render())).await?;
    if let Some(resolution) = resolution {
        state.resolutions.put(resolution, body.clone());
    }
    Ok(body.respond(req, PRIVATE))
}

/// The model-tracking record of a season.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackingResponse {
    pub sport: String,
    /// The model type.
    pub model: String,
    pub season: String,
    /// source (live, walk_forward or mixed), models, total_games,
    /// ungraded_pushes, first_game_date, last_game_date, min_weekly_sample,
    /// snapshot {season, last_4w, last_1w: {MODEL: {win_pct, n}}}, weekly,
    /// recent_games, provenance, archive_games (equals the results total).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub tracking: Tracking,
    /// The grading rules: rule name → the rule in one sentence.
    pub grading: GradingRules,
    /// Publication time of the season store.
    pub last_updated: String,
}

async fn season_or_current(
    state: &AppState,
    sport: Sport,
    model_type: ModelType,
    query: &RawQuery,
) -> Result<SeasonLabel, ApiError> {
    match query.get("season") {
        Some(raw) => parse_season(sport, raw),
        None => Ok(state.history.current(sport, model_type, state.clock.now()).await?),
    }
}

#[utoipa::path(
    operation_id = "model_tracking", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points"),
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Model tracking", body = TrackingResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type, or a malformed season", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/tracking")]
pub async fn tracking(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = sport_and_type(&path.into_inner())?;
    let season = season_or_current(&state, sport, model_type, &query).await?;
    let data = state.history.season(sport, model_type, season).await?;
    let key = CacheKey::new("tracking")
        .with(sport)
        .with(model_type)
        .with(season)
        .with(&data.version.version);
    respond_cached(&req, &state, key, || TrackingResponse {
        sport: sport.code().to_owned(),
        model: model_type.code().to_owned(),
        season: season.to_string(),
        tracking: (*data.tracking()).clone(),
        grading: GradingRules,
        last_updated: rfc3339(data.version.last_modified),
    })
    .await
}

/// Team form for the current season.
#[derive(Debug, Serialize, ToSchema)]
pub struct TeamFormResponse {
    pub sport: String,
    pub model_type: String,
    pub current_season: String,
    /// Last game date of the season on the score tape (or in the store).
    pub season_end: Option<String>,
    pub last_n: usize,
    /// team, games, wins, losses, win_pct (0-1), last_10 (1/0, most recent last), streak, next_game_date.
    #[schema(value_type = Vec<Object>)]
    pub teams: Vec<TeamForm>,
    /// Publication time of the season archive used.
    pub last_updated: String,
}

#[utoipa::path(
    operation_id = "team_form", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Team form", body = TeamFormResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/team-form")]
pub async fn team_form_route(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = sport_and_type(&path.into_inner())?;
    let now = state.clock.now();
    let season = state.history.current(sport, model_type, now).await?;
    let data = state.history.season(sport, model_type, season).await?;
    let today = et_date(now);
    let tape = match state.store.scores(sport).await {
        Ok(tape) => Some(tape),
        Err(StoreError::NotFound { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    // Next game dates depend on the ET date; everything else on the season
    // generation and the score tape's.
    let key = CacheKey::new("team-form")
        .with(sport)
        .with(model_type)
        .with(season)
        .with(&data.version.version)
        .with(tape.as_ref().map_or("", |t| t.version.version.as_str()))
        .with(today);
    respond_cached(&req, &state, key, || {
        team_form_body(
            &data,
            tape.as_ref().map(|t| t.value.as_slice()),
            sport,
            model_type,
            season,
            today,
        )
    })
    .await
}

fn team_form_body(
    data: &SeasonData,
    tape: Option<&[ScoreRow]>,
    sport: Sport,
    model_type: ModelType,
    season: SeasonLabel,
    today: NaiveDate,
) -> TeamFormResponse {
    let mut next: HashMap<String, NaiveDate> = HashMap::new();
    let mut season_end = data.last_date();
    if let Some(tape) = tape {
        {
            for game in tape {
                if game.season == season {
                    season_end = season_end.max(Some(game.key.date));
                }
                if game.key.date >= today && matches!(game.status, GameStatus::Scheduled | GameStatus::InProgress) {
                    for team in [&game.key.away_team, &game.key.home_team] {
                        let entry = next.entry(team.clone()).or_insert(game.key.date);
                        *entry = (*entry).min(game.key.date);
                    }
                }
            }
        }
    }
    let teams = team_form(&data.table.rows, sport, model_type, |team| next.get(team).copied());
    TeamFormResponse {
        sport: sport.code().to_owned(),
        model_type: model_type.code().to_owned(),
        current_season: season.to_string(),
        season_end: season_end.map(|d| d.format("%Y-%m-%d").to_string()),
        last_n: 10,
        teams,
        last_updated: rfc3339(data.version.last_modified),
    }
}

/// Rolling 4-week curves, one per archived season.
#[derive(Debug, Serialize, ToSchema)]
pub struct RollingResponse {
    pub sport: String,
    pub model_type: String,
    /// seasons: [{season, models: {MODEL: [{date, win_pct, n}]}}], historical_average: {MODEL: win_pct}.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub rolling: Rolling,
    /// Publication time of the newest season archive used.
    pub last_updated: Option<String>,
}

#[utoipa::path(
    operation_id = "rolling", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Rolling curves", body = RollingResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/rolling")]
pub async fn rolling_route(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = sport_and_type(&path.into_inner())?;
    let cross = state.history.rolling(sport, model_type).await?;
    let key = CacheKey::new("rolling")
        .with(sport)
        .with(model_type)
        .with(&cross.generations);
    respond_cached(&req, &state, key, || RollingResponse {
        sport: sport.code().to_owned(),
        model_type: model_type.code().to_owned(),
        rolling: (*cross.value).clone(),
        last_updated: cross.last_updated.map(rfc3339),
    })
    .await
}

/// Result density: BLEND bins by season.
#[derive(Debug, Serialize, ToSchema)]
pub struct DensityResponse {
    pub sport: String,
    pub model_type: String,
    pub current_season: String,
    /// x_labels (BLEND bins of width 0.05), y_labels (seasons, the current and up to ten before), cells[season][bin] = {n, hit_rate}.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub chart: Density,
    /// Publication time of the newest season archive used.
    pub last_updated: Option<String>,
}

#[utoipa::path(
    operation_id = "density", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Density grid", body = DensityResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/density")]
pub async fn density_route(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = sport_and_type(&path.into_inner())?;
    let cross = state.history.density(sport, model_type, state.clock.now()).await?;
    let key = CacheKey::new("density")
        .with(sport)
        .with(model_type)
        .with(&cross.generations);
    respond_cached(&req, &state, key, || DensityResponse {
        sport: sport.code().to_owned(),
        model_type: model_type.code().to_owned(),
        current_season: cross.current.map(|s| s.to_string()).unwrap_or_default(),
        chart: (*cross.value).clone(),
        last_updated: cross.last_updated.map(rfc3339),
    })
    .await
}
