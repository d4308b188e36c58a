//! `GET /api/v1/predictions/{sport}/{model_type}`: today's model
//! probabilities with the market's lines and EV per side. The handler only
//! speaks HTTP: the slate comes from `Slate::predictions`, the JSON shape
//! from `presentation::slate`.

use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::{self, RawQuery, SportModelPath};
use crate::presentation::slate::PredictionsResponse;
use crate::responses::{Rendered, serve, settled};
use crate::state::AppState;

/// Today's model probabilities and lines for one sport and model type
///
/// Returns the predictions artifact of the sport and model type: per game, each model column's probability
/// of the positive side (home for moneyline and spread, over for totals), `IMPLIED` from the current
/// prices, the current and opening lines and the EV of each side. With `upcoming_only=true` (the default;
/// `1/0`, `yes/no` and `on/off` also work) games dated before the served slate are left out: today's ET
/// slate once today's run has completed, otherwise the newest earlier slate whose run completed; `false`
/// returns every row of the artifact. With `as_of=<RFC 3339>` the answer is what this endpoint answered at
/// that instant: the kept release current then (named by the `release` object), with `upcoming_only` judged
/// on that instant's ET date; it never changes, so it is served with `Cache-Control: private, max-age=86400`.
/// A future instant is a 400, an instant before the first kept release a 404 saying when history starts.
/// Each call counts as one request of the monthly quota; send the
/// `ETag` back in `If-None-Match` to get a 304 without a body (still counted).
///
/// See [payloads.md: Predictions](/docs/payloads.md#predictions-get-apiv1predictionssportmodel_type-ai-key).
#[utoipa::path(
    get, path = table::PREDICTIONS.path, tag = "data",
    params(
        crate::params::SportModelPath,
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact."),
        ("as_of" = Option<String>, Query, format = DateTime, description = "An RFC 3339 instant in the past: answer as this endpoint answered then, from the kept release current at that instant.", example = "2026-11-20T14:00:00Z")
    ),
    responses(
        (status = 200, description = "Today's predictions", body = PredictionsResponse),
        (status = 400, description = "Unknown sport or model type, a malformed boolean, or a malformed or future as_of", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and model type, or no release kept at or before as_of (the detail says when history starts)", body = crate::error::ErrorBody)
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
    if let Some(instant) = params::instant(&query, "as_of")? {
        return serve(
            &req,
            &state.responses,
            &(sport, model_type, upcoming_only, instant),
            |now| {
                state
                    .releases
                    .predictions_at(sport, model_type, upcoming_only, instant, now)
            },
            |slate| Rendered::new(&PredictionsResponse::from(slate)),
        )
        .await
        .map(settled);
    }
    serve(
        &req,
        &state.responses,
        &(sport, model_type, upcoming_only),
        |now| state.slate.predictions(sport, model_type, upcoming_only, now),
        |slate| Rendered::new(&PredictionsResponse::from(slate)),
    )
    .await
}
