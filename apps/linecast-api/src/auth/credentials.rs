//! Where a key is read from: `X-API-Key`, then `Authorization: Bearer`, then
//! `?api_key=`. `X-API-Key` wins when both headers are present, so platform
//! identity tokens in `Authorization` can coexist with the key; likewise a
//! Bearer token that is not a linecast key (no `sk_service_` prefix) is such
//! a platform token, and a key in `?api_key=` then authenticates. The query
//! is read like every other query (first occurrence wins, see `params`).

use actix_web::HttpRequest;
use actix_web::http::header::AUTHORIZATION;
use linecast_core::ports::accounts::KEY_PREFIX;

use crate::params::RawQuery;

/// The presented key, if any. Empty values count as absent.
pub fn presented_key(req: &HttpRequest) -> Option<String> {
    if let Some(v) = req
        .headers()
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        && !v.is_empty()
    {
        return Some(v.to_owned());
    }
    let bearer = bearer_token(req);
    // A linecast key in Authorization is used as is (even if wrong, it is
    // what the caller meant); any other Bearer token belongs to the platform.
    if let Some(token) = &bearer
        && token.starts_with(KEY_PREFIX)
    {
        return bearer;
    }
    query_key(req.query_string()).or(bearer)
}

fn bearer_token(req: &HttpRequest) -> Option<String> {
    let v = req.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok())?;
    let mut parts = v.trim().splitn(2, ' ');
    match (parts.next(), parts.next()) {
        (Some(scheme), Some(token)) if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() => {
            Some(token.trim().to_owned())
        }
        _ => None,
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
}
