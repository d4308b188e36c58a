//! Health, readiness and liveness. Health reports each dependency with its
//! status and latency; readiness answers 503 when one is down. The probes and
//! their one-a-second cache are `crate::probes`; the payloads are
//! `linecast_payloads::health`.

use crate::error::ApiError;
use crate::routes::read::{NoPath, Read};
use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use linecast_operation::operation;
use linecast_payloads::health::{HealthResponse, ProbeResponse};

/// Service health with the status and latency of each dependency
///
/// Returns `healthy`, or `degraded` when a dependency is down, with `checked_at`, the version and the
/// database, cache and object-storage probes (`status`, `latency_ms`, `detail`, `error`). Probes run at
/// most one round a second, which calls in between share, and the answer is 200 either way. Open to
/// anyone, never rate-limited and never counted.
///
/// See [payloads.md: Service](/docs/payloads.md#service).
#[operation(
    tag = "service",
    responses((status = 200, description = "Dependency status; `degraded` when one is down", body = HealthResponse))
)]
pub async fn health(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    let round = read.state.health.current(&read.state.probes).await;
    read.fresh(&HealthResponse::of(
        round.at,
        &round.dependencies,
        env!("CARGO_PKG_VERSION"),
    ))
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
#[operation(
    tag = "service",
    responses(
        (status = 200, description = "This instance should take traffic", body = ProbeResponse),
    )
)]
pub async fn readiness(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    // The rule is `HealthCache::ready`: draining, starting, or a dependency
    // only this instance uses is down. A shared one (PostgreSQL, Redis, a
    // bucket) that fails later is reported by health, not here.
    match read.state.health.ready(&read.state.probes).await {
        Ok(()) => read.fresh(&ProbeResponse { status: "ready".into() }),
        Err(not_ready) => Ok(crate::error::error_response(
            StatusCode::SERVICE_UNAVAILABLE,
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
#[operation(
    tag = "service",
    responses((status = 200, description = "The process serves requests", body = ProbeResponse))
)]
pub async fn liveness(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    read.fresh(&ProbeResponse { status: "alive".into() })
}
