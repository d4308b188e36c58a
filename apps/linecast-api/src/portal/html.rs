//! How the portal answers: HTML pages, and its own error pages (the API's
//! errors are JSON; the portal's are pages). The security headers, the
//! ETag and the content coding are added on the way out, in one place
//! (`responses::page`), to every page and every response under `/portal`.

use actix_web::http::StatusCode;
use actix_web::http::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderValue, LOCATION, RETRY_AFTER};
use actix_web::{HttpMessage, HttpRequest, HttpResponse};
use askama::Template;

use crate::endpoint::NO_STORE;

/// The templates' own filters (askama looks a filter up as
/// `filters::{name}` where the template's struct is defined: a module
/// with a template that uses one imports this module).
pub mod filters {
    /// `{{ n|grouped }}`: a count as people read it, digits in groups of
    /// three (`199,578`); text that is not a whole number is left as it is
    /// (`-`, `0.1234`).
    #[allow(clippy::unnecessary_wraps)] // askama's filter signature
    pub fn grouped<T: std::fmt::Display>(n: T, _: &dyn askama::Values) -> askama::Result<String> {
        Ok(linecast_charts::numbers::group_digits(&n.to_string()))
    }
}

/// A rendered page.
pub fn page(status: StatusCode, template: &impl Template) -> HttpResponse {
    match template.render() {
        Ok(body) => {
            let mut res = HttpResponse::with_body(status, body).map_into_boxed_body();
            res.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            res
        }
        Err(e) => {
            tracing::error!(error = %e, "rendering a portal page");
            error_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The page could not be made. Please try again.",
            )
        }
    }
}

#[derive(Template)]
#[template(path = "portal/error.html")]
struct ErrorPage<'a> {
    title: &'a str,
    message: &'a str,
    /// The signed-in customer's CSRF token: the navigation then has Sign
    /// out, as every other page of theirs has.
    csrf: Option<&'a str>,
}

/// What an error page says, kept on its response so that the page step can
/// show it again with a signed-in customer's navigation ([`signed_in`]).
#[derive(Clone)]
struct Said(String);

/// The error page's body: the title, the message and the navigation
/// (with Sign out when `csrf` is the signed-in customer's token).
fn error_body(status: StatusCode, message: &str, csrf: Option<&str>) -> String {
    let title = status.canonical_reason().unwrap_or("Error");
    ErrorPage { title, message, csrf }
        .render()
        .unwrap_or_else(|_| format!("<!doctype html><title>{}</title>", status.as_u16()))
}

/// The portal's error page: the status, a title and a message for people,
/// under the portal's navigation. Shown to a signed-in customer, it gets
/// their navigation with Sign out on its way out ([`signed_in`]).
pub fn error_page(status: StatusCode, message: &str) -> HttpResponse {
    let mut res = HttpResponse::with_body(status, error_body(status, message, None)).map_into_boxed_body();
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static(NO_STORE));
    res.extensions_mut().insert(Said(message.to_owned()));
    res
}

/// An error page (`error_page`, `as_page`) answered to a request of a
/// signed-in customer (the session gate put `SignedIn` on it), made again
/// with that customer's navigation: the links and Sign out, as on every
/// page of theirs. No portal error is a dead end. Anything else is left as
/// it is. Called by the page step (`responses::page::finish`), so it holds
/// whoever made the error (a handler, the gate, a shared layer).
pub fn signed_in(req: &HttpRequest, res: HttpResponse) -> HttpResponse {
    let Some(Said(message)) = res.extensions().get::<Said>().cloned() else {
        return res;
    };
    let Some(csrf) = req
        .extensions()
        .get::<crate::auth::session::SignedIn>()
        .map(|s| s.0.csrf_token.clone())
    else {
        return res;
    };
    let body = error_body(res.status(), &message, Some(&csrf));
    let (head, _) = res.into_parts();
    head.set_body(body).map_into_boxed_body()
}

/// A response under `/portal` as the portal shows it: an error that is not
/// already a page (the API's JSON from a shared layer: an extractor, a
/// limit, the body deadline) becomes the portal's error page with the same
/// status, `Retry-After` and `Allow`; anything else is left as it is.
pub fn as_page(res: HttpResponse) -> HttpResponse {
    let status = res.status();
    let is_page = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if !(status.is_client_error() || status.is_server_error()) || is_page {
        return res;
    }
    let kept: Vec<_> = [RETRY_AFTER, ALLOW]
        .into_iter()
        .filter_map(|name| res.headers().get(&name).cloned().map(|v| (name, v)))
        .collect();
    let message = match status.as_u16() {
        400 => "The request could not be read. Go back, reload the page and try again.".to_owned(),
        404 => "There is no such page.".to_owned(),
        405 => "This page does not answer that method.".to_owned(),
        408 => "The request took too long to arrive. Please try again.".to_owned(),
        413 => "The form is too large.".to_owned(),
        429 => match kept
            .iter()
            .find(|(n, _)| *n == RETRY_AFTER)
            .and_then(|(_, v)| v.to_str().ok())
        {
            Some(secs) => format!("Too many requests. Wait {secs} seconds and try again."),
            None => "Too many requests. Wait a moment and try again.".to_owned(),
        },
        s if s >= 500 => {
            "Something went wrong on our side; nothing was changed. Please try again in a moment.".to_owned()
        }
        _ => "This request was refused.".to_owned(),
    };
    let mut page = error_page(status, &message);
    for (name, value) in kept {
        page.headers_mut().insert(name, value);
    }
    page
}

/// Whether `path` is the portal's (`/portal` and below): a path there that
/// no row declares is the portal's 404 page, not the API's JSON.
pub fn under_portal(path: &str) -> bool {
    path.strip_prefix("/portal")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// `303 See Other` to `location` (after a form, or to the sign-in page).
pub fn see_other(location: &'static str) -> HttpResponse {
    see_other_to(location)
}

/// [`see_other`] to a location made at run time (a same-site path).
pub fn see_other_to(location: &str) -> HttpResponse {
    let mut res = HttpResponse::SeeOther().finish();
    res.headers_mut().insert(
        LOCATION,
        HeaderValue::from_str(location).unwrap_or_else(|_| HeaderValue::from_static("/portal")),
    );
    res
}

/// A portal handler's failure, for `?`: an API error, or a domain error the
/// API maps (one `From` each), shown as [`api_error_page`] shows it: the
/// API's status and wording (`ApiError`'s own), as a page.
#[derive(Debug)]
pub struct PageError(crate::error::ApiError);

impl From<crate::error::ApiError> for PageError {
    fn from(e: crate::error::ApiError) -> Self {
        Self(e)
    }
}

impl From<linecast_core::AccountsError> for PageError {
    fn from(e: linecast_core::AccountsError) -> Self {
        Self(e.into())
    }
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl actix_web::ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.0.status_code()
    }

    fn error_response(&self) -> HttpResponse {
        api_error_page(&self.0)
    }
}

/// An API error as the portal shows it: the same status and wording, as a
/// page (a 5xx's cause is logged, never shown).
pub fn api_error_page(e: &crate::error::ApiError) -> HttpResponse {
    use actix_web::ResponseError;
    let status = e.status_code();
    if let Some(cause) = e.cause() {
        tracing::error!(status = status.as_u16(), cause = %cause, "portal page failed");
    }
    error_page(status, &e.to_string())
}
