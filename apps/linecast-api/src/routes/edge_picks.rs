//! The legacy edge-picks family: explicit empty payloads, because no
//! validated betting selector is active (`Slate::picks_for`); the shapes are
//! `presentation::compat`.

use actix_web::{HttpResponse, get, web};

use crate::params::{DatePath, RawQuery};
use crate::presentation::compat::{EdgePicksResponse, TrackRecordResponse};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "edge_picks", tag = "compatibility",
    params(("sport" = Option<String>, Query, description = "Accepted and ignored")),
    responses(
        (status = 200, description = "Empty payload", body = EdgePicksResponse),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("")]
pub async fn edge_picks(state: web::Data<AppState>, _query: web::Query<RawQuery>) -> HttpResponse {
    HttpResponse::Ok().json(EdgePicksResponse::from(state.slate.picks_for(None)))
}

#[utoipa::path(
    operation_id = "edge_picks_track_record", tag = "compatibility",
    responses(
        (status = 200, description = "Empty track record", body = TrackRecordResponse),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("/track-record")]
pub async fn track_record() -> HttpResponse {
    HttpResponse::Ok().json(TrackRecordResponse::empty())
}

#[utoipa::path(
    operation_id = "edge_picks_for_date", tag = "compatibility",
    params(("date_str" = String, Path, format = Date, description = "YYYY-MM-DD", example = "2026-11-21")),
    responses(
        (status = 200, description = "Empty payload for the date", body = EdgePicksResponse),
        (status = 400, description = "Malformed date", body = crate::error::ErrorBody),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("/{date_str}")]
pub async fn edge_picks_for_date(state: web::Data<AppState>, path: DatePath) -> HttpResponse {
    let DatePath(date) = path;
    HttpResponse::Ok().json(EdgePicksResponse::from(state.slate.picks_for(Some(date))))
}
