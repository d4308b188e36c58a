//! The access gate: the middleware that wraps every protected scope (see
//! `crate::routes::register`). It authenticates, applies the route's
//! `Policy`, enforces limits, counts, and adds the rate-limit headers.
//!
//! It never looks at the request path: which routes it guards is decided by
//! where they are registered, so a route reached through any spelling of its
//! path (percent-encoded, dot segments) is guarded all the same.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use linecast_core::ports::accounts::hash_key;
use linecast_core::ports::limits::{Limiter, MonthDecision, SecondDecision};
use linecast_core::{AccountsError, SubscriptionStatus};

use super::cache::KeyCache;
use super::{ACCEPTED_TIERS, AuthContext, PER_SECOND_LIMIT, Policy, month_of, next_reset};
use crate::error::ApiError;
use crate::metrics;
use crate::state::AppState;

/// Everything the access check needs.
pub struct Access {
    pub keys: KeyCache,
    pub limiter: Arc<dyn Limiter>,
    /// Clock of the per-second windows: the system clock even when
    /// `LINECAST_NOW` freezes the data clock (a frozen second would allow
    /// only 50 requests per key, ever).
    pub rate_clock: Arc<dyn linecast_core::Clock>,
    /// Keys used since the last `last_used_at` flush.
    pub used_keys: Mutex<HashSet<i64>>,
}

impl Access {
    /// Takes the set of keys used since the last call.
    pub fn take_used_keys(&self) -> Vec<i64> {
        self.used_keys
            .lock()
            .map(|mut s| s.drain().collect())
            .unwrap_or_default()
    }
}

fn unavailable(cause: &impl ToString) -> ApiError {
    ApiError::Unavailable {
        detail: "The accounts service is temporarily unavailable; retry with backoff".to_owned(),
        cause: cause.to_string(),
    }
}

impl From<AccountsError> for ApiError {
    fn from(err: AccountsError) -> Self {
        match err {
            AccountsError::NotFound => ApiError::NotFound("Not found".to_owned()),
            AccountsError::Conflict(detail) => ApiError::BadRequest(detail),
            AccountsError::Unavailable(cause) => unavailable(&cause),
        }
    }
}

/// Authenticates and counts one request under `policy`; see the module docs
/// of `auth`.
pub async fn authenticate(
    state: &AppState,
    access: &Access,
    policy: Policy,
    req: &ServiceRequest,
) -> Result<AuthContext, ApiError> {
    let Some(presented) = super::credentials::presented_key(req.request()) else {
        return Err(ApiError::Unauthorized("API key required".to_owned()));
    };
    let now = state.clock.now();
    let hash = hash_key(&presented);
    let found = access.keys.lookup(&hash).await.map_err(ApiError::from)?;
    let Some(entry) = found else {
        return Err(ApiError::Unauthorized("Invalid or expired API key".to_owned()));
    };
    let (key, customer) = (&entry.0, &entry.1);
    // The lookup is by hash; compare again in constant time so a cache or
    // index quirk can never admit a different key.
    if !linecast_core::ports::accounts::constant_time_eq(key.key_hash.as_bytes(), hash.as_bytes())
        || !key.is_usable(now)
    {
        return Err(ApiError::Unauthorized("Invalid or expired API key".to_owned()));
    }
    if !ACCEPTED_TIERS.contains(&key.tier.as_str()) || !ACCEPTED_TIERS.contains(&customer.tier.as_str()) {
        return Err(ApiError::Forbidden(format!(
            "The '{}' plan does not include API access",
            key.tier
        )));
    }
    if policy == Policy::Subscriber && customer.api_subscription_status != SubscriptionStatus::Active {
        return Err(ApiError::Forbidden(format!(
            "An active API subscription is required (subscription status: {})",
            customer.api_subscription_status
        )));
    }
    // Counting that cannot be persisted would be lost in a crash: past the
    // bound, serve nothing that would be counted (see `accounting`).
    if state.usage_health.is_stale() {
        return Err(ApiError::Unavailable {
            detail: "Usage accounting is temporarily unavailable; retry with backoff".to_owned(),
            cause: format!(
                "usage has not reached the database for {} ms",
                state.usage_health.lag().as_millis()
            ),
        });
    }
    match access
        .limiter
        .check_second(key.id, PER_SECOND_LIMIT, access.rate_clock.now())
        .await
        .map_err(|e| {
            metrics::limiter_decision("second", "error");
            unavailable(&e)
        })? {
        SecondDecision::Allowed => metrics::limiter_decision("second", "allowed"),
        SecondDecision::Refused { retry_after_secs } => {
            metrics::limiter_decision("second", "refused");
            return Err(ApiError::TooManyRequests {
                detail: format!("Rate limit exceeded. Limit: {PER_SECOND_LIMIT} requests per second"),
                retry_after: Some(retry_after_secs.max(1)),
            });
        }
    }
    let month = month_of(now);
    let used = match access
        .limiter
        .try_count_month(customer.customer_id, month, customer.monthly_limit)
        .await
        .map_err(|e| {
            metrics::limiter_decision("month", "error");
            unavailable(&e)
        })? {
        MonthDecision::Counted { used } => {
            metrics::limiter_decision("month", "allowed");
            used
        }
        MonthDecision::Exhausted { .. } => {
            metrics::limiter_decision("month", "refused");
            let retry = (next_reset(now) - now).num_seconds().max(1) as u64;
            return Err(ApiError::TooManyRequests {
                detail: format!(
                    "Rate limit exceeded. Limit: {} requests per month",
                    customer.monthly_limit
                ),
                retry_after: Some(retry),
            });
        }
    };
    if let Ok(mut set) = access.used_keys.lock() {
        set.insert(key.id);
    }
    Ok(AuthContext {
        entry: entry.clone(),
        month_used: used,
    })
}

/// The gate middleware for one protected scope: every request that reaches
/// the scope needs a key that satisfies `policy`, whatever its path spelling
/// and whether or not a route inside the scope matches it.
pub fn gate<B: MessageBody + 'static>(
    policy: Policy,
) -> impl Fn(
    ServiceRequest,
    Next<B>,
) -> futures::future::LocalBoxFuture<'static, Result<ServiceResponse<BoxBody>, actix_web::Error>>
+ Clone {
    move |req, next| Box::pin(guarded(policy, req, next))
}

async fn guarded<B: MessageBody + 'static>(
    policy: Policy,
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return Err(ApiError::Internal("application state missing".to_owned()).into());
    };
    let Some(access) = state.access.clone() else {
        // Only with LINECAST_AUTH_DISABLED (benchmarks): no keys, no limits.
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    };
    // Refusals are answered here (not returned as errors) so the request
    // context still logs them with the request id.
    let ctx = match authenticate(&state, &access, policy, &req).await {
        Ok(ctx) => ctx,
        Err(err) => return Ok(req.error_response(err)),
    };
    let now = state.clock.now();
    let limit = ctx.customer().monthly_limit;
    let remaining = limit.saturating_sub(ctx.month_used);
    req.extensions_mut().insert(ctx);
    let mut res = next.call(req).await?.map_into_boxed_body();
    let headers = res.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", limit.to_string()),
        ("x-ratelimit-remaining", remaining.to_string()),
        ("x-ratelimit-reset", next_reset(now).timestamp().to_string()),
        ("x-ratelimit-tier", "ai".to_owned()),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), v);
        }
    }
    Ok(res)
}
