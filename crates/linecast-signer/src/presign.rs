//! The bucket signer: asks an object store (S3 today; GCS and Azure through
//! the same `object_store::signer::Signer` trait) for a presigned GET URL.
//! Bucket downloads never pass through linecast, so there is nothing to verify
//! on our side. A store URL with a prefix (`s3://bucket/prefix`) is handled by
//! passing `object_store::prefix::PrefixStore::new(s3, prefix)`, which signs
//! the full key.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::{Clock, SignerError, UrlSigner};
use object_store::path::Path;
use object_store::signer::{Method, SignedUrlOptions, Signer};

/// Presigned links from an object store's own credentials.
#[derive(Clone)]
pub struct PresignSigner {
    signer: Arc<dyn Signer>,
    clock: Arc<dyn Clock>,
}

impl PresignSigner {
    /// `clock` turns the port's absolute `expires_at` into the relative
    /// lifetime presigning takes.
    pub fn new(signer: Arc<dyn Signer>, clock: Arc<dyn Clock>) -> Self {
        Self { signer, clock }
    }
}

impl std::fmt::Debug for PresignSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PresignSigner")
            .field("signer", &self.signer)
            .finish_non_exhaustive()
    }
}

/// The lifetime left until `expires_at`, to the nearest whole second: the
/// caller computes `expires_at` a moment before signing, and truncating would
/// turn a 15-minute link into 899 seconds.
fn lifetime(now: DateTime<Utc>, expires_at: DateTime<Utc>) -> Result<Duration, SignerError> {
    let millis = (expires_at - now).num_milliseconds();
    let secs = (millis + 500).div_euclid(1000);
    if secs < 1 {
        return Err(SignerError::Unavailable(format!(
            "link expiry {expires_at} is not in the future"
        )));
    }
    Ok(Duration::from_secs(secs.unsigned_abs()))
}

/// `attachment; filename="..."` with the characters that could break out of
/// the quoted string or the header dropped; filenames come from our own
/// catalog, so this is defence in depth rather than an expected path.
fn content_disposition(filename: &str) -> String {
    let safe: String = filename
        .chars()
        .filter(|c| !c.is_control() && *c != '"' && *c != '\\')
        .collect();
    format!("attachment; filename=\"{safe}\"")
}

#[async_trait]
impl UrlSigner for PresignSigner {
    async fn sign(&self, object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> Result<String, SignerError> {
        let expires_in = lifetime(self.clock.now(), expires_at)?;
        let path =
            Path::parse(object_key).map_err(|e| SignerError::Unavailable(format!("object key {object_key:?}: {e}")))?;
        // Ask the store to name the download; stores that cannot sign extra
        // query parameters (Azure) refuse with NotSupported, and then the
        // plain link is still a correct download, only with the key's name.
        let options =
            SignedUrlOptions::default().with_query([("response-content-disposition", content_disposition(filename))]);
        let url = match self
            .signer
            .signed_url_opts(Method::GET, &path, expires_in, &options)
            .await
        {
            Err(object_store::Error::NotSupported { .. }) => {
                self.signer.signed_url(Method::GET, &path, expires_in).await
            }
            other => other,
        }
        .map_err(|e| SignerError::Unavailable(format!("presigning {object_key}: {e}")))?;
        Ok(url.into())
    }
}
