//! `GET /api/v1/odds/{sport}`: current odds for every market. The slate
//! comes from `Slate::odds`, the JSON shape from `presentation::slate`.

use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::SportPath;
use crate::presentation::slate::OddsResponse;
use crate::responses::{Rendered, serve};
use crate::state::AppState;

/// Current sportsbook odds for every game of one sport
///
/// Returns every row of the sport's odds artifact, sorted by date then ET time: the spread, moneyline and
/// total lines in American odds (null when not offered) and when the book last moved them (UTC), with
/// the served slate `date` (the rule of predictions) and the newest `last_updated`. Each call counts as
/// one request of the monthly quota; send the `ETag` back in `If-None-Match` to get a 304 without a body
/// (still counted).
///
/// See [payloads.md: Odds](/docs/payloads.md#odds-get-apiv1oddssport-ai-key).
#[utoipa::path(
    get, path = table::ODDS.path, tag = "data",
    params(crate::params::SportPath),
    responses(
        (status = 200, description = "Current odds", body = OddsResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 404, description = "No odds artifact for that sport", body = crate::error::ErrorBody)
    )
)]
pub async fn odds(req: HttpRequest, state: web::Data<AppState>, path: SportPath) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = path;
    serve(
        &req,
        &state.responses,
        &sport,
        |now| state.slate.odds(sport, now),
        |slate| Rendered::new(&OddsResponse::from(slate)),
    )
    .await
}
