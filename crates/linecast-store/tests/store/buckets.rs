//! What the bucket suites share: starting an emulator on loopback and
//! stopping it with the test, plain HTTP without a client library, and the
//! one test body every bucket store (S3, GCS) must pass. The body reads
//! through linecast's store; objects are published by the caller's
//! `publish`, as the pipeline would (linecast never writes to a store).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use linecast_core::ports::releases::{KeptRelease, ReleaseArchive, Series};
use linecast_core::{ArtifactStore, StoreError};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_store::{ObjectArtifactStore, StoreOptions};

use crate::helpers::{SEASON, TEAMS};

/// An emulator this test started; killed when the test ends, however it ends.
pub struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Server {
    /// Starts `command` and waits until it answers HTTP on `port`.
    pub fn start(mut command: Command, port: u16) -> Self {
        let name = command.get_program().to_string_lossy().into_owned();
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {name}: {e}"));
        let server = Self(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while raw_http(port, "GET /", "").is_err() {
            assert!(Instant::now() < deadline, "{name} did not start on port {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }
}

pub fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Sends one unsigned HTTP request and returns the status line.
pub fn raw_http(port: u16, request_line: &str, body: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(
        stream,
        "{request_line} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    Ok(response.lines().next().unwrap_or_default().to_owned())
}

/// The bucket suite: `bucket_url` names an existing, empty bucket
/// (`s3://linecast`, `gs://linecast`); `options` reach its server;
/// `publish(key, body)` writes one object at `key` from the bucket's root.
/// `archive_writes`: whether the server takes object_store's own writes
/// (fake-gcs-server refuses its XML-API upload; real GCS takes it), else
/// the archived release is published like the artifacts and only read.
pub async fn reads_artifacts_under_the_prefix(
    bucket_url: &str,
    options: impl Fn() -> StoreOptions,
    publish: impl AsyncFn(&str, &str),
    archive_writes: bool,
) {
    let store = ObjectArtifactStore::from_url(&format!("{bucket_url}/data/v1"), options()).unwrap();
    publish("data/v1/teams/nba.csv", TEAMS).await;
    publish("data/v1/seasons/nba/over_under/2025-26.csv", SEASON).await;

    assert!(store.ping().await.is_ok());
    let teams = store.teams(Sport::Nba).await.unwrap();
    assert_eq!(teams.value.teams.len(), 2);
    assert!(!teams.version.version.is_empty(), "the bucket gives an e_tag");
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
    let unprefixed = ObjectArtifactStore::from_url(bucket_url, options()).unwrap();
    assert!(matches!(
        unprefixed.teams(Sport::Nba).await,
        Err(StoreError::NotFound { .. })
    ));

    // A new PUT is a new version: parsed again after the TTL.
    let parses = store.parse_count();
    publish(
        "data/v1/teams/nba.csv",
        &format!("{TEAMS}brooklyn_nets,Brooklyn Nets,BKN\n"),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(store.teams(Sport::Nba).await.unwrap().value.teams.len(), 3);
    assert_eq!(store.parse_count(), parses + 1);

    // A download link's bytes: the download route reads them from the store,
    // whatever the store is (docs/decisions.md, "One link format; refreshes
    // checked before signing, taken after").
    publish("data/v1/datasets/nba/nba_history.csv", "date,home\n2025-11-20,NYK\n").await;
    let bytes = store.dataset_bytes("datasets/nba/nba_history.csv").await.unwrap();
    assert_eq!(&bytes[..], b"date,home\n2025-11-20,NYK\n");

    // A kept release: its bytes archived under the prefix by digest (a
    // second write of the same digest is no error), read back parsed with
    // the release's own publication instant, and deleted by retention.
    let series = Series::Odds(Sport::Nba);
    let digest = linecast_core::services::releases::digest(ODDS.as_bytes());
    let key = series.archive_key(&digest);
    if archive_writes {
        store.keep(&key, ODDS.into()).await.unwrap();
        store.keep(&key, ODDS.into()).await.unwrap();
    } else {
        publish(&format!("data/v1/{key}"), ODDS).await;
    }
    let published_at = chrono::DateTime::parse_from_rfc3339("2026-11-20T14:00:00.25Z")
        .unwrap()
        .to_utc();
    let release = KeptRelease {
        series,
        published_at,
        digest: digest.clone(),
        game_count: 1,
        size: ODDS.len() as u64,
    };
    let kept = store.kept_odds(&release).await.unwrap();
    assert_eq!(kept.value.len(), 1);
    assert_eq!(kept.version.last_modified, published_at);
    assert_eq!(kept.value[0].match_id, "49a3ddc96f85dd34");
    let (_, raw) = unprefixed
        .current(&format!("data/v1/archive/nba/odds/{digest}.csv"))
        .await
        .unwrap();
    assert_eq!(&raw[..], ODDS.as_bytes(), "under the prefix, by digest");
    if archive_writes {
        store.delete(&key).await.unwrap();
        store.delete(&key).await.unwrap();
        assert!(matches!(
            unprefixed
                .current(&format!("data/v1/archive/nba/odds/{digest}.csv"))
                .await,
            Err(StoreError::NotFound { .. })
        ));
    }
}

/// One odds row of the data contract.
const ODDS: &str = "match_id,date,time_est,away_team,home_team,away_point_spread,away_point_spread_line,home_point_spread,home_point_spread_line,away_money_line,home_money_line,over_under,over_line,under_line,last_updated\n\
49a3ddc96f85dd34,2026-11-15,18:00:00,dallas_mavericks,charlotte_hornets,6.5,-107,-6.5,-112,211,-262,222,-115,-104,2026-11-15 14:13:17\n";

/// A bucket store whose server is not there answers Unavailable, for reads
/// and for the readiness ping.
pub async fn an_unreachable_server_is_unavailable(store: &ObjectArtifactStore) {
    let err = store.teams(Sport::Nba).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(matches!(store.ping().await, Err(StoreError::Unavailable { .. })));
}
