//! Signed webhooks end to end: endpoints managed over the API, a receiver
//! written here (a bare HTTP/1.1 listener that records what it gets and
//! answers from a script), signatures checked with an HMAC computed here
//! from the Standard Webhooks definition, the retry schedule (shortened by
//! its setting), the address rules at creation and at delivery (a resolver
//! table the test changes), secret rotation, and `release.published`
//! carrying the digest and the changed games worked out by the test.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{TestApp, at, fixture_now, publish, sha256, spawn_app_configured};

const ENDPOINTS: &str = "/api/v1/webhooks/endpoints";

/// What the receiver answers to one request.
#[derive(Debug, Clone, Copy)]
enum Reply {
    Status(u16),
    /// Read the request, then say nothing for this long.
    Hang(Duration),
}

#[derive(Debug, Clone)]
struct Received {
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

/// A receiver on 127.0.0.1: records every request, answers from `script`
/// (then 200 `ok`).
struct Receiver {
    port: u16,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    async fn start(script: Vec<Reply>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let script = Arc::new(Mutex::new(VecDeque::from(script)));
        let (g, s) = (got.clone(), script);
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (g, s) = (g.clone(), s.clone());
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    let head_end = loop {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break i + 4;
                        }
                    };
                    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
                    let headers: HashMap<String, String> = head
                        .lines()
                        .skip(1)
                        .filter_map(|l| l.split_once(':'))
                        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                        .collect();
                    let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
                    while buf.len() < head_end + length {
                        let n = socket.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            break;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                    }
                    let body = buf[head_end..].to_vec();
                    g.lock().unwrap().push(Received { headers, body });
                    let reply = s.lock().unwrap().pop_front().unwrap_or(Reply::Status(200));
                    match reply {
                        Reply::Status(status) => {
                            let text = if status < 300 { "ok" } else { "nope" };
                            let response = format!(
                                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                                text.len()
                            );
                            let _ = socket.write_all(response.as_bytes()).await;
                        }
                        Reply::Hang(wait) => tokio::time::sleep(wait).await,
                    }
                });
            }
        });
        Self { port, got }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/hook", self.port)
    }

    fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }

    /// Waits until `n` requests came (a generous bound: a loaded machine
    /// is slow, never wrong).
    async fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_mins(2);
        loop {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            assert!(Instant::now() < deadline, "{} of {n} deliveries came", got.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The Standard Webhooks signature, computed here from its definition:
/// `v1,` + base64(HMAC-SHA256(base64-decoded secret after `whsec_`,
/// `{id}.{timestamp}.{body}`)).
fn signature(secret: &str, id: &str, timestamp: &str, body: &[u8]) -> String {
    let key = STANDARD.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
}

/// The delivery's signatures (space-separated in the header).
fn signatures(r: &Received) -> Vec<String> {
    r.headers["webhook-signature"].split(' ').map(str::to_owned).collect()
}

fn signed_by(r: &Received, secret: &str) -> bool {
    let expected = signature(
        secret,
        &r.headers["webhook-id"],
        &r.headers["webhook-timestamp"],
        &r.body,
    );
    signatures(r).contains(&expected)
}

/// The app with webhooks to loopback allowed, the retry schedule run
/// 5000 times faster (5 min becomes 60 ms), an attempt timing out after
/// half a second and the worker looking every 20 ms.
async fn app_with(
    prepare: impl FnOnce(&std::path::Path),
    lookup: Option<linecast_webhook_http::TableLookup>,
    loopback: bool,
) -> TestApp {
    spawn_app_configured(fixture_now(), prepare, |s| {
        s.webhooks.allow_loopback = loopback;
        s.webhooks.schedule_scale = 0.0002;
        s.webhooks.timeout = Duration::from_millis(500);
        s.webhooks.interval = Duration::from_millis(20);
        if let Some(lookup) = lookup {
            s.webhook_lookup = Some(Arc::new(lookup));
        }
    })
    .await
}

async fn send(app: &TestApp, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
    send_as(app, &app.api_key, method, path, body).await
}

async fn send_as(app: &TestApp, key: &str, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut request = app
        .client
        .request(method, format!("{}{path}", app.address))
        .header("X-API-Key", key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

async fn create(app: &TestApp, body: Value) -> (u16, Value) {
    send(app, reqwest::Method::POST, ENDPOINTS, Some(body)).await
}

/// The endpoint's attempts, newest first, once there are `n`.
async fn attempts(app: &TestApp, id: &str, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_mins(2);
    loop {
        let (status, body) = send(app, reqwest::Method::GET, &format!("{ENDPOINTS}/{id}/attempts"), None).await;
        assert_eq!(status, 200, "{body}");
        let list = body.as_array().unwrap().clone();
        if list.len() >= n {
            return list;
        }
        assert!(Instant::now() < deadline, "{} of {n} attempts logged", list.len());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn instant(v: &Value) -> DateTime<Utc> {
    at(v.as_str().unwrap())
}

#[tokio::test]
async fn endpoints_are_created_with_a_secret_shown_once_listed_without_it_changed_and_deleted() {
    let app = app_with(|_| {}, None, true).await;
    let receiver = Receiver::start(Vec::new()).await;
    let (status, created) = create(
        &app,
        json!({"url": receiver.url(), "event_types": ["release.published", "quota.threshold"], "sports": ["nba", "nba"], "description": "desk"}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let secret = created["secret"].as_str().unwrap();
    assert!(secret.starts_with("whsec_"), "{secret}");
    // 24 random bytes, base64.
    assert_eq!(STANDARD.decode(&secret[6..]).unwrap().len(), 24);
    let id = created["endpoint"]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("ep_"), "{id}");
    assert_eq!(created["endpoint"]["sports"], json!(["nba"]));
    let (status, listed) = send(&app, reqwest::Method::GET, ENDPOINTS, None).await;
    assert_eq!(status, 200);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert!(!listed.to_string().contains(secret), "a listing never shows the secret");

    // Unknown names are 400s naming their field; nothing is stored.
    for (body, parameter) in [
        (
            json!({"url": receiver.url(), "event_types": ["release.kept"]}),
            "event_types",
        ),
        (json!({"url": receiver.url(), "event_types": []}), "event_types"),
        (
            json!({"url": receiver.url(), "event_types": ["key.expiring"], "sports": ["curling"]}),
            "sports",
        ),
        (
            json!({"url": "ftp://127.0.0.1/x", "event_types": ["key.expiring"]}),
            "url",
        ),
        (json!({"url": "not a url", "event_types": ["key.expiring"]}), "url"),
    ] {
        let (status, error) = create(&app, body.clone()).await;
        assert_eq!(status, 400, "{body}: {error}");
        assert_eq!(error["parameter"], parameter, "{body}: {error}");
    }

    // Disable, then enable; description cleared by null.
    let path = format!("{ENDPOINTS}/{id}");
    let (status, changed) = send(
        &app,
        reqwest::Method::PATCH,
        &path,
        Some(json!({"enabled": false, "description": null})),
    )
    .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (changed["enabled"].clone(), changed["description"].clone()),
        (json!(false), Value::Null)
    );
    // A disabled endpoint gets no test.
    let (status, _) = send(&app, reqwest::Method::POST, &format!("{path}/test"), None).await;
    assert_eq!(status, 409);
    let (_, changed) = send(&app, reqwest::Method::PATCH, &path, Some(json!({"enabled": true}))).await;
    assert_eq!(changed["enabled"], true);

    // Ten at most.
    for n in 1..10 {
        let (status, body) = create(&app, json!({"url": receiver.url(), "event_types": ["key.expiring"]})).await;
        assert_eq!(status, 201, "endpoint {n}: {body}");
    }
    let (status, error) = create(&app, json!({"url": receiver.url(), "event_types": ["key.expiring"]})).await;
    assert_eq!(status, 400, "{error}");
    assert!(error["detail"].as_str().unwrap().contains("at most 10"), "{error}");

    let (status, _) = send(&app, reqwest::Method::DELETE, &path, None).await;
    assert_eq!(status, 200);
    let (status, _) = send(&app, reqwest::Method::GET, &path, None).await;
    assert_eq!(status, 404);
    let (status, _) = send(&app, reqwest::Method::POST, &format!("{path}/rotate-secret"), None).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn refused_addresses_are_refused_at_creation_and_again_at_delivery_when_the_name_moves() {
    let dns = linecast_webhook_http::TableLookup::new();
    let public: IpAddr = "93.184.216.34".parse().unwrap();
    dns.set("hooks.example.test", vec![public]);
    for (name, address) in [
        ("loop.example.test", "127.0.0.1"),
        ("ten.example.test", "10.0.0.1"),
        ("meta.example.test", "169.254.169.254"),
        ("six.example.test", "::1"),
    ] {
        dns.set(name, vec![address.parse().unwrap()]);
    }
    let app = app_with(|_| {}, Some(dns.clone()), false).await;
    for (url, code) in [
        ("https://127.0.0.1/hook", "loopback"),
        ("https://10.0.0.1/hook", "private"),
        ("https://169.254.169.254/latest", "metadata"),
        ("https://[::1]/hook", "loopback"),
        ("https://loop.example.test/hook", "loopback"),
        ("https://ten.example.test/hook", "private"),
        ("https://meta.example.test/hook", "metadata"),
        ("https://six.example.test/hook", "loopback"),
        ("http://hooks.example.test/hook", "scheme"),
        ("https://nowhere.example.test/hook", "unresolved"),
    ] {
        let (status, error) = create(&app, json!({"url": url, "event_types": ["key.expiring"]})).await;
        assert_eq!(status, 400, "{url}: {error}");
        assert_eq!(error["parameter"], "url", "{url}: {error}");
        assert!(
            error["detail"].as_str().unwrap().contains(&format!("({code})")),
            "{url}: {error}"
        );
    }
    let (status, created) = create(
        &app,
        json!({"url": "https://hooks.example.test/hook", "event_types": ["key.expiring"]}),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let id = created["endpoint"]["id"].as_str().unwrap();
    // The name now points at the metadata service: the delivery is refused
    // before anything is sent, and the log says why.
    dns.set("hooks.example.test", vec!["169.254.169.254".parse().unwrap()]);
    let (status, _) = send(&app, reqwest::Method::POST, &format!("{ENDPOINTS}/{id}/test"), None).await;
    assert_eq!(status, 202);
    let logged = attempts(&app, id, 1).await;
    assert_eq!(logged[0]["error"], "address refused: metadata", "{logged:?}");
    assert_eq!(logged[0]["status_code"], Value::Null);
}

#[tokio::test]
async fn a_delivery_is_signed_retried_on_the_schedule_logged_and_sent_under_both_secrets_while_one_rotates() {
    let app = app_with(|_| {}, None, true).await;
    // A 500, then no answer within the timeout, then a 200.
    let receiver = Receiver::start(vec![Reply::Status(500), Reply::Hang(Duration::from_secs(3))]).await;
    let (_, created) = create(
        &app,
        json!({"url": receiver.url(), "event_types": ["release.published"]}),
    )
    .await;
    let id = created["endpoint"]["id"].as_str().unwrap().to_owned();
    let secret = created["secret"].as_str().unwrap().to_owned();
    let (status, queued) = send(&app, reqwest::Method::POST, &format!("{ENDPOINTS}/{id}/test"), None).await;
    assert_eq!(status, 202, "{queued}");
    let message_id = queued["message_id"].as_str().unwrap();

    let got = receiver.wait_for(3).await;
    for r in &got {
        // One message: one webhook-id, every attempt signed with the secret.
        assert_eq!(r.headers["webhook-id"], message_id);
        assert!(signed_by(r, &secret), "{:?}", r.headers);
        let body: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(body["type"], "webhook.test");
        assert_eq!(body["data"]["endpoint_id"], id.as_str());
    }
    let logged = attempts(&app, &id, 3).await;
    // Newest first: the 200, the timeout, the 500 with its body.
    assert_eq!(logged[0]["status_code"], 200, "{logged:?}");
    assert_eq!(logged[0]["response_body"], "ok");
    assert_eq!(
        (logged[1]["status_code"].clone(), logged[1]["error"].clone()),
        (Value::Null, json!("timeout"))
    );
    assert_eq!(
        (logged[2]["status_code"].clone(), logged[2]["response_body"].clone()),
        (json!(500), json!("nope"))
    );
    // The schedule: the third attempt came no sooner than the timeout of
    // the second plus 80 % of its scaled 5-minute delay (60 ms).
    let gap = instant(&logged[0]["attempted_at"]) - instant(&logged[1]["attempted_at"]);
    assert!(gap >= chrono::Duration::milliseconds(500 + 48), "{gap}");
    // The same delivery: resend sends the same webhook-id again.
    let delivery = logged[0]["delivery_id"].as_i64().unwrap();
    let (status, resent) = send(
        &app,
        reqwest::Method::POST,
        &format!("/api/v1/webhooks/deliveries/{delivery}/resend"),
        None,
    )
    .await;
    assert_eq!(status, 202, "{resent}");
    let got = receiver.wait_for(4).await;
    assert_eq!(got[3].headers["webhook-id"], message_id);

    // Rotation: the new secret is shown once; both sign for the grace.
    let (status, rotated) = send(
        &app,
        reqwest::Method::POST,
        &format!("{ENDPOINTS}/{id}/rotate-secret"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{rotated}");
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, secret);
    assert!(rotated["endpoint"]["previous_secret_until"].is_string(), "{rotated}");
    send(&app, reqwest::Method::POST, &format!("{ENDPOINTS}/{id}/test"), None).await;
    let got = receiver.wait_for(5).await;
    let last = &got[4];
    assert_eq!(signatures(last).len(), 2, "{:?}", last.headers);
    assert!(signed_by(last, &new_secret) && signed_by(last, &secret));
    // The recovery of failed deliveries since an instant queues none here:
    // every delivery succeeded.
    let (status, recovered) = send(
        &app,
        reqwest::Method::POST,
        &format!("{ENDPOINTS}/{id}/recover"),
        Some(json!({"since": "2026-01-01T00:00:00Z"})),
    )
    .await;
    assert_eq!((status, recovered["queued"].clone()), (202, json!(0)));
    let (status, error) = send(
        &app,
        reqwest::Method::POST,
        &format!("{ENDPOINTS}/{id}/recover"),
        Some(json!({"since": "yesterday"})),
    )
    .await;
    assert_eq!((status, error["parameter"].clone()), (400, json!("since")));
}

const PREDICTIONS: &str = "predictions/nba/won_on_points.csv";
const HEADER: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,open_home_money_line,BLEND,CATB\n";

/// R1, then R2: the Nets at the Celtics re-priced, the Knicks at the
/// Raptors unchanged, the Bulls at the Heat gone, the Hawks at the Magic new.
fn r1() -> String {
    format!(
        "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,117,-140,117,-140,0.6000,0.58\n\
         2026-11-14,19:30:00,new_york_knicks,toronto_raptors,-120,100,-120,100,0.4400,0.45\n\
         2026-11-14,19:00:00,chicago_bulls,miami_heat,110,-130,110,-130,0.5200,0.52\n"
    )
}

fn r2() -> String {
    format!(
        "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,120,-145,117,-140,0.6123,0.60\n\
         2026-11-14,19:30:00,new_york_knicks,toronto_raptors,-120,100,-120,100,0.4400,0.45\n\
         2026-11-14,19:00:00,atlanta_hawks,orlando_magic,105,-125,105,-125,0.4800,0.49\n"
    )
}

#[tokio::test]
async fn a_kept_release_is_announced_once_with_the_change_streams_id_and_both_tell_its_digest_its_exact_instant_and_the_games_that_changed()
 {
    let app = app_with(
        |store| publish(store, PREDICTIONS, r1().as_bytes(), "2026-11-14T12:00:00.250Z"),
        None,
        true,
    )
    .await;
    let receiver = Receiver::start(Vec::new()).await;
    // One endpoint for nba releases, one for nfl only: the second gets nothing.
    let (_, nba) = create(
        &app,
        json!({"url": receiver.url(), "event_types": ["release.published"], "sports": ["nba"]}),
    )
    .await;
    let secret = nba["secret"].as_str().unwrap().to_owned();
    let (status, nfl) = create(
        &app,
        json!({"url": receiver.url(), "event_types": ["release.published"], "sports": ["nfl"]}),
    )
    .await;
    assert_eq!(status, 201, "{nfl}");
    app.keep_releases().await;
    let published_at = "2026-11-14T18:00:00.123456Z";
    publish(&app.store_dir, PREDICTIONS, r2().as_bytes(), published_at);
    let events = app.keep_releases().await;
    let event = events
        .iter()
        .find(|e| matches!(&e.data, linecast_core::services::events::EventData::Release(r) if r.artifact.code() == "predictions" && r.sport.code() == "nba"))
        .expect("the release event");
    // The change stream's event tells the same facts as the webhook.
    let linecast_core::services::events::EventData::Release(told) = &event.data else {
        unreachable!()
    };
    let kept = told.kept.as_ref().expect("the event is told its kept release");
    assert_eq!(kept.digest, sha256(r2().as_bytes()));
    assert_eq!(kept.published_at, at(published_at));
    let frame = String::from_utf8(linecast_payloads::events::event_frame(event).to_vec()).unwrap();
    assert!(
        frame.contains(&format!(r#""digest":"{}""#, sha256(r2().as_bytes()))),
        "{frame}"
    );
    assert!(
        frame.contains(r#""game_ids_changed":["nba-20261114-brooklyn_nets-boston_celtics","nba-20261114-atlanta_hawks-orlando_magic"]"#),
        "{frame}"
    );
    receiver.wait_for(1).await;
    // Another round of either watcher, then: still one delivery (none to
    // the nfl endpoint, none twice).
    app.keep_releases().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got = receiver.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].headers["webhook-id"], event.id.as_str());
    let delivery = &got[0];
    assert!(signed_by(delivery, &secret));
    let body: Value = serde_json::from_slice(&delivery.body).unwrap();
    assert_eq!(body["type"], "release.published");
    let data = &body["data"];
    assert_eq!(data["sport"], "nba");
    assert_eq!(data["artifact"], "predictions");
    assert_eq!(data["model_type"], "won_on_points");
    assert_eq!(data["published_at"], published_at);
    assert_eq!(data["digest"], sha256(r2().as_bytes()));
    assert_eq!(
        data["game_ids_changed"],
        json!([
            "nba-20261114-brooklyn_nets-boston_celtics",
            "nba-20261114-atlanta_hawks-orlando_magic"
        ])
    );
    assert_eq!(
        data["link"],
        format!("/api/v1/predictions/nba/won_on_points?as_of={published_at}")
    );
}

#[tokio::test]
async fn a_quota_threshold_is_notified_once_per_period_to_its_own_account_whichever_instance_notices_it() {
    let a = app_with(|_| {}, None, true).await;
    // A second instance over the same database and store.
    let mut settings = linecast_api::settings::Settings::for_tests(
        &format!("file://{}", a.store_dir.display()),
        &a.var_dir,
        fixture_now(),
    );
    settings.webhooks.allow_loopback = true;
    settings.webhooks.interval = Duration::from_millis(20);
    let b = crate::helpers::spawn_with_settings(settings, tempfile::tempdir().unwrap(), a.store_dir.clone()).await;

    let small = crate::access::seed_customer(&a, "quota@example.com", "ai", 10).await;
    let key = crate::access::issue_key(&a, &small).await;
    let receiver = Receiver::start(Vec::new()).await;
    // The demo account listens for quota notices too: it gets none of
    // another account's.
    let other = Receiver::start(Vec::new()).await;
    let (status, _) = create(&a, json!({"url": other.url(), "event_types": ["quota.threshold"]})).await;
    assert_eq!(status, 201);
    // The small account's endpoint, with a sports filter: an account's own
    // events reach it anyway. Creating it is request 1 of 10.
    let (status, created) = send_as(
        &a,
        &key,
        reqwest::Method::POST,
        ENDPOINTS,
        Some(json!({"url": receiver.url(), "event_types": ["quota.threshold"], "sports": ["nfl"]})),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let secret = created["secret"].as_str().unwrap().to_owned();
    // Requests 2 to 5 on instance a: the fifth reaches 50 %.
    for _ in 2..=5 {
        let (status, _) = send_as(&a, &key, reqwest::Method::GET, "/api/v1/customers/me/usage", None).await;
        assert_eq!(status, 200);
    }
    let got = receiver.wait_for(1).await;
    // Instance b notices the same threshold on its own (its view of the
    // account's usage reached 50 % too): the outbox keeps one notice.
    b.state
        .gate
        .quota_notices
        .observe(small.customer_id, 5, 10, fixture_now());
    b.state
        .gate
        .quota_notices
        .observe(small.customer_id, 6, 10, fixture_now());
    // Rounds of both workers pass.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got_after = receiver.received();
    assert_eq!(got_after.len(), 1, "{got_after:?}");
    let delivery = &got[0];
    assert!(signed_by(delivery, &secret));
    let body: Value = serde_json::from_slice(&delivery.body).unwrap();
    assert_eq!(body["type"], "quota.threshold");
    assert_eq!(body["data"]["percent"], 50);
    assert_eq!(body["data"]["used"], 5);
    assert_eq!(body["data"]["monthly_limit"], 10);
    assert_eq!(body["data"]["period"], "2026-11");
    assert_eq!(body["data"]["reset_date"], "2026-12-01");
    // The next thresholds, from instance b's own requests: 80 % and 100 %
    // once each whatever b counted before.
    b.state
        .gate
        .quota_notices
        .observe(small.customer_id, 10, 10, fixture_now());
    a.state
        .gate
        .quota_notices
        .observe(small.customer_id, 10, 10, fixture_now());
    let got = receiver.wait_for(3).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let percents: Vec<u64> = receiver
        .received()
        .iter()
        .map(|r| {
            serde_json::from_slice::<Value>(&r.body).unwrap()["data"]["percent"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(percents, vec![50, 80, 100], "{got:?}");
    assert!(
        other.received().is_empty(),
        "another account's notice reached the demo account"
    );
}

#[tokio::test]
async fn a_key_expiring_within_a_week_is_notified_once_per_notice_to_its_own_account() {
    use linecast_core::key_material::{display_prefix, generate_key, masked_from_prefix};
    let app = app_with(|_| {}, None, true).await;
    let receiver = Receiver::start(Vec::new()).await;
    let (status, created) = create(&app, json!({"url": receiver.url(), "event_types": ["key.expiring"]})).await;
    assert_eq!(status, 201, "{created}");
    let secret = created["secret"].as_str().unwrap().to_owned();
    let demo = crate::helpers::demo_customer(&app).await;
    // Another account's expiring key: not the demo account's business.
    let other = crate::access::seed_customer(&app, "expiring@example.com", "ai", 100).await;
    let now = Utc::now();
    let key = |days: i64, hours: i64| now + chrono::Duration::days(days) + chrono::Duration::hours(hours);
    let in_three_days = crate::access::store_key(&app, &demo, generate_key().unwrap(), Some(key(3, 0))).await;
    let in_twelve_hours = crate::access::store_key(&app, &demo, generate_key().unwrap(), Some(key(0, 12))).await;
    crate::access::store_key(&app, &demo, generate_key().unwrap(), Some(key(30, 0))).await;
    crate::access::store_key(&app, &other, generate_key().unwrap(), Some(key(2, 0))).await;
    let revoked = crate::access::store_key(&app, &demo, generate_key().unwrap(), Some(key(2, 0))).await;
    let revoked_id = app
        .ports
        .accounts
        .list_keys(demo.customer_id)
        .await
        .unwrap()
        .into_iter()
        .find(|k| k.display_prefix == display_prefix(&revoked).unwrap())
        .unwrap()
        .id;
    app.ports.accounts.revoke_key(revoked_id, now).await.unwrap();
    let store = app.state.webhooks.store().clone();
    // Two scans, as two instances would make them: one notice each.
    linecast_runtime::webhooks::write_key_notices(store.as_ref(), now).await;
    linecast_runtime::webhooks::write_key_notices(store.as_ref(), now).await;
    receiver.wait_for(2).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let notices = |got: Vec<Received>| -> Vec<(String, i64)> {
        let mut seen: Vec<(String, i64)> = got
            .iter()
            .map(|r| {
                assert!(signed_by(r, &secret));
                let body: Value = serde_json::from_slice(&r.body).unwrap();
                assert_eq!(body["type"], "key.expiring");
                (
                    body["data"]["api_key"].as_str().unwrap().to_owned(),
                    body["data"]["notice_days"].as_i64().unwrap(),
                )
            })
            .collect();
        seen.sort();
        seen
    };
    let masked = |full: &str| masked_from_prefix(display_prefix(full).unwrap());
    // The seven-day notice for the key three days out; a key first seen
    // within a day of its expiry gets the one-day notice only.
    let mut expected = vec![(masked(&in_three_days), 7), (masked(&in_twelve_hours), 1)];
    expected.sort();
    assert_eq!(notices(receiver.received()), expected);
}

/// Two server processes on one PostgreSQL database deliver one endpoint's
/// events: every event in order, the retry schedule kept (a 500, then an
/// attempt the receiver holds), and the instance holding that attempt
/// killed with `kill -9`: its claim lapses after the lease and the other
/// instance sends the same `webhook-id` again; nothing is lost, nothing is
/// accepted twice. A third, in-process instance (its worker idle) seeds
/// the account and writes the events to the outbox.
#[tokio::test]
async fn two_instances_on_postgresql_deliver_in_order_and_a_kill_9_mid_delivery_loses_nothing() {
    let Some(schema) = crate::concurrency::PgSchema::create() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    crate::helpers::copy_dir(&crate::helpers::fixtures_dir(), &store_dir);
    let mut settings = linecast_api::settings::Settings::for_tests(
        &format!("file://{}", store_dir.display()),
        dir.path(),
        fixture_now(),
    );
    settings.database_url = schema.url();
    settings.demo = false;
    settings.migrate = true;
    settings.database_timeout = Duration::from_secs(30);
    settings.webhooks.allow_loopback = true;
    // This instance only writes: its worker's next round is an hour away.
    settings.webhooks.interval = Duration::from_hours(1);
    let seeder = crate::helpers::spawn_with_settings(settings, dir, store_dir).await;
    let customer = crate::access::seed_customer(&seeder, "hooks@example.com", "ai", 100_000).await;
    let key = crate::access::issue_key(&seeder, &customer).await;
    // A 500, then an attempt held open past the instance's death, then 200s.
    let receiver = Receiver::start(vec![Reply::Status(500), Reply::Hang(Duration::from_mins(1))]).await;
    let (status, created) = send_as(
        &seeder,
        &key,
        reqwest::Method::POST,
        ENDPOINTS,
        Some(json!({"url": receiver.url(), "event_types": ["release.published"]})),
    )
    .await;
    assert_eq!(status, 201, "{created}");
    let endpoint = created["endpoint"]["id"].as_str().unwrap().to_owned();
    let secret = created["secret"].as_str().unwrap().to_owned();

    // Two delivering instances: a 5 s attempt timeout (a 20 s lease), the
    // schedule 5000 times faster, a round every 50 ms.
    let env = [
        ("LINECAST_DATABASE_URL", schema.url()),
        ("LINECAST_DATABASE_TIMEOUT_MS", "30000".to_owned()),
        ("LINECAST_WEBHOOK_ALLOW_LOOPBACK", "true".to_owned()),
        ("LINECAST_WEBHOOK_SCHEDULE_SCALE", "0.0002".to_owned()),
        ("LINECAST_WEBHOOK_TIMEOUT_SECS", "5".to_owned()),
        ("LINECAST_WEBHOOK_INTERVAL", "0.05".to_owned()),
    ];
    let mut servers = vec![crate::drain::start_with("0", &env), crate::drain::start_with("0", &env)];
    let client = crate::drain::client();
    for server in &servers {
        let deadline = Instant::now() + Duration::from_mins(3);
        while client
            .get(format!("{}/api/v1/readiness", server.base))
            .send()
            .await
            .map_or(true, |r| r.status() != 200)
        {
            assert!(
                Instant::now() < deadline,
                "an instance did not start:\n{}",
                server.log()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    // Five events of one sport, in the order they happened.
    let store = seeder.state.webhooks.store().clone();
    let start = Utc::now();
    let mut ids = Vec::new();
    for n in 0..5_i64 {
        let id = format!("msg_order{n:019}");
        store
            .enqueue(linecast_core::ports::webhooks::NewMessage {
                id: id.clone(),
                customer_id: None,
                event_type: "release.published".to_owned(),
                sport: Some("nba".to_owned()),
                order_key: "sport/nba".to_owned(),
                payload: format!(r#"{{"type":"release.published","timestamp":"x","data":{{"n":{n}}}}}"#),
                dedupe_key: Some(id.clone()),
                created_at: start + chrono::Duration::milliseconds(n),
            })
            .await
            .unwrap();
        ids.push(id);
    }
    // The held attempt arrives: kill -9 the instance whose claim it is.
    receiver.wait_for(2).await;
    let delivery = loop {
        // The 500's attempt is logged as the held one begins.
        if let Some(a) = store
            .attempts(customer.customer_id, &endpoint, 1)
            .await
            .unwrap()
            .first()
        {
            break a.delivery_id;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let claimed_by = store
        .delivery(customer.customer_id, delivery)
        .await
        .unwrap()
        .unwrap()
        .claimed_by
        .expect("the held attempt's delivery is claimed");
    let killed = servers
        .iter()
        .position(|s| claimed_by.contains(&format!("-{}-", s.pid())))
        .unwrap_or_else(|| panic!("no instance named {claimed_by}"));
    servers[killed].signal("KILL");
    servers[killed].exit_within(Duration::from_secs(30));

    // The other instance delivers everything, the first again under its id.
    let got = receiver.wait_for(7).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let got_all = receiver.received();
    assert_eq!(got_all.len(), 7, "{} requests", got.len());
    for r in &got_all {
        assert!(signed_by(r, &secret));
    }
    let order: Vec<&str> = got_all.iter().map(|r| r.headers["webhook-id"].as_str()).collect();
    // The 500, the held attempt, then the same message again and the rest in order.
    assert_eq!(order[..3], [ids[0].as_str(); 3], "{order:?}");
    assert_eq!(
        order[3..],
        ids[1..].iter().map(String::as_str).collect::<Vec<_>>()[..],
        "{order:?}"
    );
    // The lease was honoured: the repeat came no sooner than the lease
    // (four attempt timeouts) after the held attempt began.
    let log = store.attempts(customer.customer_id, &endpoint, 10).await.unwrap();
    let of_first: Vec<_> = log.iter().filter(|a| a.delivery_id == delivery).collect();
    let repeat = of_first.iter().map(|a| a.attempted_at).max().unwrap();
    let before = of_first
        .iter()
        .find(|a| a.status_code == Some(500))
        .map(|a| a.attempted_at)
        .unwrap();
    assert!(repeat - before >= chrono::Duration::seconds(20), "{before} .. {repeat}");
    drop(servers);
    schema.drop_schema();
}

#[tokio::test]
async fn a_410_disables_the_endpoint_and_the_accounts_other_endpoints_are_told() {
    let app = app_with(|_| {}, None, true).await;
    let gone = Receiver::start(vec![Reply::Status(410)]).await;
    let watcher = Receiver::start(Vec::new()).await;
    let (_, a) = create(&app, json!({"url": gone.url(), "event_types": ["release.published"]})).await;
    let (_, b) = create(
        &app,
        json!({"url": watcher.url(), "event_types": ["webhook.endpoint_disabled"]}),
    )
    .await;
    let a_id = a["endpoint"]["id"].as_str().unwrap().to_owned();
    let (status, _) = send(&app, reqwest::Method::POST, &format!("{ENDPOINTS}/{a_id}/test"), None).await;
    assert_eq!(status, 202);
    let told = watcher.wait_for(1).await;
    assert!(signed_by(&told[0], b["secret"].as_str().unwrap()));
    let body: Value = serde_json::from_slice(&told[0].body).unwrap();
    assert_eq!(body["type"], "webhook.endpoint_disabled");
    assert_eq!(body["data"]["endpoint_id"], a_id.as_str());
    assert_eq!(body["data"]["reason"], "gone");
    let (_, shown) = send(&app, reqwest::Method::GET, &format!("{ENDPOINTS}/{a_id}"), None).await;
    assert_eq!(
        (shown["enabled"].clone(), shown["disabled_reason"].clone()),
        (json!(false), json!("gone"))
    );
    // A disabled endpoint receives nothing more: a second test is refused.
    let (status, _) = send(&app, reqwest::Method::POST, &format!("{ENDPOINTS}/{a_id}/test"), None).await;
    assert_eq!(status, 409);
    assert_eq!(gone.received().len(), 1);
}
