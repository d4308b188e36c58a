//! Results paging and the season list.

use actix_web::{HttpRequest, HttpResponse, get, web};
use linecast_core::services::history::SeasonData;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_paging::{Order, Request, plan};
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::security::{rfc3339, season as parse_season};
use crate::error::ApiError;
use crate::params::{self, RawQuery};
use crate::responses::{CacheKey, PRIVATE, Rendered};
use crate::state::AppState;

/// A page of graded results.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResultsResponse<'a> {
    pub sport: String,
    pub model_type: String,
    /// The season served (the current one when `season` was omitted).
    pub season: String,
    /// Result rows: every stored column in artifact order (unknown extras
    /// included), the outcome column and IMPLIED recomputed, then `push`,
    /// `graded` and `ungraded_reason`.
    #[schema(value_type = Vec<Object>)]
    pub results: Vec<&'a RawValue>,
    /// Publication time of the season store.
    pub last_updated: String,
    /// Every row of the season, graded or not.
    pub total: usize,
    pub returned: usize,
    pub offset: usize,
    /// `offset + returned` while below `total`, else null.
    pub next_offset: Option<usize>,
    /// With `season`: the generation token to echo on later pages; null otherwise.
    pub snapshot: Option<String>,
    /// First game date of the season store.
    pub source_start: Option<String>,
    /// Last game date of the season store.
    pub source_end: Option<String>,
}

/// The seasons with history.
#[derive(Debug, Serialize, ToSchema)]
pub struct SeasonsResponse {
    pub sport: String,
    pub model_type: String,
    /// Newest first.
    pub seasons: Vec<String>,
    /// Latest season with a game played against a posted line.
    pub current_season: Option<String>,
    /// True while the current season has a decided game within 14 days.
    pub live: bool,
    /// The current season while live, else null.
    pub live_season: Option<String>,
}

#[utoipa::path(
    operation_id = "results", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points"),
        ("limit" = Option<u32>, Query, description = "1 to 100000, default 100", minimum = 1, maximum = 100_000),
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label (YYYY for mlb, YYYY-YY otherwise); omitted: the current season newest first"),
        ("offset" = Option<i64>, Query, description = "First row of the page, default 0", minimum = 0),
        ("snapshot" = Option<String>, Query, pattern = r"^[0-9a-f]{64}$", description = "With season: the first page's snapshot (64 hex)")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "A page of results", body = ResultsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Malformed sport, model_type, limit, offset, season or snapshot", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that sport, model type and season", body = crate::error::ErrorBody),
        (status = 409, description = "The snapshot changed between pages; restart from offset 0", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn results(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = path.into_inner();
    let sport = params::sport(&sport)?;
    let model_type = params::model_type(&model_type)?;
    let named = query.get("season").map(|s| parse_season(sport, s)).transpose()?;
    let resolution = format!(
        "results|{sport}|{model_type}|{}|{}|{}|{}|{}",
        named.map(|s| s.to_string()).unwrap_or_default(),
        query.get("limit").map_or("", String::as_str),
        query.get("offset").map_or("", String::as_str),
        query.get("snapshot").map_or("", String::as_str),
        linecast_core::services::slate::et_date(state.clock.now())
    );
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let request = Request::parse(
        named.is_some(),
        query.get("limit").map(String::as_str),
        query.get("offset").map(String::as_str),
        query.get("snapshot").map(String::as_str),
    )?;
    let season = match named {
        Some(s) => s,
        None => state.history.current(sport, model_type, state.clock.now()).await?,
    };
    let data = state.history.season(sport, model_type, season).await?;
    let total = data.total();
    let plan = plan(&request, total, &data.version.version)?;
    // The page is a pure function of the season generation and the plan.
    let key = CacheKey::new("results")
        .with(sport)
        .with(model_type)
        .with(season)
        .with(&data.version.version)
        .with(format!("{:?}", plan.order))
        .with(plan.page.offset)
        .with(plan.page.range().len())
        .with(plan.snapshot.as_deref().unwrap_or(""));
    let body = state
        .responses
        .get_or_insert(key, || page(&data, sport, model_type, season, &plan))
        .await?;
    state.resolutions.put(resolution, body.clone());
    Ok(body.respond(&req, PRIVATE))
}

fn page(
    data: &SeasonData,
    sport: Sport,
    model_type: ModelType,
    season: SeasonLabel,
    plan: &linecast_paging::Plan,
) -> Result<Rendered, ApiError> {
    let total = data.total();
    let rendered = data.rendered_rows();
    let range = plan.page.range();
    let rows: Vec<&RawValue> = match plan.order {
        Order::OldestFirst => rendered[range].iter().map(AsRef::as_ref).collect(),
        Order::NewestFirst => range.map(|i| rendered[total - 1 - i].as_ref()).collect(),
    };
    let body = ResultsResponse {
        sport: sport.code().to_owned(),
        model_type: model_type.code().to_owned(),
        season: season.to_string(),
        returned: rows.len(),
        results: rows,
        last_updated: rfc3339(data.version.last_modified),
        total,
        offset: plan.page.offset,
        next_offset: plan.page.next_offset,
        snapshot: plan.snapshot.clone(),
        source_start: data.first_date().map(|d| d.format("%Y-%m-%d").to_string()),
        source_end: data.last_date().map(|d| d.format("%Y-%m-%d").to_string()),
    };
    Rendered::new(&body)
}

#[utoipa::path(
    operation_id = "result_seasons", tag = "history",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Seasons with history", body = SeasonsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/seasons")]
pub async fn seasons(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = path.into_inner();
    let sport = params::sport(&sport)?;
    let model_type = params::model_type(&model_type)?;
    // The list is computed from the graded-season cache and the ET date;
    // the key is what it computed, so the body can never lag behind it.
    let list = state.history.season_list(sport, model_type, state.clock.now()).await?;
    let key = CacheKey::new("seasons")
        .with(sport)
        .with(model_type)
        .with(
            list.seasons
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(","),
        )
        .with(list.current_season.map(|s| s.to_string()).unwrap_or_default())
        .with(list.live);
    let current = list.current_season.map(|s| s.to_string());
    let body = state
        .responses
        .get_or_render(key, || {
            Ok(SeasonsResponse {
                sport: sport.code().to_owned(),
                model_type: model_type.code().to_owned(),
                seasons: list.seasons.iter().map(ToString::to_string).collect(),
                live_season: if list.live { current.clone() } else { None },
                current_season: current,
                live: list.live,
            })
        })
        .await?;
    Ok(body.respond(&req, PRIVATE))
}
