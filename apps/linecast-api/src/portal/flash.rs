//! What a portal form's answer leaves for the page it redirects to: every
//! form answers `303 See Other` to a GET, so reloading or going back never
//! repeats it, and what that page must show once travels in a one-time,
//! server-side flash (core's `Portal::put_flash`: sealed under the session
//! id, deleted by the first read). A full key or a signed link is never in
//! a URL or a cookie.

use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use linecast_core::services::portal::Portal;
use serde::{Deserialize, Serialize};

use super::html::error_page;
use crate::state::AppState;

/// The page a flash is for: only that page's GET takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlashPage {
    Keys,
    Data,
    Webhooks,
}

impl FlashPage {
    const fn code(self) -> &'static str {
        match self {
            Self::Keys => "keys",
            Self::Data => "data",
            Self::Webhooks => "webhooks",
        }
    }
}

/// A key just issued (created, rolled, or by a sign-in link), shown once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewKey {
    pub key: String,
    pub name: String,
    pub masked: String,
    pub expires: String,
    /// For a roll: the old key's mask and when it stops.
    pub replaced: Option<(String, String)>,
}

/// A signed download link, shown once after a refresh.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Link {
    pub sport: String,
    pub filename: String,
    pub url: String,
    pub expires_at: String,
}

/// A refused form: which form and field, the message, and what was typed
/// (never a key: the key forms keep nothing).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FormError {
    /// The form's id on its page (`create`, `rename-7`, `roll-7`, `refresh`).
    pub form: String,
    /// The field the message is beside (its `name`).
    pub field: String,
    pub message: String,
    /// The form's fields as typed, to fill it again.
    pub values: Vec<(String, String)>,
}

impl FormError {
    /// Whether this error is about `form`'s `field`.
    pub fn at(&self, form: &str, field: &str) -> bool {
        self.form == form && self.field == field
    }

    /// The typed value of `field` in `form`, if this error is `form`'s.
    pub fn value(&self, form: &str, field: &str) -> Option<&str> {
        (self.form == form)
            .then(|| self.values.iter().find(|(k, _)| k == field).map(|(_, v)| v.as_str()))
            .flatten()
    }
}

/// What a page shows once.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Flash {
    NewKey(NewKey),
    Links { links: Vec<Link> },
    Notice { text: String },
    FormError(FormError),
}

fn session_id(state: &AppState, req: &HttpRequest) -> Option<String> {
    state.gate.portal.as_ref()?.cookie.session_id(req)
}

/// Leaves `flash` for the next GET of `page` by the session `session`
/// (the cookie's id). A 503 page when it cannot be stored: then the form's
/// change is made but cannot be shown (the caller says so).
pub async fn leave_for(
    state: &AppState,
    session: &str,
    page: FlashPage,
    flash: &Flash,
) -> Result<(), Box<actix_web::HttpResponse>> {
    let Some(gate) = state.gate.portal.as_ref() else {
        return Err(Box::new(error_page(
            StatusCode::NOT_FOUND,
            "The portal is not available on this server.",
        )));
    };
    leave_with(&gate.portal, session, page, flash).await
}

/// [`leave_for`] through the portal use case itself (the session gate's
/// refusals, which run before the app's state is at hand).
pub async fn leave_with(
    portal: &Portal,
    session: &str,
    page: FlashPage,
    flash: &Flash,
) -> Result<(), Box<actix_web::HttpResponse>> {
    let content = serde_json::to_string(flash).map_err(|e| {
        tracing::error!(error = %e, "portal flash: encoding");
        error_page(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The page could not be made. Please try again.",
        )
    })?;
    portal.put_flash(session, page.code(), &content).await.map_err(|e| {
        tracing::warn!(error = %e, "portal flash: storing");
        Box::new(error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "The accounts database is not answering. Please try again in a moment.",
        ))
    })
}

/// [`leave_for`] the request's own session.
pub async fn leave(
    state: &AppState,
    req: &HttpRequest,
    page: FlashPage,
    flash: &Flash,
) -> Result<(), Box<actix_web::HttpResponse>> {
    let Some(session) = session_id(state, req) else {
        return Err(Box::new(error_page(StatusCode::FORBIDDEN, "Please sign in.")));
    };
    leave_for(state, &session, page, flash).await
}

/// Takes the request's session's flash for `page`, once (the first GET
/// consumes it). A 503 page when the store does not answer.
pub async fn take(
    state: &AppState,
    req: &HttpRequest,
    page: FlashPage,
) -> Result<Option<Flash>, Box<actix_web::HttpResponse>> {
    let (Some(gate), Some(session)) = (state.gate.portal.as_ref(), session_id(state, req)) else {
        return Ok(None);
    };
    match gate.portal.take_flash(&session, page.code()).await {
        Ok(Some(content)) => Ok(serde_json::from_str(&content)
            .inspect_err(|e| tracing::error!(error = %e, "portal flash: decoding"))
            .ok()),
        Ok(None) => Ok(None),
        Err(e) => {
            tracing::warn!(error = %e, "portal flash: taking");
            Err(Box::new(error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again in a moment.",
            )))
        }
    }
}
