//! Dependency probes and the health cache: each probe checks one dependency
//! (database, cache, object storage; the three adapters' probes are here
//! too); one round of them runs at most once a second whatever the number
//! of health calls.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use futures::future::join_all;
use linecast_core::{Accounts, ArtifactStore};
use linecast_store::ObjectArtifactStore;

use crate::presentation::health::DependencyStatus;

/// One dependency reported by `/api/v1/health`.
#[async_trait]
pub trait Probe: Send + Sync {
    /// Stable name: `database`, `cache` or `object_storage`.
    fn name(&self) -> &'static str;
    /// `Ok(detail)` when healthy, `Err(reason)` when not.
    async fn check(&self) -> Result<serde_json::Value, String>;
}

/// How long one round of probe results is served before the next round.
pub const HEALTH_TTL: Duration = Duration::from_secs(1);

/// The last round of probe results. Health and readiness read it; a round
/// older than `HEALTH_TTL` is replaced by the first caller (the others wait
/// for it rather than probing too), so a flood of health calls costs one
/// round of probes a second. It also holds whether the instance is
/// draining (a stop signal arrived): readiness then fails whatever the
/// probes say.
#[derive(Default)]
pub struct HealthCache {
    last: tokio::sync::Mutex<Option<(Instant, Arc<Round>)>>,
    draining: std::sync::atomic::AtomicBool,
}

/// One round of probes.
pub(crate) struct Round {
    pub(crate) at: chrono::DateTime<chrono::Utc>,
    pub(crate) dependencies: BTreeMap<String, DependencyStatus>,
}

impl HealthCache {
    /// From now on readiness fails: the instance is about to stop.
    pub fn start_draining(&self) {
        self.draining.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether a stop signal arrived (`start_draining`).
    pub fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    pub(crate) async fn current(&self, probes: &[Arc<dyn Probe>]) -> Arc<Round> {
        let mut last = self.last.lock().await;
        if let Some((at, report)) = last.as_ref()
            && at.elapsed() < HEALTH_TTL
        {
            return report.clone();
        }
        let report = Arc::new(Round {
            at: chrono::Utc::now(),
            dependencies: probe_all(probes).await,
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
async fn probe_all(probes: &[Arc<dyn Probe>]) -> BTreeMap<String, DependencyStatus> {
    let checks = probes.iter().map(|probe| async move {
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

/// The accounts database answers.
pub struct DatabaseProbe(pub Arc<dyn Accounts>);

#[async_trait]
impl Probe for DatabaseProbe {
    fn name(&self) -> &'static str {
        "database"
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        self.0.ping().await.map_err(|e| e.to_string())?;
        Ok(serde_json::json!({}))
    }
}

/// The object store answers and holds at least one object.
pub struct StoreProbe(pub Arc<ObjectArtifactStore>);

#[async_trait]
impl Probe for StoreProbe {
    fn name(&self) -> &'static str {
        "object_storage"
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        self.0.ping().await.map_err(|e| e.to_string())?;
        // A reachable but empty root (a missing data folder reads as empty
        // on the local filesystem) serves nothing: report it as down.
        if self.0.is_empty().await.map_err(|e| e.to_string())? {
            return Err("the store is empty: no artifact has been published".to_owned());
        }
        Ok(serde_json::json!({}))
    }
}

/// The parsed-artifact cache (always up; reports its parse count).
pub struct CacheProbe(pub Arc<ObjectArtifactStore>);

#[async_trait]
impl Probe for CacheProbe {
    fn name(&self) -> &'static str {
        "cache"
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        Ok(serde_json::json!({
            "kind": "in-process (moka), parsed artifacts by object version",
            "parses": self.0.parse_count(),
        }))
    }
}
