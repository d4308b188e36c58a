//! Customer account, usage and API-key management. A customer only ever
//! sees, renames or revokes their own keys; a key not among theirs is 404.

use crate::responses::written;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use linecast_operation::operation;
use linecast_payloads::account::{
    ApiKeyView, CreateKeyRequest, CreatedKeyResponse, CustomerResponse, DEFAULT_KEY_NAME, MessageResponse,
    RenameKeyRequest, UsageResponse, customer_view, usage_view, view,
};

use crate::error::{ApiError, KEY_LIST, KeyFields, key_error};
use crate::params::OptionalJson;
use crate::routes::read::{Caller, NoPath, Read};
use crate::state::AppState;

/// Where the key routes' audit lines say a change came from.
const ORIGIN: &str = "api";

/// The caller's account, plan and requests this month
///
/// Returns the customer's id, email, name, tier, API plan, subscription statuses, `monthly_requests`
/// (this UTC month, this request included), `monthly_limit` and creation time. Any valid key on a plan
/// with API access may read it, whatever the subscription's state; the call counts as one request of the
/// monthly quota, and the answer is `Cache-Control: no-store`.
///
/// See [payloads.md: Account](/docs/payloads.md#account-key).
#[operation(
    tag = "account",
    responses(
        (status = 200, description = "The caller's account", body = CustomerResponse),
    )
)]
pub async fn get_me(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let used = read
        .state
        .usage
        .month_count(ctx.customer().customer_id, read.state.clock.now());
    read.fresh(&customer_view(ctx.customer(), used.await?))
}

/// The caller's requests, quota and reset date this month
///
/// Returns `monthly_requests`, `monthly_limit`, `requests_remaining` and `reset_date` (the first day of
/// the next UTC month), with the tier, plan and subscription statuses. Any valid key on a plan with API
/// access may read it, whatever the subscription's state; the call counts as one request of the monthly
/// quota, and the answer is `Cache-Control: no-store`.
///
/// See [payloads.md: Account](/docs/payloads.md#account-key).
#[operation(
    tag = "account",
    responses(
        (status = 200, description = "Usage this month", body = UsageResponse),
    )
)]
pub async fn get_usage(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let now = read.state.clock.now();
    let used = read.state.usage.month_count(ctx.customer().customer_id, now).await?;
    read.fresh(&usage_view(ctx.customer(), used, now))
}

/// The caller's API keys, masked
///
/// Returns each of the customer's keys, oldest first, masked as `sk_service_XXXX*****`, with its name,
/// tier, creation time, whether it is active and when it expires. Any valid key on a plan with API
/// access may list them, whatever the subscription's state, so a lapsed customer can still clean up; the
/// call counts as one request of the monthly quota, and the answer is `Cache-Control: no-store`.
///
/// See [payloads.md: Account](/docs/payloads.md#account-key).
#[operation(
    tag = "account",
    responses(
        (status = 200, description = "The caller's keys, masked, oldest first", body = Vec<ApiKeyView>),
    )
)]
pub async fn list_api_keys(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let keys = read.state.api_keys.list(ctx.customer().customer_id).await;
    let now = read.state.clock.now();
    read.fresh(
        &keys
            .map_err(|e| key_error(e, &KEY_LIST))?
            .iter()
            .map(|k| view(k, now))
            .collect::<Vec<_>>(),
    )
}

/// Create an API key
///
/// Takes `{name}`, `{}` or no body at all (the key is then named `API key`) and returns the full key,
/// shown this once: store it, it cannot be recovered. Creating a key needs an active subscription; a
/// customer already holding the most active keys allowed (`LINECAST_MAX_KEYS_PER_CUSTOMER`, 25 by
/// default) gets a 400 `invalid_request`. The call counts as one request of the monthly quota.
///
/// See [payloads.md: Account](/docs/payloads.md#account-key).
#[operation(
    tag = "account",
    request_body(content = Option<CreateKeyRequest>, description = "Optional: no body, `{}` or `{\"name\": null}` gives the default name", content_type = "application/json"),
    responses(
        (status = 200, description = "The new key, shown once", body = CreatedKeyResponse),
        (status = 400, description = "Missing or invalid name, a malformed JSON body, or the customer already holds the most active keys allowed (25 by default)", body = crate::error::ErrorBody),
        (status = 413, description = "Body too large", body = crate::error::ErrorBody),
        (status = 415, description = "A request body with a Content-Encoding", body = crate::error::ErrorBody),
    )
)]
pub async fn create_api_key(
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    body: OptionalJson<CreateKeyRequest>,
) -> Result<HttpResponse, ApiError> {
    let name = body
        .0
        .unwrap_or_default()
        .name
        .unwrap_or_else(|| DEFAULT_KEY_NAME.to_owned());
    let issued = state
        .api_keys
        .issue(ctx.customer(), &name, None, ORIGIN, state.clock.now())
        .await
        .map_err(|e| key_error(e, &KEY_LIST))?;
    let (key, name) = (issued.key, issued.record.name);
    written(
        StatusCode::OK,
        &CreatedKeyResponse {
            api_key: key,
            message: format!("API key '{name}' created"),
            warning: "Store this key now: it is shown only once and cannot be recovered.".to_owned(),
        },
    )
}

/// Rename one of the caller's API keys
///
/// Takes `{api_key_to_rename, new_name}`, the key given in full or masked (`sk_service_XXXX*****`), and
/// returns a `message`. A masked form matching several of the caller's keys is a 400, and a key that is
/// not the caller's is a 404. Any valid key on a plan with API access may rename, whatever the
/// subscription's state; the call counts as one request of the monthly quota.
///
/// See [payloads.md: Account](/docs/payloads.md#account-key).
#[operation(
    tag = "account",
    request_body = RenameKeyRequest,
    responses(
        (status = 200, description = "Renamed", body = MessageResponse),
        (status = 400, description = "Invalid key reference or name, a masked key matching several keys, or a malformed body", body = crate::error::ErrorBody),
        (status = 404, description = "No such key among yours", body = crate::error::ErrorBody),
        (status = 413, description = "Body too large", body = crate::error::ErrorBody),
        (status = 415, description = "A request body with a Content-Encoding", body = crate::error::ErrorBody),
    )
)]
pub async fn rename_api_key(
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    body: web::Json<RenameKeyRequest>,
) -> Result<HttpResponse, ApiError> {
    let (key, new_name) = state
        .api_keys
        .rename_own(
            ctx.customer().customer_id,
            &body.api_key_to_rename,
            &body.new_name,
            ORIGIN,
            state.clock.now(),
        )
        .await
        .map_err(|e| {
            key_error(
                e,
                &KeyFields {
                    name: "new_name",
                    reference: "api_key_to_rename",
                    raw_reference: &body.api_key_to_rename,
                },
            )
        })?;
    written(
        StatusCode::OK,
        &MessageResponse {
            message: format!("API key {} renamed to '{new_name}'", key.masked()),
        },
    )
}

/// Revoke one of the caller's API keys
///
/// `api_key` is the full key or its masked form (`sk_service_XXXX*****`); the answer is a `message`.
/// Revoking the key that authenticates the request, or naming a masked form that matches several keys,
/// is a 400, and a key that is not the caller's is a 404. Any valid key on a plan with API access may
/// revoke, whatever the subscription's state, so a lapsed customer can revoke a leaked key; the call
/// counts as one request of the monthly quota.
///
/// See [payloads.md: Account](/docs/payloads.md#account-key).
#[operation(
    tag = "account",
    params(("api_key" = String, Path, description = "The full key or its masked form", max_length = 75, pattern = r"^sk_service_[A-Za-z0-9]{4}(\*{5}|[A-Za-z0-9]{28,60})$")),
    responses(
        (status = 200, description = "Revoked", body = MessageResponse),
        (status = 400, description = "Invalid key reference, a masked key matching several keys, or the key authenticating this request", body = crate::error::ErrorBody),
        (status = 404, description = "No such key among yours", body = crate::error::ErrorBody),
        (status = 405, description = "`rename` is not a key: /api-keys/rename takes PATCH only", body = crate::error::ErrorBody),
    )
)]
pub async fn revoke_api_key(
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = state
        .api_keys
        .revoke_own(
            ctx.customer().customer_id,
            &path,
            ctx.key().id,
            ORIGIN,
            state.clock.now(),
        )
        .await
        .map_err(|e| {
            key_error(
                e,
                &KeyFields {
                    name: "name",
                    reference: "api_key",
                    raw_reference: &path,
                },
            )
        })?;
    written(
        StatusCode::OK,
        &MessageResponse {
            message: format!("API key {} revoked", key.masked()),
        },
    )
}
