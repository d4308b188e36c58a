//! The object store's health probes (core's `Probe` port): the store
//! answers and holds at least one object, and the parsed-artifact cache.

use std::sync::Arc;

use async_trait::async_trait;
use linecast_core::ArtifactStore;
use linecast_core::ports::probe::{Probe, Reach};

use crate::ObjectArtifactStore;

/// The object store answers and holds at least one object: `Own` for a
/// local folder (`file://`), `Shared` for a bucket.
pub struct StoreProbe(pub Arc<ObjectArtifactStore>, pub Reach);

impl StoreProbe {
    /// Who shares the store at `url`: a local folder is this instance's.
    pub fn reach_of(url: &str) -> Reach {
        if url.starts_with("file:") {
            Reach::Own
        } else {
            Reach::Shared
        }
    }
}

#[async_trait]
impl Probe for StoreProbe {
    fn name(&self) -> &'static str {
        "object_storage"
    }
    fn reach(&self) -> Reach {
        self.1
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
    fn reach(&self) -> Reach {
        Reach::Own
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        Ok(serde_json::json!({
            "kind": "in-process (moka), parsed artifacts by object version",
            "parses": self.0.parse_count(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_folder_is_this_instances_and_a_bucket_is_shared() {
        assert_eq!(StoreProbe::reach_of("file:///srv/store"), Reach::Own);
        assert_eq!(StoreProbe::reach_of("s3://bucket/prefix"), Reach::Shared);
        assert_eq!(StoreProbe::reach_of("gs://bucket"), Reach::Shared);
    }
}
