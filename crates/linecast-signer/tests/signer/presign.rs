use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, TimeZone as _, Utc};
use linecast_core::{DOWNLOAD_TTL, FixedClock, SignerError, UrlSigner};
use linecast_signer::PresignSigner;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path;
use object_store::prefix::PrefixStore;
use object_store::signer::{Method, Signer, Url};

const KEY: &str = "datasets/nba/nba_history.csv";
const FILE: &str = "nba_history.csv";

fn now() -> DateTime<Utc> {
    Utc.timestamp_opt(1_767_225_600, 0).unwrap()
}

fn s3() -> AmazonS3 {
    linecast_tls::install();
    AmazonS3Builder::new()
        .with_region("us-east-1")
        .with_bucket_name("linecast-data")
        .with_access_key_id("AKIDEXAMPLE")
        .with_secret_access_key("dummy-secret")
        .with_endpoint("http://127.0.0.1:9000")
        .with_allow_http(true)
        .build()
        .unwrap()
}

fn presigner(signer: Arc<dyn Signer>) -> PresignSigner {
    PresignSigner::new(signer, Arc::new(FixedClock(now())))
}

#[tokio::test]
async fn an_s3_store_presigns_a_fifteen_minute_get_for_the_dataset_key() {
    let url = presigner(Arc::new(s3()))
        .sign(KEY, FILE, now() + DOWNLOAD_TTL)
        .await
        .unwrap();
    let parsed = Url::parse(&url).unwrap();
    assert!(url.starts_with("http://127.0.0.1:9000/"), "{url}");
    assert!(parsed.path().ends_with("/datasets/nba/nba_history.csv"), "{url}");
    assert!(url.contains("X-Amz-Signature="), "{url}");
    assert!(url.contains("X-Amz-Expires=900"), "{url}");
    let disposition = parsed
        .query_pairs()
        .find(|(k, _)| k == "response-content-disposition")
        .unwrap()
        .1;
    assert_eq!(disposition, "attachment; filename=\"nba_history.csv\"");
}

#[tokio::test]
async fn a_lifetime_a_fraction_of_a_second_short_still_presigns_as_fifteen_minutes() {
    let url = presigner(Arc::new(s3()))
        .sign(KEY, FILE, now() + DOWNLOAD_TTL - TimeDelta::milliseconds(30))
        .await
        .unwrap();
    assert!(url.contains("X-Amz-Expires=900"), "{url}");
}

#[tokio::test]
async fn a_prefixed_store_signs_the_full_key() {
    let store = PrefixStore::new(s3(), Path::from("prod/v1"));
    let url = presigner(Arc::new(store))
        .sign(KEY, FILE, now() + DOWNLOAD_TTL)
        .await
        .unwrap();
    assert!(
        Url::parse(&url)
            .unwrap()
            .path()
            .ends_with("/prod/v1/datasets/nba/nba_history.csv"),
        "{url}"
    );
}

#[tokio::test]
async fn quotes_and_control_characters_never_reach_the_content_disposition() {
    let url = presigner(Arc::new(s3()))
        .sign(KEY, "a\"b\\c\r\nd.csv", now() + DOWNLOAD_TTL)
        .await
        .unwrap();
    let parsed = Url::parse(&url).unwrap();
    let disposition = parsed
        .query_pairs()
        .find(|(k, _)| k == "response-content-disposition")
        .unwrap()
        .1;
    assert_eq!(disposition, "attachment; filename=\"abcd.csv\"");
}

#[tokio::test]
async fn an_expiry_that_is_not_in_the_future_is_unavailable() {
    let signer = presigner(Arc::new(s3()));
    assert!(matches!(
        signer.sign(KEY, FILE, now()).await,
        Err(SignerError::Unavailable(_))
    ));
    assert!(matches!(
        signer.sign(KEY, FILE, now() - DOWNLOAD_TTL).await,
        Err(SignerError::Unavailable(_))
    ));
}

#[tokio::test]
async fn an_invalid_object_key_is_unavailable_rather_than_silently_rewritten() {
    let signer = presigner(Arc::new(s3()));
    let result = signer.sign("datasets//nba/../x.csv", FILE, now() + DOWNLOAD_TTL).await;
    assert!(matches!(result, Err(SignerError::Unavailable(_))), "{result:?}");
}

/// A store that only knows plain presigning, like Azure's.
#[derive(Debug)]
struct PlainOnly;

#[async_trait]
impl Signer for PlainOnly {
    async fn signed_url(&self, method: Method, path: &Path, expires_in: Duration) -> object_store::Result<Url> {
        Ok(Url::parse(&format!(
            "https://blob.example/{path}?m={method}&se={}",
            expires_in.as_secs()
        ))
        .unwrap())
    }
}

#[tokio::test]
async fn a_store_that_cannot_name_the_download_still_gets_a_plain_link() {
    let url = presigner(Arc::new(PlainOnly))
        .sign(KEY, FILE, now() + DOWNLOAD_TTL)
        .await
        .unwrap();
    assert_eq!(url, "https://blob.example/datasets/nba/nba_history.csv?m=GET&se=900");
}

/// A store whose credentials cannot be loaded.
#[derive(Debug)]
struct Broken;

#[async_trait]
impl Signer for Broken {
    async fn signed_url(&self, _: Method, _: &Path, _: Duration) -> object_store::Result<Url> {
        Err(object_store::Error::Generic {
            store: "S3",
            source: "no credentials".into(),
        })
    }
}

#[tokio::test]
async fn a_store_failure_is_unavailable_and_names_the_key() {
    let err = presigner(Arc::new(Broken))
        .sign(KEY, FILE, now() + DOWNLOAD_TTL)
        .await
        .unwrap_err();
    let SignerError::Unavailable(reason) = err;
    assert!(reason.contains(KEY) && reason.contains("no credentials"), "{reason}");
}
