//! Per-season aggregates: summary, model tracking, calibration, team form,
//! rolling curves and density grids: HTTP only. All come from the core history
//! service's graded season cache, so they agree with `/results` row for
//! row; the JSON shapes are `presentation::history`.

use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};
use linecast_grading::calibration::CalibrationSource;

use crate::error::ApiError;
use crate::params::season as parse_season;
use crate::params::{RawQuery, SportModelPath};
use crate::presentation::calibration::{
    CalibrationFormatCode, CalibrationResponse, CalibrationSourceCode, CalibrationView,
};
use crate::presentation::history::{
    DensityResponse, RollingResponse, SummaryResponse, TeamFormResponse, TrackingResponse,
};
use crate::responses::{Rendered, serve};
use crate::state::AppState;

#[utoipa::path(
    get, path = table::SUMMARY.path, tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Per-model summary", body = SummaryResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
pub async fn summary(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    serve(
        &req,
        &state.responses,
        &(sport, model_type),
        |now| state.history.chosen_season(sport, model_type, None, now),
        |data| Rendered::new(&SummaryResponse::new(data)),
    )
    .await
}

#[utoipa::path(
    get, path = table::TRACKING.path, tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season")
    ),
    responses(
        (status = 200, description = "Model tracking", body = TrackingResponse),
        (status = 400, description = "Unknown sport or model type, or a malformed season", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
pub async fn model_tracking(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let named = query.get("season").map(|raw| parse_season(sport, raw)).transpose()?;
    serve(
        &req,
        &state.responses,
        &(sport, model_type, named),
        |now| state.history.chosen_season(sport, model_type, named, now),
        |data| Rendered::new(&TrackingResponse::new(data)),
    )
    .await
}

#[utoipa::path(
    get, path = table::TEAM_FORM.path, tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Team form", body = TeamFormResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
pub async fn team_form(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    serve(
        &req,
        &state.responses,
        &(sport, model_type),
        |now| state.history.team_form_inputs(sport, model_type, now),
        |inputs| Rendered::new(&TeamFormResponse::new(inputs, inputs.assemble())),
    )
    .await
}

#[utoipa::path(
    get, path = table::ROLLING.path, tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Rolling curves", body = RollingResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody)
    )
)]
pub async fn rolling(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    serve(
        &req,
        &state.responses,
        &(sport, model_type),
        |_| state.history.rolling(sport, model_type),
        |cross| Rendered::new(&RollingResponse::new(sport, model_type, cross)),
    )
    .await
}

#[utoipa::path(
    get, path = table::DENSITY.path, tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Density grid", body = DensityResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
pub async fn density(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    serve(
        &req,
        &state.responses,
        &(sport, model_type),
        |now| state.history.density(sport, model_type, now),
        |cross| Rendered::new(&DensityResponse::new(sport, model_type, cross)),
    )
    .await
}

#[utoipa::path(
    get, path = table::CALIBRATION.path, tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season (the same choice as summary)"),
        ("source" = Option<CalibrationSourceCode>, Query, description = "`all` (default), `live` (model_probability_source = live) or `reconstructed` (walk_forward or reconstructed_oos)"),
        ("format" = Option<CalibrationFormatCode>, Query, description = "`json` (default) or `svg` (a reliability diagram)"),
        ("models" = Option<String>, Query, description = "With `format=svg`: comma-separated model columns to draw (IMPLIED, BLEND, AI, CATB, RF, LGB, LOGR, XGB, XT); default BLEND,IMPLIED")
    ),
    responses(
        (status = 200, description = "Calibration, proper scores, skill against the market and closing-line value per model; `format=svg` answers `image/svg+xml`", body = CalibrationResponse,
            content(
                (CalibrationResponse = "application/json"),
                (String = "image/svg+xml")
            )
        ),
        (status = 400, description = "Unknown sport or model type, a malformed season, or a bad source, format or models value", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
pub async fn model_calibration(
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
    let view = CalibrationView::parse(query.get("format"), query.get("models"))?;
    serve(
        &req,
        &state.responses,
        &(sport, model_type, named, source, &view),
        |now| state.history.calibration(sport, model_type, named, source, now),
        |(data, calibration)| view.render(data, source, calibration),
    )
    .await
}
