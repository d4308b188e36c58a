//! The portal's access check (`Access::Session`): a live session cookie
//! whose key is still usable (core's `services::portal`), and on a POST the
//! session's CSRF token in the form's `csrf` field. A page asked for
//! without a live session, or a form posted without one, is sent to the
//! sign-in page (`back`: it returns to that page afterwards, and says "Your
//! session ended" when the browser had a session); a form with a wrong
//! token is a 403 page. Neither changes anything.

use std::future::Future;
use std::sync::Arc;

use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use futures::StreamExt;
use linecast_core::services::portal::{Portal, Signed, csrf_matches};

use super::cookie::CookiePolicy;
use super::html::{error_page, see_other_to};

/// The largest portal form read.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// What the portal's gate needs: the use case, how the cookie is written
/// and where a sign-in may come from.
pub struct PortalGate {
    pub portal: Arc<Portal>,
    pub cookie: CookiePolicy,
    pub origin: super::origin::SignInOrigin,
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
    // No live session: the sign-in page, returning afterwards to the page
    // asked for (for a form, the page it is on: a form is never repeated),
    // and saying the session ended when the browser had one.
    let refuse = |req: ServiceRequest, ended: bool| {
        let back = if post {
            super::back::page_of_form(req.path()).map(str::to_owned)
        } else {
            req.uri().path_and_query().map(|pq| pq.as_str().to_owned())
        };
        let mut res = see_other_to(&super::back::sign_in_location(back.as_deref(), ended));
        if ended {
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
/// sign-in link) pay it: as the API's gate does (`auth::middleware`), an
/// attempt pays its token before the lookup and gets it back when it turns
/// out not to be a failure, so concurrent failures cannot all pass one look
/// at a bucket with a token left. Unlike the gate, the portal pays even
/// while every bucket is full: sign-ins are rare, and paying is one lock.
pub(crate) struct SignInThrottle<'a> {
    limiter: &'a crate::auth::address_limiter::AddressLimiter,
    /// The address that paid, if it is known.
    paid: Option<crate::auth::client_address::ClientKey>,
}

impl<'a> SignInThrottle<'a> {
    /// Pays for one attempt from the request's address; a 429 page when the
    /// address is past the limit (nothing is tried then).
    pub(crate) fn pay(
        gate: &'a crate::auth::middleware::Gate,
        req: &HttpRequest,
    ) -> Result<Self, Box<actix_web::HttpResponse>> {
        use crate::auth::address_limiter::AddressDecision;
        let client = gate
            .clients
            .from_parts(req.headers(), req.peer_addr().map(|a| a.ip()))
            .map(crate::auth::client_address::ClientKey::from);
        if let Some(client) = client
            && let AddressDecision::Refused { retry_after_secs } =
                gate.auth_failures.check(client, std::time::Instant::now())
        {
            crate::metrics::limiter_decision("auth_failure", "refused");
            let mut res = error_page(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many failed sign-ins from this address. Wait a moment and try again.",
            );
            res.headers_mut()
                .insert(actix_web::http::header::RETRY_AFTER, retry_after_secs.max(1).into());
            return Err(Box::new(res));
        }
        Ok(Self {
            limiter: &gate.auth_failures,
            paid: client,
        })
    }

    /// The attempt was not a failure (signed in, or refused for a reason
    /// that is no guess: the accounts database down, a valid link for an
    /// account it cannot sign in): its token goes back. A failed attempt
    /// keeps it (drop the throttle).
    pub(crate) fn refund(self) {
        if let Some(client) = self.paid {
            self.limiter.refund(client);
        }
    }
}
