//! The portal's access check (`Access::Session(policy)`): a live session
//! cookie whose key is still usable (core's `services::portal`), an account
//! the row's `Policy` serves (core's `services::access::serves`: a
//! `Subscriber` row needs a subscription that grants access), and on a POST
//! the session's CSRF token in the form's `csrf` field.
//!
//! The gate decides; the portal words (`SessionPages`, given at start-up):
//! a page asked for without a live session goes to the sign-in page, a
//! form with a wrong token is a 403 page, a form the account may not send
//! goes back to its page with the reason. None of them changes anything.

use std::future::Future;
use std::sync::Arc;

use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::SET_COOKIE;
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse};
use futures::StreamExt;
use futures::future::LocalBoxFuture;
use linecast_core::services::access::{Policy, Refusal, serves};
use linecast_core::services::portal::{Portal, Signed, csrf_matches};

use super::session_cookie::CookiePolicy;
use super::sign_in_origin::SignInOrigin;
use crate::error::ApiError;

/// The largest portal form read.
pub const MAX_FORM_BYTES: usize = 16 * 1024;

/// The form field carrying the CSRF token.
pub const CSRF_FIELD: &str = "csrf";

/// What the session gate needs: the use case, how the cookie is written,
/// where a sign-in may come from, and how a refusal is shown.
pub struct SessionGate {
    pub portal: Arc<Portal>,
    pub cookie: CookiePolicy,
    pub origin: SignInOrigin,
    pub pages: Arc<dyn SessionPages>,
    /// The per-session rate of the portal's working pages, as the portal
    /// sizes it (`portal::throttle::views`).
    pub views: linecast_limits::KeyedLimiter<String>,
}

/// Why the gate did not let a request through.
#[derive(Debug)]
pub enum SessionRefusal {
    /// No live session. `ended`: the browser had one (its cookie is
    /// cleared by the gate).
    SignIn { ended: bool },
    /// The accounts database did not answer.
    Unavailable,
    /// The form's body could not be read.
    FormUnreadable,
    /// The form is over [`MAX_FORM_BYTES`].
    FormTooLarge,
    /// The form's CSRF token is missing or not the session's.
    StaleForm,
    /// The account does not satisfy the row's policy (the refusal the API
    /// would answer).
    NotServed(Refusal),
}

/// How refusals are shown: the portal's pages. The gate never renders.
pub trait SessionPages: Send + Sync {
    /// The response to `req` refused for `why`. `session` is the cookie's
    /// session id when the session is live (`NotServed`).
    fn refused<'a>(
        &'a self,
        req: &'a HttpRequest,
        session: Option<&'a str>,
        why: SessionRefusal,
    ) -> LocalBoxFuture<'a, HttpResponse>;
}

/// The signed-in customer, put on the request by [`admit`]: the only way a
/// portal handler learns who is asking.
#[derive(Clone)]
pub struct SignedIn(pub Signed);

impl FromRequest for SignedIn {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    /// Fails closed: a request that did not pass [`admit`] has no customer
    /// (a 403, shown as a page under `/portal`).
    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(
            req.extensions()
                .get::<SignedIn>()
                .cloned()
                .ok_or_else(|| ApiError::Forbidden("no session".to_owned())),
        )
    }
}

fn form_token(body: &[u8]) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == CSRF_FIELD)
        .map(|(_, v)| v.into_owned())
}

/// Admits `req` to a row of `Access::Session(policy)` and answers it with
/// `call`; otherwise the portal's page for the refusal. Without a gate (keys
/// not checked at all: `LINECAST_AUTH_DISABLED`) every such row is a 404.
pub(crate) async fn admit<F, Fut>(
    gate: Option<&SessionGate>,
    policy: Policy,
    mut req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    let Some(gate) = gate else {
        return Ok(req.error_response(ApiError::NotFound(
            "The portal is not available on this server.".to_owned(),
        )));
    };
    let refuse = |req: ServiceRequest, session: Option<String>, why: SessionRefusal| async move {
        let clear = matches!(why, SessionRefusal::SignIn { ended: true });
        let mut res = gate.pages.refused(req.request(), session.as_deref(), why).await;
        if clear {
            res.headers_mut().append(SET_COOKIE, gate.cookie.clear());
        }
        Ok(req.into_response(res))
    };
    let Some(id) = gate.cookie.session_id(req.request()) else {
        return refuse(req, None, SessionRefusal::SignIn { ended: false }).await;
    };
    let signed = match gate.portal.resume(&id).await {
        Ok(Some(signed)) => signed,
        Ok(None) => return refuse(req, None, SessionRefusal::SignIn { ended: true }).await,
        Err(e) => {
            tracing::warn!(error = %e, "resuming a portal session");
            return refuse(req, None, SessionRefusal::Unavailable).await;
        }
    };
    if req.method() == Method::POST {
        let mut payload = req.take_payload();
        let mut body = actix_web::web::BytesMut::new();
        while let Some(chunk) = payload.next().await {
            let Ok(chunk) = chunk else {
                return refuse(req, None, SessionRefusal::FormUnreadable).await;
            };
            if body.len() + chunk.len() > MAX_FORM_BYTES {
                return refuse(req, None, SessionRefusal::FormTooLarge).await;
            }
            body.extend_from_slice(&chunk);
        }
        if !form_token(&body).is_some_and(|t| csrf_matches(&signed, &t)) {
            return refuse(req, None, SessionRefusal::StaleForm).await;
        }
        req.set_payload(Payload::from(body.freeze()));
    }
    // Checked after the form's token, so a forged form learns nothing of
    // the account.
    if let Err(refusal) = serves(&signed.entry.1, policy) {
        return refuse(req, Some(id), SessionRefusal::NotServed(refusal)).await;
    }
    req.extensions_mut().insert(SignedIn(signed));
    call(req).await
}

/// Whether `signed` may use a row of `access` (its `Session` policy): what
/// a page asks before offering that row's form. Any other access: no.
pub fn permits(access: crate::endpoint::Access, signed: &SignedIn) -> bool {
    match access {
        crate::endpoint::Access::Session(policy) => serves(&signed.0.entry.1, policy).is_ok(),
        _ => false,
    }
}
