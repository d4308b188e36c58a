//! Health, readiness and liveness. Health reports each dependency with its
//! status and latency; readiness answers 503 when one is down.

use std::collections::BTreeMap;
use std::time::Instant;

use actix_web::{HttpResponse, get, web};
use futures::future::join_all;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// One dependency's check.
#[derive(Debug, Serialize, ToSchema)]
pub struct DependencyStatus {
    /// `ok` or `down`.
    pub status: String,
    /// How long the check took.
    pub latency_ms: f64,
    /// Extra facts (cache entries and bytes, backend kind).
    #[schema(value_type = Object)]
    pub detail: serde_json::Value,
    /// Why it is down; null when ok.
    pub error: Option<String>,
}

/// The health payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthResponse {
    /// `healthy` when every dependency is ok, otherwise `degraded`.
    pub status: String,
    pub version: String,
    /// `database`, `cache` and `object_storage`.
    pub dependencies: BTreeMap<String, DependencyStatus>,
}

/// Readiness / liveness payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProbeResponse {
    /// `ready`, `not_ready` or `alive`.
    pub status: String,
}

pub(crate) async fn check_all(state: &AppState) -> BTreeMap<String, DependencyStatus> {
    let checks = state.probes.iter().map(|probe| async move {
        let started = Instant::now();
        let result = probe.check().await;
        let latency_ms = (started.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0;
        let status = match result {
            Ok(detail) => DependencyStatus {
                status: "ok".into(),
                latency_ms,
                detail,
                error: None,
            },
            Err(reason) => {
                tracing::warn!(dependency = probe.name(), reason = %reason, "health check failed");
                DependencyStatus {
                    status: "down".into(),
                    latency_ms,
                    detail: serde_json::json!({}),
                    error: Some(reason),
                }
            }
        };
        (probe.name().to_owned(), status)
    });
    join_all(checks).await.into_iter().collect()
}

#[utoipa::path(
    get, path = "/api/v1/health", operation_id = "health", tag = "service",
    responses((status = 200, description = "Dependency status; `degraded` when one is down", body = HealthResponse))
)]
#[get("/api/v1/health")]
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let dependencies = check_all(&state).await;
    let healthy = dependencies.values().all(|d| d.status == "ok");
    HttpResponse::Ok().json(HealthResponse {
        status: if healthy { "healthy" } else { "degraded" }.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        dependencies,
    })
}

#[utoipa::path(
    get, path = "/api/v1/readiness", operation_id = "readiness", tag = "service",
    responses(
        (status = 200, description = "Every dependency answers", body = ProbeResponse),
        (status = 503, description = "A dependency is down", body = crate::error::ErrorBody)
    )
)]
#[get("/api/v1/readiness")]
pub async fn readiness(state: web::Data<AppState>) -> HttpResponse {
    let dependencies = check_all(&state).await;
    let down: Vec<&str> = dependencies
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
    get, path = "/api/v1/liveness", operation_id = "liveness", tag = "service",
    responses((status = 200, description = "The process serves requests", body = ProbeResponse))
)]
#[get("/api/v1/liveness")]
pub async fn liveness() -> HttpResponse {
    HttpResponse::Ok().json(ProbeResponse { status: "alive".into() })
}
