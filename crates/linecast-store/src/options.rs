//! Tuning and connection options of an `ObjectArtifactStore`.

use std::time::Duration;

/// The default bound of one store call (`LINECAST_STORE_TIMEOUT_SECS`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// Options of an `ObjectArtifactStore`.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// Upper bound of the parsed-artifact cache, in bytes of measured heap
    /// (the artifacts share of the memory budget; season stores are parsed
    /// for their caller and not kept here).
    pub cache_bytes: u64,
    /// How long a seen object version (and a listing) is trusted without
    /// asking the store again. Within it, repeated reads do no I/O.
    pub version_ttl: Duration,
    /// The most one store call (a HEAD, a GET with its body, a listing) may
    /// take, retries included; past it the call fails as Unavailable. A
    /// store that accepts connections and never answers is an outage within
    /// this bound, never a hang.
    pub timeout: Duration,
    /// Settings for `s3://` URLs; anything unset comes from the `AWS_*`
    /// environment (`AWS_ENDPOINT_URL`, `AWS_ALLOW_HTTP`, credentials, region).
    pub s3: S3Options,
    /// Settings for `gs://` URLs; anything unset comes from the `GOOGLE_*`
    /// environment (`GOOGLE_SERVICE_ACCOUNT`, `GOOGLE_APPLICATION_CREDENTIALS`)
    /// or, with neither, the metadata server on Google Cloud.
    pub gcs: GcsOptions,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            cache_bytes: linecast_core::memory::Budget::default().artifacts(),
            version_ttl: Duration::from_secs(2),
            timeout: DEFAULT_TIMEOUT,
            s3: S3Options::default(),
            gcs: GcsOptions::default(),
        }
    }
}

/// Overrides of the `AWS_*` environment for `s3://` stores.
#[derive(Debug, Clone, Default)]
pub struct S3Options {
    /// Endpoint of an S3-compatible server (`http://127.0.0.1:9000`). When an
    /// endpoint is set, path-style requests are used.
    pub endpoint: Option<String>,
    /// Permit plain HTTP (needed for a local S3-compatible server).
    pub allow_http: Option<bool>,
    pub region: Option<String>,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
}

/// Overrides of the `GOOGLE_*` environment for `gs://` stores.
#[derive(Debug, Clone, Default)]
pub struct GcsOptions {
    /// Path of a service-account JSON file, as `GOOGLE_SERVICE_ACCOUNT`. A
    /// file carrying `gcs_base_url` and `disable_oauth: true` points the store
    /// at a GCS emulator without tokens.
    pub service_account: Option<String>,
    /// Permit plain HTTP (needed for a local emulator), as `GOOGLE_ALLOW_HTTP`.
    pub allow_http: Option<bool>,
}
