//! Building the object store a URL names: `file:///abs/path`, `memory://`,
//! `s3://bucket/prefix`, `gs://bucket/prefix`. Keys of the data contract are
//! relative to the URL's path, so a prefix store wraps the backend whenever
//! the URL has one.

use std::sync::Arc;
use std::time::Duration;

use linecast_core::StoreError;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use object_store::{ClientConfigKey, ObjectStore, RetryConfig};
use url::Url;

use crate::options::{GcsOptions, S3Options, StoreOptions};

/// The store a URL names, already scoped to its prefix.
pub fn store_for_url(url: &str, options: &StoreOptions) -> Result<Arc<dyn ObjectStore>, StoreError> {
    let invalid = |reason: String| StoreError::Unavailable {
        reason: format!("invalid store URL '{url}': {reason}"),
    };
    let parsed = Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    match parsed.scheme() {
        "file" => {
            let path = parsed
                .to_file_path()
                .map_err(|()| invalid("not an absolute file path".to_owned()))?;
            let local = LocalFileSystem::new_with_prefix(&path).map_err(|e| StoreError::Unavailable {
                reason: format!("store directory {} is not usable: {e}", path.display()),
            })?;
            Ok(Arc::new(local))
        }
        "memory" => Ok(with_prefix(Arc::new(InMemory::new()), prefix_of(&parsed, true))),
        "s3" | "s3a" => {
            linecast_tls::install();
            let bucket = bucket_of(&parsed).ok_or_else(|| invalid("no bucket".to_owned()))?;
            let s3 = s3_builder(bucket, &options.s3, options.timeout)
                .build()
                .map_err(|e| invalid(e.to_string()))?;
            Ok(with_prefix(Arc::new(s3), prefix_of(&parsed, false)))
        }
        "gs" => {
            linecast_tls::install();
            let bucket = bucket_of(&parsed).ok_or_else(|| invalid("no bucket".to_owned()))?;
            let gcs = gcs_builder(bucket, &options.gcs, options.timeout)
                .build()
                .map_err(|e| invalid(e.to_string()))?;
            Ok(with_prefix(Arc::new(gcs), prefix_of(&parsed, false)))
        }
        other => Err(invalid(format!(
            "unsupported scheme '{other}'; use file, memory, s3 or gs"
        ))),
    }
}

/// The bucket of `s3://bucket/...` and `gs://bucket/...`, if the URL names one.
fn bucket_of(url: &Url) -> Option<&str> {
    url.host_str().filter(|b| !b.is_empty())
}

/// A few quick retries ride out a blip; a longer outage must surface as
/// Unavailable within a request's lifetime, not after minutes of backoff:
/// retries stop within `bound`, the bound of one store call, which the
/// store also enforces on each call, however the backend behaves.
fn retry(bound: Duration) -> RetryConfig {
    RetryConfig {
        max_retries: 3,
        retry_timeout: bound,
        ..RetryConfig::default()
    }
}

fn s3_builder(bucket: &str, options: &S3Options, bound: Duration) -> AmazonS3Builder {
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(bucket)
        .with_retry(retry(bound));
    if let Some(endpoint) = &options.endpoint {
        builder = builder.with_endpoint(endpoint);
    }
    if let Some(allow) = options.allow_http {
        builder = builder.with_allow_http(allow);
    }
    if let Some(region) = &options.region {
        builder = builder.with_region(region);
    }
    if let Some(key) = &options.access_key_id {
        builder = builder.with_access_key_id(key);
    }
    if let Some(secret) = &options.secret_access_key {
        builder = builder.with_secret_access_key(secret);
    }
    // S3-compatible servers on a custom endpoint (moto, MinIO) address
    // buckets by path, not by host name.
    if builder.get_config_value(&AmazonS3ConfigKey::Endpoint).is_some() {
        builder = builder.with_virtual_hosted_style_request(false);
    }
    builder
}

/// Credentials as object_store reads them: `GOOGLE_SERVICE_ACCOUNT` (a
/// service-account file), `GOOGLE_APPLICATION_CREDENTIALS`, else the
/// metadata server on Google Cloud. A service-account file may carry
/// `gcs_base_url` and `disable_oauth` (an emulator).
fn gcs_builder(bucket: &str, options: &GcsOptions, bound: Duration) -> GoogleCloudStorageBuilder {
    let mut builder = GoogleCloudStorageBuilder::from_env()
        .with_bucket_name(bucket)
        .with_retry(retry(bound));
    if let Some(path) = &options.service_account {
        builder = builder.with_service_account_path(path);
    }
    if let Some(allow) = options.allow_http {
        // Set as a key so the rest of the environment's client options stay.
        builder = builder.with_config(GoogleConfigKey::Client(ClientConfigKey::AllowHttp), allow.to_string());
    }
    builder
}

/// The URL path as an object prefix. For `memory://name/x` the host is part
/// of the name space too, so it is folded into the prefix.
fn prefix_of(url: &Url, include_host: bool) -> String {
    let host = if include_host {
        url.host_str().unwrap_or_default()
    } else {
        ""
    };
    let joined = format!("{host}/{}", url.path());
    joined
        .split('/')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("/")
}

fn with_prefix(store: Arc<dyn ObjectStore>, prefix: String) -> Arc<dyn ObjectStore> {
    if prefix.is_empty() {
        store
    } else {
        Arc::new(PrefixStore::new(store, Path::from(prefix)))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn url_paths_become_prefixes_without_empty_segments() {
        let u = Url::parse("s3://bucket/a/b/").unwrap();
        assert_eq!(prefix_of(&u, false), "a/b");
        let u = Url::parse("s3://bucket").unwrap();
        assert_eq!(prefix_of(&u, false), "");
        let u = Url::parse("memory://").unwrap();
        assert_eq!(prefix_of(&u, true), "");
    }

    #[test]
    fn unsupported_schemes_and_missing_directories_are_unavailable() {
        assert!(matches!(
            store_for_url("ftp://x/y", &StoreOptions::default()),
            Err(StoreError::Unavailable { .. })
        ));
        assert!(matches!(
            store_for_url("file:///definitely/not/here/linecast", &StoreOptions::default()),
            Err(StoreError::Unavailable { .. })
        ));
    }

    /// Options whose service-account file points at an emulator without
    /// tokens, so building needs neither the environment nor a network.
    fn emulator_options(dir: &std::path::Path) -> StoreOptions {
        let path = dir.join("service-account.json");
        std::fs::write(
            &path,
            r#"{"private_key": "unused", "private_key_id": "unused", "client_email": "test@example.com",
                "gcs_base_url": "http://127.0.0.1:1", "disable_oauth": true}"#,
        )
        .unwrap();
        StoreOptions {
            gcs: GcsOptions {
                service_account: Some(path.display().to_string()),
                allow_http: Some(true),
            },
            ..StoreOptions::default()
        }
    }

    fn unavailable_reason(result: Result<Arc<dyn ObjectStore>, StoreError>) -> String {
        match result {
            Err(StoreError::Unavailable { reason }) => reason,
            Err(other) => panic!("expected Unavailable, got {other:?}"),
            Ok(store) => panic!("expected Unavailable, got {store}"),
        }
    }

    #[test]
    fn gs_urls_name_the_bucket_and_the_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let options = emulator_options(dir.path());
        let u = Url::parse("gs://linecast-data/data/v1/").unwrap();
        assert_eq!(bucket_of(&u), Some("linecast-data"));
        assert_eq!(prefix_of(&u, false), "data/v1");

        let bare = store_for_url("gs://linecast-data", &options).unwrap();
        assert_eq!(bare.to_string(), "GoogleCloudStorage(linecast-data)");
        let prefixed = store_for_url("gs://linecast-data/data/v1/", &options).unwrap();
        assert_eq!(prefixed.to_string(), "PrefixObjectStore(data/v1)");
    }

    #[test]
    fn a_gs_url_without_a_bucket_is_unavailable_naming_the_url() {
        let dir = tempfile::tempdir().unwrap();
        let options = emulator_options(dir.path());
        for url in ["gs:///data/v1", "gs:data/v1"] {
            let reason = unavailable_reason(store_for_url(url, &options));
            assert_eq!(reason, format!("invalid store URL '{url}': no bucket"));
        }
    }

    #[test]
    fn a_missing_service_account_file_is_unavailable_naming_the_url() {
        let options = StoreOptions {
            gcs: GcsOptions {
                service_account: Some("/definitely/not/here/sa.json".to_owned()),
                allow_http: None,
            },
            ..StoreOptions::default()
        };
        let reason = unavailable_reason(store_for_url("gs://linecast-data", &options));
        assert!(
            reason.starts_with("invalid store URL 'gs://linecast-data': "),
            "{reason}"
        );
    }
}
