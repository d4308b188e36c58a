//! The `s3://` path against a real S3-compatible server (moto on loopback).
//! Without `moto_server` on PATH the test is skipped, unless
//! `LINECAST_REQUIRE_S3_TEST` is set (CI), where a missing moto fails.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use linecast_core::{ArtifactStore, StoreError};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_store::{ObjectArtifactStore, S3Options, StoreOptions};

use crate::helpers::{SEASON, TEAMS, put};

/// Kills the server when the test ends, however it ends.
struct Moto(Child);

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Sends one unsigned HTTP request and returns the status line.
fn raw_http(port: u16, request_line: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        stream,
        "{request_line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    Ok(response.lines().next().unwrap_or_default().to_owned())
}

fn start_moto() -> Option<(Moto, u16)> {
    let Some(program) = on_path("moto_server") else {
        assert!(
            std::env::var_os("LINECAST_REQUIRE_S3_TEST").is_none(),
            "LINECAST_REQUIRE_S3_TEST is set but moto_server is not on PATH (pip install 'moto[server]')"
        );
        eprintln!("SKIP: moto_server not on PATH; install moto[server] to run the S3 test");
        return None;
    };
    let port = free_port();
    let child = Command::new(program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let moto = Moto(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while raw_http(port, "GET /").is_err() {
        assert!(Instant::now() < deadline, "moto_server did not start on port {port}");
        std::thread::sleep(Duration::from_millis(100));
    }
    Some((moto, port))
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
    let status = raw_http(port, "PUT /linecast").unwrap();
    assert!(status.contains("200"), "bucket creation answered {status}");

    let store = ObjectArtifactStore::from_url("s3://linecast/data/v1", s3_options(port)).unwrap();
    let raw = store.object_store();
    put(&raw, "teams/nba.csv", TEAMS).await;
    put(&raw, "seasons/nba/over_under/2025-26.csv", SEASON).await;

    assert!(store.ping().await.is_ok());
    let teams = store.teams(Sport::Nba).await.unwrap();
    assert_eq!(teams.value.teams.len(), 2);
    assert!(!teams.version.version.is_empty(), "S3 gives an e_tag");
    let labels = store.seasons(Sport::Nba, ModelType::OverUnder).await.unwrap();
    let label = SeasonLabel::parse(Sport::Nba, "2025-26").unwrap();
    assert_eq!(labels, [label]);
    assert_eq!(
        store
            .season(Sport::Nba, ModelType::OverUnder, label)
            .await
            .unwrap()
            .value
            .rows
            .len(),
        2
    );
    assert_eq!(
        store.odds(Sport::Nba).await.unwrap_err(),
        StoreError::NotFound {
            object: "odds/nba.csv".to_owned()
        }
    );

    // The prefix is real: the object lives under data/v1/ in the bucket.
    let unprefixed = ObjectArtifactStore::from_url("s3://linecast", s3_options(port)).unwrap();
    assert!(matches!(
        unprefixed.teams(Sport::Nba).await,
        Err(StoreError::NotFound { .. })
    ));

    // A new PUT is a new version: parsed again after the TTL.
    let parses = store.parse_count();
    put(
        &raw,
        "teams/nba.csv",
        &format!("{TEAMS}brooklyn_nets,Brooklyn Nets,BKN\n"),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(store.teams(Sport::Nba).await.unwrap().value.teams.len(), 3);
    assert_eq!(store.parse_count(), parses + 1);
}

#[tokio::test]
async fn an_unreachable_s3_endpoint_is_unavailable() {
    let port = free_port();
    let store = ObjectArtifactStore::from_url("s3://linecast", s3_options(port)).unwrap();
    let err = store.teams(Sport::Nba).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(matches!(store.ping().await, Err(StoreError::Unavailable { .. })));
}
