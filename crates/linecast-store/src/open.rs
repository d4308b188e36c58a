//! Building the object store a URL names: `file:///abs/path`, `memory://`,
//! `s3://bucket/prefix`. Keys of the data contract are relative to the URL's
//! path, so a prefix store wraps the backend whenever the URL has one.

use std::sync::Arc;
use std::time::Duration;

use linecast_core::StoreError;
use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use object_store::{ObjectStore, RetryConfig};
use url::Url;

use crate::options::S3Options;

/// The store a URL names, already scoped to its prefix.
pub fn store_for_url(url: &str, s3: &S3Options) -> Result<Arc<dyn ObjectStore>, StoreError> {
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
            let bucket = parsed
                .host_str()
                .filter(|b| !b.is_empty())
                .ok_or_else(|| invalid("no bucket".to_owned()))?;
            let s3 = s3_builder(bucket, s3).build().map_err(|e| invalid(e.to_string()))?;
            Ok(with_prefix(Arc::new(s3), prefix_of(&parsed, false)))
        }
        other => Err(invalid(format!("unsupported scheme '{other}'; use file, memory or s3"))),
    }
}

fn s3_builder(bucket: &str, options: &S3Options) -> AmazonS3Builder {
    // A few quick retries ride out a blip; a longer outage must surface as
    // Unavailable within a request's lifetime, not after minutes of backoff.
    let retry = RetryConfig {
        max_retries: 3,
        retry_timeout: Duration::from_secs(10),
        ..RetryConfig::default()
    };
    let mut builder = AmazonS3Builder::from_env().with_bucket_name(bucket).with_retry(retry);
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
            store_for_url("ftp://x/y", &S3Options::default()),
            Err(StoreError::Unavailable { .. })
        ));
        assert!(matches!(
            store_for_url("file:///definitely/not/here/linecast", &S3Options::default()),
            Err(StoreError::Unavailable { .. })
        ));
    }
}
