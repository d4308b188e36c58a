//! `GET /api/v1/markets/{sport}`: model vs sportsbook vs prediction market,
//! moneyline only. The comparison is `Markets::compare` (a failing
//! prediction-market source yields null `kalshi_*` fields, never a failed
//! request); the JSON shape is `presentation::markets`.

use crate::responses::fresh;
use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::SportPath;
use crate::presentation::markets::MarketsResponse;
use crate::state::AppState;

#[utoipa::path(
    get, path = table::MARKETS.path, tag = "data",
    params(crate::params::SportPath),
    responses(
        (status = 200, description = "Model vs sportsbook vs prediction market", body = MarketsResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 404, description = "No moneyline predictions for that sport", body = crate::error::ErrorBody)
    )
)]
pub async fn markets(req: HttpRequest, state: web::Data<AppState>, path: SportPath) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = path;
    let comparison = state.markets.compare(sport, state.clock.now()).await?;
    fresh(&req, &MarketsResponse::from(&comparison))
}
