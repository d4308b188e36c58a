//! `GET /api/v1/public/ledger` and `GET /api/v1/public/ledger/{date}`: the
//! public ledger of releases, free and unauthenticated like the free feed.
//! What a day answers is `linecast_core::services::ledger`; the chain rule
//! is `linecast_ledger`; the shapes are `linecast_payloads::ledger`.

use actix_web::HttpResponse;
use linecast_payloads::ledger::{LedgerDayResponse, LedgerRootsResponse};

use crate::error::ApiError;
use crate::params::DatePath;
use crate::responses::Rendered;
use crate::routes::read::{NoPath, Read};
use linecast_operation::operation;

/// The roots of the public ledger, by day
///
/// Every sealed UTC day, oldest first, with the root it chains from (`previous_root`), its own `root` and
/// how many releases it lists. A day is sealed at 01:00 UTC the next day; from the first kept release's
/// day on, every day has a root (a day without releases hashes the empty list), and a root, once listed,
/// never changes. `chain` states how a root is computed. No key is needed and nothing is counted against
/// a quota; calls are within the per-address limit of public routes (a 429 `rate_limited` past it), and
/// caches may keep a response for 30 seconds.
///
/// See [payloads.md: Ledger](/docs/payloads.md#ledger).
#[operation(
    tag = "public",
    responses(
        (status = 200, description = "The sealed days' roots, oldest first", body = LedgerRootsResponse),
    )
)]
pub async fn public_ledger(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    let load = |now| read.state.ledger.roots(now);
    read.serve(&(), load, |roots| Rendered::new(&LedgerRootsResponse::from(roots)))
        .await
}

/// Every release published on one UTC day, with the day's root
///
/// Lists each kept release published on `date` (UTC) with its `series`, `published_at` (every digit) and
/// `digest` (SHA-256 of its bytes), by `published_at`, then `series`, then `digest`, and the `late`
/// releases of earlier days recorded after their day was sealed. A sealed day (`complete: true`, from
/// 01:00 UTC the next day) carries `previous_root` and `root`, and never changes. Today is
/// `complete: false`: the releases published so far, with no root. A date after today is a 400 naming
/// `date`; a past date before the ledger's first day is a 404. No key is needed and nothing is counted
/// against a quota; calls are within the per-address limit of public routes.
///
/// See [payloads.md: Ledger](/docs/payloads.md#ledger).
#[operation(
    tag = "public",
    params(("date" = String, Path, format = Date, max_length = 10, description = "The UTC day, YYYY-MM-DD; not after today", example = "2026-11-14")),
    responses(
        (status = 200, description = "The day's releases, and its root once sealed", body = LedgerDayResponse),
        (status = 400, description = "Malformed date, or a date after today", body = crate::error::ErrorBody),
        (status = 404, description = "A past date before the ledger's first day", body = crate::error::ErrorBody),
    )
)]
pub async fn public_ledger_day(read: Read<DatePath>) -> Result<HttpResponse, ApiError> {
    let DatePath(date) = read.path;
    let load = |now| read.state.ledger.day(date, now);
    read.serve(&date, load, |day| Rendered::new(&LedgerDayResponse::from(day)))
        .await
}
