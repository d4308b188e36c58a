//! The health cache and the readiness rule over the adapters' probes
//! (core's `Probe` port: linecast-db's `DatabaseProbe`, linecast-store's
//! `StoreProbe` and `CacheProbe`, linecast-limits' `RedisProbe`): one round
//! of them runs at most once a second whatever the number of health calls.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::future::join_all;
pub use linecast_core::ports::probe::{Probe, Reach};
use linecast_payloads::health::DependencyStatus;

/// How long one round of probe results is served before the next round.
pub const HEALTH_TTL: Duration = Duration::from_secs(1);

/// How often a round runs without anyone asking, so the
/// `linecast_dependency_up` gauges stay current between health calls.
pub const BACKGROUND_ROUND: Duration = Duration::from_secs(5);

/// The last rounds of probe results, what has answered since start, and
/// whether the instance is draining. A round older than `HEALTH_TTL` is
/// replaced by the first caller (the others wait for it rather than probing
/// too), so a flood of health or readiness calls costs one round a second.
#[derive(Default)]
pub struct HealthCache {
    /// Every dependency (health).
    all: RoundCache,
    /// The dependencies readiness asks about.
    ready: RoundCache,
    /// Dependencies that have answered at least once since start.
    answered: Mutex<BTreeSet<String>>,
    draining: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct RoundCache {
    last: tokio::sync::Mutex<Option<(Instant, Arc<Round>)>>,
}

/// One round of probes.
pub(crate) struct Round {
    pub(crate) at: chrono::DateTime<chrono::Utc>,
    pub(crate) dependencies: BTreeMap<String, DependencyStatus>,
}

/// Why an instance should take no traffic now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotReady {
    /// A stop signal arrived.
    Draining,
    /// A shared dependency has never answered since start (the instance
    /// has never been able to serve what it needs).
    Starting(Vec<String>),
    /// A dependency only this instance uses is down.
    Unreachable(Vec<String>),
}

impl NotReady {
    /// The sentence readiness answers with.
    pub fn detail(&self) -> String {
        match self {
            NotReady::Draining => "Not ready: the instance is draining before it stops".to_owned(),
            NotReady::Starting(names) => format!(
                "Not ready: starting; {} has not answered since the instance started",
                names.join(", ")
            ),
            NotReady::Unreachable(names) => format!("Not ready: {} unavailable", names.join(", ")),
        }
    }
}

impl RoundCache {
    async fn current(&self, probes: &[&Arc<dyn Probe>], answered: &Mutex<BTreeSet<String>>) -> Arc<Round> {
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
        let mut seen = answered.lock().unwrap_or_else(PoisonError::into_inner);
        for (name, dependency) in &report.dependencies {
            let up = dependency.status == "ok";
            crate::metrics::dependency_up(name, up);
            if up && !seen.contains(name) {
                seen.insert(name.clone());
            }
        }
        drop(seen);
        *last = Some((Instant::now(), report.clone()));
        report
    }
}

impl HealthCache {
    /// A cache that knows `names` answered already (the start-up connected
    /// to them: the database, Redis).
    pub fn answered(names: &[&str]) -> Self {
        let cache = Self::default();
        cache
            .answered
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(names.iter().map(|n| (*n).to_owned()));
        cache
    }

    /// From now on readiness fails: the instance is about to stop.
    pub fn start_draining(&self) {
        self.draining.store(true, std::sync::atomic::Ordering::Release);
    }

    /// Whether a stop signal arrived (`start_draining`).
    pub fn is_draining(&self) -> bool {
        self.draining.load(std::sync::atomic::Ordering::Acquire)
    }

    /// A round of every probe (health, metrics).
    pub(crate) async fn current(&self, probes: &[Arc<dyn Probe>]) -> Arc<Round> {
        let all: Vec<&Arc<dyn Probe>> = probes.iter().collect();
        self.all.current(&all, &self.answered).await
    }

    /// The readiness rule: not draining; every dependency of its own
    /// answers now; every shared one has answered at least once since
    /// start. A shared dependency failing later is not this instance's to
    /// report by leaving the load balancer (health and metrics say it), so
    /// readiness never waits on one that has answered before.
    pub async fn ready(&self, probes: &[Arc<dyn Probe>]) -> Result<(), NotReady> {
        if self.is_draining() {
            return Err(NotReady::Draining);
        }
        let asked: Vec<&Arc<dyn Probe>> = {
            let answered = self.answered.lock().unwrap_or_else(PoisonError::into_inner);
            probes
                .iter()
                .filter(|p| p.reach() == Reach::Own || !answered.contains(p.name()))
                .collect()
        };
        if asked.is_empty() {
            return Ok(());
        }
        let round = self.ready.current(&asked, &self.answered).await;
        let down = |reach: Reach| -> Vec<String> {
            asked
                .iter()
                .filter(|p| p.reach() == reach)
                .filter(|p| round.dependencies.get(p.name()).is_some_and(|d| d.status != "ok"))
                .map(|p| p.name().to_owned())
                .collect()
        };
        let own = down(Reach::Own);
        if !own.is_empty() {
            return Err(NotReady::Unreachable(own));
        }
        let shared = down(Reach::Shared);
        if !shared.is_empty() {
            return Err(NotReady::Starting(shared));
        }
        Ok(())
    }
}

/// Runs every probe once. The public report says only `ok` or `down` and
/// the latency; the reason (which may name a path, bucket or URL) goes to
/// the log.
async fn probe_all(probes: &[&Arc<dyn Probe>]) -> BTreeMap<String, DependencyStatus> {
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use async_trait::async_trait;

    use super::*;

    struct Fake {
        name: &'static str,
        reach: Reach,
        up: Arc<AtomicBool>,
    }

    #[async_trait]
    impl Probe for Fake {
        fn name(&self) -> &'static str {
            self.name
        }
        fn reach(&self) -> Reach {
            self.reach
        }
        async fn check(&self) -> Result<serde_json::Value, String> {
            if self.up.load(Ordering::SeqCst) {
                Ok(serde_json::json!({}))
            } else {
                Err("down".to_owned())
            }
        }
    }

    fn fake(name: &'static str, reach: Reach, up: bool) -> (Arc<dyn Probe>, Arc<AtomicBool>) {
        let flag = Arc::new(AtomicBool::new(up));
        let probe: Arc<dyn Probe> = Arc::new(Fake {
            name,
            reach,
            up: flag.clone(),
        });
        (probe, flag)
    }

    /// Past the round's cache, so the next call probes again.
    async fn next_round() {
        tokio::time::sleep(HEALTH_TTL + Duration::from_millis(100)).await;
    }

    #[tokio::test]
    async fn a_shared_dependency_failing_after_it_answered_is_reported_by_health_not_readiness() {
        let health = HealthCache::default();
        let (db, db_up) = fake("database", Reach::Shared, true);
        let (redis, redis_up) = fake("redis", Reach::Shared, true);
        let probes = vec![db, redis];
        assert_eq!(health.ready(&probes).await, Ok(()));
        db_up.store(false, Ordering::SeqCst);
        redis_up.store(false, Ordering::SeqCst);
        next_round().await;
        assert_eq!(health.ready(&probes).await, Ok(()), "still takes traffic");
        let round = health.current(&probes).await;
        assert_eq!(round.dependencies["database"].status, "down");
        assert_eq!(round.dependencies["redis"].status, "down");
    }

    #[tokio::test]
    async fn a_shared_dependency_that_never_answered_since_start_keeps_the_instance_starting() {
        let health = HealthCache::default();
        let (store, store_up) = fake("object_storage", Reach::Shared, false);
        let probes = vec![store];
        assert_eq!(
            health.ready(&probes).await,
            Err(NotReady::Starting(vec!["object_storage".to_owned()]))
        );
        store_up.store(true, Ordering::SeqCst);
        next_round().await;
        assert_eq!(health.ready(&probes).await, Ok(()));
        // Answered once: a later failure is everyone's, not this instance's.
        store_up.store(false, Ordering::SeqCst);
        next_round().await;
        assert_eq!(health.ready(&probes).await, Ok(()));
    }

    #[tokio::test]
    async fn a_dependency_of_its_own_failing_takes_the_instance_out_until_it_answers() {
        let health = HealthCache::default();
        let (sqlite, sqlite_up) = fake("database", Reach::Own, true);
        let (bucket, _) = fake("object_storage", Reach::Shared, true);
        let probes = vec![sqlite, bucket];
        assert_eq!(health.ready(&probes).await, Ok(()));
        sqlite_up.store(false, Ordering::SeqCst);
        next_round().await;
        assert_eq!(
            health.ready(&probes).await,
            Err(NotReady::Unreachable(vec!["database".to_owned()]))
        );
        sqlite_up.store(true, Ordering::SeqCst);
        next_round().await;
        assert_eq!(health.ready(&probes).await, Ok(()));
    }

    #[tokio::test]
    async fn a_draining_instance_is_not_ready_whatever_its_dependencies_say() {
        let health = HealthCache::default();
        let (db, _) = fake("database", Reach::Own, true);
        health.start_draining();
        assert_eq!(health.ready(&[db]).await, Err(NotReady::Draining));
    }
}
