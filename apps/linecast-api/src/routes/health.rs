//! Health, readiness and liveness. Health reports each dependency with its
//! status and latency; readiness answers 503 when one is down. The probes and
//! their one-a-second cache are `crate::probes`; the payloads are
//! `presentation::health`.

use actix_web::{HttpResponse, get, web};

use crate::presentation::health::{HealthResponse, ProbeResponse};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "health", tag = "service",
    responses((status = 200, description = "Dependency status; `degraded` when one is down", body = HealthResponse))
)]
#[get("")]
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let round = state.health.current(&state.probes).await;
    let dependencies = &round.dependencies;
    let healthy = dependencies.values().all(|d| d.status == "ok");
    HttpResponse::Ok().json(HealthResponse {
        status: if healthy { "healthy" } else { "degraded" }.to_owned(),
        checked_at: round.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        dependencies: dependencies.clone(),
    })
}

#[utoipa::path(
    operation_id = "readiness", tag = "service",
    responses(
        (status = 200, description = "Every dependency answers", body = ProbeResponse),
        (status = 503, description = "A dependency is down", body = crate::error::ErrorBody)
    )
)]
#[get("")]
pub async fn readiness(state: web::Data<AppState>) -> HttpResponse {
    let round = state.health.current(&state.probes).await;
    let down: Vec<&str> = round
        .dependencies
        .iter()
        .filter(|(_, d)| d.status != "ok")
        .map(|(n, _)| n.as_str())
        .collect();
    if down.is_empty() {
        HttpResponse::Ok().json(ProbeResponse { status: "ready".into() })
    } else {
        crate::error::error_response(
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
            &format!("Not ready: {} unavailable", down.join(", ")),
        )
    }
}

#[utoipa::path(
    operation_id = "liveness", tag = "service",
    responses((status = 200, description = "The process serves requests", body = ProbeResponse))
)]
#[get("")]
pub async fn liveness() -> HttpResponse {
    HttpResponse::Ok().json(ProbeResponse { status: "alive".into() })
}
