//! `GET /api/v1/data-status/{sport}`: is today's slate being served? The
//! report is `Freshness::status`; the JSON shape is `linecast_payloads::freshness`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_operation::operation;
use linecast_payloads::freshness::DataStatusResponse;

use crate::error::ApiError;
use crate::params::SportPath;

/// Whether today's slate of one sport is served, and how fresh it is
///
/// Returns the sport's data `status` (`pending`, `updating`, `fresh`, `off_day`, `partial`, `stale` or
/// `unknown`), whether today's slate is `operational`, the 10:15 ET deadline, the release served and
/// each market's publication and refresh state. The answer is always 200 for a known sport: storage
/// failures show as `status: unknown`. No key is needed and nothing is counted against a quota; calls
/// are within the per-address limit of public routes (a 429 `rate_limited` past it).
///
/// See [payloads.md: Data status](/docs/payloads.md#data-status-get-apiv1data-statussport-no-key).
#[operation(
    tag = "public",
    params(crate::params::SportPath),
    responses(
        (status = 200, description = "Freshness of today's artifacts; storage errors give status unknown", body = DataStatusResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody)
    )
)]
pub async fn data_status(read: Read<SportPath>) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = read.path;
    let report = read.state.freshness.status(sport, read.state.clock.now()).await;
    read.fresh(&DataStatusResponse::from(&report))
}
