//! The URL signer port: turns an object key of the data contract
//! (`datasets/{sport}/{filename}`) into a time-limited download link. The
//! refresh use case calls it once per owned dataset; it must not know whether
//! the link points at linecast's own download route or at a bucket.

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};

/// How long a signed download link stays valid (SERVICE-SPEC: "Signed download
/// URL lifetime: 15 minutes").
pub const DOWNLOAD_TTL: TimeDelta = TimeDelta::minutes(15);

/// Failure to produce a signed link. Refreshes must not consume a quota unit
/// when any link fails, so the caller needs to see every failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignerError {
    /// The signing backend could not produce a link (credentials, store, or an
    /// expiry it cannot express).
    #[error("url signer unavailable: {0}")]
    Unavailable(String),
}

/// Signs download links for dataset objects.
#[async_trait]
pub trait UrlSigner: Send + Sync {
    /// A link that downloads `object_key` as `filename` until `expires_at`.
    async fn sign(&self, object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> Result<String, SignerError>;
}
