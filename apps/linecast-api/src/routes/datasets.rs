//! Historical dataset refresh over HTTP: entitlement status, signed refresh
//! links and the embedded store's signed downloads. The rules (8 refreshes
//! per UTC month, consumed only after every link is signed, atomically) are
//! `linecast_core::services::datasets`; the shapes and statuses are
//! `presentation::datasets`.

use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use actix_web::{HttpResponse, get, post, web};

use super::account::caller;
use crate::auth::AuthContext;
use crate::error::ApiError;
use crate::presentation::account::no_store_json;
use crate::presentation::datasets::{EntitlementResponse, RefreshResponse};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "dataset_status", tag = "datasets",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Entitlement and refresh quota; consumes nothing", body = EntitlementResponse),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/service-sports-data/status")]
pub async fn status(
    state: web::Data<AppState>,
    ctx: Option<web::ReqData<AuthContext>>,
) -> Result<HttpResponse, ApiError> {
    let ctx = caller(ctx)?;
    let status = state
        .datasets
        .status(ctx.customer().customer_id, state.clock.now())
        .await?;
    Ok(no_store_json(&EntitlementResponse::from(status)))
}

#[utoipa::path(
    operation_id = "dataset_refresh", tag = "datasets",
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Signed links for every owned refreshable dataset; one refresh consumed", body = RefreshResponse),
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
    let refresh = state
        .datasets
        .refresh(ctx.customer().customer_id, state.clock.now())
        .await?;
    Ok(no_store_json(&RefreshResponse::from(refresh)))
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
    let download = state.datasets.download(&path, state.clock.now()).await?;
    Ok(HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/csv; charset=utf-8"))
        .insert_header((
            CONTENT_DISPOSITION,
            format!("attachment; filename=\"{}\"", download.filename),
        ))
        .body(download.bytes))
}
