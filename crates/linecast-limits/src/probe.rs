//! Redis's health probe (core's `Probe` port): every instance sharing
//! `LINECAST_REDIS_URL` counts limits and holds slots through it.

use std::sync::Arc;

use async_trait::async_trait;
use linecast_core::ports::probe::{Probe, Reach};

use crate::Limiter;

/// One `PING` on the limiter's connection.
pub struct RedisProbe(pub Arc<dyn Limiter>);

#[async_trait]
impl Probe for RedisProbe {
    fn name(&self) -> &'static str {
        "redis"
    }
    fn reach(&self) -> Reach {
        Reach::Shared
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        self.0.ping().await.map_err(|e| e.to_string())?;
        Ok(serde_json::json!({}))
    }
}
