//! The Stripe adapter against a local stub that speaks Stripe's wire
//! format for the two endpoints: form-encoded bodies with bracket keys,
//! `Authorization: Bearer`, `Idempotency-Key`, and Stripe-shaped JSON
//! (a session, or `{"error": {...}}`). The expectations below are written
//! from Stripe's API reference, not from the adapter's code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use linecast_core::ports::billing_pages::{BillingPages, BillingPagesError, CheckoutRequest, ManageRequest};
use linecast_stripe::{ApiKey, StripeApi, StripeApiConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const KEY: &str = "sk_test_51AbCdEfGhIjKlMnOpQrStUv";

/// One request as the stub read it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    /// The raw body, and its fields decoded.
    raw: String,
    form: Vec<(String, String)>,
}

impl Seen {
    fn field(&self, name: &str) -> Option<&str> {
        self.form.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

struct Stub {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

/// Answers each request with `answer(request)`: (status, JSON body, delay).
async fn stub(answer: impl Fn(&Seen) -> (u16, String, Duration) + Send + Sync + 'static) -> Stub {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let record = record.clone();
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut data = Vec::new();
                let mut buf = [0u8; 4096];
                let head_end = loop {
                    if let Some(at) = data.windows(4).position(|w| w == b"\r\n\r\n") {
                        break at + 4;
                    }
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => data.extend_from_slice(&buf[..n]),
                    }
                };
                let head = String::from_utf8_lossy(&data[..head_end]).into_owned();
                let mut lines = head.split("\r\n");
                let mut first = lines.next().unwrap_or_default().split(' ');
                let (method, path) = (first.next().unwrap_or_default(), first.next().unwrap_or_default());
                let headers: HashMap<String, String> = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
                    .collect();
                let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
                while data.len() < head_end + length {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => data.extend_from_slice(&buf[..n]),
                    }
                }
                let raw = String::from_utf8_lossy(&data[head_end..head_end + length]).into_owned();
                let request = Seen {
                    method: method.to_owned(),
                    path: path.to_owned(),
                    headers,
                    form: url::form_urlencoded::parse(raw.as_bytes()).into_owned().collect(),
                    raw,
                };
                record.lock().unwrap().push(request.clone());
                let (status, body, delay) = answer(&request);
                tokio::time::sleep(delay).await;
                let response = format!(
                    "HTTP/1.1 {status} Stub\r\nContent-Type: application/json\r\nRequest-Id: req_stub\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    Stub { base_url, seen }
}

fn api(stub: &Stub, timeout: Duration) -> StripeApi {
    StripeApi::new(StripeApiConfig {
        api_key: ApiKey::parse(KEY).unwrap(),
        base_url: stub.base_url.clone(),
        timeout,
    })
    .unwrap()
}

fn checkout(customer: Option<&str>) -> CheckoutRequest {
    CheckoutRequest {
        price: "price_1QaiMonthly".into(),
        client_reference: "lc1_42_1800000000_cb04".into(),
        provider_customer: customer.map(str::to_owned),
        email: "ops+billing@acme.io".into(),
        success_url: "https://api.example.com/portal/billing?checkout=done".into(),
        cancel_url: "https://api.example.com/portal/billing".into(),
        idempotency_key: "checkout-42-abc".into(),
    }
}

fn session(id: &str, url: &str) -> (u16, String, Duration) {
    (
        200,
        format!(r#"{{"id":"{id}","object":"checkout.session","livemode":false,"url":"{url}","mode":"subscription"}}"#),
        Duration::ZERO,
    )
}

#[tokio::test]
async fn a_checkout_is_a_form_encoded_post_with_the_key_and_an_idempotency_key() {
    let stub = stub(|_| session("cs_test_a1", "https://checkout.stripe.com/c/pay/cs_test_a1")).await;
    let page = api(&stub, Duration::from_secs(5))
        .checkout(&checkout(None))
        .await
        .unwrap();
    assert_eq!(page.id, "cs_test_a1");
    assert_eq!(page.url, "https://checkout.stripe.com/c/pay/cs_test_a1");

    let seen = stub.seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1, "one request, no retry");
    let r = &seen[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/checkout/sessions"));
    assert_eq!(r.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(r.headers["idempotency-key"], "checkout-42-abc");
    assert_eq!(r.headers["content-type"], "application/x-www-form-urlencoded");
    // Bracket notation, percent-encoded as any form is.
    assert!(
        r.raw.contains("line_items%5B0%5D%5Bprice%5D=price_1QaiMonthly"),
        "{}",
        r.raw
    );
    assert!(r.raw.contains("customer_email=ops%2Bbilling%40acme.io"), "{}", r.raw);
    assert_eq!(r.field("mode"), Some("subscription"));
    assert_eq!(r.field("line_items[0][price]"), Some("price_1QaiMonthly"));
    assert_eq!(r.field("line_items[0][quantity]"), Some("1"));
    assert_eq!(r.field("client_reference_id"), Some("lc1_42_1800000000_cb04"));
    assert_eq!(
        r.field("success_url"),
        Some("https://api.example.com/portal/billing?checkout=done")
    );
    assert_eq!(r.field("cancel_url"), Some("https://api.example.com/portal/billing"));
    assert_eq!(
        r.field("customer"),
        None,
        "Stripe takes customer or customer_email, not both"
    );
}

#[tokio::test]
async fn a_returning_customer_checks_out_as_their_stripe_customer() {
    let stub = stub(|_| session("cs_test_b2", "https://checkout.stripe.com/c/pay/cs_test_b2")).await;
    api(&stub, Duration::from_secs(5))
        .checkout(&checkout(Some("cus_Q1w2e3")))
        .await
        .unwrap();
    let r = stub.seen.lock().unwrap()[0].clone();
    assert_eq!(r.field("customer"), Some("cus_Q1w2e3"));
    assert_eq!(r.field("customer_email"), None);
}

#[tokio::test]
async fn a_customer_portal_session_names_the_customer_and_the_way_back() {
    let stub = stub(|_| {
        (
            200,
            r#"{"id":"bps_1","object":"billing_portal.session","customer":"cus_Q1w2e3","url":"https://billing.stripe.com/p/session/test_YWNj","return_url":"https://api.example.com/portal/billing"}"#.into(),
            Duration::ZERO,
        )
    })
    .await;
    let page = api(&stub, Duration::from_secs(5))
        .manage(&ManageRequest {
            provider_customer: "cus_Q1w2e3".into(),
            return_url: "https://api.example.com/portal/billing".into(),
            idempotency_key: "manage-42-def".into(),
        })
        .await
        .unwrap();
    assert_eq!(page.url, "https://billing.stripe.com/p/session/test_YWNj");
    let r = stub.seen.lock().unwrap()[0].clone();
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/v1/billing_portal/sessions")
    );
    assert_eq!(r.headers["authorization"], format!("Bearer {KEY}"));
    assert_eq!(r.headers["idempotency-key"], "manage-42-def");
    assert_eq!(r.field("customer"), Some("cus_Q1w2e3"));
    assert_eq!(r.field("return_url"), Some("https://api.example.com/portal/billing"));
    assert_eq!(r.form.len(), 2, "{:?}", r.form);
}

#[tokio::test]
async fn stripes_error_object_is_a_refusal_with_its_type_code_and_message() {
    let stub = stub(|_| {
        (
            400,
            r#"{"error":{"code":"resource_missing","doc_url":"https://stripe.com/docs/error-codes/resource-missing","message":"No such price: 'price_1QaiMonthly'","param":"line_items[0][price]","request_log_url":"https://dashboard.stripe.com/test/logs/req_x","type":"invalid_request_error"}}"#.into(),
            Duration::ZERO,
        )
    })
    .await;
    let err = api(&stub, Duration::from_secs(5))
        .checkout(&checkout(None))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        BillingPagesError::Refused {
            status: 400,
            kind: "invalid_request_error".into(),
            code: Some("resource_missing".into()),
            message: "No such price: 'price_1QaiMonthly'".into(),
        }
    );
}

#[tokio::test]
async fn a_bad_key_is_a_refusal_and_an_outage_or_a_rate_limit_is_unavailable() {
    let stub = stub(|r| match r.headers["idempotency-key"].as_str() {
        "k401" => (
            401,
            r#"{"error":{"message":"Invalid API Key provided: sk_test_****StUv","type":"invalid_request_error"}}"#
                .into(),
            Duration::ZERO,
        ),
        "k429" => (
            429,
            r#"{"error":{"message":"Too many requests","type":"rate_limit_error","code":"rate_limit"}}"#.into(),
            Duration::ZERO,
        ),
        "k500" => (
            500,
            r#"{"error":{"type":"api_error","message":"boom"}}"#.into(),
            Duration::ZERO,
        ),
        "khtml" => (502, "<html>bad gateway</html>".into(), Duration::ZERO),
        "knourl" => (
            200,
            r#"{"id":"cs_x","object":"checkout.session","url":null}"#.into(),
            Duration::ZERO,
        ),
        _ => (200, "not json".into(), Duration::ZERO),
    })
    .await;
    let api = api(&stub, Duration::from_secs(5));
    let with = |key: &str| CheckoutRequest {
        idempotency_key: key.into(),
        ..checkout(None)
    };
    match api.checkout(&with("k401")).await.unwrap_err() {
        BillingPagesError::Refused {
            status: 401,
            code: None,
            ..
        } => {}
        other => panic!("{other:?}"),
    }
    for key in ["k429", "k500", "khtml", "knourl", "kjunk"] {
        let err = api.checkout(&with(key)).await.unwrap_err();
        assert!(matches!(err, BillingPagesError::Unavailable(_)), "{key}: {err:?}");
        assert!(!err.to_string().contains(KEY), "{err}");
    }
}

#[tokio::test]
async fn a_session_url_the_browser_must_not_follow_is_unusable_and_a_stub_may_answer_any_page() {
    let stub = stub(|r| match r.headers["idempotency-key"].as_str() {
        "kscript" => session("cs_script", "javascript:alert(1)"),
        "kdata" => session("cs_data", "data:text/html,x"),
        _ => session("cs_elsewhere", "https://evil.example/phish"),
    })
    .await;
    let api = api(&stub, Duration::from_secs(5));
    let with = |key: &str| CheckoutRequest {
        idempotency_key: key.into(),
        ..checkout(None)
    };
    for key in ["kscript", "kdata"] {
        let err = api.checkout(&with(key)).await.unwrap_err();
        assert!(matches!(err, BillingPagesError::Unusable(_)), "{key}: {err:?}");
    }
    // The stub is not Stripe's API (`http://127.0.0.1:...`): its pages are
    // its own, wherever they are. With Stripe's own root only Stripe's
    // hosts are followed (`page_url_allowed`, unit-tested in the crate).
    assert!(!linecast_stripe::api::is_stripes_api(&stub.base_url));
    let page = api.checkout(&with("kother")).await.unwrap();
    assert_eq!(page.url, "https://evil.example/phish");
    assert!(!linecast_stripe::api::page_url_allowed(
        "https://api.stripe.com",
        &page.url
    ));
}

#[tokio::test]
async fn a_silent_stripe_is_unavailable_within_the_timeout() {
    let stub = stub(|_| {
        let (s, b, _) = session("cs_slow", "https://checkout.stripe.com/c/pay/cs_slow");
        (s, b, Duration::from_secs(30))
    })
    .await;
    let started = Instant::now();
    let err = api(&stub, Duration::from_millis(300))
        .checkout(&checkout(None))
        .await
        .unwrap_err();
    assert!(matches!(err, BillingPagesError::Unavailable(_)), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn nothing_is_sent_when_stripe_cannot_be_reached() {
    // A port nothing listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let api = StripeApi::new(StripeApiConfig {
        api_key: ApiKey::parse(KEY).unwrap(),
        base_url,
        timeout: Duration::from_secs(2),
    })
    .unwrap();
    let err = api.checkout(&checkout(None)).await.unwrap_err();
    assert!(matches!(err, BillingPagesError::Unavailable(_)), "{err:?}");
}
