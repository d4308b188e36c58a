//! `/portal/link/{token}`: a one-time sign-in link an operator made
//! (`linecast-admin customers sign-in-link`) for a customer who lost every
//! key. The GET only asks (a link previewer cannot use it up); the POST
//! uses the link, issues a new key, starts a session with it and
//! redirects to the Keys page, which shows the key once (a flash). A link for an account that core's `LINK_POLICY` does not
//! serve (no API access, a lapsed subscription) is refused on both, and
//! stays unused.

use actix_web::http::StatusCode;
use actix_web::http::header::SET_COOKIE;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use linecast_core::key_material::mask_key;
use linecast_core::services::access::{Refusal, serves};
use linecast_core::services::portal::{LINK_KEY_NAME, LINK_POLICY, SignInRefusal};

use super::flash::{Flash, FlashPage, NewKey, leave_for};
use super::html::{error_page, page, see_other};
use crate::state::AppState;

#[derive(Template)]
#[template(path = "portal/link.html")]
struct LinkPage {
    email: String,
    action: String,
}

/// A token of the shape the links carry (64 hex digits).
fn token_of(raw: &str) -> Option<&str> {
    (raw.len() == 64 && raw.bytes().all(|b| b.is_ascii_hexdigit())).then_some(raw)
}

fn spent() -> HttpResponse {
    error_page(
        StatusCode::NOT_FOUND,
        "This sign-in link is unknown, used or expired (a link works once, for 15 minutes). Ask for a new one.",
    )
}

/// The page refusing a link whose account cannot be signed in (the link is
/// left unused).
fn not_served(refusal: &Refusal) -> HttpResponse {
    let why = match refusal {
        Refusal::NoSubscription { status } => format!(
            "This account's subscription is {status}. A sign-in link issues a new API key, which needs an active subscription."
        ),
        _ => "This account's plan has no API access, so a sign-in link cannot issue it a key.".to_owned(),
    };
    error_page(
        StatusCode::FORBIDDEN,
        &format!(
            "{why} The link has not been used: once the account is put right it works until it expires. Ask whoever sent it."
        ),
    )
}

/// `GET /portal/link/{token}`.
pub async fn show(state: web::Data<AppState>, path: web::Path<String>) -> HttpResponse {
    let Some(gate) = state.gate.portal.as_ref() else {
        return error_page(StatusCode::NOT_FOUND, "The portal is not available on this server.");
    };
    let Some(token) = token_of(&path) else {
        return spent();
    };
    match gate.portal.link_customer(token).await {
        Ok(Some(customer)) => match serves(&customer, LINK_POLICY) {
            Err(refusal) => not_served(&refusal),
            Ok(()) => page(
                StatusCode::OK,
                &LinkPage {
                    email: customer.email,
                    action: state.portal_links.sign_in_link.replace("{token}", token),
                },
            ),
        },
        Ok(None) => spent(),
        Err(e) => {
            tracing::warn!(error = %e, "portal sign-in link");
            error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again.",
            )
        }
    }
}

/// A session started by a link: its new key goes to the Keys page once,
/// through the new session's flash (the answer is a redirect, so a reload
/// repeats nothing), with the session's cookie.
async fn signed_in(state: &AppState, session_id: &str, key: String) -> HttpResponse {
    let flash = Flash::NewKey(NewKey {
        masked: mask_key(&key).unwrap_or_default(),
        name: LINK_KEY_NAME.to_owned(),
        expires: "never".to_owned(),
        replaced: None,
        key,
    });
    let mut res = match leave_for(state, session_id, FlashPage::Keys, &flash).await {
        Ok(()) => see_other(state.portal_links.keys),
        Err(res) => *res,
    };
    if let Some(gate) = state.gate.portal.as_ref() {
        res.headers_mut().append(SET_COOKIE, gate.cookie.set(session_id));
    }
    res
}

/// `POST /portal/link/{token}`: refused when posted from another site
/// (`portal::origin`); uses the link, ending the session the browser
/// presented. Every attempt pays the address's failed-key limit first; an
/// unknown, used or expired link keeps the token.
pub async fn use_link(req: HttpRequest, state: web::Data<AppState>, path: web::Path<String>) -> HttpResponse {
    let (gate, throttle) = match super::throttle::begin(&state.gate, &req) {
        Ok(begun) => begun,
        Err(refused) => return *refused,
    };
    let previous = gate.cookie.session_id(&req);
    let outcome = match token_of(&path) {
        Some(token) => gate.portal.sign_in_with_link(token, previous.as_deref()).await,
        None => Ok(None),
    };
    match outcome {
        Ok(Some((started, key))) => {
            throttle.refund();
            signed_in(&state, &started.session_id, key).await
        }
        Err(SignInRefusal::Account(refusal)) => {
            throttle.refund();
            not_served(&refusal)
        }
        Ok(None) | Err(SignInRefusal::Key(_)) => spent(),
        Err(SignInRefusal::Unavailable(cause)) => {
            throttle.refund();
            tracing::warn!(%cause, "portal sign-in link");
            error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again.",
            )
        }
    }
}
