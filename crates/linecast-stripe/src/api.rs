//! Stripe's REST API, for the two hosted pages the portal sends a customer
//! to (`ports::billing_pages`):
//!
//! - `POST {base}/v1/checkout/sessions`: a Checkout session in
//!   `subscription` mode for one price, carrying linecast's signed
//!   `client_reference_id`;
//! - `POST {base}/v1/billing_portal/sessions`: a Customer Portal session
//!   for a Stripe customer, with the address it links back to.
//!
//! As Stripe expects: the secret key as `Authorization: Bearer`, the body
//! `application/x-www-form-urlencoded` with nested fields in bracket
//! notation (`line_items[0][price]`), and an `Idempotency-Key` header. One
//! request, no retry, within [`StripeApiConfig::timeout`]. A 4xx with
//! Stripe's error object is [`BillingPagesError::Refused`] (its `type`,
//! `code` and `message`); a 429, a 5xx, a timeout or a body that is not
//! Stripe's shape is [`BillingPagesError::Unavailable`].
//!
//! The session's `url` is where the portal sends the customer's browser,
//! so it is checked first ([`page_url_allowed`]): with Stripe's own API,
//! only an `https` page of Stripe's hosted-page hosts
//! ([`HOSTED_PAGE_HOSTS`]); with another root (a local stub, stripe-mock:
//! the operator's own), any `http(s)` URL. Anything else is
//! [`BillingPagesError::Unusable`].

use std::time::Duration;

use async_trait::async_trait;
use linecast_core::ports::billing_pages::{
    BillingPages, BillingPagesError, CheckoutRequest, HostedPage, ManageRequest,
};
use serde::Deserialize;

/// A Stripe secret key (`sk_...` or a restricted `rk_...`). `Debug` never
/// shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(redacted)")
    }
}

impl ApiKey {
    /// A key from `LINECAST_STRIPE_API_KEY`: `sk_` or `rk_` and at least 16
    /// characters after it. The error never quotes the key.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let body = text.strip_prefix("sk_").or_else(|| text.strip_prefix("rk_"));
        match body {
            Some(rest) if rest.len() >= 16 && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                Ok(Self(text.to_owned()))
            }
            _ => Err("expected a Stripe secret key (sk_... or rk_..., as Stripe's dashboard shows it)".to_owned()),
        }
    }

    fn expose(&self) -> &str {
        &self.0
    }
}

/// Where and how the adapter calls Stripe.
#[derive(Debug, Clone)]
pub struct StripeApiConfig {
    pub api_key: ApiKey,
    /// Stripe's API root, without `/v1` (a test points it to a stub).
    pub base_url: String,
    /// The longest wait for one answer, connecting included.
    pub timeout: Duration,
}

impl StripeApiConfig {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.stripe.com";
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

    pub fn new(api_key: ApiKey) -> Self {
        Self {
            api_key,
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            timeout: Self::DEFAULT_TIMEOUT,
        }
    }
}

/// The adapter.
#[derive(Clone)]
pub struct StripeApi {
    config: StripeApiConfig,
    http: reqwest::Client,
}

impl std::fmt::Debug for StripeApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StripeApi")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A created session: only the fields used.
#[derive(Deserialize)]
struct Session {
    id: String,
    url: Option<String>,
}

/// Stripe's error body: `{"error": {"type", "code", "message", ...}}`.
#[derive(Deserialize)]
struct ErrorBody {
    error: ErrorObject,
}

#[derive(Deserialize)]
struct ErrorObject {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// The hosts of Stripe's hosted pages: Checkout and the Customer Portal.
pub const HOSTED_PAGE_HOSTS: [&str; 2] = ["checkout.stripe.com", "billing.stripe.com"];

/// Whether `base`, the API root the adapter calls, is Stripe's own: an
/// `https` URL on `stripe.com` or a host under it (`api.stripe.com`).
pub fn is_stripes_api(base: &str) -> bool {
    url::Url::parse(base).is_ok_and(|u| {
        u.scheme() == "https"
            && u.host_str().is_some_and(|h| {
                h.eq_ignore_ascii_case("stripe.com") || h.to_ascii_lowercase().ends_with(".stripe.com")
            })
    })
}

/// Whether a session's `url`, answered by the API at `base`, may be where
/// the browser is sent. With Stripe's own API ([`is_stripes_api`]): only
/// `https` on one of [`HOSTED_PAGE_HOSTS`], its default port, without a
/// user name or password, so neither a compromised answer nor a proxy in
/// between can send a paying customer elsewhere. With another root (a
/// stub, stripe-mock, which the operator runs): any `http(s)` URL with a
/// host. Never a `javascript:` or `data:` URL, never one with a line break
/// (a URL that parses is free of them).
pub fn page_url_allowed(base: &str, url: &str) -> bool {
    let Ok(page) = url::Url::parse(url) else {
        return false;
    };
    if url.chars().any(char::is_control) || page.host_str().is_none() {
        return false;
    }
    if is_stripes_api(base) {
        page.scheme() == "https"
            && page.username().is_empty()
            && page.password().is_none()
            && page.port().is_none()
            && page
                .host_str()
                .is_some_and(|h| HOSTED_PAGE_HOSTS.iter().any(|ok| h.eq_ignore_ascii_case(ok)))
    } else {
        matches!(page.scheme(), "https" | "http")
    }
}

/// The form of a Checkout session in subscription mode for one price.
pub fn checkout_form(request: &CheckoutRequest) -> Vec<(&'static str, String)> {
    let mut form = vec![
        ("mode", "subscription".to_owned()),
        ("line_items[0][price]", request.price.clone()),
        ("line_items[0][quantity]", "1".to_owned()),
        ("client_reference_id", request.client_reference.clone()),
        ("success_url", request.success_url.clone()),
        ("cancel_url", request.cancel_url.clone()),
    ];
    // Stripe takes one or the other: a known customer keeps their email.
    match &request.provider_customer {
        Some(customer) => form.push(("customer", customer.clone())),
        None => form.push(("customer_email", request.email.clone())),
    }
    form
}

/// The form of a Customer Portal session.
pub fn manage_form(request: &ManageRequest) -> Vec<(&'static str, String)> {
    vec![
        ("customer", request.provider_customer.clone()),
        ("return_url", request.return_url.clone()),
    ]
}

impl StripeApi {
    pub fn new(config: StripeApiConfig) -> Result<Self, BillingPagesError> {
        linecast_tls::install();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .user_agent(concat!("linecast/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| BillingPagesError::Unavailable(format!("stripe client: {e}")))?;
        Ok(Self { config, http })
    }

    async fn create(
        &self,
        path: &str,
        form: &[(&'static str, String)],
        idempotency_key: &str,
    ) -> Result<HostedPage, BillingPagesError> {
        let unavailable = |what: String| BillingPagesError::Unavailable(format!("stripe {path}: {what}"));
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter().map(|(k, v)| (*k, v.as_str())))
            .finish();
        let response = self
            .http
            .post(format!("{}{path}", self.config.base_url.trim_end_matches('/')))
            .bearer_auth(self.config.api_key.expose())
            .header("Idempotency-Key", idempotency_key)
            .header(reqwest::header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(|e| unavailable(format!("request: {}", without_url(&e))))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| unavailable(format!("body: {}", without_url(&e))))?;
        if status.is_success() {
            let session: Session =
                serde_json::from_slice(&bytes).map_err(|e| unavailable(format!("not a session: {e}")))?;
            let url = session
                .url
                .ok_or_else(|| unavailable(format!("session {} has no url", session.id)))?;
            if !page_url_allowed(&self.config.base_url, &url) {
                // The host only: the rest of the URL names the session.
                let host = url::Url::parse(&url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_owned))
                    .unwrap_or_else(|| "no host".to_owned());
                return Err(BillingPagesError::Unusable(format!(
                    "stripe {path}: session {} sends the browser to a page that is not Stripe's ({host})",
                    session.id
                )));
            }
            return Ok(HostedPage { id: session.id, url });
        }
        if status.is_client_error()
            && status != reqwest::StatusCode::TOO_MANY_REQUESTS
            && let Ok(ErrorBody { error }) = serde_json::from_slice::<ErrorBody>(&bytes)
        {
            return Err(BillingPagesError::Refused {
                status: status.as_u16(),
                kind: error.kind.unwrap_or_else(|| "error".to_owned()),
                code: error.code,
                message: error.message.unwrap_or_default(),
            });
        }
        Err(unavailable(format!("answered {status}")))
    }
}

/// A transport error without the URL (which carries no secret, but is the
/// operator's base URL; the path is named by the caller).
fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "failed"
    };
    let source = std::error::Error::source(e)
        .map(ToString::to_string)
        .unwrap_or_default();
    if source.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind} ({source})")
    }
}

#[async_trait]
impl BillingPages for StripeApi {
    async fn checkout(&self, request: &CheckoutRequest) -> Result<HostedPage, BillingPagesError> {
        self.create(
            "/v1/checkout/sessions",
            &checkout_form(request),
            &request.idempotency_key,
        )
        .await
    }

    async fn manage(&self, request: &ManageRequest) -> Result<HostedPage, BillingPagesError> {
        self.create(
            "/v1/billing_portal/sessions",
            &manage_form(request),
            &request.idempotency_key,
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_stripes_api_only_stripes_hosted_pages_are_followed() {
        for base in [
            "https://api.stripe.com",
            "https://api.stripe.com/",
            "https://API.Stripe.com",
            "https://files.stripe.com",
        ] {
            assert!(is_stripes_api(base), "{base}");
            for good in [
                "https://checkout.stripe.com/c/pay/cs_test_a1#fidkdWx",
                "https://billing.stripe.com/p/session/test_YWNjdF8x",
                "https://CHECKOUT.stripe.com/c/pay/cs_live_b2",
            ] {
                assert!(page_url_allowed(base, good), "{base} {good}");
            }
            for bad in [
                "https://evil.example/phish",
                "http://checkout.stripe.com/c/pay/cs_test_a1",
                "https://checkout.stripe.com.evil.example/c/pay",
                "https://checkout.stripe.com@evil.example/c/pay",
                "https://user:pw@checkout.stripe.com/c/pay",
                "https://checkout.stripe.com:8443/c/pay",
                "https://evil.example/https://checkout.stripe.com/",
                "https://stripe.com/c/pay",
                "https://dashboard.stripe.com/login",
                "javascript:alert(1)",
                "data:text/html,<script>alert(1)</script>",
                "//checkout.stripe.com/c/pay",
                "",
            ] {
                assert!(!page_url_allowed(base, bad), "{base} {bad}");
            }
        }
    }

    #[test]
    fn with_another_api_root_any_http_page_is_followed_but_never_a_script() {
        for base in [
            "http://127.0.0.1:41234",
            "https://stripe-mock.internal:12112",
            "http://api.stripe.com",
            "https://api.stripe.com.evil.example",
            "https://notstripe.com",
        ] {
            assert!(!is_stripes_api(base), "{base}");
            for good in [
                "https://evil.example/phish",
                "http://127.0.0.1:41234/c/pay/cs_test_1",
                "https://checkout.stripe.com/c/pay/cs_test_1",
            ] {
                assert!(page_url_allowed(base, good), "{base} {good}");
            }
            for bad in [
                "javascript:alert(1)",
                "data:text/html,x",
                "mailto:a@example.com",
                "https://evil.example/a\r\nSet-Cookie: x=1",
                "not a url",
            ] {
                assert!(!page_url_allowed(base, bad), "{base} {bad}");
            }
        }
    }

    #[test]
    fn a_key_is_a_stripe_secret_and_never_shown() {
        for good in ["sk_test_0123456789abcdefXYZ", "rk_live_0123456789abcdef0"] {
            let key = ApiKey::parse(good).unwrap();
            assert_eq!(format!("{key:?}"), "ApiKey(redacted)");
        }
        for bad in [
            "",
            "pk_test_0123456789abcdef",
            "sk_short",
            "whsec_0123456789abcdefgh",
            "sk_test_0123456789 abcdef",
        ] {
            let err = ApiKey::parse(bad).unwrap_err();
            assert!(bad.is_empty() || !err.contains(bad), "{err}");
        }
    }
}
