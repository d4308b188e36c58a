//! The one error type of the HTTP layer. Every error, from every layer
//! (extractors, unknown routes, wrong methods, payload limits, use cases)
//! renders as `{error: "HTTP_<status>", detail, timestamp}`.

use actix_web::http::StatusCode;
use actix_web::http::header::{ALLOW, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use actix_web::{HttpResponse, ResponseError};
use chrono::{SecondsFormat, Utc};
use linecast_core::StoreError;
use linecast_domain::artifacts::ArtifactRef;
use serde::Serialize;
use utoipa::ToSchema;

/// The error body of every non-2xx response.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"error": "HTTP_400", "detail": "Invalid sport 'xyz'. Allowed: mlb, nba, nfl, nhl, ncaaf, ncaab", "timestamp": "2026-11-21T15:04:05.123Z"}))]
pub struct ErrorBody {
    /// `HTTP_<status>`.
    pub error: String,
    /// Human-readable cause; for 400 it names the parameter and its allowed values.
    pub detail: String,
    /// ISO 8601 time the error was produced.
    pub timestamp: String,
}

/// An HTTP-facing error. 5xx causes are logged, never sent to the client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{detail}")]
    MethodNotAllowed { detail: String, allow: &'static str },
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{detail}")]
    TooManyRequests { detail: String, retry_after: Option<u64> },
    #[error("{detail}")]
    Unavailable { detail: String, cause: String },
    #[error("Internal server error")]
    Internal(String),
}

impl ApiError {
    /// A 400 naming the parameter, the value and what is allowed.
    pub fn invalid_param(name: &str, value: &str, allowed: &str) -> Self {
        ApiError::BadRequest(format!("Invalid {name} '{value}'. Allowed: {allowed}"))
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::Conflict(_) => StatusCode::CONFLICT,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        match self {
            ApiError::Unavailable { cause, .. } => {
                tracing::error!(status = status.as_u16(), cause = %cause, "dependency unavailable");
            }
            ApiError::Internal(cause) => {
                tracing::error!(status = status.as_u16(), cause = %cause, "internal error");
            }
            _ => {}
        }
        let mut response = error_response(status, &self.to_string());
        if let ApiError::MethodNotAllowed { allow, .. } = self {
            response.headers_mut().insert(ALLOW, HeaderValue::from_static(allow));
        }
        if let ApiError::TooManyRequests {
            retry_after: Some(secs),
            ..
        } = self
            && let Ok(v) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(RETRY_AFTER, v);
        }
        response
    }
}

/// Renders the error shape for any status.
pub fn error_response(status: StatusCode, detail: &str) -> HttpResponse {
    let body = ErrorBody {
        error: format!("HTTP_{}", status.as_u16()),
        detail: detail.to_owned(),
        timestamp: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
    };
    let mut response = HttpResponse::build(status).json(body);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Storage failures are errors, never empty data: a missing artifact is a
/// 404 that names what is missing by sport, model type and season or date
/// (the object key, a storage path, goes to the debug log only), anything
/// else a 503 whose cause (object, row, column) is logged.
impl From<StoreError> for ApiError {
    fn from(err: StoreError) -> Self {
        match err {
            StoreError::NotFound { object } => {
                tracing::debug!(%object, "data artifact not found");
                ApiError::NotFound(ArtifactRef::describe_missing(&object))
            }
            StoreError::Unavailable { .. } => ApiError::Unavailable {
                detail: "Object storage is temporarily unavailable; retry with backoff".to_owned(),
                cause: err.to_string(),
            },
            StoreError::Corrupt { .. } => ApiError::Unavailable {
                detail: "A data artifact failed validation and is temporarily unavailable; retry with backoff"
                    .to_owned(),
                cause: err.to_string(),
            },
        }
    }
}

impl From<linecast_paging::PagingError> for ApiError {
    fn from(err: linecast_paging::PagingError) -> Self {
        if err.is_conflict() {
            ApiError::Conflict(err.to_string())
        } else {
            ApiError::BadRequest(format!("Invalid {}: {err}", err.parameter()))
        }
    }
}
