//! The response path of HTML pages (the portal's pages and the public
//! `/status` page): every response of a `Serving::Page` row, and every
//! response under `/portal` (an error page, a redirect), passes [`finish`]
//! on its way out, in the dispatcher. It is the one place that
//!
//! - sets the pages' security headers ([`CSP`], `Referrer-Policy`,
//!   `X-Content-Type-Options`, `X-Frame-Options`);
//! - gives a page served in full (200 to a GET or HEAD) what every API body
//!   gets from `Rendered`: a strong `ETag` (304 on a matching
//!   `If-None-Match`), `Vary: Accept-Encoding` and the content coding the
//!   client asked for (gzip or brotli);
//! - sets `Cache-Control`: the row's on a 200, `no-store` on anything else.
//!
//! A page is made per request (it shows who asks), so nothing of it is
//! kept: it is tagged and compressed as it goes out.

use actix_web::body::MessageBody;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse};

use super::Rendered;
use crate::endpoint::NO_STORE;
use crate::endpoint::row;

/// The pages' Content-Security-Policy: no inline script or style anywhere
/// (the stylesheet and the one script are files).
pub const CSP: &str = "default-src 'self'; frame-ancestors 'none'";

/// `res` as a page goes out to `req`: tagged and compressed when served in
/// full, with the security headers always, and kept as its row says: a
/// 200 with the row's `Cache-Control`, anything else (an error page, a
/// redirect) with `no-store`. No page's handler writes a `Cache-Control`.
/// (The dispatcher gives an error page the signed-in customer's navigation
/// first.)
pub fn finish(req: &HttpRequest, res: HttpResponse) -> HttpResponse {
    let mut res = tagged(req, res);
    if !res.headers().contains_key(CACHE_CONTROL) {
        let cache_control = match row(req) {
            Ok(row) if res.status() == StatusCode::OK => row.cache_control(),
            _ => NO_STORE,
        };
        res.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static(cache_control));
    }
    secure(&mut res);
    res
}

fn tagged(req: &HttpRequest, res: HttpResponse) -> HttpResponse {
    let full = res.status() == StatusCode::OK
        && matches!(*req.method(), Method::GET | Method::HEAD)
        && !res.headers().contains_key(ETAG)
        && !res.headers().contains_key(CONTENT_ENCODING);
    let Some(content_type) = res.headers().get(CONTENT_TYPE).cloned().filter(|_| full) else {
        return res;
    };
    let (head, body) = res.into_parts();
    let body = match body.try_into_bytes() {
        Ok(bytes) => bytes,
        // A streamed body is sent as it is.
        Err(body) => return head.set_body(body),
    };
    let cache_control = row(req).map_or(NO_STORE, |r| r.cache_control());
    let mut out = Rendered::of_media_type(body, content_type).respond(req, cache_control);
    // What the handler added beyond the body (a `Set-Cookie`) goes along.
    for (name, value) in head.headers() {
        if !out.headers().contains_key(name) && name != CACHE_CONTROL {
            out.headers_mut().append(name.clone(), value.clone());
        }
    }
    out
}

/// Adds the pages' security headers; one the response already has (the
/// diagram's stricter `default-src 'none'`) is kept. `X-Content-Type-Options:
/// nosniff` is on every response, pages or not: telemetry's
/// (`linecast_api::telemetry::request_context`), so it is not named here.
pub fn secure(res: &mut HttpResponse) {
    let headers = res.headers_mut();
    for (name, value) in [
        ("content-security-policy", CSP),
        ("referrer-policy", "no-referrer"),
        ("x-frame-options", "DENY"),
    ] {
        let name = HeaderName::from_static(name);
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
}
