//! `GET /api/v1/predictions/{sport}/{model_type}`: today's model
//! probabilities with the market's lines and EV per side. The handler only
//! speaks HTTP: the slate comes from `Slate::predictions`, the JSON shape
//! from `presentation::slate`.

use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::{self, RawQuery, SportModelPath};
use crate::presentation::slate::PredictionsResponse;
use crate::responses::{Rendered, serve};
use crate::state::AppState;

#[utoipa::path(
    get, path = table::PREDICTIONS.path, tag = "data",
    params(
        crate::params::SportModelPath,
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact.")
    ),
    responses(
        (status = 200, description = "Today's predictions", body = PredictionsResponse),
        (status = 400, description = "Unknown sport or model type, or a malformed boolean", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and model type", body = crate::error::ErrorBody)
    )
)]
pub async fn predictions(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let upcoming_only = params::boolean(&query, "upcoming_only", true)?;
    serve(
        &req,
        &state.responses,
        &(sport, model_type, upcoming_only),
        |now| state.slate.predictions(sport, model_type, upcoming_only, now),
        |slate| Rendered::new(&PredictionsResponse::from(slate)),
    )
    .await
}
