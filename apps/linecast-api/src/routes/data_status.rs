//! `GET /api/v1/data-status/{sport}`: is today's slate being served? The
//! report is `Freshness::status`; the JSON shape is `presentation::freshness`.

use actix_web::{HttpResponse, get, web};

use crate::error::ApiError;
use crate::params::SportPath;
use crate::presentation::freshness::DataStatusResponse;
use crate::state::AppState;

#[utoipa::path(
    operation_id = "data_status", tag = "public",
    params(crate::params::SportPath),
    responses(
        (status = 200, description = "Freshness of today's artifacts; storage errors give status unknown", body = DataStatusResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}")]
pub async fn data_status(state: web::Data<AppState>, path: SportPath) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = path;
    let report = state.freshness.status(sport, state.clock.now()).await;
    Ok(HttpResponse::Ok().json(DataStatusResponse::from(&report)))
}
