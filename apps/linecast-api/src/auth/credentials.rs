//! Where a key is read from: `X-API-Key`, then `Authorization: Bearer`, then
//! `?api_key=`. `X-API-Key` wins when both headers are present, so platform
//! identity tokens in `Authorization` can coexist with the key.

use actix_web::HttpRequest;
use actix_web::http::header::AUTHORIZATION;

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
    if let Some(v) = req.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        let mut parts = v.trim().splitn(2, ' ');
        if let (Some(scheme), Some(token)) = (parts.next(), parts.next())
            && scheme.eq_ignore_ascii_case("bearer")
            && !token.trim().is_empty()
        {
            return Some(token.trim().to_owned());
        }
    }
    query_key(req.query_string())
}

fn query_key(query: &str) -> Option<String> {
    url_pairs(query)
        .find(|(k, _)| k == "api_key")
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty())
}

fn url_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|p| !p.is_empty()).map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (decode(k), decode(v))
    })
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(b) = hex {
                    out.push(b);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
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
            .insert_header(("Authorization", "Bearer b"))
            .to_http_request();
        assert_eq!(presented_key(&req).as_deref(), Some("b"));
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
    fn percent_decoding_tolerates_malformed_escapes() {
        assert_eq!(decode("a%2"), "a%2");
        assert_eq!(decode("%zz"), "%zz");
        assert_eq!(decode("%41"), "A");
    }
}
