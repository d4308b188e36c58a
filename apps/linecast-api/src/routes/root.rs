//! `GET /`: service identity.

use crate::error::ApiError;
use crate::responses::fresh;
use actix_web::{HttpRequest, HttpResponse};
use linecast_operation::operation;
use serde::Serialize;
use utoipa::ToSchema;

/// The root object.
#[derive(Debug, Serialize, ToSchema)]
pub struct RootResponse {
    /// Greeting naming the service.
    pub message: String,
    /// The running version.
    pub version: String,
    /// Where the interactive docs are.
    pub docs: String,
    /// How the build is security-checked.
    pub security_scan: String,
    /// Where a deployment smoke test should point.
    pub deployment_test: String,
}

/// Service identity: name, version and where the docs are
///
/// Returns `message`, `version`, `docs` (`/docs`), `security_scan` and `deployment_test`, the endpoint a
/// deployment smoke test should call. Open to anyone, never rate-limited and never counted.
///
/// See [payloads.md: Service](/docs/payloads.md#service).
#[operation(
    tag = "service",
    responses((status = 200, description = "Service identity", body = RootResponse))
)]
pub async fn root(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    fresh(
        &req,
        &RootResponse {
            message: "linecast sports model data API".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            docs: "/docs".to_owned(),
            security_scan: "cargo deny check (licenses, bans, sources) gates every build".to_owned(),
            deployment_test: "/api/v1/readiness".to_owned(),
        },
    )
}
