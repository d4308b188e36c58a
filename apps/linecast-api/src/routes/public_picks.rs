//! `GET /api/v1/public/ml-picks/{sport}/{market}`: the free, unauthenticated
//! feed of today's slate with display names and a pick per game from BLEND.
//! The pick rule is `linecast_core::services::slate::public_pick`; labels
//! and formats are `presentation::slate`.

use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::ApiError;
use crate::params::{self, RawQuery, SportMarketPath};
use crate::presentation::slate::PublicPicksResponse;
use crate::responses::{Rendered, serve};
use crate::state::AppState;

#[utoipa::path(
    get, path = table::PUBLIC_ML_PICKS.path, tag = "public",
    params(
        crate::params::SportMarketPath,
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact.")
    ),
    responses(
        (status = 200, description = "Today's free picks", body = PublicPicksResponse),
        (status = 400, description = "Unknown sport or market, or a malformed boolean", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and market", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage unavailable", body = crate::error::ErrorBody)
    )
)]
pub async fn public_ml_picks(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportMarketPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportMarketPath { sport, market } = path;
    let upcoming_only = params::boolean(&query, "upcoming_only", true)?;
    serve(
        &req,
        &state.responses,
        &(sport, market, upcoming_only),
        |now| state.slate.public_picks(sport, market, upcoming_only, now),
        |feed| Rendered::new(&PublicPicksResponse::from(feed)),
    )
    .await
}
