//! Health, readiness and liveness. Health reports each dependency with its
//! status and latency; readiness answers 503 when one is down.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{HttpResponse, get, web};
use futures::future::join_all;
use serde::Serialize;
use utoipa::ToSchema;

use crate::state::AppState;

/// One dependency's check.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DependencyStatus {
    /// `ok` or `down`.
    pub status: String,
    /// How long the check took.
    pub latency_ms: f64,
    /// Extra facts (cache parse counts); never a path, bucket or URL.
    #[schema(value_type = DependencyDetail)]
    pub detail: serde_json::Value,
    /// Null when ok; when down, a fixed sentence (the cause, which may name
    /// a path, bucket or URL, is only logged).
    pub error: Option<String>,
}

/// What `detail` of a dependency may hold: the cache reports its kind and
/// parse count; the database and object storage, and any dependency that is
/// down, report the empty object.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DependencyDetail {
    /// What the cache is, e.g. `in-process (moka), parsed artifacts by object version`.
    #[schema(required = false)]
    pub kind: String,
    /// Artifacts parsed since start.
    #[schema(required = false)]
    pub parses: u64,
}

/// The health payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthResponse {
    /// `healthy` when every dependency is ok, otherwise `degraded`.
    pub status: String,
    /// When this round of probes ran (ISO 8601). Probes run at most once a
    /// second; calls in between get the same round.
    pub checked_at: String,
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

/// How long one round of probe results is served before the next round.
pub const HEALTH_TTL: Duration = Duration::from_secs(1);

/// The last round of probe results. Health and readiness read it; a round
/// older than `HEALTH_TTL` is replaced by the first caller (the others wait
/// for it rather than probing too), so a flood of health calls costs one
/// round of probes a second.
#[derive(Default)]
pub struct HealthCache {
    last: tokio::sync::Mutex<Option<(Instant, Arc<Round>)>>,
}

/// One round of probes.
pub(crate) struct Round {
    pub(crate) at: chrono::DateTime<chrono::Utc>,
    pub(crate) dependencies: BTreeMap<String, DependencyStatus>,
}

impl HealthCache {
    async fn current(&self, state: &AppState) -> Arc<Round> {
        let mut last = self.last.lock().await;
        if let Some((at, report)) = last.as_ref()
            && at.elapsed() < HEALTH_TTL
        {
            return report.clone();
        }
        let report = Arc::new(Round {
            at: chrono::Utc::now(),
            dependencies: probe_all(state).await,
        });
        for (name, dependency) in &report.dependencies {
            crate::metrics::dependency_up(name, dependency.status == "ok");
        }
        *last = Some((Instant::now(), report.clone()));
        report
    }
}

/// Runs every probe once. The public report says only `ok` or `down` and
/// the latency; the reason (which may name a path, bucket or URL) goes to
/// the log.
async fn probe_all(state: &AppState) -> BTreeMap<String, DependencyStatus> {
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
                    error: Some("unavailable; the cause is in the server log".to_owned()),
                }
            }
        };
        (probe.name().to_owned(), status)
    });
    join_all(checks).await.into_iter().collect()
}

pub(crate) async fn check_all(state: &AppState) -> Arc<Round> {
    state.health.current(state).await
}

#[utoipa::path(
    operation_id = "health", tag = "service",
    responses((status = 200, description = "Dependency status; `degraded` when one is down", body = HealthResponse))
)]
#[get("/api/v1/health")]
pub async fn health(state: web::Data<AppState>) -> HttpResponse {
    let round = check_all(&state).await;
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
#[get("/api/v1/readiness")]
pub async fn readiness(state: web::Data<AppState>) -> HttpResponse {
    let round = check_all(&state).await;
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
#[get("/api/v1/liveness")]
pub async fn liveness() -> HttpResponse {
    HttpResponse::Ok().json(ProbeResponse { status: "alive".into() })
}
