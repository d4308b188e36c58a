//! `GET /api/v1/predictions/{sport}/{model_type}`: today's model
//! probabilities with the market's lines and EV per side. The handler only
//! speaks HTTP: the slate comes from `Slate::predictions`, the JSON shape
//! from `presentation::slate`.

use actix_web::{HttpRequest, HttpResponse, get, web};
use linecast_domain::time::et_date;

use crate::error::ApiError;
use crate::params::{self, RawQuery, SportModelPath};
use crate::presentation::slate::PredictionsResponse;
use crate::responses::{CacheKey, PRIVATE, Resolutions};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "predictions", tag = "data",
    params(
        crate::params::SportModelPath,
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact.")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Today's predictions", body = PredictionsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type, or a malformed boolean", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and model type", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn predictions(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let upcoming_only = params::boolean(&query, "upcoming_only", true)?;
    let now = state.clock.now();
    let resolution = Resolutions::key("predictions", &[&sport, &model_type, &upcoming_only], et_date(now));
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let served = state.slate.predictions(sport, model_type, upcoming_only, now).await?;
    // The body depends on the artifact's generation and, for the slate view,
    // on the served slate date; nothing else.
    let key = CacheKey::new("predictions")
        .with(sport)
        .with(model_type)
        .with(&served.predictions.version.version)
        .with(if upcoming_only {
            served.slate_date.to_string()
        } else {
            "all".to_owned()
        });
    let body = state
        .responses
        .get_or_render(key, || Ok(PredictionsResponse::from(&served)))
        .await?;
    state.resolutions.put(resolution, body.clone());
    Ok(body.respond(&req, PRIVATE))
}
