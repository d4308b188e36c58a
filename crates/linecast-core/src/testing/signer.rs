//! `MemorySigner`: the URL signer and download-token ports in memory. A link
//! is `memory://{object_key}?filename={filename}&expires={unix seconds}` and
//! its token is the part after `memory://`, so a test can read what was
//! signed; `fail_with` makes every signing answer one error.

use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::ports::signer::{DownloadTokens, GrantedDownload, SignerError, TokenRefused, UrlSigner};

#[derive(Default)]
struct Inner {
    failure: Option<SignerError>,
    signed: Vec<String>,
}

/// Signs and verifies links without any secret.
#[derive(Default)]
pub struct MemorySigner {
    inner: Mutex<Inner>,
}

impl MemorySigner {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every signing answers `error` until `clear_failure`.
    pub fn fail_with(&self, error: SignerError) {
        self.lock().failure = Some(error);
    }

    pub fn clear_failure(&self) {
        self.lock().failure = None;
    }

    /// The links signed so far, in order.
    pub fn signed(&self) -> Vec<String> {
        self.lock().signed.clone()
    }

    /// The token of a link to `object_key` served as `filename` until `expires_at`.
    pub fn token(object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> String {
        format!("{object_key}?filename={filename}&expires={}", expires_at.timestamp())
    }
}

#[async_trait]
impl UrlSigner for MemorySigner {
    async fn sign(&self, object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> Result<String, SignerError> {
        let mut inner = self.lock();
        if let Some(failure) = &inner.failure {
            return Err(failure.clone());
        }
        let link = format!("memory://{}", Self::token(object_key, filename, expires_at));
        inner.signed.push(link.clone());
        Ok(link)
    }
}

impl DownloadTokens for MemorySigner {
    fn verify(&self, token: &str, now: DateTime<Utc>) -> Result<GrantedDownload, TokenRefused> {
        let refused = |reason: &str| TokenRefused {
            reason: reason.to_owned(),
        };
        let (object_key, query) = token
            .split_once("?filename=")
            .ok_or_else(|| refused("malformed download token"))?;
        let (filename, expires) = query
            .split_once("&expires=")
            .ok_or_else(|| refused("malformed download token"))?;
        let expires_at = expires
            .parse::<i64>()
            .ok()
            .and_then(|s| DateTime::<Utc>::from_timestamp(s, 0))
            .ok_or_else(|| refused("malformed download token"))?;
        if now > expires_at {
            return Err(refused("download token expired"));
        }
        Ok(GrantedDownload {
            object_key: object_key.to_owned(),
            filename: filename.to_owned(),
            expires_at,
        })
    }
}
