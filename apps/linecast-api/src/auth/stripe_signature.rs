//! The billing webhook's credential: Stripe's `Stripe-Signature` header over
//! the raw body, checked here (beside the key check), never in a handler.
//!
//! Stripe's scheme: the header is `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`
//! (other schemes, such as `v0`, are ignored); each `v1` is
//! HMAC-SHA256 of `"<t>." + raw body`, keyed by an endpoint secret
//! (`whsec_...`, used as its bytes). A delivery is accepted when any `v1`
//! matches any configured secret (so a secret can be rotated: configure the
//! new one beside the old, then drop the old), compared in constant time,
//! and `t` is within [`TOLERANCE_SECS`] of the wall clock.
//!
//! An anonymous sender gets as little as possible: the header is parsed and
//! its timestamp checked before any body byte is read, the body is at most
//! [`MAX_BODY_BYTES`], every delivery pays the per-address limit on failed
//! credential checks first (the API gate's `auth_failures`; a delivery whose
//! signature matches is given its token back), and refusals are logged at
//! most once a second per address, with how many were left unlogged.

use std::future::Future;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures::StreamExt;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::address_limiter::AddressDecision;
use super::client_address::ClientKey;
use super::middleware::Gate;
use crate::error::ApiError;

/// How far `t` may be from the wall clock, either way (Stripe's libraries'
/// default).
pub const TOLERANCE_SECS: i64 = 300;

/// The largest webhook body read: a larger one is refused (413) before it
/// is read whole. Stripe's events are a few KiB; the largest seen in
/// practice are well under 100 KiB.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The shortest text after `whsec_` taken as a secret (Stripe's are 32 or
/// more characters): an HMAC key of a few characters is as good as public.
pub const MIN_SECRET_CHARS: usize = 16;

/// The configured endpoint secrets (`LINECAST_STRIPE_WEBHOOK_SECRETS`).
/// Never printed: `Debug` shows only how many there are.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct WebhookSecrets(Vec<String>);

impl WebhookSecrets {
    /// Reads comma-separated secrets; blanks are skipped. A secret that does
    /// not start with `whsec_` is refused (a pasted API key or publishable
    /// key would otherwise silently never match), and so is one with fewer
    /// than [`MIN_SECRET_CHARS`] characters after it. Errors name the
    /// secret's position, never its text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let secrets: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        for (position, secret) in secrets.iter().enumerate() {
            let Some(after) = secret.strip_prefix("whsec_") else {
                return Err(format!(
                    "secret {} of {} does not start with whsec_ (copy the endpoint's signing secret from Stripe)",
                    position + 1,
                    secrets.len()
                ));
            };
            if after.chars().count() < MIN_SECRET_CHARS {
                return Err(format!(
                    "secret {} of {} is too short: whsec_ must be followed by at least {MIN_SECRET_CHARS} characters \
                     (copy the endpoint's signing secret from Stripe)",
                    position + 1,
                    secrets.len()
                ));
            }
        }
        Ok(Self(secrets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for WebhookSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WebhookSecrets({} redacted)", self.0.len())
    }
}

/// Why a delivery was refused (the 400's detail says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureRefusal {
    #[error("Missing Stripe-Signature header")]
    Missing,
    #[error("Malformed Stripe-Signature header: expected t=<unix seconds>,v1=<hex signature>")]
    Malformed,
    #[error("Stripe-Signature timestamp is outside the 300 s tolerance")]
    Stale,
    #[error("No Stripe-Signature v1 signature matches the body")]
    Mismatch,
}

/// HMAC-SHA256 of `"<t>." + body` under `secret`.
fn mac(secret: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| unreachable!());
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `v1` signature of `body` at `timestamp` under `secret`, as Stripe
/// computes it (lower-case hex). For tests and tools that sign deliveries.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    hex::encode(mac(secret, &timestamp.to_string(), body).finalize().into_bytes())
}

/// A `Stripe-Signature` header whose shape and timestamp passed: what is
/// known before any body byte is read.
#[derive(Debug)]
pub struct Signature<'h> {
    timestamp: &'h str,
    signatures: Vec<Vec<u8>>,
}

impl<'h> Signature<'h> {
    /// Reads `header` (the `Stripe-Signature` value) and checks that its
    /// timestamp is within the tolerance of `now` (Unix seconds).
    pub fn parse(header: Option<&'h str>, now: i64) -> Result<Self, SignatureRefusal> {
        let header = header.ok_or(SignatureRefusal::Missing)?;
        let mut timestamp = None;
        let mut signatures = Vec::new();
        for part in header.split(',') {
            let (name, value) = part.trim().split_once('=').ok_or(SignatureRefusal::Malformed)?;
            match name {
                "t" if timestamp.is_none() => timestamp = Some(value),
                "t" => return Err(SignatureRefusal::Malformed),
                "v1" => signatures.push(hex::decode(value).map_err(|_| SignatureRefusal::Malformed)?),
                _ => {}
            }
        }
        let timestamp = timestamp.ok_or(SignatureRefusal::Malformed)?;
        let t: i64 = timestamp.parse().map_err(|_| SignatureRefusal::Malformed)?;
        if signatures.is_empty() {
            return Err(SignatureRefusal::Malformed);
        }
        if (now - t).abs() > TOLERANCE_SECS {
            return Err(SignatureRefusal::Stale);
        }
        Ok(Self { timestamp, signatures })
    }

    /// Whether any `v1` is the signature of `body` under any of `secrets`.
    pub fn matches(&self, body: &[u8], secrets: &WebhookSecrets) -> Result<(), SignatureRefusal> {
        // `verify_slice` compares in constant time.
        let matched = secrets.0.iter().any(|secret| {
            self.signatures
                .iter()
                .any(|sig| mac(secret, self.timestamp, body).verify_slice(sig).is_ok())
        });
        if matched {
            Ok(())
        } else {
            Err(SignatureRefusal::Mismatch)
        }
    }
}

/// Checks one delivery: `header` is the `Stripe-Signature` value, `body` the
/// raw bytes, `now` the wall clock in Unix seconds.
pub fn verify(header: Option<&str>, body: &[u8], secrets: &WebhookSecrets, now: i64) -> Result<(), SignatureRefusal> {
    Signature::parse(header, now)?.matches(body, secrets)
}

/// The webhook's credential check: its secrets, and the log of refusals.
#[derive(Debug, Default)]
pub struct Webhook {
    pub secrets: WebhookSecrets,
    refusals: RefusalLog,
}

impl Webhook {
    pub fn new(secrets: WebhookSecrets) -> Self {
        Self {
            secrets,
            refusals: RefusalLog::default(),
        }
    }
}

/// Refusals logged at most once a second per address: the first of a
/// second is logged with how many were refused unlogged since the last
/// line, the rest only counted.
pub struct RefusalLog {
    windows: moka::sync::Cache<Option<ClientKey>, Arc<Mutex<Window>>>,
}

#[derive(Default)]
struct Window {
    logged_at: Option<Instant>,
    unlogged: u64,
}

impl Default for RefusalLog {
    fn default() -> Self {
        Self {
            windows: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_idle(Duration::from_mins(1))
                .build(),
        }
    }
}

impl std::fmt::Debug for RefusalLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RefusalLog")
    }
}

impl RefusalLog {
    /// A refusal for `client` at `now`: `Some(unlogged)` when it is to be
    /// logged (with the count of refusals since the last line that were
    /// not), `None` when it is only counted.
    pub fn note(&self, client: Option<ClientKey>, now: Instant) -> Option<u64> {
        let window = self.windows.get_with(client, Arc::default);
        let mut window = window.lock().unwrap_or_else(PoisonError::into_inner);
        match window.logged_at {
            Some(at) if now.saturating_duration_since(at) < Duration::from_secs(1) => {
                window.unlogged += 1;
                None
            }
            _ => {
                window.logged_at = Some(now);
                Some(std::mem::take(&mut window.unlogged))
            }
        }
    }
}

/// A webhook body whose signature was verified: the only way a handler
/// gets one.
#[derive(Clone)]
pub struct SignedBody(pub actix_web::web::Bytes);

impl FromRequest for SignedBody {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    /// Fails closed: a request that did not pass [`admit`] has no signed body.
    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        std::future::ready(
            req.extensions()
                .get::<SignedBody>()
                .cloned()
                .ok_or_else(|| ApiError::BadRequest(SignatureRefusal::Missing.to_string())),
        )
    }
}

/// The access check of `Access::StripeSignature`: 404 while no secret is
/// configured; otherwise, in this order, before the handler:
/// - the per-address limit of failed credential checks is paid (429 once
///   the address has none left), and given back when the signature matches;
/// - the `Stripe-Signature` header is read and its timestamp checked
///   against the wall clock (400 naming the reason), before any body byte;
/// - the body is read (413 past [`MAX_BODY_BYTES`], refused by its
///   `Content-Length` before any byte is read) and its signature checked
///   (400), then handed to the handler as a [`SignedBody`].
///
/// A method the row does not take goes on to the dispatcher's 405.
pub(crate) async fn admit<F, Fut>(
    gate: &Gate,
    mut req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    let webhook = &gate.webhook;
    if webhook.secrets.is_empty() {
        let err = ApiError::NotFound(format!(
            "No route for {} {}",
            req.method(),
            crate::telemetry::redact_path(req.path())
        ));
        return Ok(req.error_response(err));
    }
    if req.method() != Method::POST {
        return call(req).await;
    }
    let address = gate.clients.of(&req);
    let client = address.map(ClientKey::from);
    let refuse = |req: ServiceRequest, err: ApiError| {
        if let Some(unlogged) = webhook.refusals.note(client, Instant::now()) {
            log_refusal(address, &err, unlogged);
        }
        Ok(req.error_response(err))
    };
    // Paid before anything is looked at, so concurrent deliveries cannot
    // all pass one look at a bucket with a token left.
    if let Some(client) = client
        && let AddressDecision::Refused { retry_after_secs } = gate.auth_failures.check(client, Instant::now())
    {
        crate::metrics::limiter_decision("auth_failure", "refused");
        let err = ApiError::TooManyRequests {
            detail: "Too many refused webhook deliveries from this address; retry later".to_owned(),
            retry_after: Some(retry_after_secs),
        };
        return refuse(req, err);
    }
    let header = req
        .headers()
        .get("stripe-signature")
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    // Stripe's tolerance is against the wall clock, never the data clock.
    let signature = match Signature::parse(header.as_deref(), chrono::Utc::now().timestamp()) {
        Ok(signature) => signature,
        Err(refusal) => return refuse(req, ApiError::BadRequest(refusal.to_string())),
    };
    let too_large = || ApiError::PayloadTooLarge(format!("A webhook body is at most {MAX_BODY_BYTES} bytes"));
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return refuse(req, too_large());
    }
    let mut payload = req.take_payload();
    let mut body = actix_web::web::BytesMut::with_capacity(declared.map_or(8 * 1024, |l| l as usize));
    while let Some(chunk) = payload.next().await {
        let Ok(chunk) = chunk else {
            return refuse(
                req,
                ApiError::BadRequest("The webhook body could not be read".to_owned()),
            );
        };
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return refuse(req, too_large());
        }
        body.extend_from_slice(&chunk);
    }
    if let Err(refusal) = signature.matches(&body, &webhook.secrets) {
        return refuse(req, ApiError::BadRequest(refusal.to_string()));
    }
    if let Some(client) = client {
        gate.auth_failures.refund(client);
    }
    req.extensions_mut().insert(SignedBody(body.freeze()));
    call(req).await
}

/// One line for a refused delivery, with the refusals of this address left
/// unlogged since its last line.
fn log_refusal(address: Option<IpAddr>, err: &ApiError, unlogged: u64) {
    use actix_web::ResponseError;
    let client = address.map_or_else(|| "unknown".to_owned(), |a| a.to_string());
    tracing::warn!(
        client = %client,
        status = err.status_code().as_u16(),
        reason = %err,
        unlogged_since_last = unlogged,
        "refused a billing webhook delivery (at most one line a second per address)"
    );
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn secrets(s: &[&str]) -> WebhookSecrets {
        WebhookSecrets::parse(&s.join(",")).unwrap()
    }

    /// The signature of Stripe's scheme, checked once against an
    /// independent HMAC: `printf '1700000000.{"id":"evt_1"}' | openssl
    /// dgst -sha256 -hmac whsec_test`.
    #[test]
    fn the_signature_is_stripes_hmac_of_timestamp_dot_body() {
        assert_eq!(
            sign("whsec_test", 1_700_000_000, br#"{"id":"evt_1"}"#),
            "c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
        );
    }

    #[test]
    fn a_matching_signature_within_the_tolerance_passes() {
        let body = br#"{"id":"evt_1"}"#;
        let t = 1_700_000_000;
        let header = format!("t={t},v1={}", sign("whsec_aaaaaaaaaaaaaaaaaaaa", t, body));
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]), t + 300),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]), t - 300),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]), t + 301),
            Err(SignatureRefusal::Stale)
        );
    }

    #[test]
    fn any_v1_under_any_secret_passes_so_secrets_rotate() {
        let body = b"{}";
        let t = 1_700_000_000;
        // Stripe signs with both secrets while a rotation is under way.
        let header = format!(
            "t={t},v1={},v0=ignored,v1={}",
            sign("whsec_old_endpoint_secret", t, body),
            sign("whsec_new_endpoint_secret", t, body)
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_new_endpoint_secret"]), t),
            Ok(())
        );
        assert_eq!(
            verify(
                Some(&header),
                body,
                &secrets(&["whsec_other_endpoint_secret", "whsec_old_endpoint_secret"]),
                t
            ),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_other_endpoint_secret"]), t),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn a_changed_body_or_timestamp_fails() {
        let t = 1_700_000_000;
        let sig = sign("whsec_aaaaaaaaaaaaaaaaaaaa", t, b"{\"a\":1}");
        let s = secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]);
        assert_eq!(
            verify(Some(&format!("t={t},v1={sig}")), b"{\"a\":2}", &s, t),
            Err(SignatureRefusal::Mismatch)
        );
        assert_eq!(
            verify(Some(&format!("t={},v1={sig}", t + 1)), b"{\"a\":1}", &s, t),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn a_missing_or_malformed_header_is_refused() {
        let s = secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]);
        assert_eq!(verify(None, b"", &s, 0), Err(SignatureRefusal::Missing));
        for header in ["", "t=1", "v1=00", "t=x,v1=00", "t=1,v1=zz", "t=1,t=2,v1=00", "garbage"] {
            assert_eq!(
                verify(Some(header), b"", &s, 1),
                Err(SignatureRefusal::Malformed),
                "{header}"
            );
        }
    }

    #[test]
    fn the_header_is_judged_without_the_body() {
        let t = 1_700_000_000;
        assert_eq!(Signature::parse(None, t).unwrap_err(), SignatureRefusal::Missing);
        assert_eq!(
            Signature::parse(Some("t=1,v1=00"), t).unwrap_err(),
            SignatureRefusal::Stale
        );
        let header = format!("t={t},v1={}", sign("whsec_aaaaaaaaaaaaaaaaaaaa", t, b"{}"));
        let parsed = Signature::parse(Some(&header), t + 10).unwrap();
        assert_eq!(parsed.matches(b"{}", &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"])), Ok(()));
        assert_eq!(
            parsed.matches(b"{ }", &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"])),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn refusals_are_logged_once_a_second_per_address_with_the_count_left_unlogged() {
        let log = RefusalLog::default();
        let (a, b) = (Some(ClientKey::V4([10, 0, 0, 1])), Some(ClientKey::V4([10, 0, 0, 2])));
        let start = Instant::now();
        assert_eq!(log.note(a, start), Some(0));
        for i in 1..=9 {
            assert_eq!(log.note(a, start + Duration::from_millis(i * 100)), None);
        }
        // Another address has its own second.
        assert_eq!(log.note(b, start + Duration::from_millis(500)), Some(0));
        assert_eq!(log.note(a, start + Duration::from_secs(1)), Some(9));
        assert_eq!(log.note(a, start + Duration::from_millis(1100)), None);
        assert_eq!(log.note(a, start + Duration::from_secs(5)), Some(1));
    }

    #[test]
    fn secrets_must_look_like_endpoint_secrets_and_never_print() {
        assert!(WebhookSecrets::parse("whsec_aaaaaaaaaaaaaaaa, ,whsec_bbbbbbbbbbbbbbbb").is_ok());
        let err = WebhookSecrets::parse("whsec_aaaaaaaaaaaaaaaa,sk_live_123").unwrap_err();
        assert!(err.contains("secret 2 of 2") && !err.contains("sk_live_123"), "{err}");
        // `whsec_` alone, or with a few characters, is not a secret; the
        // error names the position, never the text.
        for short in ["whsec_", "whsec_test", "whsec_aaaaaaaaaaaaaaa"] {
            let err = WebhookSecrets::parse(&format!("whsec_abcdefghijklmnopqrstuvwxyz,{short}")).unwrap_err();
            assert!(err.contains("secret 2 of 2") && err.contains("at least 16"), "{err}");
            assert!(!err.contains("abcdefghijklmnop") && !err.contains("whsec_a"), "{err}");
        }
        let debug = format!("{:?}", secrets(&["whsec_supersecret_of_the_endpoint"]));
        assert!(!debug.contains("supersecret"), "{debug}");
    }
}
