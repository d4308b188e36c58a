//! Health, readiness and liveness. Health reports each dependency with its
//! status and latency; readiness answers 503 when one is down. The probes and
//! their one-a-second cache are `crate::probes`; the payloads are
//! `linecast_payloads::health`.

use crate::error::ApiError;
use crate::responses::fresh;
use crate::routes::table;
use actix_web::{HttpRequest, HttpResponse, web};
use linecast_payloads::health::{HealthResponse, ProbeResponse};

use crate::state::AppState;

/// Service health with the status and latency of each dependency
///
/// Returns `healthy`, or `degraded` when a dependency is down, with `checked_at`, the version and the
/// database, cache and object-storage probes (`status`, `latency_ms`, `detail`, `error`). Probes run at
/// most one round a second, which calls in between share, and the answer is 200 either way. Open to
/// anyone, never rate-limited and never counted.
///
/// See [payloads.md: Service](/docs/payloads.md#service).
#[utoipa::path(
    get, path = table::HEALTH.path, tag = "service",
    responses((status = 200, description = "Dependency status; `degraded` when one is down", body = HealthResponse))
)]
pub async fn health(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let round = state.health.current(&state.probes).await;
    let dependencies = &round.dependencies;
    let healthy = dependencies.values().all(|d| d.status == "ok");
    fresh(
        &req,
        &HealthResponse {
            status: if healthy { "healthy" } else { "degraded" }.to_owned(),
            checked_at: round.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            dependencies: dependencies.clone(),
        },
    )
}

/// Readiness probe for a load balancer
///
/// Returns `{status: "ready"}` when this instance should take traffic, or a 503 in the error shape
/// when it should not: it is draining before it stops, it is starting (a dependency has never
/// answered since start), or a dependency only it uses (a SQLite file, a local store folder) is
/// down. A shared dependency (PostgreSQL, Redis, a bucket) failing after start does not fail
/// readiness: `/api/v1/health` reports it. Open to anyone, never rate-limited and never counted.
///
/// See [payloads.md: Service](/docs/payloads.md#service).
#[utoipa::path(
    get, path = table::READINESS.path, tag = "service",
    responses(
        (status = 200, description = "This instance should take traffic", body = ProbeResponse),
        (status = 503, description = "Draining, starting, or a dependency only this instance uses is down", body = crate::error::ErrorBody)
    )
)]
pub async fn readiness(req: HttpRequest, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    // The rule is `HealthCache::ready`: draining, starting, or a dependency
    // only this instance uses is down. A shared one (PostgreSQL, Redis, a
    // bucket) that fails later is reported by health, not here.
    match state.health.ready(&state.probes).await {
        Ok(()) => fresh(&req, &ProbeResponse { status: "ready".into() }),
        Err(not_ready) => Ok(crate::error::error_response(
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
            &not_ready.detail(),
        )),
    }
}

/// Liveness probe: the process serves requests
///
/// Returns `{status: "alive"}` whenever the process can answer, whatever the state of its dependencies.
/// Open to anyone, never rate-limited and never counted.
///
/// See [payloads.md: Service](/docs/payloads.md#service).
#[utoipa::path(
    get, path = table::LIVENESS.path, tag = "service",
    responses((status = 200, description = "The process serves requests", body = ProbeResponse))
)]
pub async fn liveness(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    fresh(&req, &ProbeResponse { status: "alive".into() })
}
