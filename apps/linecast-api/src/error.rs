//! The one error type of the HTTP layer, and the one table from domain
//! errors to it: store, paging, accounts, access refusals, keys,
//! strategies, dataset refresh and downloads each map here to a status and
//! a detail. Every error, from every layer (extractors, unknown routes,
//! wrong methods, payload limits, use cases) renders as `{error:
//! "HTTP_<status>", detail, timestamp}`.

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use actix_web::{HttpResponse, ResponseError};
use chrono::{SecondsFormat, Utc};
use linecast_core::services::access::{PER_SECOND_LIMIT, Refusal};
use linecast_core::services::datasets::{DownloadError, RefreshError};
use linecast_core::services::history::PageError;
use linecast_core::services::keys::KeyError;
use linecast_core::services::strategies::StrategiesError;
use linecast_core::{AccountsError, LimitsError, StoreError};
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

impl From<RefreshError> for ApiError {
    fn from(e: RefreshError) -> Self {
        let detail = e.to_string();
        match e {
            RefreshError::NotEntitled | RefreshError::NoCatalog | RefreshError::NothingRefreshable => {
                ApiError::Forbidden(detail)
            }
            RefreshError::Exhausted { retry_after_secs } => ApiError::TooManyRequests {
                detail,
                retry_after: Some(retry_after_secs),
            },
            RefreshError::CatalogUnavailable(cause) => ApiError::Unavailable {
                detail,
                cause: cause.to_string(),
            },
            RefreshError::SigningUnavailable(cause) => ApiError::Unavailable {
                detail,
                cause: cause.to_string(),
            },
            RefreshError::Accounts(e) => e.into(),
        }
    }
}

impl From<DownloadError> for ApiError {
    fn from(e: DownloadError) -> Self {
        match e {
            DownloadError::Refused(_) => ApiError::Forbidden(e.to_string()),
            DownloadError::Store(e) => e.into(),
        }
    }
}

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
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::MissingKey => ApiError::Unauthorized("API key required".to_owned()),
            Refusal::InvalidKey => ApiError::Unauthorized("Invalid or expired API key".to_owned()),
            Refusal::NoApiAccess { tier } => {
                ApiError::Forbidden(format!("The '{tier}' plan does not include API access"))
            }
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
            Refusal::Busy(full) => full.into(),
        }
    }
}

/// The fields of key creation and listing (no key reference).
pub const KEY_LIST: KeyFields<'static> = KeyFields {
    name: "name",
    reference: "api_key",
    raw_reference: "",
};

/// The request fields a key operation reads: the name's, and the key
/// reference's with the value sent.
pub struct KeyFields<'a> {
    pub name: &'a str,
    pub reference: &'a str,
    pub raw_reference: &'a str,
}

/// A refused key operation as the spec words it, naming the field it is about.
pub fn key_error(err: KeyError, fields: &KeyFields<'_>) -> ApiError {
    let KeyFields {
        name,
        reference,
        raw_reference,
    } = fields;
    match err {
        KeyError::InvalidName => ApiError::BadRequest(format!(
            "Invalid {name}: must be 1 to 100 printable characters (no control characters, line breaks or bidi overrides)"
        )),
        KeyError::BadReference => ApiError::BadRequest(format!(
            "Invalid {reference}: expected a full key (sk_service_...) or its masked form (sk_service_XXXX*****)"
        )),
        KeyError::LimitReached { max } => ApiError::BadRequest(format!(
            "Key limit reached: a customer may hold at most {max} active API keys; revoke one before creating another"
        )),
        KeyError::NotFound => ApiError::NotFound("API key not found among your keys".to_owned()),
        KeyError::Ambiguous { .. } => ApiError::BadRequest(format!(
            "The masked key {raw_reference} matches several of your keys; send the full key instead"
        )),
        KeyError::Unusable => ApiError::BadRequest("That API key is revoked or expired".to_owned()),
        KeyError::OwnKey => {
            ApiError::BadRequest("Cannot revoke the API key used to authenticate this request".to_owned())
        }
        KeyError::Accounts(e) => e.into(),
    }
}

fn unknown_strategy(id: &str) -> ApiError {
    ApiError::invalid_param("strategy_id", id, &linecast_strategies::strategy_ids().join(", "))
}

/// A refused strategies use case (a missing season names the sport and
/// model type).
impl From<StrategiesError> for ApiError {
    fn from(e: StrategiesError) -> Self {
        match e {
            StrategiesError::Store(e) => e.into(),
            StrategiesError::NoSeason { sport, model_type } => {
                ApiError::NotFound(format!("No season store for {sport} {model_type}"))
            }
            StrategiesError::UnknownStrategy(e) => unknown_strategy(&e.id),
        }
    }
}

/// What the per-customer stream slots are called (in a refusal's detail).
pub const EVENT_STREAMS: &str = "event streams";
/// What the per-customer download slots are called.
pub const LARGE_DOWNLOADS: &str = "large downloads";

/// A customer asking for one stream or large download more than its cap.
impl From<linecast_core::services::slots::Full> for ApiError {
    fn from(e: linecast_core::services::slots::Full) -> Self {
        let setting = match e.what {
            EVENT_STREAMS => " (LINECAST_MAX_STREAMS_PER_CUSTOMER)",
            LARGE_DOWNLOADS => " (LINECAST_MAX_DOWNLOADS_PER_CUSTOMER)",
            _ => "",
        };
        ApiError::TooManyRequests {
            detail: format!(
                "Too many {what}: at most {cap} at once per customer{setting}; wait for one to end or close one, then retry (this refusal was not counted)",
                what = e.what,
                cap = e.cap,
            ),
            retry_after: Some(e.retry_after_secs),
        }
    }
}

/// The usage counts (held by the limiter) could not be read.
impl From<LimitsError> for ApiError {
    fn from(e: LimitsError) -> Self {
        ApiError::Unavailable {
            detail: "Usage is temporarily unavailable".into(),
            cause: e.to_string(),
        }
    }
}

impl From<PageError> for ApiError {
    fn from(e: PageError) -> Self {
        match e {
            PageError::Store(e) => e.into(),
            PageError::Paging(e) => e.into(),
        }
    }
}
