//! `/api/v1/webhooks/...`: the caller's webhook endpoints (create, list,
//! read, update, delete, rotate the secret, send a test), their attempts,
//! and resending and recovering deliveries. The rules are core's
//! `services::webhooks` and the store's; the shapes
//! `linecast_payloads::webhooks`.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use linecast_core::AccountsError;
use linecast_core::ports::webhooks::EndpointUpdate;
use linecast_core::services::webhooks::{EndpointError, EndpointRequest};
use linecast_payloads::account::MessageResponse;
use linecast_payloads::webhooks::{
    AttemptView, CreateEndpointRequest, DeliveryView, EndpointView, EndpointWithSecret, RecoverRequest,
    RecoverResponse, TestQueued, UpdateEndpointRequest,
};

use crate::error::ApiError;
use crate::responses::written;
use crate::routes::read::{Caller, NoPath, Read};
use crate::state::AppState;
use linecast_operation::operation;

/// The most attempts one listing returns (`limit`'s ceiling and default).
const ATTEMPTS_LIMIT: u32 = 100;

const SECRET_WARNING: &str = "Store this secret now: it is shown only once and cannot be recovered.";

fn endpoint_error(e: EndpointError) -> ApiError {
    match e {
        EndpointError::Url { code, message } => ApiError::invalid("url", format!("url refused ({code}): {message}")),
        EndpointError::EventType(name) => ApiError::invalid_param(
            "event_types",
            &name,
            "release.published, data_status.changed, quota.threshold, key.expiring, webhook.endpoint_disabled",
        ),
        EndpointError::NoEventType => ApiError::invalid("event_types", "event_types needs at least one event type"),
        EndpointError::Sport(code) => ApiError::invalid_param("sports", &code, "nba, nfl, nhl, mlb, ncaaf, ncaab"),
        EndpointError::LimitReached => ApiError::BadRequest(format!(
            "An account has at most {} webhook endpoints",
            linecast_webhooks::events::MAX_ENDPOINTS_PER_ACCOUNT
        )),
        EndpointError::Disabled => ApiError::Conflict("The endpoint is disabled: enable it first".to_owned()),
        EndpointError::Accounts(AccountsError::NotFound) => no_endpoint(),
        EndpointError::Accounts(e) => e.into(),
    }
}

fn no_endpoint() -> ApiError {
    ApiError::NotFound("No such webhook endpoint among yours".to_owned())
}

fn endpoint_id(req: &HttpRequest) -> String {
    req.match_info().query("endpoint_id").to_owned()
}

/// Create a webhook endpoint
///
/// Takes `{url, event_types, sports?, description?}` and returns the endpoint and its signing secret
/// (`whsec_...`), shown this once. The URL must be `https` and its host must resolve to public addresses
/// only (loopback, private, link-local and metadata ranges are refused, here and again at every
/// delivery). An account has at most 10 endpoints. Deliveries are signed per the Standard Webhooks
/// specification. Needs an active subscription; counts as one request of the monthly quota.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    request_body = CreateEndpointRequest,
    responses(
        (status = 201, description = "The endpoint and its secret, shown once", body = EndpointWithSecret),
        (status = 400, description = "A refused URL, an unknown event type or sport, a malformed body, or the account already has 10 endpoints", body = crate::error::ErrorBody),
    )
)]
pub async fn create_endpoint(
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    body: web::Json<CreateEndpointRequest>,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    let body = body.into_inner();
    let (endpoint, secret) = state
        .webhooks
        .create(
            customer,
            EndpointRequest {
                url: body.url,
                description: body.description,
                event_types: body.event_types,
                sports: body.sports,
            },
        )
        .await
        .map_err(endpoint_error)?;
    written(
        StatusCode::CREATED,
        &EndpointWithSecret {
            endpoint: EndpointView::of(&endpoint, state.webhooks.now()),
            secret: secret.to_string(),
            warning: SECRET_WARNING.to_owned(),
        },
    )
}

/// The caller's webhook endpoints
///
/// Oldest first; secrets are never listed. Counts as one request of the monthly quota.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    responses(
        (status = 200, description = "The caller's endpoints, oldest first", body = Vec<EndpointView>),
    )
)]
pub async fn list_endpoints(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let (webhooks, customer) = (&read.state.webhooks, ctx.customer().customer_id);
    let (endpoints, now) = (webhooks.store().endpoints(customer).await?, webhooks.now());
    read.fresh(&endpoints.iter().map(|e| EndpointView::of(e, now)).collect::<Vec<_>>())
}

/// One of the caller's webhook endpoints
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)")),
    responses(
        (status = 200, description = "The endpoint", body = EndpointView),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
    )
)]
pub async fn get_endpoint(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let (customer, id) = (ctx.customer().customer_id, endpoint_id(&read.req));
    let endpoint = read.state.webhooks.store().endpoint(customer, &id).await?;
    read.fresh(&EndpointView::of(
        &endpoint.ok_or_else(no_endpoint)?,
        read.state.webhooks.now(),
    ))
}

/// Update a webhook endpoint
///
/// The fields given change: `url` (checked as at creation), `description` (`null` clears it),
/// `event_types`, `sports`, and `enabled` (`true` enables a disabled endpoint, clears its failures and
/// lets its waiting deliveries go; `false` disables it).
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)")),
    request_body = UpdateEndpointRequest,
    responses(
        (status = 200, description = "The endpoint as it now is", body = EndpointView),
        (status = 400, description = "A refused URL, an unknown event type or sport, or a malformed body", body = crate::error::ErrorBody),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
    )
)]
pub async fn update_endpoint(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    body: web::Json<UpdateEndpointRequest>,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    let body = body.into_inner();
    let endpoint = state
        .webhooks
        .update(
            customer,
            &endpoint_id(&req),
            EndpointUpdate {
                url: body.url,
                description: body.description,
                event_types: body.event_types,
                sports: body.sports,
                enabled: body.enabled,
            },
        )
        .await
        .map_err(endpoint_error)?;
    written(StatusCode::OK, &EndpointView::of(&endpoint, state.webhooks.now()))
}

/// Delete a webhook endpoint
///
/// Its pending deliveries are cancelled; its log stays until pruned.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)")),
    responses(
        (status = 200, description = "Deleted", body = MessageResponse),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
    )
)]
pub async fn delete_endpoint(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    state
        .webhooks
        .store()
        .delete_endpoint(customer, &endpoint_id(&req))
        .await
        .map_err(|e| endpoint_error(e.into()))?;
    written(
        StatusCode::OK,
        &MessageResponse {
            message: format!("Webhook endpoint {} deleted", endpoint_id(&req)),
        },
    )
}

/// Rotate a webhook endpoint's secret
///
/// Returns the new secret, shown this once. For 24 hours both the new and the previous secret sign
/// every delivery (two space-separated `v1,` signatures), so a receiver can switch without a gap.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)")),
    responses(
        (status = 200, description = "The endpoint and its new secret, shown once", body = EndpointWithSecret),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
    )
)]
pub async fn rotate_secret(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    let (endpoint, secret) = state
        .webhooks
        .rotate(customer, &endpoint_id(&req))
        .await
        .map_err(endpoint_error)?;
    written(
        StatusCode::OK,
        &EndpointWithSecret {
            endpoint: EndpointView::of(&endpoint, state.webhooks.now()),
            secret: secret.to_string(),
            warning: SECRET_WARNING.to_owned(),
        },
    )
}

/// Send a test event to a webhook endpoint
///
/// Queues one `webhook.test` message to this endpoint only, whatever its event types; it is delivered,
/// signed and logged like any other. Returns its `webhook-id`. A disabled endpoint is a 409.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)")),
    responses(
        (status = 202, description = "Queued", body = TestQueued),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
        (status = 409, description = "The endpoint is disabled", body = crate::error::ErrorBody),
    )
)]
pub async fn test_endpoint(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    let id = endpoint_id(&req);
    let payload = linecast_payloads::webhooks::test_payload(&id, state.webhooks.now());
    let message_id = state
        .webhooks
        .send_test(customer, &id, payload)
        .await
        .map_err(endpoint_error)?;
    written(StatusCode::ACCEPTED, &TestQueued { message_id })
}

/// A webhook endpoint's latest attempts
///
/// Newest first, at most `limit` (1 to 100, default 100): when, the receiver's status, the latency, the
/// error when it did not answer, and the first 4 KB of its response body. Attempts are kept 30 days
/// (`LINECAST_WEBHOOK_ATTEMPT_DAYS`).
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(
        ("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)"),
        ("limit" = Option<u32>, Query, description = "1 to 100 (default 100)", minimum = 1, maximum = 100)
    ),
    responses(
        (status = 200, description = "The attempts, newest first", body = Vec<AttemptView>),
        (status = 400, description = "A limit outside 1 to 100", body = crate::error::ErrorBody),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
    )
)]
pub async fn attempts(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let (customer, id) = (ctx.customer().customer_id, endpoint_id(&read.req));
    let limit = attempts_limit(&read.query)?;
    let store = read.state.webhooks.store();
    store.endpoint(customer, &id).await?.ok_or_else(no_endpoint)?;
    let attempts = store.attempts(customer, &id, limit).await?;
    read.fresh(&attempts.iter().map(AttemptView::from).collect::<Vec<_>>())
}

/// The query's `limit` of attempts: 1 to [`ATTEMPTS_LIMIT`], that by default.
fn attempts_limit(query: &crate::params::RawQuery) -> Result<u32, ApiError> {
    let Some(raw) = query.get("limit") else {
        return Ok(ATTEMPTS_LIMIT);
    };
    raw.parse::<u32>()
        .ok()
        .filter(|n| (1..=ATTEMPTS_LIMIT).contains(n))
        .ok_or_else(|| ApiError::invalid_param("limit", raw, "1 to 100"))
}

/// Resend one delivery
///
/// Queues a delivered, failed or cancelled delivery again, now, with the same `webhook-id` (a receiver
/// that deduplicates on it sees it once). A delivery still pending is a 409.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("delivery_id" = i64, Path, description = "The delivery's id (an attempt's `delivery_id`)")),
    responses(
        (status = 202, description = "Queued again", body = DeliveryView),
        (status = 400, description = "A delivery id that is not a number", body = crate::error::ErrorBody),
        (status = 404, description = "No such delivery among yours", body = crate::error::ErrorBody),
        (status = 409, description = "The delivery is still pending", body = crate::error::ErrorBody),
    )
)]
pub async fn resend(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    let raw = req.match_info().query("delivery_id");
    let id: i64 = raw
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| ApiError::invalid_param("delivery_id", raw, "a positive whole number"))?;
    let delivery = state
        .webhooks
        .store()
        .resend(customer, id, state.webhooks.now())
        .await
        .map_err(|e| match e {
            AccountsError::NotFound => ApiError::NotFound("No such delivery among yours".to_owned()),
            AccountsError::Conflict(_) => ApiError::Conflict("The delivery is still pending".to_owned()),
            e @ AccountsError::Unavailable(_) => e.into(),
        })?;
    written(StatusCode::ACCEPTED, &DeliveryView::from(&delivery))
}

/// Recover failed deliveries since an instant
///
/// Queues again, now, every failed delivery to this endpoint of a message created at or after `since`
/// (RFC 3339), each with its own `webhook-id`. Returns how many were queued.
///
/// See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key).
#[operation(
    tag = "webhooks",
    params(("endpoint_id" = String, Path, description = "The endpoint's id (`ep_...`)")),
    request_body = RecoverRequest,
    responses(
        (status = 202, description = "How many deliveries were queued again", body = RecoverResponse),
        (status = 400, description = "A malformed since, or a malformed body", body = crate::error::ErrorBody),
        (status = 404, description = "No such endpoint among yours", body = crate::error::ErrorBody),
    )
)]
pub async fn recover(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    body: web::Json<RecoverRequest>,
) -> Result<HttpResponse, ApiError> {
    let customer = ctx.customer().customer_id;
    let since = chrono::DateTime::parse_from_rfc3339(&body.since)
        .map(|t| t.with_timezone(&chrono::Utc))
        .map_err(|_| ApiError::invalid("since", format!("since '{}' is not an RFC 3339 instant", body.since)))?;
    let queued = state
        .webhooks
        .store()
        .recover_since(customer, &endpoint_id(&req), since, state.webhooks.now())
        .await
        .map_err(|e| endpoint_error(e.into()))?;
    written(StatusCode::ACCEPTED, &RecoverResponse { queued })
}
