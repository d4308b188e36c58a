//! Historical dataset refresh over HTTP: entitlement status, signed refresh
//! links and the embedded store's signed downloads. The rules (8 refreshes
//! per UTC month, consumed only after every link is signed, atomically) are
//! `linecast_core::services::datasets`; the shapes and statuses are
//! `presentation::datasets`.

use crate::responses::{Rendered, fresh, fresh_body, written};
use crate::routes::table;
use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_DISPOSITION, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};

use super::account::caller;
use crate::auth::AuthContext;
use crate::error::ApiError;
use crate::presentation::datasets::{EntitlementResponse, RefreshResponse};
use crate::state::AppState;

#[utoipa::path(
    get, path = table::DATASET_STATUS.path, tag = "datasets",
    responses(
        (status = 200, description = "Entitlement and refresh quota; consumes nothing", body = EntitlementResponse),
        (status = 503, description = "The accounts database is unavailable", body = crate::error::ErrorBody)
    )
)]
pub async fn dataset_status(
    req: HttpRequest,
    state: web::Data<AppState>,
    ctx: Option<web::ReqData<AuthContext>>,
) -> Result<HttpResponse, ApiError> {
    let ctx = caller(ctx)?;
    let status = state
        .datasets
        .status(ctx.customer().customer_id, state.clock.now())
        .await?;
    fresh(&req, &EntitlementResponse::from(status))
}

#[utoipa::path(
    post, path = table::DATASET_REFRESH.path, tag = "datasets",
    responses(
        (status = 200, description = "Signed links for every owned refreshable dataset; one refresh consumed", body = RefreshResponse),
        (status = 403, description = "No active subscription, or no owned refreshable dataset", body = crate::error::ErrorBody),
        (status = 429, description = "The 8 monthly refreshes are used, or the request limits are exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Signing, storage or the accounts database failed; nothing consumed", body = crate::error::ErrorBody)
    )
)]
pub async fn dataset_refresh(
    state: web::Data<AppState>,
    ctx: Option<web::ReqData<AuthContext>>,
) -> Result<HttpResponse, ApiError> {
    let ctx = caller(ctx)?;
    let refresh = state
        .datasets
        .refresh(ctx.customer().customer_id, state.clock.now())
        .await?;
    written(StatusCode::OK, &RefreshResponse::from(refresh))
}

#[utoipa::path(
    get, path = table::DOWNLOAD.path, tag = "datasets",
    params(("token" = String, Path, description = "The signed token from a refresh link")),
    responses(
        (status = 200, description = "The dataset file", content_type = "text/csv", body = String),
        (status = 403, description = "Expired or tampered link", body = crate::error::ErrorBody),
        (status = 404, description = "The dataset no longer exists", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage unavailable", body = crate::error::ErrorBody)
    )
)]
pub async fn download(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let download = state.datasets.download(&path, state.clock.now()).await?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{}\"", download.filename))
        .map_err(|e| ApiError::Internal(format!("a dataset's file name: {e}")))?;
    let body =
        Rendered::from_bytes(download.bytes, "text/csv; charset=utf-8").with_header(CONTENT_DISPOSITION, disposition);
    Ok(fresh_body(&req, &body)?)
}
