//! Historical dataset refresh: entitlement status, signed refresh links
//! (8 per UTC month, consumed only after every link is signed, atomically)
//! and the embedded store's signed downloads.

use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::{HttpResponse, get, post, web};
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use linecast_core::StoreError;
use linecast_core::ports::signer::DOWNLOAD_TTL;
use serde::Serialize;
use utoipa::ToSchema;

use super::account::caller;
use super::security::rfc3339;
use crate::auth::{AuthContext, month_of, next_reset};
use crate::error::ApiError;
use crate::state::AppState;

/// Refreshes per UTC month.
pub const REFRESH_LIMIT: u32 = 8;

/// What the customer owns and how many refreshes are left.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntitlementResponse {
    pub has_service_sports_data: bool,
    pub expires_at: Option<String>,
    pub owned_products: Vec<String>,
    pub owned_sports: Vec<String>,
    pub refreshes_used: u32,
    pub refreshes_remaining: u32,
    pub refresh_limit: u32,
    /// First instant of the next UTC month.
    pub next_reset_at: String,
}

/// One signed link.
#[derive(Debug, Serialize, ToSchema)]
pub struct DownloadItem {
    pub sport: String,
    pub filename: String,
    /// Signed link, valid for 15 minutes.
    pub url: String,
    pub expires_at: String,
}

/// The result of a refresh.
#[derive(Debug, Serialize, ToSchema)]
pub struct RefreshResponse {
    pub refreshes_remaining: u32,
    pub next_reset_at: String,
    pub downloads: Vec<DownloadItem>,
}

fn unavailable(what: &str, cause: &impl ToString) -> ApiError {
    ApiError::Unavailable {
        detail: format!("{what} is temporarily unavailable; nothing was consumed"),
        cause: cause.to_string(),
    }
}

struct Owned {
    products: Vec<String>,
    sports: Vec<String>,
    expires_at: Option<DateTime<Utc>>,
    active: bool,
}

async fn owned(state: &AppState, ctx: &AuthContext, now: DateTime<Utc>) -> Result<Owned, ApiError> {
    let ent = state.accounts.get_entitlement(ctx.customer().customer_id).await?;
    Ok(match ent {
        None => Owned {
            products: vec![],
            sports: vec![],
            expires_at: None,
            active: false,
        },
        Some(e) => {
            let live = e.expires_at.is_none_or(|t| now < t);
            Owned {
                active: live && !e.owned_products.is_empty(),
                products: e.owned_products,
                sports: e.owned_sports.iter().map(|s| s.code().to_owned()).collect(),
                expires_at: e.expires_at,
            }
        }
    })
}

#[utoipa::path(
    operation_id = "dataset_status", tag = "datasets",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Entitlement and refresh quota; consumes nothing", body = EntitlementResponse),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/service-sports-data/status")]
pub async fn status(
    state: web::Data<AppState>,
    ctx: Option<web::ReqData<AuthContext>>,
) -> Result<HttpResponse, ApiError> {
    let ctx = caller(ctx)?;
    let now = state.clock.now();
    let owned = owned(&state, &ctx, now).await?;
    let used = state
        .usage
        .refreshes_used(ctx.customer().customer_id, month_of(now))
        .await?;
    Ok(HttpResponse::Ok().json(EntitlementResponse {
        has_service_sports_data: owned.active,
        expires_at: owned.expires_at.map(rfc3339),
        owned_products: owned.products,
        owned_sports: owned.sports,
        refreshes_used: used,
        refreshes_remaining: REFRESH_LIMIT.saturating_sub(used),
        refresh_limit: REFRESH_LIMIT,
        next_reset_at: rfc3339(next_reset(now)),
    }))
}

#[utoipa::path(
    operation_id = "dataset_refresh", tag = "datasets",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Signed links for every owned refreshable dataset; one refresh consumed", body = RefreshResponse),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription, or no owned refreshable dataset", body = crate::error::ErrorBody),
        (status = 429, description = "The 8 monthly refreshes are used, or the request limits are exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Signing, storage or the accounts database failed; nothing consumed", body = crate::error::ErrorBody)
    )
)]
#[post("/service-sports-data/refresh")]
pub async fn refresh(
    state: web::Data<AppState>,
    ctx: Option<web::ReqData<AuthContext>>,
) -> Result<HttpResponse, ApiError> {
    let ctx = caller(ctx)?;
    let now = state.clock.now();
    let month = month_of(now);
    let owned = owned(&state, &ctx, now).await?;
    if !owned.active {
        return Err(ApiError::Forbidden(
            "No active historical dataset entitlement: datasets are bought separately".to_owned(),
        ));
    }
    let exhausted = || ApiError::TooManyRequests {
        detail: format!("Refresh limit exceeded. Limit: {REFRESH_LIMIT} refreshes per month"),
        retry_after: Some((next_reset(now) - now).num_seconds().max(1) as u64),
    };
    if state.usage.refreshes_used(ctx.customer().customer_id, month).await? >= REFRESH_LIMIT {
        return Err(exhausted());
    }
    let catalog = match state.store.product_catalog().await {
        Ok(c) => c,
        Err(StoreError::NotFound { .. }) => {
            return Err(ApiError::Forbidden(
                "No refreshable dataset is published for your products".to_owned(),
            ));
        }
        Err(e) => return Err(unavailable("The dataset catalog", &e)),
    };
    let products: Vec<_> = catalog
        .value
        .products
        .iter()
        .filter(|p| p.refreshable && owned.products.contains(&p.product_id))
        .collect();
    if products.is_empty() {
        return Err(ApiError::Forbidden(
            "None of your products has a refreshable dataset".to_owned(),
        ));
    }
    let expires_at = (now + DOWNLOAD_TTL)
        .duration_trunc(TimeDelta::seconds(1))
        .unwrap_or(now + DOWNLOAD_TTL);
    let mut downloads = Vec::with_capacity(products.len());
    for p in products {
        let url = state
            .signer
            .sign(&p.key, &p.filename, expires_at)
            .await
            .map_err(|e| unavailable("Download signing", &e))?;
        downloads.push(DownloadItem {
            sport: p.sport.code().to_owned(),
            filename: p.filename.clone(),
            url,
            expires_at: rfc3339(expires_at),
        });
    }
    // Every link exists: only now take one refresh, atomically.
    let Some(used) = state
        .usage
        .try_consume_refresh(ctx.customer().customer_id, month, REFRESH_LIMIT, now)
        .await?
    else {
        return Err(exhausted());
    };
    Ok(HttpResponse::Ok().json(RefreshResponse {
        refreshes_remaining: REFRESH_LIMIT.saturating_sub(used),
        next_reset_at: rfc3339(next_reset(now)),
        downloads,
    }))
}

#[utoipa::path(
    operation_id = "download", tag = "datasets",
    params(("token" = String, Path, description = "The signed token from a refresh link")),
    responses(
        (status = 200, description = "The dataset file", content_type = "text/csv", body = String),
        (status = 403, description = "Expired or tampered link", body = crate::error::ErrorBody),
        (status = 404, description = "The dataset no longer exists", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage unavailable", body = crate::error::ErrorBody),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("/{token}")]
pub async fn download(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let verified = state
        .hmac
        .verify(&path, state.clock.now())
        .map_err(|e| ApiError::Forbidden(format!("Download link refused: {e}")))?;
    let bytes = state.store.dataset_bytes(&verified.object_key).await?;
    let filename: String = verified
        .filename
        .chars()
        .filter(|c| c.is_ascii_graphic() && *c != '"' && *c != '\\')
        .collect();
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/csv; charset=utf-8"))
        .insert_header((CONTENT_DISPOSITION, format!("attachment; filename=\"{filename}\"")))
        .body(bytes))
}
