//! `GET /api/v1/markets/{sport}`: model vs sportsbook vs prediction market,
//! moneyline only. The comparison is `Markets::compare` (a failing
//! prediction-market source yields null `kalshi_*` fields, never a failed
//! request); the JSON shape is `linecast_payloads::markets`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_operation::operation;
use linecast_payloads::markets::MarketsResponse;

use crate::error::ApiError;
use crate::params::SportPath;

/// Model vs sportsbook vs prediction-market probabilities, moneyline only
///
/// Returns today's slate (the `upcoming_only=true` rule of predictions) with, per game, BLEND's home and
/// away probabilities, the sportsbook's no-vig probabilities, the prediction market's prices and the
/// model's edge over the lowest available home price (probabilities to 4 decimals). The prediction-market
/// fields are null once the game has started, for ncaaf and ncaab, when no market matches, or when the
/// source fails or times out; the call still answers 200. Any valid key on a plan with API access may
/// call it, whatever the subscription's state; each call counts as one request of the monthly quota.
///
/// See [payloads.md: Prediction markets](/docs/payloads.md#prediction-markets-get-apiv1marketssport-any-valid-key).
#[operation(
    tag = "data",
    params(crate::params::SportPath),
    responses(
        (status = 200, description = "Model vs sportsbook vs prediction market", body = MarketsResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 404, description = "No moneyline predictions for that sport", body = crate::error::ErrorBody)
    )
)]
pub async fn markets(read: Read<SportPath>) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = read.path;
    let comparison = read.state.markets.compare(sport, read.state.clock.now()).await?;
    read.fresh(&MarketsResponse::from(&comparison))
}
