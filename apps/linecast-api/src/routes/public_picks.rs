//! `GET /api/v1/public/ml-picks/{sport}/{market}`: the free, unauthenticated
//! feed of today's slate with display names and a pick per game from BLEND.
//! The pick rule is `linecast_core::services::slate::public_pick`; labels
//! and formats are `linecast_payloads::slate`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_operation::operation;
use linecast_payloads::slate::PublicPicksResponse;

use crate::error::ApiError;
use crate::params::{self, SportMarketPath};
use crate::responses::Rendered;

/// Free feed of today's games with BLEND's pick for one market
///
/// Returns the slate's games with display team names, the side BLEND favours (`pick`, `pick_side`,
/// `confidence`), the market line, the picked side's no-vig probability, the current and opening lines
/// and each model column's probability. `upcoming_only` works as on predictions (default `true`: games
/// before the served slate are left out; `false` returns the whole artifact). No key is needed and nothing
/// is counted against a quota; calls are within the per-address limit of public routes (a 429
/// `rate_limited` past it), and caches may keep a response for 30 seconds.
///
/// See [payloads.md: Public picks](/docs/payloads.md#public-picks-get-apiv1publicml-pickssportmarket).
#[operation(
    tag = "public",
    params(
        crate::params::SportMarketPath,
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact.")
    ),
    responses(
        (status = 200, description = "Today's free picks", body = PublicPicksResponse),
        (status = 400, description = "Unknown sport or market, or a malformed boolean", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and market", body = crate::error::ErrorBody),
    )
)]
pub async fn public_ml_picks(read: Read<SportMarketPath>) -> Result<HttpResponse, ApiError> {
    let SportMarketPath { sport, market } = read.path;
    let key = (sport, market, params::boolean(&read.query, "upcoming_only", true)?);
    let load = |now| read.state.slate.public_picks(sport, market, key.2, now);
    read.serve(&key, load, |feed| Rendered::new(&PublicPicksResponse::from(feed)))
        .await
}
