//! Cross-origin calls to the API: a notebook or dashboard in a browser
//! calls `/api/v1` with its key. Any origin may, without credentials
//! (`Access-Control-Allow-Origin: *` on every `/api/v1` answer, whether or
//! not the request named an origin; never `-Credentials`): the key is a
//! request header the page sends itself, never a cookie the browser adds.
//! The portal (cookies, forms) and the billing webhook (a server-to-server
//! call) send no CORS header, so a page of another origin can neither read
//! them nor send them a preflighted request.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ACCESS_CONTROL_REQUEST_METHOD, HeaderMap, HeaderValue,
    ORIGIN,
};

use super::table::GATED_PREFIX;
use crate::endpoint::{Access, Endpoint, Serving};

/// The request headers a cross-origin caller may send: the two ways of
/// presenting a key, a JSON body's type, and the validators of a
/// conditional or partial read.
const ALLOW_HEADERS: &str = "X-API-Key, Authorization, Content-Type, If-None-Match, If-Range, Range, X-Request-Id";

/// The response headers a cross-origin caller may read beyond the
/// safelisted ones: the limits, the validator, the request id, a
/// deprecation notice and an export's file name.
const EXPOSE_HEADERS: &str = "RateLimit, RateLimit-Policy, X-RateLimit-Limit, X-RateLimit-Remaining, \
X-RateLimit-Reset, X-RateLimit-Tier, Retry-After, ETag, X-Request-Id, Deprecation, Sunset, Content-Disposition, \
Accept-Ranges, Content-Range";

/// How long a browser may keep a preflight's answer (seconds).
const MAX_AGE: &str = "86400";

/// Whether `row` answers cross-origin callers: an API row under `/api/v1`,
/// not a portal page and not the signed webhook.
pub fn applies(row: &Endpoint) -> bool {
    row.path.starts_with(GATED_PREFIX)
        && !matches!(row.access, Access::StripeSignature | Access::Session(_))
        && !matches!(row.serving, Serving::Page(_))
}

/// Whether the request is a CORS preflight: `OPTIONS` with an `Origin` and
/// the method the page means to send.
pub fn is_preflight(req: &actix_web::HttpRequest) -> bool {
    req.method() == actix_web::http::Method::OPTIONS
        && req.headers().contains_key(ORIGIN)
        && req.headers().contains_key(ACCESS_CONTROL_REQUEST_METHOD)
}

/// The answer to a preflight on a path whose methods are `allow`: 204, no
/// key needed (a browser never sends one on a preflight) and nothing counted.
pub fn preflight(allow: HeaderValue) -> HttpResponse {
    let mut res = HttpResponse::build(StatusCode::NO_CONTENT).finish();
    let h = res.headers_mut();
    h.insert(ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    h.insert(ACCESS_CONTROL_ALLOW_METHODS, allow);
    h.insert(ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(ALLOW_HEADERS));
    h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    res
}

/// Marks an answer of the API (a body, a 304, a refusal, a 404, 405 or
/// 408 alike) as readable by a page of any origin. Whether or not the
/// request came with an `Origin`: the answer does not depend on it, so a
/// shared cache (a CDN keeping the public feed) may hand the same copy to
/// a script and to a browser page, and no `Vary: Origin` is needed.
pub fn allow_reading(response: &mut HeaderMap) {
    response.insert(ACCESS_CONTROL_ALLOW_ORIGIN, ANY_ORIGIN);
    response.insert(ACCESS_CONTROL_EXPOSE_HEADERS, EXPOSED);
}

/// [`allow_reading`] of a response made where no request is at hand (the
/// body deadline's 408).
pub fn readable(mut res: HttpResponse) -> HttpResponse {
    allow_reading(res.headers_mut());
    res
}

// Checked once, at compile time.
const ANY_ORIGIN: HeaderValue = HeaderValue::from_static("*");
const EXPOSED: HeaderValue = HeaderValue::from_static(EXPOSE_HEADERS);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::table::ENDPOINTS;

    #[test]
    fn the_api_answers_other_origins_and_the_portal_and_webhook_do_not() {
        let by_path = |path: &str| ENDPOINTS.iter().find(|r| r.path == path).copied().unwrap();
        assert!(applies(by_path("/api/v1/predictions/{sport}/{model_type}")));
        assert!(applies(by_path("/api/v1/health")));
        assert!(!applies(by_path("/billing/stripe/webhook")));
        assert!(!applies(by_path("/portal/overview")));
        assert!(!applies(by_path("/openapi.json")));
    }
}
