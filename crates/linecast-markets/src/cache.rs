//! A per-sport TTL cache in front of any `PredictionMarkets` source.
//!
//! Successful answers live for `ttl` (default 30 s). A failure is cached too,
//! but only for `failure_ttl` (default 5 s, never longer than `ttl`): long
//! enough that a burst of requests during an outage costs the upstream one
//! call, short enough that recovery shows within seconds. Concurrent misses
//! for the same sport share one upstream call (moka's `get_with`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use linecast_core::ports::markets::{MarketPrice, MarketsError, PredictionMarkets};
use linecast_domain::Sport;
use moka::Expiry;
use moka::future::Cache;

type Entry = Result<Arc<Vec<MarketPrice>>, MarketsError>;

/// Caches each sport's prices; see the module docs for the expiry rule.
#[derive(Clone)]
pub struct CachedMarkets {
    inner: Arc<dyn PredictionMarkets>,
    cache: Cache<Sport, Entry>,
}

impl CachedMarkets {
    /// How long a successful answer is served (the "short server-side cache").
    pub const DEFAULT_TTL: Duration = Duration::from_secs(30);
    /// How long a failure is remembered before the source is asked again.
    pub const DEFAULT_FAILURE_TTL: Duration = Duration::from_secs(5);

    /// Caches successes for `ttl` and failures for
    /// `min(DEFAULT_FAILURE_TTL, ttl)`.
    pub fn new(inner: Arc<dyn PredictionMarkets>, ttl: Duration) -> Self {
        Self::with_failure_ttl(inner, ttl, Self::DEFAULT_FAILURE_TTL)
    }

    /// Caches successes for `ttl` and failures for `min(failure_ttl, ttl)`;
    /// a zero `failure_ttl` retries the source on every call after a failure.
    pub fn with_failure_ttl(inner: Arc<dyn PredictionMarkets>, ttl: Duration, failure_ttl: Duration) -> Self {
        let expiry = ByOutcome {
            ok: ttl,
            failed: failure_ttl.min(ttl),
        };
        // One entry per sport; the capacity only bounds a misuse.
        let cache = Cache::builder().max_capacity(64).expire_after(expiry).build();
        Self { inner, cache }
    }
}

#[async_trait]
impl PredictionMarkets for CachedMarkets {
    async fn prices(&self, sport: Sport) -> Result<Vec<MarketPrice>, MarketsError> {
        let inner = Arc::clone(&self.inner);
        let entry = self
            .cache
            .get_with(sport, async move { inner.prices(sport).await.map(Arc::new) })
            .await;
        entry.map(|prices| prices.as_ref().clone())
    }
}

struct ByOutcome {
    ok: Duration,
    failed: Duration,
}

impl Expiry<Sport, Entry> for ByOutcome {
    fn expire_after_create(&self, _sport: &Sport, entry: &Entry, _created_at: Instant) -> Option<Duration> {
        Some(if entry.is_ok() { self.ok } else { self.failed })
    }
}
