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

use std::future::Future;

use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures::StreamExt;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::error::ApiError;

/// How far `t` may be from the wall clock, either way (Stripe's libraries'
/// default).
pub const TOLERANCE_SECS: i64 = 300;

/// The largest webhook body read: a larger one is refused (413) before it
/// is read whole.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The configured endpoint secrets (`LINECAST_STRIPE_WEBHOOK_SECRETS`).
/// Never printed: `Debug` shows only how many there are.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct WebhookSecrets(Vec<String>);

impl WebhookSecrets {
    /// Reads comma-separated secrets; blanks are skipped. A secret that does
    /// not start with `whsec_` is refused (a pasted API key or publishable
    /// key would otherwise silently never match).
    pub fn parse(text: &str) -> Result<Self, String> {
        let secrets: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if let Some(position) = secrets.iter().position(|s| !s.starts_with("whsec_")) {
            return Err(format!(
                "secret {} of {} does not start with whsec_ (copy the endpoint's signing secret from Stripe)",
                position + 1,
                secrets.len()
            ));
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

/// Checks one delivery: `header` is the `Stripe-Signature` value, `body` the
/// raw bytes, `now` the wall clock in Unix seconds.
pub fn verify(header: Option<&str>, body: &[u8], secrets: &WebhookSecrets, now: i64) -> Result<(), SignatureRefusal> {
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
    // `verify_slice` compares in constant time.
    let matched = secrets.0.iter().any(|secret| {
        signatures
            .iter()
            .any(|sig| mac(secret, timestamp, body).verify_slice(sig).is_ok())
    });
    if matched {
        Ok(())
    } else {
        Err(SignatureRefusal::Mismatch)
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
/// configured; otherwise the body is read (413 past [`MAX_BODY_BYTES`],
/// refused by its `Content-Length` before any byte is read) and verified
/// against the wall clock (400 naming the reason), then handed to the
/// handler as a [`SignedBody`]. A method the row does not take goes on to
/// the dispatcher's 405.
pub(crate) async fn admit<F, Fut>(
    secrets: &WebhookSecrets,
    mut req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    if secrets.is_empty() {
        let err = ApiError::NotFound(format!("No route for {} {}", req.method(), req.path()));
        return Ok(req.error_response(err));
    }
    if req.method() != Method::POST {
        return call(req).await;
    }
    let too_large = || ApiError::PayloadTooLarge(format!("A webhook body is at most {MAX_BODY_BYTES} bytes"));
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return Ok(req.error_response(too_large()));
    }
    let mut payload = req.take_payload();
    let mut body = actix_web::web::BytesMut::with_capacity(declared.map_or(8 * 1024, |l| l as usize));
    while let Some(chunk) = payload.next().await {
        let Ok(chunk) = chunk else {
            return Ok(req.error_response(ApiError::BadRequest("The webhook body could not be read".to_owned())));
        };
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Ok(req.error_response(too_large()));
        }
        body.extend_from_slice(&chunk);
    }
    let header = req
        .headers()
        .get("stripe-signature")
        .map(|v| v.to_str().unwrap_or_default());
    // Stripe's tolerance is against the wall clock, never the data clock.
    if let Err(refusal) = verify(header, &body, secrets, chrono::Utc::now().timestamp()) {
        tracing::warn!(reason = %refusal, "refused a billing webhook delivery");
        return Ok(req.error_response(ApiError::BadRequest(refusal.to_string())));
    }
    req.extensions_mut().insert(SignedBody(body.freeze()));
    call(req).await
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
        let header = format!("t={t},v1={}", sign("whsec_a", t, body));
        assert_eq!(verify(Some(&header), body, &secrets(&["whsec_a"]), t + 300), Ok(()));
        assert_eq!(verify(Some(&header), body, &secrets(&["whsec_a"]), t - 300), Ok(()));
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_a"]), t + 301),
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
            sign("whsec_old", t, body),
            sign("whsec_new", t, body)
        );
        assert_eq!(verify(Some(&header), body, &secrets(&["whsec_new"]), t), Ok(()));
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_other", "whsec_old"]), t),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_other"]), t),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn a_changed_body_or_timestamp_fails() {
        let t = 1_700_000_000;
        let sig = sign("whsec_a", t, b"{\"a\":1}");
        let s = secrets(&["whsec_a"]);
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
        let s = secrets(&["whsec_a"]);
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
    fn secrets_must_look_like_endpoint_secrets_and_never_print() {
        assert!(WebhookSecrets::parse("whsec_a, ,whsec_b").is_ok());
        let err = WebhookSecrets::parse("whsec_a,sk_live_123").unwrap_err();
        assert!(err.contains("secret 2 of 2") && !err.contains("sk_live_123"), "{err}");
        let debug = format!("{:?}", secrets(&["whsec_supersecret"]));
        assert!(!debug.contains("supersecret"), "{debug}");
    }
}
