use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use linecast_api::settings::Settings;
use linecast_api::startup::Application;

/// The committed fixture store was generated for this ET date.
pub const FIXTURE_TODAY: &str = "2026-11-15";

/// Noon ET on the fixture date.
pub fn fixture_now() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-15T17:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/store")
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    pub store_dir: PathBuf,
    /// The demo customer's key, created on first run.
    pub api_key: String,
    /// The app's state (services), for tests that drive a use case directly.
    pub state: linecast_api::state::AppState,
    /// The raw adapters, for tests that seed or inspect the database, the
    /// limiter's buffer or download tokens.
    pub ports: linecast_api::startup::Adapters,
    pub handle: actix_web::dev::ServerHandle,
    pub var_dir: PathBuf,
    _dir: tempfile::TempDir,
}

impl TestApp {
    /// One watcher round at the app's now and the keeping of the
    /// predictions and odds versions it saw, as the server's watcher task
    /// runs them (without waiting for its next tick).
    pub async fn keep_releases(&self) -> Vec<std::sync::Arc<linecast_core::services::events::Event>> {
        let memo = &self.state.responses.memo;
        linecast_runtime::watch_round(
            &self.state.events,
            &self.state.releases,
            self.state.webhooks.store().as_ref(),
            self.state.clock.now(),
            &|| memo.clear(),
        )
        .await
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .send()
            .await
            .expect("request failed")
    }

    /// GET with the demo key in `X-API-Key`.
    pub async fn get_authed(&self, path: &str) -> reqwest::Response {
        self.client
            .get(format!("{}{path}", self.address))
            .header("X-API-Key", &self.api_key)
            .send()
            .await
            .expect("request failed")
    }

    /// GET with `key` in `X-API-Key` and `headers`.
    pub async fn get_keyed(&self, path: &str, key: &str, headers: &[(&str, &str)]) -> reqwest::Response {
        let mut req = self
            .client
            .get(format!("{}{path}", self.address))
            .header("X-API-Key", key);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req.send().await.expect("request failed")
    }

    /// GET with the demo key, returning status and JSON body.
    pub async fn get_authed_json(&self, path: &str) -> (u16, serde_json::Value) {
        let res = self.get_authed(path).await;
        let status = res.status().as_u16();
        let body = res.json().await.expect("body is JSON");
        crate::contract::validate("GET", path, status, &body);
        (status, body)
    }

    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let res = self.get(path).await;
        let status = res.status().as_u16();
        let body = res.json().await.expect("body is JSON");
        crate::contract::validate("GET", path, status, &body);
        (status, body)
    }
}

/// Copies the fixture store (or any folder) to `to`.
pub fn copy_fixture(from: &Path, to: &Path) {
    copy_dir(from, to);
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Spawns the app over a private copy of the fixture store; `prepare` may
/// edit the copy before the server starts.
pub async fn spawn_app_with(now: DateTime<Utc>, prepare: impl FnOnce(&Path)) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    copy_dir(&fixtures_dir(), &store_dir);
    prepare(&store_dir);
    let settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), now);
    spawn_with_settings(settings, dir, store_dir).await
}

/// Spawns the app with explicit settings; `dir` is kept alive with the app.
pub async fn spawn_with_settings(settings: Settings, dir: tempfile::TempDir, store_dir: PathBuf) -> TestApp {
    let app = Application::build(settings).await.expect("app builds");
    TestApp::from_built(app, dir, store_dir)
}

impl TestApp {
    /// Runs a built application in the background and wraps it.
    pub fn from_built(app: Application, dir: tempfile::TempDir, store_dir: PathBuf) -> TestApp {
        let var_dir = app.state_var_dir().to_path_buf();
        let address = format!("http://127.0.0.1:{}", app.port());
        let state = app.state.clone();
        let ports = app.adapters.clone();
        let handle = app.handle();
        tokio::spawn(app.run_until_stopped());
        // Idle connections are dropped well before the server's keep-alive
        // (5 s) closes them, so a loaded CI machine never reuses a connection
        // the server is closing (hyper's `IncompleteMessage`).
        let client = http_client()
            .no_gzip()
            .no_brotli()
            .pool_idle_timeout(std::time::Duration::from_secs(1))
            .build()
            .unwrap();
        // Demo mode writes the demo key on first run; production mode has none.
        let api_key = std::fs::read_to_string(var_dir.join("demo-key.txt"))
            .map(|k| k.trim().to_owned())
            .unwrap_or_default();
        TestApp {
            address,
            client,
            store_dir,
            api_key,
            state,
            ports,
            handle,
            var_dir,
            _dir: dir,
        }
    }
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(fixture_now(), |_| {}).await
}

/// Sends `method path` as written, byte for byte (no client-side
/// normalisation of dot segments or escapes), with `headers`, and returns
/// the status and the raw response.
pub async fn raw_request(address: &str, method: &str, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(host).await.unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(name);
        request.push_str(": ");
        request.push_str(value);
        request.push_str("\r\n");
    }
    if matches!(method, "POST" | "PATCH" | "PUT") {
        request.push_str("Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    } else {
        request.push_str("\r\n");
    }
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    (status, text)
}

/// Asserts the spec's error shape and status, returning `detail`.
pub fn assert_error_shape(status: u16, body: &serde_json::Value, expected: u16) -> String {
    assert_eq!(status, expected, "unexpected status, body {body}");
    assert_eq!(body["error"], format!("HTTP_{expected}"), "body {body}");
    let ts = body["timestamp"].as_str().expect("timestamp string");
    assert!(DateTime::parse_from_rfc3339(ts).is_ok(), "timestamp {ts} is ISO 8601");
    // The original three fields, then `code` (snake_case) and `request_id`
    // on every error, and `parameter` only when one is at fault.
    let code = body["code"].as_str().expect("code string");
    assert!(
        !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
        "code {code} is snake_case"
    );
    assert!(
        body["request_id"].as_str().is_some_and(|id| !id.is_empty()),
        "request_id in {body}"
    );
    let known = ["error", "detail", "timestamp", "code", "request_id", "parameter"];
    for key in body.as_object().unwrap().keys() {
        assert!(known.contains(&key.as_str()), "unexpected field {key} in {body}");
    }
    body["detail"].as_str().expect("detail string").to_owned()
}

/// Spawns the app over a private copy of the fixture store like
/// [`spawn_app_with`], letting `configure` change the settings first (e.g. the
/// prediction-market source).
pub async fn spawn_app_configured(
    now: DateTime<Utc>,
    prepare: impl FnOnce(&Path),
    configure: impl FnOnce(&mut Settings),
) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    copy_dir(&fixtures_dir(), &store_dir);
    prepare(&store_dir);
    let mut settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), now);
    configure(&mut settings);
    spawn_with_settings(settings, dir, store_dir).await
}

/// The rows of a CSV file as header-to-cell maps (cells verbatim).
pub fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            headers
                .iter()
                .zip(r.unwrap().iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// The header of a CSV file.
pub fn csv_headers(path: &Path) -> Vec<String> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    reader.headers().unwrap().iter().map(str::to_owned).collect()
}

/// A UTC instant from RFC 3339 text.
pub fn instant(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
}

/// Authenticated GETs spread over fresh keys of the demo customer. The
/// frozen clock never lets a per-second window pass, so one key serves at
/// most 50 requests per app; tests that sweep every sport and model type
/// take a new key before that.
pub struct KeyRing<'a> {
    app: &'a TestApp,
    key: String,
    used: u32,
}

impl<'a> KeyRing<'a> {
    const PER_KEY: u32 = 40;

    pub fn new(app: &'a TestApp) -> Self {
        Self {
            app,
            key: app.api_key.clone(),
            used: 0,
        }
    }

    async fn fresh_key(&self) -> String {
        use linecast_core::key_material::{display_prefix, generate_key, hash_key};
        let accounts = &self.app.ports.accounts;
        let customer = accounts
            .find_customer_by_email(linecast_api::demo::DEMO_EMAIL)
            .await
            .unwrap()
            .unwrap();
        let key = generate_key().unwrap();
        let new = linecast_core::NewApiKey {
            customer_id: customer.customer_id,
            key_hash: hash_key(&key),
            display_prefix: display_prefix(&key).unwrap_or_default().to_owned(),
            name: "test ring".to_owned(),
            tier: "ai".to_owned(),
            expires_at: None,
        };
        seed_key(accounts.as_ref(), new, fixture_now()).await;
        key
    }

    /// GET `path` with a key that still has per-second budget: status and JSON body.
    pub async fn get_json(&mut self, path: &str) -> (u16, serde_json::Value) {
        if self.used >= Self::PER_KEY {
            self.key = self.fresh_key().await;
            self.used = 0;
        }
        self.used += 1;
        let url = format!("{}{path}", self.app.address);
        let res = self
            .app
            .client
            .get(url)
            .header("X-API-Key", &self.key)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.expect("body is JSON"))
    }
}

static LOGS: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

struct LogSink;

impl std::io::Write for LogSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        LOGS.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Sends every log line of this test process (all tests) to a buffer, the
/// way the server's subscriber would write them. Idempotent.
pub fn capture_logs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("info"))
            .with_ansi(false)
            .with_writer(|| LogSink)
            .finish();
        let _ = tracing::subscriber::set_global_default(subscriber);
    });
}

/// Stores `new` through the accounts port, uncapped, with a `seeded` audit line.
pub async fn seed_key(
    accounts: &dyn linecast_core::Accounts,
    new: linecast_core::NewApiKey,
    now: DateTime<Utc>,
) -> linecast_core::ApiKeyRecord {
    let issue = linecast_core::KeyIssue {
        key: new,
        max_active: None,
        audit_action: "issue".to_owned(),
        audit_detail: "seeded by a test".to_owned(),
    };
    match accounts.issue_key(issue, now).await.unwrap() {
        linecast_core::KeyIssued::Stored(record) => record,
        linecast_core::KeyIssued::LimitReached => panic!("an uncapped issue reached a limit"),
    }
}

/// Everything logged so far.
pub fn captured_logs() -> String {
    String::from_utf8_lossy(&LOGS.lock().unwrap()).into_owned()
}

/// The text of the metrics listener on `port`.
pub async fn metrics_text(port: u16) -> String {
    http_client()
        .build()
        .unwrap()
        .get(format!("http://127.0.0.1:{port}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// A client builder with the process's TLS provider installed (the
/// server's own, `linecast_tls`): reqwest is built without one.
pub fn http_client() -> reqwest::ClientBuilder {
    linecast_tls::install();
    reqwest::Client::builder()
}

/// The bytes a gzip body inflates to.
pub fn gunzip(body: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body).read_to_end(&mut out).unwrap();
    out
}

/// The demo customer (every in-process app starts with it).
pub async fn demo_customer(app: &TestApp) -> linecast_core::Customer {
    app.ports
        .accounts
        .find_customer_by_email(linecast_core::services::customers::DEMO_EMAIL)
        .await
        .unwrap()
        .expect("the demo customer")
}

/// A one-time sign-in link token for the demo customer, made at `now`, as
/// `linecast-admin customers sign-in-link` makes it.
pub async fn demo_sign_in_link(app: &TestApp, now: DateTime<Utc>) -> String {
    let demo = demo_customer(app).await;
    linecast_core::services::portal::create_sign_in_link(app.ports.sessions.as_ref(), demo.customer_id, now)
        .await
        .unwrap()
}

/// An RFC 3339 instant as UTC.
pub fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// Writes `bytes` as the object `key` under `store`, last modified at
/// `when`, in one rename (a watcher round never sees the bytes with another
/// time): how a test publishes a version at an instant it chooses.
pub fn publish(store: &Path, key: &str, bytes: &[u8], when: &str) {
    let path = store.join(key);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let staged = path.with_extension("staged");
    std::fs::write(&staged, bytes).unwrap();
    let file = std::fs::File::options().write(true).open(&staged).unwrap();
    file.set_modified(at(when).into()).unwrap();
    drop(file);
    std::fs::rename(&staged, &path).unwrap();
}

/// SHA-256 of `bytes`, lowercase hex: a kept release's digest, worked out
/// by the test from the bytes it wrote.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Empties the AI cell of the first row of the nba moneyline predictions
/// under `store` (the pipeline leaves it empty when the AI model had no
/// forecast for the game).
pub fn blank_first_ai_cell(store: &Path) {
    let path = store.join("predictions/nba/won_on_points.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let ai = lines[0].split(',').position(|c| c == "AI").unwrap();
    let mut cells: Vec<&str> = lines[1].split(',').collect();
    cells[ai] = "";
    lines[1] = cells.join(",");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}
