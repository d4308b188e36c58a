//! Per-season aggregates: summary, model tracking, calibration, team form,
//! rolling curves and density grids: HTTP only. All come from the core history
//! service's graded season cache, so they agree with `/results` row for
//! row; the JSON shapes are `presentation::history`.

use actix_web::{HttpRequest, HttpResponse, get, web};
use linecast_domain::ModelColumn;
use linecast_domain::time::et_date;
use linecast_grading::calibration::{CalibrationSource, MODELS};

use crate::error::ApiError;
use crate::params::season as parse_season;
use crate::params::{RawQuery, SportModelPath};
use crate::presentation::calibration::{
    CalibrationFormatCode, CalibrationResponse, CalibrationSourceCode, DEFAULT_DIAGRAM_MODELS, reliability_svg,
};
use crate::presentation::history::{
    DensityResponse, RollingResponse, SummaryResponse, TeamFormResponse, TrackingResponse,
};
use crate::responses::{CacheKey, PRIVATE, Rendered, Resolutions};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "summary", tag = "history",
    params(
        crate::params::SportModelPath
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Per-model summary", body = SummaryResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn summary(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let now = state.clock.now();
    let resolution = Resolutions::key("summary", &[&sport, &model_type], et_date(now));
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let data = state.history.chosen_season(sport, model_type, None, now).await?;
    let key = CacheKey::new("summary")
        .with(sport)
        .with(model_type)
        .with(data.season)
        .with(&data.version.version);
    state
        .responses
        .serve(&req, Some((&state.resolutions, resolution)), key, || {
            SummaryResponse::new(&data)
        })
        .await
}

#[utoipa::path(
    operation_id = "model_tracking", tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Model tracking", body = TrackingResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type, or a malformed season", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/tracking")]
pub async fn tracking(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let named = query.get("season").map(|raw| parse_season(sport, raw)).transpose()?;
    let data = state
        .history
        .chosen_season(sport, model_type, named, state.clock.now())
        .await?;
    let key = CacheKey::new("tracking")
        .with(sport)
        .with(model_type)
        .with(data.season)
        .with(&data.version.version);
    state
        .responses
        .serve(&req, None, key, || TrackingResponse::new(&data))
        .await
}

#[utoipa::path(
    operation_id = "team_form", tag = "history",
    params(
        crate::params::SportModelPath
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Team form", body = TeamFormResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/team-form")]
pub async fn team_form_route(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let inputs = state
        .history
        .team_form_inputs(sport, model_type, state.clock.now())
        .await?;
    // Next game dates depend on the ET date; everything else on the season
    // generation and the score tape's.
    let key = CacheKey::new("team-form")
        .with(sport)
        .with(model_type)
        .with(inputs.season)
        .with(&inputs.data.version.version)
        .with(inputs.tape_version())
        .with(inputs.today);
    state
        .responses
        .serve(&req, None, key, || TeamFormResponse::new(&inputs, inputs.assemble()))
        .await
}

#[utoipa::path(
    operation_id = "rolling", tag = "history",
    params(
        crate::params::SportModelPath
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Rolling curves", body = RollingResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/rolling")]
pub async fn rolling_route(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let cross = state.history.rolling(sport, model_type).await?;
    let key = CacheKey::new("rolling")
        .with(sport)
        .with(model_type)
        .with(&cross.generations);
    state
        .responses
        .serve(&req, None, key, || RollingResponse::new(sport, model_type, &cross))
        .await
}

#[utoipa::path(
    operation_id = "density", tag = "history",
    params(
        crate::params::SportModelPath
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Density grid", body = DensityResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/density")]
pub async fn density_route(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let cross = state.history.density(sport, model_type, state.clock.now()).await?;
    let key = CacheKey::new("density")
        .with(sport)
        .with(model_type)
        .with(&cross.generations);
    state
        .responses
        .serve(&req, None, key, || DensityResponse::new(sport, model_type, &cross))
        .await
}

#[utoipa::path(
    operation_id = "model_calibration", tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season (the same choice as summary)"),
        ("source" = Option<CalibrationSourceCode>, Query, description = "`all` (default), `live` (model_probability_source = live) or `reconstructed` (walk_forward or reconstructed_oos)"),
        ("format" = Option<CalibrationFormatCode>, Query, description = "`json` (default) or `svg` (a reliability diagram)"),
        ("models" = Option<String>, Query, description = "With `format=svg`: comma-separated model columns to draw (IMPLIED, BLEND, AI, CATB, RF, LGB, LOGR, XGB, XT); default BLEND,IMPLIED")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Calibration, proper scores, skill against the market and closing-line value per model; `format=svg` answers `image/svg+xml`", body = CalibrationResponse,
            content(
                (CalibrationResponse = "application/json"),
                (String = "image/svg+xml")
            )
        ),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type, a malformed season, or a bad source, format or models value", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}/calibration")]
pub async fn calibration(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let named = query.get("season").map(|raw| parse_season(sport, raw)).transpose()?;
    let source = query
        .get("source")
        .map_or(Ok(CalibrationSource::All), |raw| CalibrationSource::parse(raw))
        .map_err(|e| ApiError::invalid_param("source", &e.value, &e.allowed))?;
    let svg = match query.get("format").map(String::as_str) {
        None | Some("json") => false,
        Some("svg") => true,
        Some(other) => return Err(ApiError::invalid_param("format", other, "json, svg")),
    };
    let models = query.get("models").map(|raw| diagram_models(raw)).transpose()?;
    let data = state
        .history
        .chosen_season(sport, model_type, named, state.clock.now())
        .await?;
    let calibration = data.calibration(source);
    let key = CacheKey::new("calibration")
        .with(sport)
        .with(model_type)
        .with(data.season)
        .with(&data.version.version)
        .with(source.code());
    if !svg {
        return state
            .responses
            .serve(&req, None, key.with("json"), || {
                CalibrationResponse::new(&data, source, &calibration)
            })
            .await;
    }
    let drawn = models.unwrap_or_else(|| DEFAULT_DIAGRAM_MODELS.to_vec());
    let names: Vec<&str> = drawn.iter().map(|m| m.code()).collect();
    let body = state
        .responses
        .get_or_insert(key.with("svg").with(names.join(",")), || {
            reliability_svg(&data, source, &calibration, &drawn)
                .map(|svg| Rendered::from_bytes(svg.into(), "image/svg+xml"))
        })
        .await?;
    Ok(body.respond(&req, PRIVATE))
}

/// The `models` of a diagram: model columns with a probability, each once,
/// in the order given.
fn diagram_models(raw: &str) -> Result<Vec<ModelColumn>, ApiError> {
    let allowed = || MODELS.iter().map(|m| m.code()).collect::<Vec<_>>().join(", ");
    let mut models = Vec::new();
    for name in raw.split(',').map(str::trim) {
        let model = MODELS
            .into_iter()
            .find(|m| m.code() == name)
            .ok_or_else(|| ApiError::invalid_param("models", name, &allowed()))?;
        if !models.contains(&model) {
            models.push(model);
        }
    }
    Ok(models)
}
