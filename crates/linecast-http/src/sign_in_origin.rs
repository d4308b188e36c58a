//! Where a sign-in may come from: the two forms that start a session
//! without one (`POST /portal/sign-in`, `POST /portal/link/{token}`) carry
//! no CSRF token (there is no session to bind one to), so a page elsewhere
//! could post them and sign the visitor in to the poster's account (login
//! CSRF). Browsers say where a form was posted from, and the portal
//! refuses a sign-in that
//!
//! - says `Sec-Fetch-Site: cross-site`, or
//! - carries an `Origin` that is not the portal's own: the origin of
//!   `LINECAST_PUBLIC_URL` when it is set; when it is not, an origin whose
//!   host and port are not the request's own `Host` (the scheme's default
//!   port when `Host` names none). `Origin: null` is the portal's only when
//!   `Sec-Fetch-Site` says `same-origin` (or `none`): the portal's pages
//!   send `Referrer-Policy: no-referrer`, under which Chromium posts a
//!   same-origin form with `Origin: null`.
//!
//! A request with neither header (a client that is not a browser, or an
//! old one) is let through: it is no forgery by a page.

use actix_web::HttpRequest;
use actix_web::http::header::{HOST, HeaderMap, HeaderName, ORIGIN};

const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");

/// The origin sign-ins must come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInOrigin {
    /// The ASCII serialization of `LINECAST_PUBLIC_URL`'s origin
    /// (`https://api.example.com`), when it is set; `None`: the request's
    /// own `Host`.
    public: Option<String>,
}

/// The origin of a public URL, as browsers write it in `Origin`
/// (`scheme://host[:port]`, the default port left out, the host in lower
/// case); an error for anything but an `http` or `https` URL with a host.
pub fn origin_of(public_url: &str) -> Result<String, String> {
    let url = url::Url::parse(public_url).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("an http:// or https:// URL with a host is needed".to_owned());
    }
    Ok(url.origin().ascii_serialization())
}

impl SignInOrigin {
    /// Sign-ins from `public` (an origin from [`origin_of`]), or from the
    /// request's own host when `None`.
    pub fn new(public: Option<String>) -> Self {
        Self { public }
    }

    /// Why a sign-in posted from elsewhere is refused (the portal shows it
    /// as a 403 page); `None` to go on.
    pub fn refusal(&self, req: &HttpRequest) -> Option<&'static str> {
        let host = req
            .headers()
            .get(HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| req.uri().authority().map(actix_web::http::uri::Authority::as_str));
        if self.allows(req.headers(), host) {
            return None;
        }
        Some(
            "This sign-in was sent from another site, so it was refused. Open the sign-in page of this site and sign in there.",
        )
    }

    fn allows(&self, headers: &HeaderMap, host: Option<&str>) -> bool {
        let mut vouched = false;
        for value in headers.get_all(SEC_FETCH_SITE) {
            // Unreadable: not a value a browser sends.
            let Ok(value) = value.to_str() else {
                return false;
            };
            let value = value.trim();
            if value.eq_ignore_ascii_case("cross-site") {
                return false;
            }
            vouched = value.eq_ignore_ascii_case("same-origin") || value.eq_ignore_ascii_case("none");
        }
        let mut origins = headers.get_all(ORIGIN);
        let Some(origin) = origins.next() else {
            return true;
        };
        if origins.next().is_some() {
            return false;
        }
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        if origin.trim() == "null" {
            return vouched;
        }
        let Ok(url) = url::Url::parse(origin.trim()) else {
            return false;
        };
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return false;
        }
        match &self.public {
            Some(public) => url.origin().ascii_serialization() == *public,
            None => host.is_some_and(|host| same_authority(&url, host)),
        }
    }
}

/// Whether `origin` names the host and port of a `Host` header (which
/// carries no scheme: a `Host` without a port has the origin scheme's
/// default).
fn same_authority(origin: &url::Url, host: &str) -> bool {
    let Ok(own) = url::Url::parse(&format!("{}://{}", origin.scheme(), host.trim())) else {
        return false;
    };
    let plain = own.path() == "/" && own.query().is_none() && own.username().is_empty();
    plain && own.host() == origin.host() && own.port_or_known_default() == origin.port_or_known_default()
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(HeaderName::from_static(name), HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn a_public_url_names_its_origin_as_browsers_write_it() {
        assert_eq!(
            origin_of("https://API.example.com/").unwrap(),
            "https://api.example.com"
        );
        assert_eq!(
            origin_of("https://api.example.com:443/x").unwrap(),
            "https://api.example.com"
        );
        assert_eq!(origin_of("http://127.0.0.1:8080").unwrap(), "http://127.0.0.1:8080");
        for bad in ["api.example.com", "ftp://example.com", "", "data:text/plain,x"] {
            assert!(origin_of(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn with_a_public_url_only_its_origin_may_post_a_sign_in() {
        let check = SignInOrigin::new(Some(origin_of("https://api.example.com").unwrap()));
        let host = Some("10.0.0.7:8080");
        for ok in [
            headers(&[]),
            headers(&[("origin", "https://api.example.com")]),
            headers(&[("origin", "https://api.example.com:443")]),
            headers(&[("origin", "https://api.example.com"), ("sec-fetch-site", "same-origin")]),
            headers(&[("sec-fetch-site", "same-origin")]),
            headers(&[("sec-fetch-site", "none")]),
            // What Chromium sends for the portal's own form under
            // `Referrer-Policy: no-referrer`.
            headers(&[("origin", "null"), ("sec-fetch-site", "same-origin")]),
        ] {
            assert!(check.allows(&ok, host), "{ok:?}");
        }
        for refused in [
            headers(&[("origin", "https://evil.example")]),
            headers(&[("origin", "http://api.example.com")]),
            headers(&[("origin", "https://api.example.com:8443")]),
            headers(&[("origin", "https://evil.api.example.com")]),
            headers(&[("origin", "null")]),
            headers(&[("origin", "null"), ("sec-fetch-site", "same-site")]),
            headers(&[("origin", "null"), ("sec-fetch-site", "cross-site")]),
            headers(&[("origin", "https://evil.example"), ("sec-fetch-site", "same-origin")]),
            headers(&[
                ("origin", "https://api.example.com"),
                ("origin", "https://evil.example"),
            ]),
            headers(&[("sec-fetch-site", "cross-site")]),
            headers(&[("sec-fetch-site", "Cross-Site")]),
            headers(&[("origin", "https://api.example.com"), ("sec-fetch-site", "cross-site")]),
        ] {
            assert!(!check.allows(&refused, host), "{refused:?}");
        }
        // The request's own host does not matter when the public URL is set.
        assert!(!check.allows(&headers(&[("origin", "http://10.0.0.7:8080")]), host));
    }

    #[test]
    fn without_a_public_url_the_origin_must_be_the_requests_own_host() {
        let check = SignInOrigin::new(None);
        for (origin, host, ok) in [
            ("http://127.0.0.1:8080", "127.0.0.1:8080", true),
            ("https://api.example.com", "api.example.com", true),
            ("https://api.example.com", "API.example.com:443", true),
            ("http://[::1]:8080", "[::1]:8080", true),
            ("https://api.example.com", "api.example.com:8443", false),
            ("http://127.0.0.1:8081", "127.0.0.1:8080", false),
            ("https://evil.example", "api.example.com", false),
            ("https://api.example.com", "api.example.com/x", false),
            ("https://api.example.com", "user@api.example.com", false),
            ("null", "api.example.com", false),
        ] {
            let map = {
                let mut map = HeaderMap::new();
                map.insert(ORIGIN, HeaderValue::from_str(origin).unwrap());
                map
            };
            assert_eq!(check.allows(&map, Some(host)), ok, "{origin} from {host}");
        }
        assert!(!check.allows(&headers(&[("origin", "http://127.0.0.1:8080")]), None));
        assert!(check.allows(&headers(&[]), None));
        assert!(!check.allows(&headers(&[("sec-fetch-site", "cross-site")]), Some("h")));
    }
}
