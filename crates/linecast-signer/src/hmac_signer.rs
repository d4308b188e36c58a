//! The embedded-store signer: links to linecast's own download route carrying
//! an HMAC token (see `token`). Several instances must share one secret, or a
//! link issued by one is refused by the others.

use std::fmt;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use hmac::Mac;
use linecast_core::{DownloadTokens, GrantedDownload, SignerError, TokenRefused, UrlSigner};

use crate::token::{self, HmacSha256, TokenError, VerifiedDownload};

/// Issues and verifies download tokens for `GET /api/v1/downloads/{token}`.
#[derive(Clone)]
pub struct HmacSigner {
    mac: HmacSha256,
    base_url: String,
}

impl HmacSigner {
    /// A signer keyed by `secret` whose links start with `base_url` (the
    /// public origin of the API, e.g. `https://api.example.com`; a trailing
    /// slash is ignored).
    pub fn new(secret: &[u8], mut base_url: String) -> Self {
        // HMAC pads or hashes keys of any length, so this cannot fail.
        let Ok(mac) = <HmacSha256 as Mac>::new_from_slice(secret) else {
            unreachable!("HMAC-SHA256 accepts keys of every length")
        };
        base_url.truncate(base_url.trim_end_matches('/').len());
        Self { mac, base_url }
    }

    /// A signer with a fresh 32-byte random secret: the single-instance
    /// default when `LINECAST_SIGNING_KEY` is unset. Links die with the process.
    pub fn with_random_secret(base_url: String) -> Self {
        let secret: [u8; 32] = rand::random();
        Self::new(&secret, base_url)
    }

    /// The bare token (no URL) for an object; `sign` wraps it in the route.
    pub fn token(&self, object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> String {
        token::encode(&self.mac, object_key, filename, expires_at)
    }

    /// Checks a token taken from the download route at `now`.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<VerifiedDownload, TokenError> {
        token::decode(&self.mac, token, now)
    }
}

/// The secret stays out of logs.
impl fmt::Debug for HmacSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HmacSigner")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl UrlSigner for HmacSigner {
    async fn sign(&self, object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> Result<String, SignerError> {
        let token = self.token(object_key, filename, expires_at);
        Ok(format!("{}/api/v1/downloads/{token}", self.base_url))
    }
}

/// The download route's side of the same tokens: core's `DownloadTokens`.
impl DownloadTokens for HmacSigner {
    fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<GrantedDownload, TokenRefused> {
        HmacSigner::verify(self, token, now)
            .map(|v| GrantedDownload {
                object_key: v.object_key,
                filename: v.filename,
                expires_at: v.expires_at,
            })
            .map_err(|e| TokenRefused { reason: e.to_string() })
    }
}
