//! The portal's access check (`Access::Session`): a live session cookie
//! whose key is still usable (core's `services::portal`), and on a POST the
//! session's CSRF token in the form's `csrf` field. A page asked for
//! without a session is sent to the sign-in page; a POST without one, or
//! with a wrong token, is a 403 page and changes nothing.

use std::future::Future;
use std::sync::Arc;

use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures::StreamExt;
use linecast_core::services::portal::{Portal, Signed, csrf_matches};

use super::cookie::CookiePolicy;
use super::html::{error_page, see_other};

/// The largest portal form read.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// What the portal's gate needs: the use case and how the cookie is written.
pub struct PortalGate {
    pub portal: Arc<Portal>,
    pub cookie: CookiePolicy,
}

/// The signed-in customer, put on the request by [`admit`]: the only way a
/// portal handler learns who is asking.
#[derive(Clone)]
pub struct SignedIn(pub Signed);

impl FromRequest for SignedIn {
    type Error = actix_web::Error;
    type Future = std::future::Ready<Result<Self, actix_web::Error>>;

    /// Fails closed: a request that did not pass [`admit`] has no customer.
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(req.extensions().get::<SignedIn>().cloned().ok_or_else(|| {
            actix_web::error::InternalError::from_response(
                "no session",
                error_page(StatusCode::FORBIDDEN, "Please sign in."),
            )
            .into()
        }))
    }
}

/// The form field carrying the CSRF token.
pub const CSRF_FIELD: &str = "csrf";

fn form_token(body: &[u8]) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == CSRF_FIELD)
        .map(|(_, v)| v.into_owned())
}

pub(crate) async fn admit<F, Fut>(
    gate: Option<&PortalGate>,
    mut req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    let Some(gate) = gate else {
        let res = error_page(StatusCode::NOT_FOUND, "The portal is not available on this server.");
        return Ok(req.into_response(res));
    };
    let post = req.method() == Method::POST;
    let refuse = |req: ServiceRequest, clear: bool| {
        let mut res = if post {
            error_page(
                StatusCode::FORBIDDEN,
                "Your session has ended. Sign in again, then repeat what you were doing.",
            )
        } else {
            see_other("/portal")
        };
        if clear {
            res.headers_mut()
                .append(actix_web::http::header::SET_COOKIE, gate.cookie.clear());
        }
        Ok(req.into_response(res))
    };
    let Some(id) = gate.cookie.session_id(req.request()) else {
        return refuse(req, false);
    };
    let signed = match gate.portal.resume(&id).await {
        Ok(Some(signed)) => signed,
        Ok(None) => return refuse(req, true),
        Err(e) => {
            tracing::warn!(error = %e, "resuming a portal session");
            let res = error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again in a moment.",
            );
            return Ok(req.into_response(res));
        }
    };
    if post {
        let mut payload = req.take_payload();
        let mut body = actix_web::web::BytesMut::new();
        while let Some(chunk) = payload.next().await {
            let Ok(chunk) = chunk else {
                return Ok(req.into_response(error_page(StatusCode::BAD_REQUEST, "The form could not be read.")));
            };
            if body.len() + chunk.len() > MAX_FORM_BYTES {
                let res = error_page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large.");
                return Ok(req.into_response(res));
            }
            body.extend_from_slice(&chunk);
        }
        if !form_token(&body).is_some_and(|t| csrf_matches(&signed, &t)) {
            let res = error_page(
                StatusCode::FORBIDDEN,
                "This form has expired or did not come from this page. Reload the page and try again.",
            );
            return Ok(req.into_response(res));
        }
        req.set_payload(Payload::from(body.freeze()));
    }
    req.extensions_mut().insert(SignedIn(signed));
    call(req).await
}

/// The per-address failed-key limit as the portal's sign-in forms (a key, a
/// sign-in link) pay it: checked before an attempt, paid by a failed one.
pub(crate) struct SignInThrottle<'a> {
    limiter: &'a crate::auth::address_limiter::AddressLimiter,
    client: Option<crate::auth::client_address::ClientKey>,
}

impl<'a> SignInThrottle<'a> {
    pub(crate) fn of(gate: &'a crate::auth::middleware::Gate, req: &HttpRequest) -> Self {
        Self {
            limiter: &gate.auth_failures,
            client: gate
                .clients
                .from_parts(req.headers(), req.peer_addr().map(|a| a.ip()))
                .map(crate::auth::client_address::ClientKey::from),
        }
    }

    /// A 429 page while the address is past the limit.
    pub(crate) fn refusal(&self) -> Option<actix_web::HttpResponse> {
        use crate::auth::address_limiter::AddressDecision;
        let client = self.client?;
        let AddressDecision::Refused { .. } = self.limiter.peek(client, std::time::Instant::now()) else {
            return None;
        };
        let mut res = error_page(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many failed sign-ins from this address. Wait a moment and try again.",
        );
        res.headers_mut().insert(
            actix_web::http::header::RETRY_AFTER,
            actix_web::http::header::HeaderValue::from_static("1"),
        );
        Some(res)
    }

    /// Pays for a failed attempt; past the limit the next one waits.
    pub(crate) fn failed(&self) {
        if let Some(client) = self.client {
            let _ = self.limiter.check(client, std::time::Instant::now());
        }
    }
}
