//! Shared application state: the ports the handlers call through.

use std::sync::Arc;

use async_trait::async_trait;
use linecast_core::{ArtifactStore, Clock};

/// One dependency reported by `/api/v1/health`.
#[async_trait]
pub trait Probe: Send + Sync {
    /// Stable name: `database`, `cache` or `object_storage`.
    fn name(&self) -> &'static str;
    /// `Ok(detail)` when healthy, `Err(reason)` when not.
    async fn check(&self) -> Result<serde_json::Value, String>;
}

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn ArtifactStore>,
    pub clock: Arc<dyn Clock>,
    pub probes: Vec<Arc<dyn Probe>>,
}
