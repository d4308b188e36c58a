//! Where a key is read from: `X-API-Key`, then `Authorization: Bearer`, then
//! `?api_key=`. `X-API-Key` wins when both headers are present, so platform
//! identity tokens in `Authorization` can coexist with the key; likewise a
//! Bearer token that is not a linecast key (no `sk_service_` prefix) is such
//! a platform token, and a key in `?api_key=` then authenticates. The query
//! is read like every other query (first occurrence wins, see `params`).

use std::borrow::Cow;

use actix_web::HttpRequest;
use actix_web::http::header::{AUTHORIZATION, HeaderName, HeaderValue};
use linecast_core::key_material::KEY_PREFIX;

use crate::params::RawQuery;

/// Checked once, at compile time (a `&str` name is parsed on every lookup).
const X_API_KEY: HeaderName = HeaderName::from_static("x-api-key");

/// The presented key, if any. Empty values count as absent. A key from a
/// header is borrowed from the request; only a query key (percent-decoded)
/// is a new string.
pub fn presented_key(req: &HttpRequest) -> Option<Cow<'_, str>> {
    if let Some(v) = req.headers().get(&X_API_KEY).and_then(header_text).map(str::trim)
        && !v.is_empty()
    {
        return Some(Cow::Borrowed(v));
    }
    let bearer = bearer_token(req);
    // A linecast key in Authorization is used as is (even if wrong, it is
    // what the caller meant); any other Bearer token belongs to the platform.
    if let Some(token) = bearer
        && token.starts_with(KEY_PREFIX)
    {
        return Some(Cow::Borrowed(token));
    }
    query_key(req.query_string())
        .map(Cow::Owned)
        .or(bearer.map(Cow::Borrowed))
}

fn bearer_token(req: &HttpRequest) -> Option<&str> {
    let v = req.headers().get(AUTHORIZATION).and_then(header_text)?;
    let mut parts = v.trim().splitn(2, ' ');
    match (parts.next(), parts.next()) {
        (Some(scheme), Some(token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => {
            Some(token.trim())
        }
        _ => None,
    }
}

/// A header value as text when it is ASCII: what `HeaderValue::to_str`
/// answers (a `HeaderValue` never holds a control byte but tab, so ASCII
/// is visible ASCII or tab), checked a word at a time instead of byte by
/// byte.
fn header_text(v: &HeaderValue) -> Option<&str> {
    let bytes = v.as_bytes();
    if bytes.is_ascii() {
        std::str::from_utf8(bytes).ok()
    } else {
        None
    }
}

fn query_key(query: &str) -> Option<String> {
    RawQuery::parse(query)?
        .get("api_key")
        .filter(|v| !v.is_empty())
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn x_api_key_wins_over_bearer_and_bearer_over_the_query() {
        let req = TestRequest::get()
            .uri("/x?api_key=q")
            .insert_header(("X-API-Key", "h"))
            .insert_header(("Authorization", "Bearer b"))
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("h"));
        let req = TestRequest::get()
            .uri("/x?api_key=q")
            .insert_header(("Authorization", "Bearer sk_service_b"))
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("sk_service_b"));
        let req = TestRequest::get().uri("/x?a=1&api_key=q%5Fx").to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("q_x"));
        let req = TestRequest::get()
            .uri("/x")
            .insert_header(("Authorization", "Basic abc"))
            .to_http_request();
        assert_eq!(presented_key(&req), None);
        let req = TestRequest::get()
            .uri("/x?api_key=")
            .insert_header(("X-API-Key", " "))
            .to_http_request();
        assert_eq!(presented_key(&req), None);
    }

    #[test]
    fn a_query_key_authenticates_beside_a_bearer_token_that_is_not_a_linecast_key() {
        let req = TestRequest::get()
            .uri("/x?api_key=sk_service_q")
            .insert_header(("Authorization", "Bearer eyJhbGciOi.platform.jwt"))
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("sk_service_q"));
        // A linecast key in Authorization still wins over the query.
        let req = TestRequest::get()
            .uri("/x?api_key=sk_service_q")
            .insert_header(("Authorization", "Bearer sk_service_b"))
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("sk_service_b"));
        // With no query key the platform token is still what was presented.
        let req = TestRequest::get()
            .uri("/x")
            .insert_header(("Authorization", "Bearer platform"))
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("platform"));
    }

    #[test]
    fn a_repeated_api_key_is_read_like_every_query_name_first_wins() {
        let req = TestRequest::get()
            .uri("/x?api_key=sk_service_first&api_key=sk_service_second")
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("sk_service_first"));
    }

    #[test]
    fn percent_decoding_tolerates_malformed_escapes() {
        for (query, key) in [("api_key=a%2", "a%2"), ("api_key=%zz", "%zz"), ("api_key=%41", "A")] {
            let req = TestRequest::get().uri(&format!("/x?{query}")).to_http_request();
            assert_eq!(presented_key(&req).as_deref(), Some(key), "{query}");
        }
    }

    /// `header_text` answers exactly what `HeaderValue::to_str` answers, for
    /// every byte a header value can hold.
    #[test]
    fn header_text_agrees_with_to_str() {
        for b in 0..=255_u8 {
            let bytes = [b'k', b, b'y'];
            if let Ok(v) = HeaderValue::from_bytes(&bytes) {
                assert_eq!(header_text(&v), v.to_str().ok(), "byte {b}");
            }
        }
        let v = HeaderValue::from_bytes("sk_service_é".as_bytes()).unwrap();
        assert_eq!(header_text(&v), None);
    }
}
