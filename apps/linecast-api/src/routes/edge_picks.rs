//! The legacy edge-picks family: explicit empty payloads, because no
//! validated betting selector is active (`Slate::picks_for`); the shapes are
//! `linecast_payloads::compat`.

use crate::error::ApiError;
use crate::routes::read::{NoPath, Read};
use actix_web::HttpResponse;
use linecast_operation::operation;
use linecast_payloads::compat::{EdgePicksResponse, TrackRecordResponse};

use crate::params::DatePath;

/// Legacy edge picks: always an empty list
///
/// Returns `{date, picks: [], total: 0, note}`: no validated betting selector is active, so the list is
/// empty. `sport` is accepted and ignored. No key is needed and nothing is counted against a quota; calls
/// are within the per-address limit of public routes.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "compatibility",
    params(("sport" = Option<String>, Query, description = "Accepted and ignored")),
    responses(
        (status = 200, description = "Empty payload", body = EdgePicksResponse)
    )
)]
pub async fn edge_picks(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    read.fresh(&EdgePicksResponse::from(read.state.slate.picks_for(None)))
}

/// Legacy edge-pick track record: always empty
///
/// Returns `{total_picks: 0, wins: 0, losses: 0, win_pct: null, roi: null, history: [], note}`, since no
/// validated betting selector is active. No key is needed and nothing is counted against a quota; calls
/// are within the per-address limit of public routes.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "compatibility",
    responses(
        (status = 200, description = "Empty track record", body = TrackRecordResponse)
    )
)]
pub async fn edge_picks_track_record(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    read.fresh(&TrackRecordResponse::empty())
}

/// Legacy edge picks of one date: always an empty list
///
/// Returns `{date, picks: [], total: 0, note}` for `date_str`, which must be a real calendar date written
/// `YYYY-MM-DD` (anything else is a 400); no validated betting selector is active. No key is needed and
/// nothing is counted against a quota; calls are within the per-address limit of public routes.
///
/// See [payloads.md: Legacy and compatibility](/docs/payloads.md#legacy-and-compatibility).
#[operation(
    tag = "compatibility",
    params(("date_str" = String, Path, format = Date, max_length = 10, description = "YYYY-MM-DD", example = "2026-11-21")),
    responses(
        (status = 200, description = "Empty payload for the date", body = EdgePicksResponse),
        (status = 400, description = "Malformed date", body = crate::error::ErrorBody)
    )
)]
pub async fn edge_picks_for_date(read: Read<DatePath>) -> Result<HttpResponse, ApiError> {
    let DatePath(date) = read.path;
    read.fresh(&EdgePicksResponse::from(read.state.slate.picks_for(Some(date))))
}
