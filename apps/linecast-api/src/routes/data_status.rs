//! `GET /api/v1/data-status/{sport}`: is today's slate being served? The
//! report is `Freshness::status`; the JSON shape is `presentation::freshness`.

use crate::responses::fresh;
use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::SportPath;
use crate::presentation::freshness::DataStatusResponse;
use crate::state::AppState;

#[utoipa::path(
    get, path = table::DATA_STATUS.path, tag = "public",
    params(crate::params::SportPath),
    responses(
        (status = 200, description = "Freshness of today's artifacts; storage errors give status unknown", body = DataStatusResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody)
    )
)]
pub async fn data_status(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportPath,
) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = path;
    let report = state.freshness.status(sport, state.clock.now()).await;
    fresh(&req, &DataStatusResponse::from(&report))
}
