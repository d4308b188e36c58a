//! `/portal/link/{token}`: a one-time sign-in link an operator made
//! (`linecast-admin customers sign-in-link`) for a customer who lost every
//! key. The GET only asks (a link previewer cannot use it up); the POST
//! uses the link, issues a new key shown once on the answer, and starts a
//! session with it.

use actix_web::http::StatusCode;
use actix_web::http::header::SET_COOKIE;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use linecast_core::services::portal::SignInRefusal;

use super::html::{error_page, page};
use crate::endpoint::NO_STORE;
use crate::routes::table;
use crate::state::AppState;

#[derive(Template)]
#[template(path = "portal/link.html")]
struct LinkPage {
    email: String,
    action: String,
}

#[derive(Template)]
#[template(path = "portal/link_used.html")]
struct LinkUsedPage {
    key: String,
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

/// `GET /portal/link/{token}`.
#[utoipa::path(get, path = table::PORTAL_LINK.path, tag = "portal", params(("token" = String, Path)), responses((status = 200, description = "Asks before using the link")))]
pub async fn show(state: web::Data<AppState>, path: web::Path<String>) -> HttpResponse {
    let Some(gate) = state.gate.portal.as_ref() else {
        return error_page(StatusCode::NOT_FOUND, "The portal is not available on this server.");
    };
    let Some(token) = token_of(&path) else {
        return spent();
    };
    match gate.portal.link_customer(token).await {
        Ok(Some(customer)) => page(
            StatusCode::OK,
            NO_STORE,
            &LinkPage {
                email: customer.email,
                action: format!("/portal/link/{token}"),
            },
        ),
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

/// `POST /portal/link/{token}`: uses the link. An unknown, used or expired
/// link counts against the address's failed-key limit.
#[utoipa::path(post, path = table::PORTAL_LINK_USE.path, tag = "portal", params(("token" = String, Path)), responses((status = 200, description = "Signed in; the new key shown once")))]
pub async fn use_link(req: HttpRequest, state: web::Data<AppState>, path: web::Path<String>) -> HttpResponse {
    let Some(gate) = state.gate.portal.as_ref() else {
        return error_page(StatusCode::NOT_FOUND, "The portal is not available on this server.");
    };
    let throttle = super::session::SignInThrottle::of(&state.gate, &req);
    if let Some(refusal) = throttle.refusal() {
        return refusal;
    }
    let outcome = match token_of(&path) {
        Some(token) => gate.portal.sign_in_with_link(token).await,
        None => Ok(None),
    };
    match outcome {
        Ok(Some((started, key))) => {
            let mut res = page(StatusCode::OK, NO_STORE, &LinkUsedPage { key });
            res.headers_mut()
                .append(SET_COOKIE, gate.cookie.set(&started.session_id));
            res
        }
        Ok(None) | Err(SignInRefusal::Key(_)) => {
            throttle.failed();
            spent()
        }
        Err(SignInRefusal::Unavailable(cause)) => {
            tracing::warn!(%cause, "portal sign-in link");
            error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again.",
            )
        }
    }
}
