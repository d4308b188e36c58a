//! The stop sequence of the real binary: after SIGTERM, readiness answers
//! 503 for the drain grace while every other route is still served on new
//! connections; then the server stops accepting, drains and exits 0. A
//! second signal cuts the grace short. Deadlines here are generous (a
//! loaded 2-core machine): the first test's grace is 120 s and is ended by
//! the second signal, so nothing depends on how fast the signal is handled.

use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::{fixture_now, fixtures_dir};

/// A `linecast-api` process in production mode over the fixture store and
/// a fresh SQLite file; killed if the test ends early.
pub(crate) struct Server {
    child: Child,
    pub(crate) base: String,
    pub(crate) dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(grace: &str) -> Server {
    start_with(grace, &[])
}

/// `start` with more environment (later entries win). The store is a copy
/// of the fixture store in the server's folder (the server writes kept
/// releases under its `archive/`, never into the committed fixture).
pub(crate) fn start_with(grace: &str, env: &[(&str, String)]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    crate::helpers::copy_fixture(&fixtures_dir(), &store);
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_linecast-api"));
    for (name, _) in std::env::vars() {
        if name.starts_with("LINECAST_") {
            command.env_remove(name);
        }
    }
    let log = std::fs::File::create(dir.path().join("server.log")).unwrap();
    let child = command
        .current_dir(dir.path())
        .env("LINECAST_BIND", format!("127.0.0.1:{port}"))
        .env(
            "LINECAST_DATABASE_URL",
            format!("sqlite://{}?mode=rwc", dir.path().join("accounts.db").display()),
        )
        .env("LINECAST_VAR_DIR", dir.path())
        .env("LINECAST_STORE_URL", format!("file://{}", store.display()))
        .env("LINECAST_DEMO", "false")
        // A fresh database: migrated at start (production mode otherwise
        // refuses an unmigrated one).
        .env("LINECAST_MIGRATE", "true")
        .env("LINECAST_NOW", fixture_now().to_rfc3339())
        .env("LINECAST_DRAIN_GRACE_SECS", grace)
        .env("RUST_LOG", "info")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap();
    Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
        dir,
    }
}

impl Server {
    /// The process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    pub(crate) fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -{name}");
    }

    /// Waits for the process to exit, at most `limit`.
    pub(crate) fn exit_within(&mut self, limit: Duration) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit within {limit:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A client that opens a new connection for every request, so each
/// answer also shows that the listener still accepts.
pub(crate) fn client() -> reqwest::Client {
    crate::helpers::http_client()
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

async fn status(client: &reqwest::Client, url: &str) -> Option<u16> {
    client.get(url).send().await.ok().map(|r| r.status().as_u16())
}

/// Polls `path` until it answers `want`, for at most `limit`.
pub(crate) async fn until(server: &Server, path: &str, want: u16, limit: Duration) {
    let (client, url) = (client(), format!("{}{path}", server.base));
    let deadline = Instant::now() + limit;
    loop {
        if status(&client, &url).await == Some(want) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{path} never answered {want} within {limit:?}:\n{}",
            server.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const PUBLIC_DATA: &str = "/api/v1/public/ml-picks/nba/moneyline?upcoming_only=false";

#[tokio::test]
async fn after_sigterm_readiness_fails_while_everything_else_is_served_until_the_grace_ends() {
    let mut server = start("120");
    until(&server, "/api/v1/readiness", 200, Duration::from_mins(2)).await;
    let client = client();
    assert_eq!(
        status(&client, &format!("{}{PUBLIC_DATA}", server.base)).await,
        Some(200)
    );

    server.signal("TERM");
    until(&server, "/api/v1/readiness", 503, Duration::from_mins(1)).await;

    // Draining: readiness says why, in the error shape; liveness, health and
    // data are still served, each on a new connection.
    let res = client
        .get(format!("{}/api/v1/readiness", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let body: serde_json::Value = res.json().await.unwrap();
    let detail = crate::helpers::assert_error_shape(503, &body, 503);
    assert!(detail.contains("draining"), "{body}");
    for path in ["/api/v1/liveness", "/api/v1/health", PUBLIC_DATA] {
        assert_eq!(
            status(&client, &format!("{}{path}", server.base)).await,
            Some(200),
            "{path} while draining"
        );
    }
    assert!(server.child.try_wait().unwrap().is_none(), "still running in the grace");

    // A second signal ends the grace: the server stops and exits cleanly.
    server.signal("TERM");
    let exit = server.exit_within(Duration::from_secs(90));
    assert!(exit.success(), "{exit:?}:\n{}", server.log());
    assert_eq!(
        status(&client, &format!("{}/api/v1/liveness", server.base)).await,
        None,
        "nothing listens after the stop"
    );
    let log = server.log();
    assert!(log.contains("readiness fails from now on"), "{log}");
    assert!(log.contains("linecast stopped"), "{log}");
}

#[tokio::test]
async fn the_grace_ends_by_itself_and_the_server_exits_cleanly() {
    let mut server = start("0.5");
    until(&server, "/api/v1/readiness", 200, Duration::from_mins(2)).await;
    server.signal("TERM");
    let exit = server.exit_within(Duration::from_secs(90));
    assert!(exit.success(), "{exit:?}:\n{}", server.log());
    assert!(server.log().contains("linecast stopped"), "{}", server.log());
}

/// A store endpoint that accepts connections and never answers; the
/// connections stay open as long as the test runs.
fn blackhole() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

#[tokio::test]
async fn a_store_that_never_answers_makes_readiness_fail_fast_and_does_not_hold_up_the_stop() {
    let port = blackhole();
    let mut server = start_with(
        "0.5",
        &[
            ("LINECAST_STORE_URL", "s3://linecast-blackhole".to_owned()),
            ("LINECAST_STORE_TIMEOUT_SECS", "1".to_owned()),
            ("AWS_ENDPOINT_URL", format!("http://127.0.0.1:{port}")),
            ("AWS_ALLOW_HTTP", "true".to_owned()),
            ("AWS_ACCESS_KEY_ID", "blackhole".to_owned()),
            ("AWS_SECRET_ACCESS_KEY", "blackhole".to_owned()),
            ("AWS_REGION", "us-east-1".to_owned()),
        ],
    );
    until(&server, "/api/v1/liveness", 200, Duration::from_mins(2)).await;
    // Readiness and a data request answer 503 within a few store-call
    // bounds (before: 30 s for readiness, and a watcher round never ended).
    let client = client();
    for path in ["/api/v1/readiness", PUBLIC_DATA] {
        let started = Instant::now();
        let status = status(&client, &format!("{}{path}", server.base)).await;
        assert_eq!(status, Some(503), "{path}:\n{}", server.log());
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{path} took {:?}",
            started.elapsed()
        );
    }
    // With a watcher round and a data request waiting on the store, the
    // process exits within the grace, the in-flight allowance and 2 s.
    let pending = {
        let (client, url) = (client.clone(), format!("{}{PUBLIC_DATA}", server.base));
        tokio::spawn(async move { client.get(url).send().await.map(|r| r.status().as_u16()) })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let signalled = Instant::now();
    server.signal("TERM");
    let exit = server.exit_within(Duration::from_mins(1));
    let took = signalled.elapsed();
    assert!(exit.success(), "{exit:?}:\n{}", server.log());
    // The documented bound: the grace (0.5 s), the default in-flight
    // allowance (10 s) and 2 s, written here rather than read from the code.
    let bound = Duration::from_millis(12_500);
    assert!(
        took < bound,
        "exited after {took:?}, more than {bound:?}:\n{}",
        server.log()
    );
    let _ = pending.await;
    assert!(server.log().contains("linecast stopped"), "{}", server.log());
}

/// The log lines of `server` (JSON, one object a line) whose message
/// starts with `message`.
fn lines_saying(server: &Server, message: &str) -> Vec<serde_json::Value> {
    server
        .log()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|line| {
            line["fields"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with(message))
        })
        .collect()
}

const EXPORT: &str = "/api/v1/results/nba/won_on_points/export?season=all&format=csv";
const EXPORT_ROUTE: &str = "/api/v1/results/{sport}/{model_type}/export";

/// Sends `requests` export requests on one connection whose client reads
/// only the first answer's head and then nothing; returns the connection
/// (held open) once that head has arrived.
async fn stalled_exports(server: &Server, key: &str, requests: usize) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let addr: std::net::SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let mut stream = socket.connect(addr).await.unwrap();
    let request = format!("GET {EXPORT} HTTP/1.1\r\nHost: test\r\nX-API-Key: {key}\r\n\r\n").repeat(requests);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut buf = [0_u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_mins(2), stream.read(&mut buf))
            .await
            .expect("the export's head within two minutes")
            .unwrap();
        assert!(n > 0, "closed before the head:\n{}", server.log());
        head.extend_from_slice(&buf[..n]);
    }
    assert!(head.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&head));
    stream
}

/// A large body ended early is logged with its route template and the
/// bytes sent: at INFO when its client closes the connection part way; at
/// WARN when the stop's in-flight allowance (`LINECAST_SHUTDOWN_TIMEOUT_SECS`)
/// runs out while it is still being sent. Exports of the demo store (about
/// 4.6 MB each, several pipelined on one connection whose client reads
/// nothing) cannot fit the socket buffers, so one is always being sent
/// when the allowance ends.
#[tokio::test]
async fn a_large_body_cut_short_is_logged_with_its_route_and_the_bytes_sent() {
    let store = tempfile::tempdir().unwrap();
    let mut server = start_with(
        "0",
        &[
            // Demo mode: the demo data is generated into the empty store,
            // and the demo key written to the var folder.
            ("LINECAST_DEMO", "true".to_owned()),
            ("LINECAST_STORE_URL", format!("file://{}", store.path().display())),
            ("LINECAST_SHUTDOWN_TIMEOUT_SECS", "2".to_owned()),
            // Only the allowance may end the stalled export.
            ("LINECAST_STALL_TIMEOUT_SECS", "600".to_owned()),
            ("LINECAST_LOG_FORMAT", "json".to_owned()),
        ],
    );
    until(&server, "/api/v1/readiness", 200, Duration::from_mins(3)).await;
    let key = std::fs::read_to_string(server.dir.path().join("demo-key.txt"))
        .unwrap()
        .trim()
        .to_owned();

    // A client that goes away part way: INFO, not the stop's warning.
    drop(stalled_exports(&server, &key, 1).await);
    let deadline = Instant::now() + Duration::from_mins(1);
    let closed = loop {
        let found = lines_saying(&server, "response ended before its last byte");
        if let Some(line) = found.first() {
            break line.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no line for the closed download:\n{}",
            server.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(closed["level"], "INFO", "{closed}");
    assert_eq!(closed["fields"]["route"], EXPORT_ROUTE, "{closed}");
    let (sent, total) = (
        closed["fields"]["bytes_sent"].as_u64().unwrap(),
        closed["fields"]["bytes_total"].as_u64().unwrap(),
    );
    assert!(total > 1_000_000 && sent < total, "{closed}");

    // Exports a client stopped reading, then a stop: the allowance ends
    // with one of them part way, and that is a warning.
    let held = stalled_exports(&server, &key, 8).await;
    server.signal("TERM");
    let exit = server.exit_within(Duration::from_secs(90));
    assert!(exit.success(), "{exit:?}:\n{}", server.log());
    drop(held);
    let cut = lines_saying(&server, "response cut by the stop");
    assert_eq!(cut.len(), 1, "one export was in flight:\n{}", server.log());
    let line = &cut[0];
    assert_eq!(line["level"], "WARN", "{line}");
    assert_eq!(line["fields"]["route"], EXPORT_ROUTE, "{line}");
    assert_eq!(line["fields"]["allowance_secs"], 2, "{line}");
    assert!(
        line["fields"]["request_id"].as_str().is_some_and(|id| id.len() == 32),
        "{line}"
    );
    let (sent, total) = (
        line["fields"]["bytes_sent"].as_u64().unwrap(),
        line["fields"]["bytes_total"].as_u64().unwrap(),
    );
    assert!(total > 1_000_000 && sent < total, "{line}");
    assert_eq!(
        lines_saying(&server, "response ended before its last byte").len(),
        1,
        "the cut export is not also logged as a closed connection"
    );
}

/// Which shared dependency a stop test cuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shared {
    Database,
    Redis,
}

/// The value of `linecast_dependency_up` for `dependency` in a scrape.
fn dependency_up(metrics: &str, dependency: &str) -> Option<f64> {
    let series = format!("linecast_dependency_up{{dependency=\"{dependency}\"}} ");
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(series.as_str()))
        .and_then(|v| v.trim().parse().ok())
}

/// A server in demo mode (its key in use, so usage is buffered and, with
/// Redis, quota leased) on PostgreSQL and Redis, each behind a partition
/// the test holds; `cut` is blackholed (connections accepted, no byte
/// answered). Readiness stays 200, health and the metrics say which is
/// down, public routes serve, and after SIGTERM the process exits within
/// the drain grace, the in-flight allowance and 2 s.
async fn a_blackholed_shared_dependency_leaves_readiness_up_and_the_stop_bounded(cut: Shared) {
    use crate::partition::{Partition, database_behind_partition, external_url, psql, through};
    let (Some(db_base), Some(redis)) = (
        external_url("LINECAST_TEST_DATABASE_URL"),
        external_url("LINECAST_TEST_REDIS_URL"),
    ) else {
        return;
    };
    let (db_url, database, schema) = database_behind_partition(&db_base, &format!("stop_{cut:?}")).await;
    let (_, upstream) = through(&redis, "127.0.0.1:1".parse().unwrap());
    let redis_partition = Partition::to(upstream).await;
    let (redis_url, _) = through(&redis, redis_partition.addr);
    let metrics_port = free_port();
    let mut server = start_with(
        "0.5",
        &[
            ("LINECAST_DEMO", "true".to_owned()),
            ("LINECAST_DATABASE_URL", db_url),
            ("LINECAST_REDIS_URL", redis_url),
            (
                "LINECAST_REDIS_NAMESPACE",
                format!("stop-{cut:?}-{}", std::process::id()),
            ),
            ("LINECAST_METRICS_BIND", format!("127.0.0.1:{metrics_port}")),
        ],
    );
    until(&server, "/api/v1/readiness", 200, Duration::from_mins(2)).await;
    assert!(
        server
            .log()
            .contains("LINECAST_REDIS_URL is set without LINECAST_SIGNING_KEY"),
        "several instances without one signing key are warned about:\n{}",
        server.log()
    );
    let key = std::fs::read_to_string(server.dir.path().join("demo-key.txt"))
        .unwrap()
        .trim()
        .to_owned();
    let client = client();
    let keyed = |path: &str| {
        client
            .get(format!("{}{path}", server.base))
            .header("X-API-Key", key.as_str())
            .send()
    };
    for _ in 0..5 {
        assert_eq!(keyed("/api/v1/sports").await.unwrap().status(), 200);
    }
    match cut {
        Shared::Database => database.pause(true),
        Shared::Redis => redis_partition.pause(true),
    }
    let (name, other) = match cut {
        Shared::Database => ("database", "redis"),
        Shared::Redis => ("redis", "database"),
    };
    // Health says which within a few probe rounds; readiness never fails.
    let deadline = Instant::now() + Duration::from_mins(1);
    loop {
        let started = Instant::now();
        let ready = status(&client, &format!("{}/api/v1/readiness", server.base)).await;
        assert_eq!(ready, Some(200), "readiness with {name} cut:\n{}", server.log());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "readiness waits on nothing shared"
        );
        let health: serde_json::Value = client
            .get(format!("{}/api/v1/health", server.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if health["dependencies"][name]["status"] == "down" {
            assert_eq!(health["dependencies"][other]["status"], "ok", "{health}");
            break;
        }
        assert!(Instant::now() < deadline, "health never said {name} is down: {health}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let metrics = crate::helpers::metrics_text(metrics_port).await;
    assert_eq!(dependency_up(&metrics, name), Some(0.0), "{metrics}");
    assert_eq!(dependency_up(&metrics, other), Some(1.0), "{metrics}");
    let public = status(&client, &format!("{}{PUBLIC_DATA}", server.base)).await;
    assert_eq!(public, Some(200), "public routes need neither");
    // A keyed request is either served (the database outage's grace) or a
    // fast 503 (Redis, once what this instance holds runs out): never a
    // hang, a 401 or a 500.
    let started = Instant::now();
    let keyed_status = keyed("/api/v1/sports").await.unwrap().status().as_u16();
    assert!(matches!(keyed_status, 200 | 503), "{keyed_status}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());

    let signalled = Instant::now();
    server.signal("TERM");
    let exit = server.exit_within(Duration::from_mins(1));
    let took = signalled.elapsed();
    assert!(exit.success(), "{exit:?}:\n{}", server.log());
    // The documented bound: the grace (0.5 s), the default in-flight
    // allowance (10 s) and 2 s, written here rather than read from the code.
    let bound = Duration::from_millis(12_500);
    assert!(took < bound, "exited after {took:?} with {name} cut:\n{}", server.log());
    assert!(server.log().contains("linecast stopped"), "{}", server.log());
    database.pause(false);
    psql(&db_base, &format!("DROP SCHEMA {schema} CASCADE"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blackholed_database_leaves_readiness_up_and_the_stop_bounded() {
    a_blackholed_shared_dependency_leaves_readiness_up_and_the_stop_bounded(Shared::Database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blackholed_redis_leaves_readiness_up_and_the_stop_bounded() {
    a_blackholed_shared_dependency_leaves_readiness_up_and_the_stop_bounded(Shared::Redis).await;
}
