//! Results paging and the season list: HTTP only. The season choice and
//! the page plan are the core history service's; the JSON shapes are
//! `presentation::history`.

use actix_web::{HttpRequest, HttpResponse, get, web};
use linecast_domain::time::et_date;
use linecast_paging::Request;

use crate::error::ApiError;
use crate::params::season as parse_season;
use crate::params::{RawQuery, SportModelPath};
use crate::presentation::history::{ResultsResponse, SeasonsResponse};
use crate::responses::{CacheKey, PRIVATE, Rendered, Resolutions};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "results", tag = "history",
    params(
        crate::params::SportModelPath,
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
        (status = 404, description = "No season store for that sport, model type and season", body = crate::error::ErrorBody),
        (status = 409, description = "The snapshot changed between pages; restart from offset 0", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn results(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let named = query.get("season").map(|s| parse_season(sport, s)).transpose()?;
    let raw = |name: &str| query.get(name).map(String::as_str);
    let now = state.clock.now();
    let resolution = Resolutions::key(
        "results",
        &[
            &sport,
            &model_type,
            &named.map(|s| s.to_string()).unwrap_or_default(),
            &raw("limit").unwrap_or_default(),
            &raw("offset").unwrap_or_default(),
            &raw("snapshot").unwrap_or_default(),
        ],
        et_date(now),
    );
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let request = Request::parse(named.is_some(), raw("limit"), raw("offset"), raw("snapshot"))?;
    let page = state
        .history
        .results_page(sport, model_type, named, &request, now)
        .await?;
    let plan = &page.plan;
    // The page is a pure function of the season generation and the plan.
    let key = CacheKey::new("results")
        .with(sport)
        .with(model_type)
        .with(page.season)
        .with(&page.data.version.version)
        .with(format!("{:?}", plan.order))
        .with(plan.page.offset)
        .with(plan.page.range().len())
        .with(plan.snapshot.as_deref().unwrap_or(""));
    let body = state
        .responses
        .get_or_insert(key, || {
            let rendered = page.data.rendered_rows();
            Rendered::new(&ResultsResponse::new(sport, model_type, &page, &rendered))
        })
        .await?;
    state.resolutions.put(resolution, body.clone());
    Ok(body.respond(&req, PRIVATE))
}

#[utoipa::path(
    operation_id = "result_seasons", tag = "history",
    params(
        crate::params::SportModelPath
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Seasons with history", body = SeasonsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/seasons")]
pub async fn seasons(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
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
    state
        .responses
        .serve(&req, None, key, || SeasonsResponse::new(sport, model_type, &list))
        .await
}
