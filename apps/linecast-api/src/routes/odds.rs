//! `GET /api/v1/odds/{sport}`: current odds for every market. The slate
//! comes from `Slate::odds`, the JSON shape from `presentation::slate`.

use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::SportPath;
use crate::presentation::slate::OddsResponse;
use crate::responses::{Rendered, serve};
use crate::state::AppState;

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
