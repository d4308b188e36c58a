//! The URL signer port: turns an object key of the data contract
//! (`datasets/{sport}/{filename}`) into a time-limited download link. The
//! refresh use case calls it once per owned dataset; it must not know whether
//! the link points at linecast's own download route or at a bucket. The
//! embedded store's links come back to linecast; `DownloadTokens` verifies
//! them.

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

/// What a genuine, unexpired download token grants: one object, served as
/// one filename.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantedDownload {
    pub object_key: String,
    pub filename: String,
    pub expires_at: DateTime<Utc>,
}

/// Why a download token was refused (malformed, tampered with, expired).
/// The message names the reason; the HTTP layer answers 403 to all of them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct TokenRefused {
    pub reason: String,
}

/// Verifies the tokens of links that point at linecast's own download route
/// (the embedded store's signer). A signer whose links point at a bucket
/// never sees its tokens again and needs no verifier.
pub trait DownloadTokens: Send + Sync {
    /// The download `token` grants at `now`.
    fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<GrantedDownload, TokenRefused>;
}
