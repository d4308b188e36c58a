//! The billing webhook's credential: Stripe's `Stripe-Signature` header over
//! the raw body, checked here (beside the key check), never in a handler.
//! The scheme itself (the header, the HMAC, the tolerance, the secrets) is
//! `linecast_stripe::signature`; this module admits a delivery with it.
//!
//! An anonymous sender gets as little as possible: the header is parsed and
//! its timestamp checked before any body byte is read, the body is at most
//! [`MAX_BODY_BYTES`], every delivery pays the per-address limit on failed
//! credential checks first (the API gate's `auth_failures`; a delivery whose
//! signature matches is given its token back), and refusals are logged at
//! most once a second per address, with how many were left unlogged.

use std::future::Future;
use std::net::IpAddr;
use std::time::Instant;

use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures::StreamExt;
use linecast_stripe::signature::{Signature, SignatureRefusal, WebhookSecrets};

use super::address_limiter::AddressDecision;
use super::address_limiter::AddressLimiter;
use super::client_address::ClientAddresses;
use super::client_address::ClientKey;
use crate::error::ApiError;

/// The largest webhook body read: a larger one is refused (413) before it
/// is read whole. Stripe's events are a few KiB; the largest seen in
/// practice are well under 100 KiB.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// The webhook's credential check: its secrets, and the log of refusals.
#[derive(Debug)]
pub struct Webhook {
    pub secrets: WebhookSecrets,
    refusals: RefusalLog,
}

impl Default for Webhook {
    fn default() -> Self {
        Self::new(WebhookSecrets::default())
    }
}

impl Webhook {
    pub fn new(secrets: WebhookSecrets) -> Self {
        Self {
            secrets,
            refusals: RefusalLog::new(MAX_LOGGED_ADDRESSES),
        }
    }
}

/// Refusals logged at most once a second per address: the first of a
/// second is logged with how many were refused unlogged since the last
/// line, the rest only counted.
pub type RefusalLog = linecast_limits::OncePerSecond<Option<ClientKey>>;

/// The most addresses whose refusals are counted at once.
const MAX_LOGGED_ADDRESSES: u64 = 100_000;

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
    (webhook, clients, auth_failures): (&Webhook, &ClientAddresses, &AddressLimiter),
    mut req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    if webhook.secrets.is_empty() {
        let err = ApiError::NotFound(format!(
            "No route for {} {}",
            req.method(),
            crate::endpoint::template(req.request()).unwrap_or_else(|| req.path())
        ));
        return Ok(req.error_response(err));
    }
    if req.method() != Method::POST {
        return call(req).await;
    }
    let address = clients.of(&req);
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
        && let AddressDecision::Refused { retry_after_secs } = auth_failures.check(client, Instant::now())
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
    let body = match read_body(&mut req).await {
        Ok(body) => body,
        Err(err) => return refuse(req, err),
    };
    if let Err(refusal) = signature.matches(&body, &webhook.secrets) {
        return refuse(req, ApiError::BadRequest(refusal.to_string()));
    }
    if let Some(client) = client {
        auth_failures.refund(&client);
    }
    req.extensions_mut().insert(SignedBody(body.freeze()));
    call(req).await
}

/// The delivery's body, whole: a 413 past [`MAX_BODY_BYTES`] (refused by
/// its `Content-Length` before any byte is read), a 400 when it breaks off.
async fn read_body(req: &mut ServiceRequest) -> Result<actix_web::web::BytesMut, ApiError> {
    let too_large = || ApiError::PayloadTooLarge(format!("A webhook body is at most {MAX_BODY_BYTES} bytes"));
    let declared = req
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    let mut payload = req.take_payload();
    let mut body = actix_web::web::BytesMut::with_capacity(declared.map_or(8 * 1024, |l| l as usize));
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|_| ApiError::BadRequest("The webhook body could not be read".to_owned()))?;
        if body.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
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
    use std::time::Duration;

    use super::*;

    #[test]
    fn refusals_are_logged_once_a_second_per_address_with_the_count_left_unlogged() {
        let log = RefusalLog::new(MAX_LOGGED_ADDRESSES);
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
}
