//! The portal's session cookie. In production it is
//! `__Host-linecast_portal`: `Secure`, `HttpOnly`, `SameSite=Strict` and
//! `Path=/` (the `__Host-` prefix requires `Path=/`, and browsers drop a
//! `__Host-` cookie with any other path); the API never reads it. In demo
//! mode on loopback (plain HTTP) it is `linecast_portal` with
//! `Path=/portal` and no `Secure`.

use actix_web::HttpRequest;
use actix_web::http::header::{COOKIE, HeaderValue};

/// How the cookie is written: per deployment mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CookiePolicy {
    /// Production: `Secure` and the `__Host-` prefix.
    pub secure: bool,
}

impl CookiePolicy {
    pub const fn name(self) -> &'static str {
        if self.secure {
            "__Host-linecast_portal"
        } else {
            "linecast_portal"
        }
    }

    const fn path(self) -> &'static str {
        if self.secure { "/" } else { "/portal" }
    }

    /// `Set-Cookie` starting a session with `session_id` (a session cookie:
    /// no `Max-Age`; the server ends the session, idle or absolute).
    pub fn set(self, session_id: &str) -> HeaderValue {
        let secure = if self.secure { "; Secure" } else { "" };
        let value = format!(
            "{}={session_id}; Path={}; HttpOnly; SameSite=Strict{secure}",
            self.name(),
            self.path()
        );
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""))
    }

    /// `Set-Cookie` removing the cookie.
    pub fn clear(self) -> HeaderValue {
        let secure = if self.secure { "; Secure" } else { "" };
        let value = format!(
            "{}=; Path={}; HttpOnly; SameSite=Strict; Max-Age=0{secure}",
            self.name(),
            self.path()
        );
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""))
    }

    /// The session id the request carries, if any (64 hex digits; anything
    /// else is no session).
    pub fn session_id(self, req: &HttpRequest) -> Option<String> {
        let name = self.name();
        req.headers()
            .get_all(COOKIE)
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'))
            .filter_map(|pair| pair.trim().split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_owned())
            .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_cookies_are_host_prefixed_secure_and_demo_ones_are_scoped_to_the_portal() {
        let prod = CookiePolicy { secure: true }.set("ab");
        assert_eq!(
            prod.to_str().unwrap_or_default(),
            "__Host-linecast_portal=ab; Path=/; HttpOnly; SameSite=Strict; Secure"
        );
        let demo = CookiePolicy { secure: false }.set("ab");
        assert_eq!(
            demo.to_str().unwrap_or_default(),
            "linecast_portal=ab; Path=/portal; HttpOnly; SameSite=Strict"
        );
    }

    #[test]
    fn only_a_well_formed_id_under_the_right_name_is_read() {
        let id = "a".repeat(64);
        let policy = CookiePolicy { secure: false };
        let req = actix_web::test::TestRequest::default()
            .insert_header((COOKIE, format!("other=1; linecast_portal={id}")))
            .to_http_request();
        assert_eq!(policy.session_id(&req), Some(id.clone()));
        let req = actix_web::test::TestRequest::default()
            .insert_header((COOKIE, "linecast_portal=short"))
            .to_http_request();
        assert_eq!(policy.session_id(&req), None);
        let req = actix_web::test::TestRequest::default()
            .insert_header((COOKIE, format!("__Host-linecast_portal={id}")))
            .to_http_request();
        assert_eq!(policy.session_id(&req), None, "the production name is not the demo one");
    }
}
