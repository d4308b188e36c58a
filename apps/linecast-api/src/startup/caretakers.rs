//! The caretakers: the background tasks a server runs beside its
//! requests (the demo, the game index, the watcher, the key refresher and
//! relay, the prober, the heap trimmer) and the stop signal.

use std::sync::Arc;

use actix_web::dev::Server;

use linecast_core::memory::CacheStats;
use linecast_store::ObjectArtifactStore;

use super::adapters::Adapters;
use crate::probes::{HealthCache, Probe};
use crate::settings::Settings;
use crate::state::AppState;
use linecast_core::services::customers::Customers;
use linecast_keycache::KeyCache;

/// What each share of the cache budget holds now: the one list the
/// metrics and the trimmer read.
pub(super) type CacheShares = Arc<dyn Fn() -> Vec<(&'static str, CacheStats)> + Send + Sync>;

/// Demo mode: the demo customer and its key, and the releases of the
/// demo store.
pub(super) async fn start_demo(settings: &Settings, state: &AppState, adapters: &Adapters) -> anyhow::Result<()> {
    let customers = Customers::new(adapters.accounts.clone(), adapters.usage.clone());
    crate::demo::ensure_demo_customer(&customers, state, &settings.var_dir).await?;
    if let Some(generated_at) = crate::demo::generation(&settings.var_dir) {
        crate::demo::spawn_demo_releases(state, generated_at);
    }
    Ok(())
}

/// Indexes, in the background, the games of the releases kept before the
/// index of games existed (readiness does not wait: until a series is
/// indexed, a game's history of it reads the archive). A failed round is
/// tried again a minute later, up to ten times; `linecast-admin releases
/// index` does the same on demand.
pub(super) fn start_indexer(state: &AppState) {
    let releases = state.releases.clone();
    tokio::spawn(async move {
        for _ in 0..10 {
            match releases.index_all().await {
                Ok(0) => return,
                Ok(indexed) => {
                    tracing::info!(releases = indexed, "kept releases indexed");
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "indexing kept releases failed; tried again in a minute");
                    tokio::time::sleep(std::time::Duration::from_mins(1)).await;
                }
            }
        }
    });
}

/// The change stream's watcher, every `every`; a change clears the
/// resolution memo.
pub(super) fn start_watcher(state: &AppState, every: std::time::Duration) -> linecast_runtime::WatcherTask {
    let resolutions = state.responses.memo.clone();
    linecast_runtime::spawn_watcher(
        state.events.clone(),
        state.releases.clone(),
        state.webhooks.store().clone(),
        state.clock.clone(),
        every,
        move || resolutions.clear(),
    )
}

pub(super) fn cache_shares(state: &AppState, store: Arc<ObjectArtifactStore>) -> CacheShares {
    let history = state.history.clone();
    let (responses, rows) = (state.responses.bodies.clone(), state.responses.rows.clone());
    Arc::new(move || {
        vec![
            ("artifacts", store.cache_stats()),
            ("seasons", history.cache_stats()),
            ("bodies", responses.stats()),
            ("rows", rows.stats()),
        ]
    })
}

/// The tasks that keep a running instance in shape: the metrics listener
/// (when `LINECAST_METRICS_BIND` is set), the key refresher and relay, the
/// prober and the trimmer.
pub(super) struct Caretakers {
    pub(super) metrics: Option<(u16, Server)>,
    pub(super) refresher: linecast_limits::Flusher,
    pub(super) relayer: linecast_limits::Flusher,
    pub(super) prober: linecast_limits::Flusher,
    pub(super) trimmer: linecast_limits::Flusher,
}

impl Caretakers {
    pub(super) fn spawn(
        settings: &Settings,
        state: &AppState,
        store: Arc<ObjectArtifactStore>,
    ) -> anyhow::Result<Self> {
        let shares = cache_shares(state, store.clone());
        let metrics = match settings.metrics_bind {
            Some(bind) => {
                crate::metrics::handle();
                let shares = shares.clone();
                let max_fds = crate::settings::descriptor_limit();
                Some(crate::metrics::serve(bind, move || {
                    crate::metrics::artifact_cache(store.cache_counts());
                    crate::metrics::caches(&shares());
                    crate::metrics::memos(&linecast_core::memo::sizes());
                    crate::metrics::process::scrape(max_fds);
                })?)
            }
            None => None,
        };
        Ok(Self {
            metrics,
            refresher: spawn_key_refresher(state.gate.keys.clone()),
            relayer: spawn_key_relay(state.gate.keys.clone()),
            prober: spawn_prober(state.health.clone(), state.probes.clone()),
            trimmer: spawn_trimmer(move || shares().into_iter().map(|(_, stats)| stats).collect()),
        })
    }
}

/// Once a second, the key directory reads again, in one batch, the keys in
/// use that are about to expire (`KeyCache::refresh_due`).
pub(super) fn spawn_key_refresher(keys: KeyCache) -> linecast_limits::Flusher {
    linecast_limits::Flusher::spawn(std::time::Duration::from_secs(1), move || {
        let keys = keys.clone();
        async move {
            match keys.refresh_due(linecast_keycache::REFRESH_AHEAD).await {
                Ok(read) => crate::metrics::key_refresh(read),
                Err(e) => tracing::warn!(error = %e, "refreshing API keys failed; they are read on their next request"),
            }
        }
    })
}

/// Every `RELAY_ROUND`, one round of the key relay
/// (`KeyCache::relay_round`), apart from the refresher: through this
/// instance's own database outage the refresher waits on the database each
/// round, the relay must not.
pub(super) fn spawn_key_relay(keys: KeyCache) -> linecast_limits::Flusher {
    linecast_limits::Flusher::spawn(linecast_keycache::RELAY_ROUND, move || {
        let keys = keys.clone();
        async move {
            match keys.relay_round().await {
                Ok(round) => crate::metrics::key_relay(round),
                Err(e) => tracing::warn!(error = %e, "a round of the key relay failed; the next one retries"),
            }
        }
    })
}

/// Every `BACKGROUND_ROUND`, one round of every probe, so the dependency
/// gauges (and what readiness knows has answered since start) stay current
/// when nobody calls health.
pub(super) fn spawn_prober(health: Arc<HealthCache>, probes: Vec<Arc<dyn Probe>>) -> linecast_limits::Flusher {
    let probes = Arc::new(probes);
    linecast_limits::Flusher::spawn(crate::probes::BACKGROUND_ROUND, move || {
        let (health, probes) = (health.clone(), probes.clone());
        async move {
            health.current(&probes).await;
        }
    })
}

/// Once a second, after the caches let go of memory (an eviction, fewer
/// bytes held: `memory::released`), the allocator gives the free memory in
/// its arenas back to the system (on a blocking thread), so what a burst
/// left behind does not stay resident. `malloc_trim` locks each arena
/// while it walks it, so a round with nothing released does not trim: on
/// a steady hit path it would only stall requests.
pub(super) fn spawn_trimmer(caches: impl Fn() -> Vec<CacheStats> + Send + Sync + 'static) -> linecast_limits::Flusher {
    let caches = Arc::new(caches);
    let last: Arc<std::sync::Mutex<Option<Vec<CacheStats>>>> = Arc::default();
    linecast_limits::Flusher::spawn(std::time::Duration::from_secs(1), move || {
        let (caches, last) = (caches.clone(), last.clone());
        async move {
            let now = caches();
            let released = {
                let mut last = last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let released = linecast_core::memory::released(last.as_deref(), &now);
                *last = Some(now);
                released
            };
            if released {
                let _ = tokio::task::spawn_blocking(linecast_heap::release_free_memory).await;
            }
        }
    })
}

/// SIGINT or SIGTERM (what actix itself stops on).
pub(super) async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
