//! Where the sign-in page returns to: the page a visitor asked for before
//! signing in (a session that ended, or none yet). Only a portal page of
//! this site is accepted ([`return_path`]): a path, never a URL, so no
//! value from a link or a form can send the visitor to another site.

use super::html::under_portal;

/// The query parameter (and sign-in form field) carrying the page.
pub const NEXT: &str = "next";
/// The query parameter saying a session ended (the sign-in page says so).
pub const ENDED: &str = "ended";
/// What the sign-in page says when a session ended.
pub const ENDED_MESSAGE: &str = "Your session ended; sign in again.";

/// The longest return path kept.
const MAX_LEN: usize = 512;

/// Portal paths that are not pages to return to: the sign-in forms, the
/// sign-in link, sign-out, the static files.
const NOT_PAGES: [&str; 4] = [
    "/portal/sign-in",
    "/portal/sign-out",
    "/portal/link/",
    "/portal/static/",
];

/// `raw` when it is a portal page's path (and query) on this site:
/// it begins with `/portal/` (one slash, so never `//host`), holds only
/// printable ASCII without a backslash, no `..` segment, no fragment, and is
/// not a sign-in or sign-out form, a sign-in link or a static file.
pub fn return_path(raw: &str) -> Option<&str> {
    let path = raw.split('?').next().unwrap_or_default();
    let ok = raw.len() <= MAX_LEN
        && raw.starts_with("/portal/")
        && under_portal(path)
        && raw.bytes().all(|b| b.is_ascii_graphic() && b != b'\\' && b != b'#')
        && !path.contains("//")
        && !path.split('/').any(|seg| seg == ".." || seg == ".")
        && !path.to_ascii_lowercase().contains("%2e")
        && !path.to_ascii_lowercase().contains("%2f")
        && !path.to_ascii_lowercase().contains("%5c")
        && !NOT_PAGES.iter().any(|p| path.starts_with(p));
    ok.then_some(raw)
}

/// The sign-in page's address, returning to `next` (when it is a page
/// [`return_path`] accepts) and saying the session ended when `ended`.
pub fn sign_in_location(next: Option<&str>, ended: bool) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    if ended {
        query.append_pair(ENDED, "1");
    }
    if let Some(next) = next.and_then(return_path) {
        query.append_pair(NEXT, next);
    }
    let query = query.finish();
    if query.is_empty() {
        "/portal".to_owned()
    } else {
        format!("/portal?{query}")
    }
}

/// The page a portal form is on, to return to after signing in again
/// (a form itself is never repeated).
pub fn page_of_form(path: &str) -> Option<&'static str> {
    if path.starts_with("/portal/keys/") {
        Some("/portal/keys")
    } else if path.starts_with("/portal/data/") {
        Some("/portal/data")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_portal_page_of_this_site_is_a_return_path() {
        for good in [
            "/portal/keys",
            "/portal/overview",
            "/portal/quality?sport=nba&model_type=won_on_points",
            "/portal/data",
        ] {
            assert_eq!(return_path(good), Some(good), "{good}");
        }
        for bad in [
            "",
            "/portal",
            "https://evil.example/portal/keys",
            "//evil.example/portal/keys",
            "/portal//evil.example",
            "/portal/..//evil.example",
            "/portal/../api/v1/sports",
            "/portal/%2e%2e/x",
            "/portal/a%2F%2Fevil.example",
            "/portal\\evil.example",
            "/portal/\\evil.example",
            "/portalx/keys",
            "/api/v1/sports",
            "/portal/sign-in",
            "/portal/sign-out",
            "/portal/link/abc",
            "/portal/static/portal.css",
            "/portal/keys#x",
            "/portal/keys\r\nLocation: https://evil.example",
            "/portal/ke ys",
            "javascript:alert(1)",
        ] {
            assert_eq!(return_path(bad), None, "{bad:?}");
        }
        assert_eq!(return_path(&format!("/portal/{}", "a".repeat(600))), None);
    }

    #[test]
    fn the_sign_in_location_carries_only_an_accepted_page() {
        assert_eq!(sign_in_location(None, false), "/portal");
        assert_eq!(
            sign_in_location(Some("/portal/keys"), true),
            "/portal?ended=1&next=%2Fportal%2Fkeys"
        );
        assert_eq!(sign_in_location(Some("https://evil.example/"), false), "/portal");
        assert_eq!(sign_in_location(Some("//evil.example"), true), "/portal?ended=1");
        assert_eq!(page_of_form("/portal/keys/create"), Some("/portal/keys"));
        assert_eq!(page_of_form("/portal/data/refresh"), Some("/portal/data"));
        assert_eq!(page_of_form("/portal/sign-out"), None);
    }
}
