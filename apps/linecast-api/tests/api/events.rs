//! The change stream over HTTP: a republished object is one `release`
//! event and the next request serves it, two instances name it alike, a
//! stale `Last-Event-ID` gets `resync`, the sixth stream is refused (on
//! whichever instance, when instances share Redis), a
//! stream whose client closed or vanished gives its slot back within 5 s, a
//! revoked key's stream ends, and bad filters are 400s. (The watcher's own
//! rules, the status transition at the deadline and the replay window are
//! core's tests, on the in-memory store with a clock the tests move.)

use std::time::Duration;

use linecast_api::settings::Settings;

use crate::helpers::{TestApp, copy_fixture, fixture_now, fixtures_dir, spawn_app, spawn_with_settings};

const EVENTS: &str = "/api/v1/events";

/// Frames of one stream, read as they arrive.
struct Frames {
    res: reqwest::Response,
    buffer: String,
}

impl Frames {
    async fn open(app: &TestApp, path: &str, key: &str, headers: &[(&str, &str)]) -> Self {
        let res = app.get_keyed(path, key, headers).await;
        assert_eq!(res.status(), 200, "{path}");
        Self {
            res,
            buffer: String::new(),
        }
    }

    /// The next frame, or `None` when the stream ends or nothing comes in
    /// `wait`. An event (any frame but a comment) is validated against the
    /// stream's schema.
    async fn next(&mut self, wait: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame = self.buffer[..end].to_owned();
                self.buffer.drain(..end + 2);
                if !frame.starts_with(':') {
                    crate::contract::validate_event(&as_event(&frame));
                }
                return Some(frame);
            }
            match tokio::time::timeout_at(deadline, self.res.chunk()).await {
                Ok(Ok(Some(bytes))) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                _ => return None,
            }
        }
    }

    /// The next frame naming `event`, skipping pings and others.
    async fn until(&mut self, event: &str, wait: Duration) -> Option<String> {
        let deadline = tokio::time::Instant::now() + wait;
        while let Some(frame) = self.next(deadline - tokio::time::Instant::now()).await {
            if frame.contains(&format!("event: {event}")) {
                return Some(frame);
            }
        }
        None
    }
}

fn field<'a>(frame: &'a str, name: &str) -> Option<&'a str> {
    frame.lines().find_map(|l| l.strip_prefix(&format!("{name}: ")))
}

/// An event frame as an SSE parser gives it: `id`, `event` and `data`
/// (text), each when present.
fn as_event(frame: &str) -> serde_json::Value {
    let mut event = serde_json::Map::new();
    for name in ["id", "event", "data"] {
        if let Some(value) = field(frame, name) {
            event.insert(name.to_owned(), value.into());
        }
    }
    event.into()
}

/// An app over `store` whose watcher runs every 50 ms.
async fn watching(store: &std::path::Path) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = Settings::for_tests(&format!("file://{}", store.display()), dir.path(), fixture_now());
    settings.watch_interval = Duration::from_millis(50);
    spawn_with_settings(settings, dir, store.to_path_buf()).await
}

const WAIT: Duration = Duration::from_secs(20);

#[tokio::test]
async fn a_republished_predictions_file_is_one_release_event_on_every_instance_and_the_next_request_serves_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    copy_fixture(&fixtures_dir(), &store);
    let (a, b) = (watching(&store).await, watching(&store).await);
    let path = "/api/v1/predictions/nba/won_on_points?upcoming_only=false";
    let (_, before) = a.get_authed_json(path).await;
    let mut on_a = Frames::open(&a, &format!("{EVENTS}?sport=nba&types=release"), &a.api_key, &[]).await;
    let mut on_b = Frames::open(&b, EVENTS, &b.api_key, &[]).await;
    assert_eq!(on_a.res.headers()["content-type"], "text/event-stream");
    assert_eq!(on_a.res.headers()["cache-control"], "no-cache");
    // Both watchers have learned the store before it changes.
    tokio::time::sleep(Duration::from_millis(300)).await;

    let csv = store.join("predictions/nba/won_on_points.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let blend = before["games"][0]["predictions"]["BLEND"].as_f64().unwrap();
    // Published as a pipeline does: written aside, then renamed into place,
    // so a watcher never lists a half-written file.
    let aside = store.join("predictions/nba/.won_on_points.csv.tmp");
    std::fs::write(&aside, text.replacen(&format!("{blend:.4}"), "0.1234", 1)).unwrap();
    std::fs::rename(&aside, &csv).unwrap();

    let frame = on_a.until("release", WAIT).await.expect("a release event");
    let data: serde_json::Value = serde_json::from_str(field(&frame, "data").unwrap()).unwrap();
    assert_eq!(data["sport"], "nba");
    assert_eq!(data["model_type"], "won_on_points");
    assert_eq!(data["artifact"], "predictions");
    let id = field(&frame, "id").unwrap().to_owned();
    assert!(
        on_a.until("release", Duration::from_millis(500)).await.is_none(),
        "one event"
    );
    let (_, after) = a.get_authed_json(path).await;
    assert_eq!(
        after["games"][0]["predictions"]["BLEND"], 0.1234,
        "the next request serves it"
    );

    let frame = on_b.until("release", WAIT).await.expect("the other instance's event");
    assert_eq!(field(&frame, "id"), Some(id.as_str()), "the same id on every instance");

    // A client that resumes after that id on either instance misses nothing.
    let mut resumed = Frames::open(&b, EVENTS, &b.api_key, &[("Last-Event-ID", &id)]).await;
    assert!(resumed.until("resync", Duration::from_millis(500)).await.is_none());
}

#[tokio::test]
async fn an_unknown_last_event_id_gets_resync_first() {
    let app = spawn_app().await;
    for (path, headers) in [
        (
            EVENTS.to_owned(),
            vec![("Last-Event-ID", "0000000000001-r-0123456789abcdef")],
        ),
        (format!("{EVENTS}?last_event_id=garbage"), vec![]),
    ] {
        let mut frames = Frames::open(&app, &path, &app.api_key, &headers).await;
        let first = frames.next(WAIT).await.expect("a frame");
        assert!(first.contains("event: resync"), "{first}");
        let data: serde_json::Value = serde_json::from_str(field(&first, "data").unwrap()).unwrap();
        assert!(data["reason"].as_str().unwrap().contains("Last-Event-ID"));
    }
}

#[tokio::test]
async fn opening_a_stream_counts_once_and_a_customer_holds_at_most_five() {
    let app = spawn_app().await;
    let remaining =
        |r: &reqwest::Response| -> u64 { r.headers()["x-ratelimit-remaining"].to_str().unwrap().parse().unwrap() };
    let mut open = Vec::new();
    for _ in 0..5 {
        open.push(Frames::open(&app, EVENTS, &app.api_key, &[("Accept-Encoding", "gzip")]).await);
    }
    assert!(
        open[0]
            .res
            .headers()
            .get("content-encoding")
            .is_none_or(|e| e == "identity")
    );
    let counted = remaining(&open[3].res) - remaining(&open[4].res);
    assert_eq!(counted, 1, "one request per stream");
    let refused = app.get_authed(EVENTS).await;
    assert_eq!(refused.status(), 429);
    // As published (a slot held by a stream whose client is gone comes
    // back sooner: see the slot tests below).
    assert_eq!(refused.headers()["retry-after"], "15");
    let body: serde_json::Value = refused.json().await.unwrap();
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("LINECAST_MAX_STREAMS_PER_CUSTOMER"), "{detail}");
    assert!(detail.contains("not counted"), "{detail}");
    // A client that closes a stream gets its slot back as soon as the
    // server sees the connection close; every refusal on the way, like the
    // one above, cost nothing: the stream that finally opens is the only
    // request counted since the fifth.
    let before = remaining(&open[4].res);
    drop(open.pop());
    let mut reopened = None;
    for _ in 0..100 {
        let res = app.get_authed(EVENTS).await;
        if res.status() == 200 {
            reopened = Some(res);
            break;
        }
        assert_eq!(res.status(), 429);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let reopened = reopened.expect("the closed stream's slot came back");
    assert_eq!(before - remaining(&reopened), 1, "only the reopened stream was counted");
    drop(open);
}

#[tokio::test]
async fn a_revoked_key_ends_its_stream_within_the_key_cache_lifetime() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(format!("{}/api/v1/customers/me/api-keys", app.address))
        .header("X-API-Key", &app.api_key)
        .json(&serde_json::json!({"name": "streamer"}))
        .send()
        .await
        .unwrap();
    let created: serde_json::Value = res.json().await.unwrap();
    let key = created["api_key"].as_str().unwrap().to_owned();
    let mut frames = Frames::open(&app, EVENTS, &key, &[]).await;
    let res = app
        .client
        .delete(format!("{}/api/v1/customers/me/api-keys/{key}", app.address))
        .header("X-API-Key", &app.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let started = std::time::Instant::now();
    // Pings aside, nothing comes, and the stream ends at the next re-check.
    while let Some(frame) = frames.next(Duration::from_secs(40)).await {
        assert!(frame.starts_with(": ping"), "{frame}");
    }
    assert!(started.elapsed() < Duration::from_secs(35), "{:?}", started.elapsed());
}

#[tokio::test]
async fn shutting_down_ends_open_streams() {
    let app = spawn_app().await;
    let mut frames = Frames::open(&app, EVENTS, &app.api_key, &[]).await;
    app.state.events.close();
    assert!(frames.next(WAIT).await.is_none(), "the stream ended");
}

#[tokio::test]
async fn unknown_sports_and_types_are_400s_naming_the_parameter_and_a_key_is_required() {
    let app = spawn_app().await;
    for (query, named) in [("sport=nba,xfl", "sport"), ("types=release,odds", "types")] {
        let (status, body) = app.get_authed_json(&format!("{EVENTS}?{query}")).await;
        assert_eq!(status, 400, "{body}");
        assert!(body["detail"].as_str().unwrap().contains(named), "{body}");
    }
    let (status, _) = app.get_json(EVENTS).await;
    assert_eq!(status, 401);
}

/// A stream read from a raw socket: the request written, the response head
/// read (a 200).
async fn raw_stream(address: &str, key: &str) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    let request =
        format!("GET {EVENTS} HTTP/1.1\r\nHost: linecast\r\nAccept: text/event-stream\r\nX-API-Key: {key}\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        let n = tokio::time::timeout(WAIT, socket.read(&mut byte))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(n, 1, "the response head: {}", String::from_utf8_lossy(&head));
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    socket
}

/// A client whose connection can vanish as in a network blip: it runs
/// through a relay which, once told, passes nothing more and sends the
/// server no FIN (the client's close was lost); like the client's host,
/// which no longer knows the connection, it answers the next bytes the
/// server sends with a reset.
struct Vanishing {
    vanish: tokio::sync::oneshot::Sender<()>,
    client: tokio::net::TcpStream,
}

impl Vanishing {
    async fn open(app: &TestApp) -> Self {
        let server_address = app.address.trim_start_matches("http://").to_owned();
        let relay = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay_address = relay.local_addr().unwrap().to_string();
        let (vanish, vanished) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let (mut downstream, _) = relay.accept().await.unwrap();
            let mut upstream = tokio::net::TcpStream::connect(&server_address).await.unwrap();
            tokio::select! {
                _ = tokio::io::copy_bidirectional(&mut downstream, &mut upstream) => return,
                _ = vanished => {}
            }
            drop(downstream);
            // Silent until the server writes; then the reset.
            let _ = upstream.readable().await;
            upstream.set_zero_linger().unwrap();
            drop(upstream);
        });
        let client = raw_stream(&relay_address, &app.api_key).await;
        Self { vanish, client }
    }

    fn vanish(self) {
        self.vanish.send(()).unwrap();
        drop(self.client);
    }
}

/// Polls for a new stream until one is admitted (every refusal a 429), and
/// how long that took; panics at `deadline`.
async fn admitted_within(app: &TestApp, deadline: Duration) -> Duration {
    let started = tokio::time::Instant::now();
    loop {
        let res = app.get_authed(EVENTS).await;
        if res.status() == 200 {
            return started.elapsed();
        }
        assert_eq!(res.status(), 429);
        assert!(
            started.elapsed() < deadline,
            "no stream admitted within {deadline:?}: the gone client's slot is still held"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const SLOT_BACK_WITHIN: Duration = Duration::from_secs(5);

#[tokio::test]
async fn a_stream_whose_client_closes_its_connection_gives_its_slot_back_within_five_seconds() {
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut streams = Vec::new();
    for _ in 0..app.state.events.slots.cap() {
        streams.push(raw_stream(&address, &app.api_key).await);
    }
    assert_eq!(app.get_authed(EVENTS).await.status(), 429, "the customer holds its cap");
    drop(streams.pop());
    admitted_within(&app, SLOT_BACK_WITHIN).await;
}

#[tokio::test]
async fn a_stream_whose_client_vanished_without_a_close_reaching_the_server_gives_its_slot_back_within_five_seconds() {
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut streams = Vec::new();
    for _ in 1..app.state.events.slots.cap() {
        streams.push(raw_stream(&address, &app.api_key).await);
    }
    let vanishing = Vanishing::open(&app).await;
    assert_eq!(app.get_authed(EVENTS).await.status(), 429, "the customer holds its cap");
    vanishing.vanish();
    admitted_within(&app, SLOT_BACK_WITHIN).await;
    drop(streams);
}

/// Two instances sharing one Redis count a customer's streams together:
/// with three open on one and two on the other, the sixth is refused on
/// both (429, `Retry-After`, not counted), and a stream closed on one
/// instance frees its slot for the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_sharing_redis_refuse_a_customer_s_sixth_stream_whichever_instance_it_reaches() {
    let Some(redis) = crate::partition::external_url("LINECAST_TEST_REDIS_URL") else {
        return;
    };
    let (a, b) = crate::concurrency::two_instances(&redis, None, crate::concurrency::unique_now(), true).await;
    let key = a.api_key.clone();
    let mut open = Vec::new();
    for i in 0..5 {
        let app = if i % 2 == 0 { &a } else { &b };
        open.push(Frames::open(app, EVENTS, &key, &[]).await);
    }
    for app in [&a, &b] {
        let refused = app.get_keyed(EVENTS, &key, &[]).await;
        assert_eq!(refused.status(), 429);
        assert_eq!(refused.headers()["retry-after"], "15");
        let body: serde_json::Value = refused.json().await.unwrap();
        let detail = body["detail"].as_str().unwrap();
        assert!(detail.contains("LINECAST_MAX_STREAMS_PER_CUSTOMER"), "{detail}");
        assert!(detail.contains("not counted"), "{detail}");
    }
    // A stream of the first instance ends; the second admits one.
    drop(open.remove(0));
    admitted_within(&b, SLOT_BACK_WITHIN).await;
    drop(open);
}
