//! Historical dataset refresh over HTTP: entitlement status, signed refresh
//! links and the embedded store's signed downloads. The rules (8 refreshes
//! per UTC month, consumed only after every link is signed, atomically) are
//! `linecast_core::services::datasets`; the shapes and statuses are
//! `linecast_payloads::datasets`.

use crate::responses::{Rendered, fresh_body, written};
use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_DISPOSITION, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use linecast_operation::operation;
use linecast_payloads::datasets::{EntitlementResponse, RefreshResponse};

use crate::error::ApiError;
use crate::routes::read::{Caller, NoPath, Read};
use crate::state::AppState;

/// The caller's historical-dataset entitlement and refresh allowance
///
/// Returns whether the customer has service sports data, when it expires, the owned products and sports,
/// and the refreshes used and remaining of `refresh_limit` (8 per UTC month) with `next_reset_at`.
/// Reading it consumes no refresh; it needs an active subscription and counts as one request of the
/// monthly quota.
///
/// See [payloads.md: Historical datasets](/docs/payloads.md#historical-datasets-key).
#[operation(
    tag = "datasets",
    responses(
        (status = 200, description = "Entitlement and refresh quota; consumes nothing", body = EntitlementResponse),
    )
)]
pub async fn dataset_status(read: Read<NoPath>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let status = read
        .state
        .datasets
        .status(ctx.customer().customer_id, read.state.clock.now());
    read.fresh(&EntitlementResponse::from(status.await?))
}

/// Sign fresh download links for the caller's historical datasets
///
/// Returns a link per owned refreshable dataset (`downloads`: sport, filename, url, expiry), each valid
/// 15 minutes, and the refreshes remaining. One of the 8 refreshes of the UTC month is consumed, and only
/// once every link is signed; when they are used up the call is a 429 `too_many_concurrent`, and a
/// customer without an owned refreshable dataset gets a 403. It needs an active subscription; a
/// refresh that succeeds counts as one request of the monthly quota.
///
/// See [payloads.md: Historical datasets](/docs/payloads.md#historical-datasets-key).
#[operation(
    tag = "datasets",
    responses(
        (status = 200, description = "Signed links for every owned refreshable dataset; one refresh consumed", body = RefreshResponse),
        (status = 403, description = "No active subscription, or no owned refreshable dataset", body = crate::error::ErrorBody),
    )
)]
pub async fn dataset_refresh(state: web::Data<AppState>, Caller(ctx): Caller) -> Result<HttpResponse, ApiError> {
    let refresh = state
        .datasets
        .refresh(ctx.customer().customer_id, state.clock.now())
        .await?;
    written(StatusCode::OK, &RefreshResponse::from(refresh))
}

/// Download a historical dataset file through a signed link
///
/// Serves, as a CSV attachment, the file a link from `POST /api/v1/service-sports-data/refresh` grants.
/// The token in the path is the link's own authorisation: no key is sent and nothing is counted against
/// a quota, but calls are within the per-address limit of public routes. Links live 15 minutes; an
/// expired or altered link is a 403.
///
/// See [payloads.md: Historical datasets](/docs/payloads.md#historical-datasets-key).
#[operation(
    tag = "datasets",
    params(
        ("token" = String, Path, max_length = 1024, pattern = r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$", description = "The signed token from a refresh link"),
        ("Range" = Option<String>, Header, max_length = 64, description = "One byte range of the file (`bytes=first-last`, `bytes=first-`, `bytes=-suffix`), of the variant Accept-Encoding selects: 206 with those bytes. Several ranges or a malformed value get the whole file."),
        ("If-Range" = Option<String>, Header, max_length = 64, description = "The file's ETag: the range only while the file is still that version, else the whole file")
    ),
    responses(
        (status = 200, description = "The dataset file", content_type = "text/csv", body = String,
            headers(("Accept-Ranges" = String, description = "bytes: a Range fetches part of the file"))
        ),
        (status = 206, description = "The bytes the Range asked for (resume a download cut short)",
            headers(
                ("Content-Range" = String, description = "bytes first-last/length"),
                ("Accept-Ranges" = String, description = "bytes")
            ),
            content(
                (String = "text/csv")
            )
        ),
        (status = 416, description = "The Range lies past the end of the file; Content-Range says its length (bytes */length)",
            headers(("Content-Range" = String, description = "bytes */length"))
        ),
        (status = 403, description = "Expired or tampered link", body = crate::error::ErrorBody),
        (status = 404, description = "The dataset no longer exists", body = crate::error::ErrorBody),
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
    let body = Rendered::from_bytes(download.bytes, "text/csv; charset=utf-8")
        .with_ranges()
        .with_header(CONTENT_DISPOSITION, disposition);
    fresh_body(&req, &body)
}
