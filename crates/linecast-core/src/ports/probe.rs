//! The health probe port: each adapter that reaches a dependency (the
//! accounts database, object storage, Redis) implements [`Probe`] for it,
//! and the app runs one round of every probe for `/api/v1/health` and the
//! readiness rule.

use async_trait::async_trait;

/// Who else depends on a dependency: the readiness rule's one input
/// besides draining.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Only this instance uses it (a SQLite file, a local store folder):
    /// when it fails, this instance cannot serve and others may.
    Own,
    /// Every instance uses it (PostgreSQL, Redis, a bucket): when it
    /// fails, it fails for all of them, and taking them out of the load
    /// balancer would only add the public routes to the outage.
    Shared,
}

/// One dependency reported by `/api/v1/health`.
#[async_trait]
pub trait Probe: Send + Sync {
    /// Stable name: `database`, `redis`, `cache` or `object_storage`.
    fn name(&self) -> &'static str;
    /// Whether other instances share it.
    fn reach(&self) -> Reach;
    /// `Ok(detail)` when healthy, `Err(reason)` when not. The reason may
    /// name a path, bucket or URL: it is logged, never served.
    async fn check(&self) -> Result<serde_json::Value, String>;
}
