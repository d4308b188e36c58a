//! How the portal answers: HTML pages with its security headers, and its
//! own error pages (the API's errors are JSON; the portal's are pages).
//!
//! Every portal response carries
//! `Content-Security-Policy: default-src 'self'; frame-ancestors 'none'`
//! (no inline script or style anywhere: the stylesheet is a file),
//! `Referrer-Policy: no-referrer` and `X-Content-Type-Options: nosniff`.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE, HeaderName, HeaderValue, LOCATION};
use askama::Template;

use crate::endpoint::NO_STORE;

/// The portal's Content-Security-Policy.
pub const CSP: &str = "default-src 'self'; frame-ancestors 'none'";

/// Adds the portal's security headers.
pub fn secure(res: &mut HttpResponse) {
    let headers = res.headers_mut();
    headers.insert(
        HeaderName::from_static("content-security-policy"),
        HeaderValue::from_static(CSP),
    );
    headers.insert(
        HeaderName::from_static("referrer-policy"),
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        HeaderName::from_static("x-frame-options"),
        HeaderValue::from_static("DENY"),
    );
}

/// A rendered page.
pub fn page(status: StatusCode, cache_control: &'static str, template: &impl Template) -> HttpResponse {
    match template.render() {
        Ok(body) => {
            let mut res = HttpResponse::with_body(status, body).map_into_boxed_body();
            res.headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
            res.headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
            secure(&mut res);
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
}

/// The portal's error page: the status, a title and a message for people.
pub fn error_page(status: StatusCode, message: &str) -> HttpResponse {
    let title = status.canonical_reason().unwrap_or("Error");
    let body = ErrorPage { title, message }
        .render()
        .unwrap_or_else(|_| format!("<!doctype html><title>{}</title>", status.as_u16()));
    let mut res = HttpResponse::with_body(status, body).map_into_boxed_body();
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static(NO_STORE));
    secure(&mut res);
    res
}

/// Whether `path` is the portal's (`/portal` and below): a path there that
/// no row declares is the portal's 404 page, not the API's JSON.
pub fn under_portal(path: &str) -> bool {
    path.strip_prefix("/portal")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// `303 See Other` to `location` (after a form, or to the sign-in page).
pub fn see_other(location: &'static str) -> HttpResponse {
    let mut res = HttpResponse::SeeOther().finish();
    res.headers_mut().insert(LOCATION, HeaderValue::from_static(location));
    res.headers_mut()
        .insert(CACHE_CONTROL, HeaderValue::from_static(NO_STORE));
    secure(&mut res);
    res
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
