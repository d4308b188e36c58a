//! The access gate: the middleware that wraps every protected scope (see
//! `crate::routes::register`). It reads the presented key, asks core's
//! access decision (`linecast_core::services::access`: authentication, the
//! route's `Policy`, limits, counting), words a refusal as the spec does, and
//! adds the rate-limit headers.
//!
//! It never looks at the request path: which routes it guards is decided by
//! where they are registered, so a route reached through any spelling of its
//! path (percent-encoded, dot segments) is guarded all the same.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, web};
use linecast_core::AccountsError;
use linecast_core::services::access::Refusal;

use super::{PER_SECOND_LIMIT, Policy, next_reset};
use crate::error::ApiError;
use crate::state::AppState;

impl From<AccountsError> for ApiError {
    fn from(err: AccountsError) -> Self {
        match err {
            AccountsError::NotFound => ApiError::NotFound("Not found".to_owned()),
            AccountsError::Conflict(detail) => ApiError::BadRequest(detail),
            AccountsError::Unavailable(cause) => ApiError::Unavailable {
                detail: "The accounts service is temporarily unavailable; retry with backoff".to_owned(),
                cause,
            },
        }
    }
}

/// A refusal of the access decision as the spec words it.
fn refusal(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::MissingKey => ApiError::Unauthorized("API key required".to_owned()),
        Refusal::InvalidKey => ApiError::Unauthorized("Invalid or expired API key".to_owned()),
        Refusal::NoApiAccess { tier } => ApiError::Forbidden(format!("The '{tier}' plan does not include API access")),
        Refusal::NoSubscription { status } => ApiError::Forbidden(format!(
            "An active API subscription is required (subscription status: {status})"
        )),
        Refusal::UsageStale { lag } => ApiError::Unavailable {
            detail: "Usage accounting is temporarily unavailable; retry with backoff".to_owned(),
            cause: format!("usage has not reached the database for {} ms", lag.as_millis()),
        },
        Refusal::Unavailable { cause } => ApiError::Unavailable {
            detail: "The accounts service is temporarily unavailable; retry with backoff".to_owned(),
            cause,
        },
        Refusal::TooManyPerSecond { retry_after_secs } => ApiError::TooManyRequests {
            detail: format!("Rate limit exceeded. Limit: {PER_SECOND_LIMIT} requests per second"),
            retry_after: Some(retry_after_secs),
        },
        Refusal::QuotaExhausted {
            limit,
            retry_after_secs,
        } => ApiError::TooManyRequests {
            detail: format!("Rate limit exceeded. Limit: {limit} requests per month"),
            retry_after: Some(retry_after_secs),
        },
    }
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
    let presented = super::credentials::presented_key(req.request());
    let ctx = match access.authenticate(presented.as_deref(), policy).await {
        Ok(ctx) => ctx,
        Err(refused) => return Ok(req.error_response(refusal(refused))),
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
