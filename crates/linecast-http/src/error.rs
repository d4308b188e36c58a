//! The one error type of the HTTP layer, and the one table from domain
//! errors to it: store, paging, accounts, access refusals, keys,
//! strategies, dataset refresh and downloads each map here to a status, a
//! stable code and a detail. Every error, from every layer (extractors,
//! unknown routes, wrong methods, payload limits, use cases) renders as
//! `{error: "HTTP_<status>", code, detail, timestamp, request_id}`, with
//! `parameter` when one parameter is at fault.

use std::borrow::Cow;

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE};
use actix_web::{HttpResponse, ResponseError};
use chrono::{SecondsFormat, Utc};
use linecast_core::services::access::Refusal;
use linecast_core::services::datasets::{DownloadError, RefreshError};
use linecast_core::services::history::PageError;
use linecast_core::services::keys::KeyError;
use linecast_core::services::strategies::StrategiesError;
use linecast_core::{AccountsError, LimitsError, StoreError};
use linecast_domain::artifacts::ArtifactRef;
use serde::Serialize;
use utoipa::ToSchema;

/// What went wrong, for a program: stable, snake_case, one status each.
/// `docs/payloads.md` ("Errors") lists them with their meaning; a new code
/// is an additive change, a code never changes meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 400: a query, path or body parameter is malformed or out of range (`parameter` names it).
    InvalidParameter,
    /// 400: the sport is not one of the six.
    UnknownSport,
    /// 400: the model type is not one of the three.
    UnknownModelType,
    /// 400: `snapshot` is not a snapshot this service issues.
    InvalidSnapshot,
    /// 400: the request is refused for another reason the detail gives (a malformed body, the key cap).
    InvalidRequest,
    /// 401: no API key was sent.
    MissingKey,
    /// 401: the key is unknown, revoked or expired.
    InvalidKey,
    /// 403: the plan has no API access.
    NoApiAccess,
    /// 403: the subscription is not active.
    SubscriptionInactive,
    /// 403: the key may not do this.
    Forbidden,
    /// 404: no such route, resource or data.
    NotFound,
    /// 405: the route does not take this method (`Allow` lists those it takes).
    MethodNotAllowed,
    /// 408: the request body did not arrive in time.
    RequestTimeout,
    /// 409: the data changed while paging; restart from offset 0.
    SnapshotChanged,
    /// 413: the request body is too large.
    TooLarge,
    /// 415: the request body is encoded or of a type not accepted.
    UnsupportedMediaType,
    /// 429: the per-second rate (sustained rate and burst of `RateLimit-Policy`) is exceeded.
    RateLimited,
    /// 429: the monthly quota is used up until the reset.
    MonthlyQuotaExceeded,
    /// 429: too many streams, downloads or refreshes held or taken at once or this month.
    TooManyConcurrent,
    /// 500: a fault of the service, logged.
    InternalError,
    /// 503: object storage, or a data artifact in it, is unavailable.
    StorageUnavailable,
    /// 503: the accounts database or the usage accounting is unavailable.
    AccountsUnavailable,
    /// 503: the service cannot answer now (draining, starting, a dependency).
    ServiceUnavailable,
}

impl ErrorCode {
    /// The status this code is answered with.
    pub const fn status(self) -> StatusCode {
        #[allow(clippy::enum_glob_use)]
        use ErrorCode::*;
        match self {
            InvalidParameter | UnknownSport | UnknownModelType | InvalidSnapshot | InvalidRequest => {
                StatusCode::BAD_REQUEST
            }
            MissingKey | InvalidKey => StatusCode::UNAUTHORIZED,
            NoApiAccess | SubscriptionInactive | Forbidden => StatusCode::FORBIDDEN,
            NotFound => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            SnapshotChanged => StatusCode::CONFLICT,
            TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            RateLimited | MonthlyQuotaExceeded | TooManyConcurrent => StatusCode::TOO_MANY_REQUESTS,
            InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            StorageUnavailable | AccountsUnavailable | ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// The code of an error known only by its status (actix's own refusals,
    /// a probe's 503): the general code of that status.
    pub fn of_status(status: StatusCode) -> Self {
        match status.as_u16() {
            400 => ErrorCode::InvalidRequest,
            401 => ErrorCode::MissingKey,
            403 => ErrorCode::Forbidden,
            404 => ErrorCode::NotFound,
            405 => ErrorCode::MethodNotAllowed,
            408 => ErrorCode::RequestTimeout,
            409 => ErrorCode::SnapshotChanged,
            413 => ErrorCode::TooLarge,
            415 => ErrorCode::UnsupportedMediaType,
            429 => ErrorCode::RateLimited,
            503 => ErrorCode::ServiceUnavailable,
            _ => ErrorCode::InternalError,
        }
    }

    /// The code of an invalid value of the parameter `name`: the closed
    /// sets of the path have codes of their own.
    fn of_parameter(name: &str) -> Self {
        match name {
            "sport" => ErrorCode::UnknownSport,
            "model_type" => ErrorCode::UnknownModelType,
            "snapshot" => ErrorCode::InvalidSnapshot,
            _ => ErrorCode::InvalidParameter,
        }
    }
}

tokio::task_local! {
    /// The request id of the request being answered (`X-Request-Id`), set
    /// by `telemetry::request_context` around everything that answers it.
    pub static REQUEST_ID: RequestIdHeader;
}

/// A request's `X-Request-Id`, with the 16 bytes its 32 hex digits spell
/// when the server made it: the request log keeps those bytes as they are
/// instead of reading the digits back (about 330 instructions a logged
/// request, `bench/RESULTS.md`, "The request id logged from its bytes").
pub struct RequestIdHeader {
    pub value: HeaderValue,
    /// `Some` only for an id the server made (`value` is these bytes in
    /// lowercase hex); an id the client sent is `None`.
    pub made: Option<[u8; 16]>,
}

/// The error body of every non-2xx response.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"error": "HTTP_400", "code": "unknown_sport", "parameter": "sport", "detail": "Invalid sport 'xyz'. Allowed: mlb, nba, nfl, nhl, ncaaf, ncaab", "timestamp": "2026-11-21T15:04:05.123Z", "request_id": "5b0f0c2e9d1a4f6b8c3e7a2d1f0e9c8b"}))]
pub struct ErrorBody {
    /// `HTTP_<status>`.
    pub error: String,
    /// What went wrong, for a program (see `docs/payloads.md`, "Errors").
    pub code: ErrorCode,
    /// The parameter at fault, when one is (`invalid_parameter`, `unknown_sport`, `unknown_model_type`, `invalid_snapshot`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
    /// Human-readable cause; for 400 it names the parameter and its allowed values.
    pub detail: String,
    /// ISO 8601 time the error was produced.
    #[schema(format = DateTime)]
    pub timestamp: String,
    /// The request's `X-Request-Id`: quote it when reporting a problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// An HTTP-facing error. 5xx causes are logged, never sent to the client.
#[derive(Debug, Clone, thiserror::Error)]
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
    /// An error with a code of its own (the other variants answer their
    /// status's general code, `ErrorCode::of_status`).
    #[error("{detail}")]
    Coded {
        code: ErrorCode,
        detail: String,
        /// The parameter at fault.
        parameter: Option<Cow<'static, str>>,
        retry_after: Option<u64>,
        /// A 5xx's cause, logged, never sent.
        cause: Option<String>,
    },
}

impl ApiError {
    /// An error of `code` with `detail`.
    pub fn coded(code: ErrorCode, detail: impl Into<String>) -> Self {
        ApiError::Coded {
            code,
            detail: detail.into(),
            parameter: None,
            retry_after: None,
            cause: None,
        }
    }

    /// A refusal of `code` with `detail`, to be retried after `secs`.
    fn retry_later(code: ErrorCode, detail: impl Into<String>, secs: u64) -> Self {
        ApiError::Coded {
            code,
            detail: detail.into(),
            parameter: None,
            retry_after: Some(secs),
            cause: None,
        }
    }

    /// A 400 naming the parameter, the value and what is allowed.
    pub fn invalid_param(name: &str, value: &str, allowed: &str) -> Self {
        Self::invalid(name, format!("Invalid {name} '{value}'. Allowed: {allowed}"))
    }

    /// A 400 about the parameter `name`, with `detail`.
    pub fn invalid(name: &str, detail: impl Into<String>) -> Self {
        ApiError::Coded {
            code: ErrorCode::of_parameter(name),
            detail: detail.into(),
            parameter: Some(Cow::Owned(name.to_owned())),
            retry_after: None,
            cause: None,
        }
    }

    /// A 503 of `code` whose `cause` is logged.
    fn unavailable(code: ErrorCode, detail: impl Into<String>, cause: String) -> Self {
        ApiError::Coded {
            code,
            detail: detail.into(),
            parameter: None,
            retry_after: None,
            cause: Some(cause),
        }
    }

    /// What went wrong, for a program.
    pub fn code(&self) -> ErrorCode {
        match self {
            ApiError::Coded { code, .. } => *code,
            other => ErrorCode::of_status(other.status_code()),
        }
    }

    /// A 5xx's cause, for the log.
    pub fn cause(&self) -> Option<&str> {
        match self {
            ApiError::Unavailable { cause, .. } | ApiError::Internal(cause) => Some(cause),
            ApiError::Coded { cause, .. } => cause.as_deref(),
            _ => None,
        }
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
            ApiError::Coded { code, .. } => code.status(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if let Some(cause) = self.cause() {
            if status == StatusCode::SERVICE_UNAVAILABLE {
                tracing::error!(status = status.as_u16(), cause = %cause, "dependency unavailable");
            } else {
                tracing::error!(status = status.as_u16(), cause = %cause, "internal error");
            }
        }
        let parameter = match self {
            ApiError::Coded { parameter, .. } => parameter.as_deref(),
            _ => None,
        };
        let mut response = render(status, self.code(), parameter, &self.to_string());
        let retry_after = match self {
            ApiError::TooManyRequests { retry_after, .. } | ApiError::Coded { retry_after, .. } => *retry_after,
            _ => None,
        };
        if let Some(secs) = retry_after
            && let Ok(v) = HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(RETRY_AFTER, v);
        }
        response
    }
}

/// The challenge of a 401: a key as a Bearer token (or in `X-API-Key`).
const CHALLENGE: &str = "Bearer realm=\"linecast\"";

/// Renders the error shape for any status, with that status's general code.
pub fn error_response(status: StatusCode, detail: &str) -> HttpResponse {
    render(status, ErrorCode::of_status(status), None, detail)
}

/// Renders the error shape: the body, its content type, and a 401's
/// `WWW-Authenticate`.
pub fn render(status: StatusCode, code: ErrorCode, parameter: Option<&str>, detail: &str) -> HttpResponse {
    let body = ErrorBody {
        error: format!("HTTP_{}", status.as_u16()),
        code,
        parameter: parameter.map(str::to_owned),
        detail: detail.to_owned(),
        timestamp: Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true),
        request_id: REQUEST_ID
            .try_with(|id| id.value.to_str().ok().map(str::to_owned))
            .ok()
            .flatten(),
    };
    let mut response = HttpResponse::build(status).json(body);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if status == StatusCode::UNAUTHORIZED {
        headers.insert(WWW_AUTHENTICATE, HeaderValue::from_static(CHALLENGE));
    }
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
            StoreError::Unavailable { .. } => ApiError::unavailable(
                ErrorCode::StorageUnavailable,
                "Object storage is temporarily unavailable; retry with backoff",
                err.to_string(),
            ),
            StoreError::Corrupt { .. } => ApiError::unavailable(
                ErrorCode::StorageUnavailable,
                "A data artifact failed validation and is temporarily unavailable; retry with backoff",
                err.to_string(),
            ),
        }
    }
}

/// An `as_of` read: a future instant is the parameter's fault (400); an
/// instant before the first kept release is a 404 that says when history
/// starts.
impl From<linecast_core::services::releases::AsOfError> for ApiError {
    fn from(err: linecast_core::services::releases::AsOfError) -> Self {
        use linecast_core::services::releases::AsOfError;
        match err {
            AsOfError::Future => ApiError::invalid("as_of", "Invalid as_of: the instant is in the future"),
            AsOfError::BeforeHistory { first: Some(first) } => ApiError::NotFound(format!(
                "No release was kept at or before as_of; history starts at {}",
                first.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
            )),
            AsOfError::BeforeHistory { first: None } => {
                ApiError::NotFound("No release of this data has been kept yet".to_owned())
            }
            AsOfError::Release(e) => e.into(),
        }
    }
}

impl From<linecast_core::services::releases::ReleaseError> for ApiError {
    fn from(err: linecast_core::services::releases::ReleaseError) -> Self {
        use linecast_core::services::releases::ReleaseError;
        match err {
            ReleaseError::Store(e) => e.into(),
            ReleaseError::Log(e) => e.into(),
        }
    }
}

/// An archive check that could not be made is a 503 whatever failed (a
/// missing archived release included): never an empty or wrong check.
impl From<linecast_core::services::archive_check::CheckError> for ApiError {
    fn from(err: linecast_core::services::archive_check::CheckError) -> Self {
        ApiError::unavailable(
            ErrorCode::StorageUnavailable,
            "The archive of kept releases is temporarily unavailable; retry with backoff",
            err.to_string(),
        )
    }
}

/// A game's history: a malformed id is a 400 naming `game_id`, an id no
/// kept release carried a 404.
impl From<linecast_core::services::releases::HistoryError> for ApiError {
    fn from(err: linecast_core::services::releases::HistoryError) -> Self {
        use linecast_core::services::releases::HistoryError;
        match err {
            HistoryError::Malformed => ApiError::invalid(
                "game_id",
                "Invalid game_id: expected {sport}-{YYYYMMDD}-{away}-{home}, optionally -N",
            ),
            HistoryError::Unknown => ApiError::NotFound("No kept release of this market carried that game".to_owned()),
            HistoryError::Release(e) => e.into(),
        }
    }
}

impl From<linecast_core::services::ledger::LedgerError> for ApiError {
    fn from(err: linecast_core::services::ledger::LedgerError) -> Self {
        use linecast_core::services::ledger::LedgerError;
        match err {
            LedgerError::Future => ApiError::invalid("date", "Invalid date: the day is after today (UTC)"),
            LedgerError::BeforeLedger { first: Some(first) } => ApiError::NotFound(format!(
                "The ledger has no day before its first, {}",
                first.format("%Y-%m-%d")
            )),
            LedgerError::BeforeLedger { first: None } => {
                ApiError::NotFound("No release has been kept yet: the ledger has no day".to_owned())
            }
            LedgerError::Book(e) => e.into(),
        }
    }
}

impl From<linecast_paging::PagingError> for ApiError {
    fn from(err: linecast_paging::PagingError) -> Self {
        if err.is_conflict() {
            ApiError::Conflict(err.to_string())
        } else {
            ApiError::invalid(err.parameter(), format!("Invalid {}: {err}", err.parameter()))
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
            RefreshError::Exhausted { retry_after_secs } => {
                ApiError::retry_later(ErrorCode::TooManyConcurrent, detail, retry_after_secs)
            }
            RefreshError::CatalogUnavailable(cause) => {
                ApiError::unavailable(ErrorCode::StorageUnavailable, detail, cause.to_string())
            }
            RefreshError::SigningUnavailable(cause) => {
                ApiError::unavailable(ErrorCode::ServiceUnavailable, detail, cause.to_string())
            }
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
            AccountsError::Unavailable(cause) => ApiError::unavailable(
                ErrorCode::AccountsUnavailable,
                "The accounts service is temporarily unavailable; retry with backoff",
                cause,
            ),
        }
    }
}

/// A refusal of the access decision as the spec words it.
impl From<Refusal> for ApiError {
    fn from(refusal: Refusal) -> Self {
        match refusal {
            Refusal::MissingKey => ApiError::coded(ErrorCode::MissingKey, "API key required"),
            Refusal::InvalidKey => ApiError::coded(ErrorCode::InvalidKey, "Invalid or expired API key"),
            Refusal::NoApiAccess { tier } => ApiError::coded(
                ErrorCode::NoApiAccess,
                format!("The '{tier}' plan does not include API access"),
            ),
            Refusal::NoSubscription { status } => ApiError::coded(
                ErrorCode::SubscriptionInactive,
                format!("An active API subscription is required (subscription status: {status})"),
            ),
            Refusal::UsageStale { lag } => ApiError::unavailable(
                ErrorCode::AccountsUnavailable,
                "Usage accounting is temporarily unavailable; retry with backoff",
                format!("usage has not reached the database for {} ms", lag.as_millis()),
            ),
            Refusal::Unavailable { cause } => ApiError::unavailable(
                ErrorCode::AccountsUnavailable,
                "The accounts service is temporarily unavailable; retry with backoff",
                cause,
            ),
            Refusal::TooManyPerSecond { retry_after_secs, rate } => ApiError::retry_later(
                ErrorCode::RateLimited,
                format!(
                    "Rate limit exceeded. Limit: {per_second} requests per second sustained, in bursts of up to {burst} (RateLimit-Policy \"burst\")",
                    per_second = rate.per_second,
                    burst = rate.burst,
                ),
                retry_after_secs,
            ),
            Refusal::QuotaExhausted {
                limit,
                retry_after_secs,
            } => ApiError::retry_later(
                ErrorCode::MonthlyQuotaExceeded,
                format!("Rate limit exceeded. Limit: {limit} requests per month"),
                retry_after_secs,
            ),
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
        KeyError::InvalidName => ApiError::invalid(
            name,
            format!(
                "Invalid {name}: must be 1 to 100 printable characters (no control characters, line breaks or bidi overrides)"
            ),
        ),
        KeyError::BadReference => ApiError::invalid(
            reference,
            format!(
                "Invalid {reference}: expected a full key (sk_service_...) or its masked form (sk_service_XXXX*****)"
            ),
        ),
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
        ApiError::retry_later(
            ErrorCode::TooManyConcurrent,
            format!(
                "Too many {what}: at most {cap} at once per customer{setting}; wait for one to end or close one, then retry (this refusal was not counted)",
                what = e.what,
                cap = e.cap,
            ),
            e.retry_after_secs,
        )
    }
}

/// The usage counts (held by the limiter) could not be read.
impl From<LimitsError> for ApiError {
    fn from(e: LimitsError) -> Self {
        ApiError::unavailable(
            ErrorCode::AccountsUnavailable,
            "Usage is temporarily unavailable",
            e.to_string(),
        )
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
