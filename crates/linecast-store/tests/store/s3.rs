//! The `s3://` path against a real S3-compatible server (moto on loopback).
//! Without `moto_server` on PATH the test is skipped, unless
//! `LINECAST_REQUIRE_S3_TEST` is set (CI), where a missing moto fails.

use std::process::Command;
use std::time::Duration;

use linecast_core::ArtifactStore as _;
use linecast_domain::Sport;
use linecast_store::publish::{PublishMode, publish};
use linecast_store::{ObjectArtifactStore, S3Options, StoreOptions, validate};

use crate::buckets::{Server, free_port, on_path, raw_http};
use crate::helpers::{nba_store, put};

fn start_moto() -> Option<(Server, u16)> {
    let Some(program) = on_path("moto_server") else {
        assert!(
            std::env::var_os("LINECAST_REQUIRE_S3_TEST").is_none(),
            "LINECAST_REQUIRE_S3_TEST is set but moto_server is not on PATH (pip install 'moto[server]')"
        );
        eprintln!("SKIP: moto_server not on PATH; install moto[server] to run the S3 test");
        return None;
    };
    let port = free_port();
    let mut command = Command::new(program);
    command.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
    Some((Server::start(command, port), port))
}

fn s3_options(port: u16) -> StoreOptions {
    StoreOptions {
        version_ttl: Duration::from_millis(50),
        s3: S3Options {
            endpoint: Some(format!("http://127.0.0.1:{port}")),
            allow_http: Some(true),
            region: Some("us-east-1".to_owned()),
            access_key_id: Some("test".to_owned()),
            secret_access_key: Some("test".to_owned()),
        },
        ..StoreOptions::default()
    }
}

#[tokio::test]
async fn s3_urls_read_artifacts_under_the_prefix_from_an_s3_compatible_server() {
    let Some((_moto, port)) = start_moto() else { return };
    let status = raw_http(port, "PUT /linecast", "").unwrap();
    assert!(status.contains("200"), "bucket creation answered {status}");

    let root = ObjectArtifactStore::from_url("s3://linecast", s3_options(port))
        .unwrap()
        .object_store();
    let publish = async |key: &str, body: &str| put(&root, key, body).await;
    crate::buckets::reads_artifacts_under_the_prefix("s3://linecast", || s3_options(port), publish, true).await;
}

#[tokio::test]
async fn an_unreachable_s3_endpoint_is_unavailable() {
    let port = free_port();
    let store = ObjectArtifactStore::from_url("s3://linecast", s3_options(port)).unwrap();
    crate::buckets::an_unreachable_server_is_unavailable(&store).await;
}

/// `linecast-admin data publish` to a bucket: the store arrives whole and
/// valid under the prefix, and a second publish writes nothing (the bucket
/// holds the same bytes).
#[tokio::test]
async fn a_store_is_published_to_an_s3_bucket_and_a_second_publish_writes_nothing() {
    let Some((_moto, port)) = start_moto() else { return };
    let status = raw_http(port, "PUT /linecast", "").unwrap();
    assert!(status.contains("200"), "bucket creation answered {status}");
    let source = nba_store(Duration::from_secs(2)).await;
    let target = ObjectArtifactStore::from_url("s3://linecast/store", s3_options(port)).unwrap();

    let dry = publish(&source, &target, PublishMode::DryRun).await.unwrap();
    assert_eq!(dry.written().count(), 3);
    assert!(target.is_empty().await.unwrap(), "a dry run writes nothing");

    let first = publish(&source, &target, PublishMode::Write).await.unwrap();
    let keys: Vec<&str> = first.written().map(|o| o.key.as_str()).collect();
    assert_eq!(keys[0], "teams/nba.csv", "teams before what names them: {keys:?}");
    assert_eq!(keys.len(), 3);
    assert_eq!(validate(&target).await.problems, []);
    assert_eq!(target.teams(Sport::Nba).await.unwrap().value.teams.len(), 2);

    let again = publish(&source, &target, PublishMode::Write).await.unwrap();
    assert_eq!(again.written().count(), 0);
    assert_eq!(again.unchanged().count(), 3);
}
