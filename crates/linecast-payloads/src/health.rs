//! The health, readiness and liveness payloads.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

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
    #[schema(format = DateTime)]
    pub checked_at: String,
    pub version: String,
    /// `database`, `cache`, `object_storage`, and `redis` when Redis is configured.
    pub dependencies: BTreeMap<String, DependencyStatus>,
}

impl HealthResponse {
    /// A round of probes checked `at`: `healthy` when every dependency is
    /// ok; `version` is the server's.
    pub fn of(
        at: chrono::DateTime<chrono::Utc>,
        dependencies: &BTreeMap<String, DependencyStatus>,
        version: &str,
    ) -> Self {
        let healthy = dependencies.values().all(|d| d.status == "ok");
        Self {
            status: if healthy { "healthy" } else { "degraded" }.to_owned(),
            checked_at: at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            version: version.to_owned(),
            dependencies: dependencies.clone(),
        }
    }
}

/// Readiness / liveness payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProbeResponse {
    /// `ready`, `not_ready` or `alive`.
    pub status: String,
}
