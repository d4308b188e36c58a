//! Slow request bodies: every body has a deadline
//! (`LINECAST_BODY_TIMEOUT_SECS`). Connections that trickle a body a byte
//! at a time cannot hold the connection cap: each is answered 408 and
//! closed once the deadline passes, and the server answers others again.
//! Deadlines here are short (1.5 s) and the assertions generous: only
//! "eventually, within many seconds" is asserted, never "quickly".

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, fixture_now, spawn_app_configured};

const CAP: usize = 8;
const BODY_TIMEOUT: Duration = Duration::from_millis(1500);
const SECRET: &str = "whsec_body_deadline_test_secret";

async fn app_with_a_small_cap() -> TestApp {
    spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.heavy.max_connections = CAP;
            s.heavy.body_timeout = BODY_TIMEOUT;
            s.stripe_webhook_secrets = linecast_stripe::signature::WebhookSecrets::parse(SECRET).unwrap();
        },
    )
    .await
}

fn webhook_signature() -> String {
    let t = chrono::Utc::now().timestamp();
    format!("t={t},v1={}", linecast_stripe::signature::sign(SECRET, t, b"{}"))
}

/// The heads of the kinds of body the server reads: a portal form (with a
/// length, and chunked), the billing webhook, and a JSON key write, each
/// with what to trickle after it (never enough to end the body).
fn trickled_heads(key: &str) -> Vec<(String, &'static [u8])> {
    let with_length = vec![
        "POST /portal/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Content-Length: 100\r\n\r\napi_key="
            .to_owned(),
        format!(
            "POST /billing/stripe/webhook HTTP/1.1\r\nHost: x\r\nStripe-Signature: {}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{",
            webhook_signature()
        ),
        format!(
            "POST /api/v1/customers/me/api-keys HTTP/1.1\r\nHost: x\r\nX-API-Key: {key}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":"
        ),
    ];
    let mut heads: Vec<(String, &'static [u8])> = with_length.into_iter().map(|h| (h, &b" "[..])).collect();
    heads.push((
        "POST /portal/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n\
         Transfer-Encoding: chunked\r\n\r\n8\r\napi_key=\r\n"
            .to_owned(),
        &b"1\r\nx\r\n"[..],
    ));
    heads
}

/// Sends `head`, then `more` every 300 ms (never enough to end the body)
/// until the server answers; returns what it answered, read to the
/// connection's end.
async fn trickle(address: String, head: String, more: &'static [u8]) -> String {
    let mut stream = TcpStream::connect(address.trim_start_matches("http://")).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0_u8; 4096];
    loop {
        tokio::select! {
            read = stream.read(&mut buf) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
            },
            () = tokio::time::sleep(Duration::from_millis(300)) => {
                if answer.is_empty() {
                    // The server may have answered and closed meanwhile.
                    let _ = stream.write_all(more).await;
                }
            }
        }
    }
    String::from_utf8_lossy(&answer).into_owned()
}

/// `GET /api/v1/liveness` on a new connection: its status, or `None` if
/// nothing came within `wait`.
async fn liveness(address: &str, wait: Duration) -> Option<u16> {
    let host = address.trim_start_matches("http://").to_owned();
    let asked = async move {
        let mut stream = TcpStream::connect(&host).await.ok()?;
        let head = format!("GET /api/v1/liveness HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.ok()?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.ok()?;
        String::from_utf8_lossy(&answer).split(' ').nth(1)?.parse().ok()
    };
    tokio::time::timeout(wait, asked).await.ok().flatten()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_bodies_holding_the_connection_cap_are_cut_with_408_and_liveness_answers_again() {
    let app = app_with_a_small_cap().await;
    assert_eq!(liveness(&app.address, Duration::from_secs(30)).await, Some(200));
    let heads = trickled_heads(&app.api_key);
    let trickling: Vec<_> = (0..CAP)
        .map(|i| {
            let (head, more) = heads[i % heads.len()].clone();
            tokio::spawn(trickle(app.address.clone(), head, more))
        })
        .collect();
    // Let the server take all of them before liveness asks.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let asked = Instant::now();
    let status = liveness(&app.address, BODY_TIMEOUT + Duration::from_secs(20)).await;
    let waited = asked.elapsed();
    assert_eq!(
        status,
        Some(200),
        "liveness unanswered for {waited:?} while bodies trickled"
    );
    // It waited for a slot: the trickling connections held the whole cap
    // until their deadline (the setup is what the test claims it is).
    assert!(
        waited >= Duration::from_millis(500),
        "liveness answered after {waited:?}"
    );
    for (i, conn) in trickling.into_iter().enumerate() {
        let answer = tokio::time::timeout(Duration::from_mins(1), conn)
            .await
            .unwrap_or_else(|_| panic!("connection {i} was never answered"))
            .unwrap();
        assert!(answer.starts_with("HTTP/1.1 408"), "connection {i}: {answer}");
        let lower = answer.to_ascii_lowercase();
        assert!(lower.contains("connection: close"), "connection {i}: {answer}");
        if lower.contains("content-type: text/html") {
            // Under /portal the same refusal is the portal's page.
            assert!(
                answer.contains("The request took too long to arrive"),
                "connection {i}: {answer}"
            );
            continue;
        }
        let body: serde_json::Value = serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap_or_default())
            .unwrap_or_else(|e| panic!("connection {i}: {e}: {answer}"));
        assert_eq!(body["error"], "HTTP_408");
        assert_eq!(
            body["detail"],
            "The request body was not received within 1.5 s; the connection is closed"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_body_that_arrives_within_the_deadline_is_answered_as_usual() {
    let app = app_with_a_small_cap().await;
    let host = app.address.trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&host).await.unwrap();
    let body = br#"{"name":"slow but whole"}"#;
    let head = format!(
        "POST /api/v1/customers/me/api-keys HTTP/1.1\r\nHost: {host}\r\nX-API-Key: {}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        app.api_key,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    for piece in body.chunks(body.len() / 3 + 1) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stream.write_all(piece).await.unwrap();
    }
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("slow but whole"), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chunked_body_nobody_reads_does_not_keep_its_connection_past_the_answer() {
    let app = app_with_a_small_cap().await;
    // Liveness reads no body: it answers at once, and a chunked body it
    // left unread (which actix would otherwise drain for as long as the
    // client sends) closes the connection.
    let head = "GET /api/v1/liveness HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n".to_owned();
    let answer = tokio::time::timeout(
        Duration::from_secs(30),
        trickle(app.address.clone(), head, b"1\r\nb\r\n"),
    )
    .await
    .expect("the connection was closed after the answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.to_ascii_lowercase().contains("connection: close"), "{answer}");
}
