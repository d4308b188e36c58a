//! The legacy edge-picks family: explicit empty payloads, because no
//! validated betting selector is active.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::params::{self, RawQuery};

pub(crate) const NO_SELECTOR_NOTE: &str = "No validated betting selector is active; this endpoint returns an explicit empty payload. Model outputs are research signals, not picks.";

/// An empty edge-picks payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct EdgePicksResponse {
    /// The date asked for, or null for the undated listing.
    pub date: Option<String>,
    /// Always empty.
    #[schema(value_type = Vec<Object>)]
    pub picks: Vec<serde_json::Value>,
    /// Always 0.
    pub total: u32,
    pub note: String,
}

/// An empty track record.
#[derive(Debug, Serialize, ToSchema)]
pub struct TrackRecordResponse {
    pub total_picks: u32,
    pub wins: u32,
    pub losses: u32,
    /// Null: no graded pick exists.
    pub win_pct: Option<f64>,
    /// Null: no graded pick exists.
    pub roi: Option<f64>,
    #[schema(value_type = Vec<Object>)]
    pub history: Vec<serde_json::Value>,
    pub note: String,
}

#[utoipa::path(
    operation_id = "edge_picks", tag = "compatibility",
    params(("sport" = Option<String>, Query, description = "Accepted and ignored")),
    responses(
        (status = 200, description = "Empty payload", body = EdgePicksResponse),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("")]
pub async fn edge_picks(_query: web::Query<RawQuery>) -> HttpResponse {
    HttpResponse::Ok().json(EdgePicksResponse {
        date: None,
        picks: vec![],
        total: 0,
        note: NO_SELECTOR_NOTE.into(),
    })
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
    HttpResponse::Ok().json(TrackRecordResponse {
        total_picks: 0,
        wins: 0,
        losses: 0,
        win_pct: None,
        roi: None,
        history: vec![],
        note: NO_SELECTOR_NOTE.into(),
    })
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
pub async fn edge_picks_for_date(path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let date = params::date("date_str", &path)?;
    Ok(HttpResponse::Ok().json(EdgePicksResponse {
        date: Some(date.format("%Y-%m-%d").to_string()),
        picks: vec![],
        total: 0,
        note: NO_SELECTOR_NOTE.into(),
    }))
}
