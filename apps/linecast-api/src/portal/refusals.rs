//! How the portal shows the session gate's refusals (`auth::session`): the
//! gate decides, these pages say why.
//!
//! - No live session: the sign-in page, returning afterwards to the page
//!   asked for (for a form, the page it is on: a form is never repeated),
//!   and saying the session ended when the browser had one (`back`).
//! - A form the account may not send (a `Session(Subscriber)` row: creating
//!   or rolling a key, refreshing datasets without a subscription that
//!   grants access): back to the form's page, which shows the reason once
//!   (the flash), as any refused form does. Nothing was changed.
//! - The rest are error pages.

use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use futures::future::LocalBoxFuture;
use linecast_core::services::access::Refusal;
use linecast_core::services::portal::Portal;

use super::back::{page_of_form, sign_in_location};
use super::flash::{Flash, FlashPage, FormError, leave_with};
use super::html::{error_page, see_other, see_other_to};
use crate::auth::session::{SessionPages, SessionRefusal};

/// The portal's [`SessionPages`].
pub struct PortalPages {
    pub portal: Arc<Portal>,
}

impl SessionPages for PortalPages {
    fn refused<'a>(
        &'a self,
        req: &'a HttpRequest,
        session: Option<&'a str>,
        why: SessionRefusal,
    ) -> LocalBoxFuture<'a, HttpResponse> {
        Box::pin(async move {
            match why {
                SessionRefusal::SignIn { ended } => {
                    let back = if req.method() == actix_web::http::Method::POST {
                        page_of_form(req.path()).map(str::to_owned)
                    } else {
                        req.uri().path_and_query().map(|pq| pq.as_str().to_owned())
                    };
                    see_other_to(&sign_in_location(back.as_deref(), ended))
                }
                SessionRefusal::Unavailable => error_page(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "The accounts database is not answering. Please try again in a moment.",
                ),
                SessionRefusal::FormUnreadable => error_page(StatusCode::BAD_REQUEST, "The form could not be read."),
                SessionRefusal::FormTooLarge => error_page(StatusCode::PAYLOAD_TOO_LARGE, "The form is too large."),
                SessionRefusal::StaleForm => error_page(
                    StatusCode::FORBIDDEN,
                    "This form has expired or did not come from this page. Reload the page and try again.",
                ),
                SessionRefusal::NotServed(refusal) => self.not_served(req, session, &refusal).await,
            }
        })
    }
}

impl PortalPages {
    /// A form back on its page with the reason; a page asked for, a 403
    /// page with it.
    async fn not_served(&self, req: &HttpRequest, session: Option<&str>, refusal: &Refusal) -> HttpResponse {
        let path = req.path();
        let place = match page_of_form(path) {
            Some("/portal/keys") => Some((FlashPage::Keys, "/portal/keys", "", "")),
            Some("/portal/data") => Some((FlashPage::Data, "/portal/data", "refresh", "refresh")),
            _ => None,
        };
        let message = not_served_message(path, refusal);
        let (Some((page, location, form, field)), Some(session), true) =
            (place, session, req.method() == actix_web::http::Method::POST)
        else {
            return error_page(StatusCode::FORBIDDEN, &message);
        };
        let flash = Flash::FormError(FormError {
            form: form.to_owned(),
            field: field.to_owned(),
            message,
            values: Vec::new(),
        });
        match leave_with(&self.portal, session, page, &flash).await {
            Ok(()) => see_other(location),
            Err(res) => *res,
        }
    }
}

/// Why an account may not do what the form at `path` does, in words.
fn not_served_message(path: &str, refusal: &Refusal) -> String {
    let action = if path.starts_with("/portal/keys/") {
        "Creating or rolling a key"
    } else if path.starts_with("/portal/data/") {
        "Refreshing datasets"
    } else {
        "This"
    };
    let tail = if path.starts_with("/portal/keys/") {
        " Your keys can still be renamed and revoked."
    } else {
        ""
    };
    match refusal {
        Refusal::NoSubscription { status } => {
            format!("{action} needs an active subscription; yours is {status}.{tail}")
        }
        Refusal::NoApiAccess { tier } => format!("Your plan ({tier}) has no API access.{tail}"),
        other => format!("{action} was refused: {}.", crate::error::ApiError::from(other.clone())),
    }
}
