//! The account payloads: the customer, usage, key listings and the answers
//! of key creation, rename and revoke, and the request bodies of the key
//! routes.

use linecast_core::services::access::ACCEPTED_TIERS;
use linecast_core::{ApiKeyRecord, Customer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::time::rfc3339;

/// A customer account.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerResponse {
    pub customer_id: i64,
    pub email: String,
    pub name: String,
    /// `ai`: legacy `data`, `basic` and `premium` have the same access and are reported as `ai`.
    #[schema(example = "ai")]
    pub tier: String,
    pub api_plan: Option<String>,
    pub api_subscription_status: String,
    pub subscription_status: String,
    /// Requests counted this UTC month.
    pub monthly_requests: u64,
    pub monthly_limit: u64,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// Usage in the current window.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageResponse {
    pub monthly_requests: u64,
    pub monthly_limit: u64,
    pub requests_remaining: u64,
    /// `ai`: legacy `data`, `basic` and `premium` have the same access and are reported as `ai`.
    #[schema(example = "ai")]
    pub tier: String,
    pub api_plan: Option<String>,
    pub api_subscription_status: String,
    pub subscription_status: String,
    /// First day of the next UTC month (`YYYY-MM-DD`).
    #[schema(format = Date)]
    pub reset_date: String,
}

/// An API key as listed: masked.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    /// `sk_service_` + four key characters + `*****`.
    pub api_key: String,
    pub name: String,
    /// `ai`: legacy `data`, `basic` and `premium` have the same access and are reported as `ai`.
    #[schema(example = "ai")]
    pub tier: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub is_active: bool,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

/// The one response that carries a full key.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedKeyResponse {
    /// The full key. It is shown only here.
    pub api_key: String,
    pub message: String,
    pub warning: String,
}

/// A confirmation.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageResponse {
    pub message: String,
}

/// The body is optional: no body or `{}` creates a key named `API key`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateKeyRequest {
    /// A label for the key (1 to 100 printable characters: no control characters, line breaks or bidi overrides); default `API key`.
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    #[serde(default)]
    pub name: Option<String>,
}

/// The name of a key created without one (core's rule).
pub use linecast_core::services::keys::DEFAULT_NAME as DEFAULT_KEY_NAME;

/// The tier clients see: every tier with the product's access (`ai` and the
/// legacy `data`, `basic`, `premium`) is reported as `ai`, as
/// `X-RateLimit-Tier` does; anything else has no access and reads `none`.
pub fn reported_tier(stored: &str) -> String {
    if ACCEPTED_TIERS.contains(&stored) {
        "ai".to_owned()
    } else {
        "none".to_owned()
    }
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct RenameKeyRequest {
    /// The full key or its masked form.
    #[schema(pattern = r"^sk_service_[A-Za-z0-9]{4}(\*{5}|[A-Za-z0-9]{28,60})$")]
    pub api_key_to_rename: String,
    /// 1 to 100 printable characters (no control characters, line breaks or bidi overrides).
    #[schema(min_length = 1, max_length = 100, pattern = r"\S")]
    pub new_name: String,
}

/// `is_active` is whether the key authenticates now: an expired key is
/// listed inactive like a revoked one.
pub fn view(key: &ApiKeyRecord, now: chrono::DateTime<chrono::Utc>) -> ApiKeyView {
    ApiKeyView {
        api_key: key.masked(),
        name: key.name.clone(),
        tier: reported_tier(&key.tier),
        created_at: rfc3339(key.created_at),
        is_active: key.is_usable(now),
        expires_at: key.expires_at.map(rfc3339),
    }
}

/// `c`'s usage: `used` requests in the UTC month of `now`, and when the
/// quota resets (the first day of the next UTC month).
pub fn usage_view(c: &Customer, used: u64, now: chrono::DateTime<chrono::Utc>) -> UsageResponse {
    UsageResponse {
        monthly_requests: used,
        monthly_limit: c.monthly_limit,
        requests_remaining: c.monthly_limit.saturating_sub(used),
        tier: reported_tier(&c.tier),
        api_plan: c.api_plan.clone(),
        api_subscription_status: c.api_subscription_status.code().to_owned(),
        subscription_status: c.subscription_status.code().to_owned(),
        reset_date: linecast_core::quota_calendar::next_reset(now)
            .format("%Y-%m-%d")
            .to_string(),
    }
}

pub fn customer_view(c: &Customer, monthly_requests: u64) -> CustomerResponse {
    CustomerResponse {
        customer_id: c.customer_id,
        email: c.email.clone(),
        name: c.name.clone(),
        tier: reported_tier(&c.tier),
        api_plan: c.api_plan.clone(),
        api_subscription_status: c.api_subscription_status.code().to_owned(),
        subscription_status: c.subscription_status.code().to_owned(),
        monthly_requests,
        monthly_limit: c.monthly_limit,
        created_at: rfc3339(c.created_at),
    }
}
