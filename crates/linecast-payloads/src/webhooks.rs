//! The webhooks' payloads: an account's endpoints, their deliveries and
//! attempts as the API shows them, the request bodies of the endpoint
//! routes, and the events as they are POSTed to a receiver (the Standard
//! Webhooks envelope: `type`, `timestamp`, `data`).

use chrono::{DateTime, Utc};
use linecast_core::ports::webhooks::{Attempt, Delivery, Endpoint};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::time::exact;

/// An endpoint as listed. The secret is never listed: create and
/// rotate-secret show it once.
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointView {
    #[schema(example = "ep_2hG7mQk9ZpX4vB1nR8sT0wYc")]
    pub id: String,
    #[schema(example = "https://hooks.example.com/linecast")]
    pub url: String,
    pub description: Option<String>,
    /// The event types it receives.
    #[schema(example = json!(["release.published", "quota.threshold"]))]
    pub event_types: Vec<String>,
    /// The sports whose events it receives; empty: every sport.
    #[schema(example = json!(["nba"]))]
    pub sports: Vec<String>,
    /// False once disabled (by its account, by a `410 Gone`, or after five
    /// days of failures); its pending deliveries wait until it is enabled.
    pub enabled: bool,
    /// `gone` (the receiver answered 410), `failing` (five days of
    /// failures) or `disabled` (by its account); null while enabled.
    pub disabled_reason: Option<String>,
    /// The first failure since its last success; null while it succeeds.
    #[schema(format = DateTime)]
    pub failing_since: Option<String>,
    /// Until when the secret replaced by the last rotation still signs
    /// (both signatures are sent meanwhile); null when none does.
    #[schema(format = DateTime)]
    pub previous_secret_until: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

fn instant(at: Option<DateTime<Utc>>) -> Option<String> {
    at.map(exact)
}

impl EndpointView {
    pub fn of(e: &Endpoint, now: DateTime<Utc>) -> Self {
        Self {
            id: e.id.clone(),
            url: e.url.clone(),
            description: e.description.clone(),
            event_types: e.event_types.clone(),
            sports: e.sports.clone(),
            enabled: e.enabled,
            disabled_reason: e.disabled_reason.clone(),
            failing_since: instant(e.failing_since),
            previous_secret_until: instant(e.previous_secret_until.filter(|until| *until > now)),
            created_at: exact(e.created_at),
            updated_at: exact(e.updated_at),
        }
    }
}

/// A created endpoint, or one whose secret was rotated: the secret, shown
/// this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointWithSecret {
    pub endpoint: EndpointView,
    /// `whsec_` and the base64 of the signing key.
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub secret: String,
    pub warning: String,
}

/// `POST /api/v1/webhooks/endpoints`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateEndpointRequest {
    /// `https` only; the host must resolve to public addresses.
    #[schema(example = "https://hooks.example.com/linecast")]
    pub url: String,
    pub description: Option<String>,
    /// At least one of `release.published`, `data_status.changed`,
    /// `quota.threshold`, `key.expiring`, `webhook.endpoint_disabled`.
    #[schema(example = json!(["release.published"]))]
    pub event_types: Vec<String>,
    /// Sport codes; absent or empty: every sport.
    #[serde(default)]
    #[schema(example = json!(["nba", "nfl"]))]
    pub sports: Vec<String>,
}

/// `PATCH /api/v1/webhooks/endpoints/{endpoint_id}`: the fields given
/// change. `enabled: true` enables a disabled endpoint and clears its
/// failures.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateEndpointRequest {
    pub url: Option<String>,
    /// A string sets it; `null` clears it; absent leaves it.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    pub event_types: Option<Vec<String>>,
    pub sports: Option<Vec<String>>,
    pub enabled: Option<bool>,
}

/// Absent is `None` (serde's default); present is `Some` of the value or
/// of `null`: the three cases a PATCH of `description` means.
#[allow(clippy::option_option)]
fn double_option<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// `POST .../recover`: every failed delivery of messages created at or
/// after `since` is queued again.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverRequest {
    #[schema(format = DateTime, example = "2026-11-28T00:00:00Z")]
    pub since: String,
}

/// How many deliveries were queued again.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecoverResponse {
    pub queued: u64,
}

/// A test message was queued.
#[derive(Debug, Serialize, ToSchema)]
pub struct TestQueued {
    /// Its `webhook-id`.
    pub message_id: String,
}

/// One delivery: one message to one endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: i64,
    /// The message's `webhook-id`.
    pub message_id: String,
    pub endpoint_id: String,
    /// `pending`, `delivered`, `failed` or `cancelled`.
    pub status: String,
    pub attempts: u32,
    /// When it is tried next (pending only).
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
    #[schema(format = DateTime)]
    pub delivered_at: Option<String>,
}

impl From<&Delivery> for DeliveryView {
    fn from(d: &Delivery) -> Self {
        let pending = d.status == linecast_core::ports::webhooks::DeliveryStatus::Pending;
        Self {
            id: d.id,
            message_id: d.message_id.clone(),
            endpoint_id: d.endpoint_id.clone(),
            status: d.status.code().to_owned(),
            attempts: d.attempts,
            next_attempt_at: pending.then(|| exact(d.next_attempt_at)),
            delivered_at: instant(d.delivered_at),
        }
    }
}

/// One attempt of a delivery, as the log keeps it.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptView {
    pub id: i64,
    pub delivery_id: i64,
    #[schema(format = DateTime)]
    pub attempted_at: String,
    /// The receiver's HTTP status; null when it did not answer.
    pub status_code: Option<u16>,
    pub latency_ms: u32,
    /// `timeout`, `connect: ...` or `address refused: <code>`; null when
    /// the receiver answered.
    pub error: Option<String>,
    /// The first 4 KB of the response body.
    pub response_body: String,
}

impl From<&Attempt> for AttemptView {
    fn from(a: &Attempt) -> Self {
        Self {
            id: a.id,
            delivery_id: a.delivery_id,
            attempted_at: exact(a.attempted_at),
            status_code: a.status_code,
            latency_ms: a.latency_ms,
            error: a.error.clone(),
            response_body: a.response_body.clone(),
        }
    }
}

/// An event as POSTed to a receiver, with the headers `webhook-id` (the
/// message id: for release and status events the change stream's event
/// id), `webhook-timestamp` and `webhook-signature`.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookEvent<T: Serialize + ToSchema> {
    /// `release.published`, `data_status.changed`, `webhook.test`, ...
    #[serde(rename = "type")]
    pub event_type: String,
    /// When it happened, RFC 3339 UTC with every digit.
    #[schema(format = DateTime)]
    pub timestamp: String,
    pub data: T,
}

/// `release.published`: a predictions or odds release was kept.
#[derive(Debug, Serialize, ToSchema)]
pub struct ReleasePublished {
    pub sport: String,
    /// `predictions` or `odds`.
    pub artifact: String,
    /// Null for odds.
    pub model_type: Option<String>,
    /// Every digit: passed back as `as_of`, it reads this release.
    #[schema(format = DateTime, example = "2026-11-22T16:16:04.460357Z")]
    pub published_at: String,
    /// SHA-256 of the release's bytes (lowercase hex), as the archive and
    /// the ledger name it.
    pub digest: String,
    /// The games whose row differs from the series' previous release
    /// (added ones included), in the release's order.
    pub game_ids_changed: Vec<String>,
    /// Where to read it.
    #[schema(example = "/api/v1/predictions/nba/won_on_points?as_of=2026-11-22T16:16:04.460357Z")]
    pub link: String,
}

/// `data_status.changed`: a sport's data status moved.
#[derive(Debug, Serialize, ToSchema)]
pub struct DataStatusChanged {
    pub sport: String,
    pub from: String,
    pub to: String,
    pub operational: bool,
    pub degradation_reason: Option<String>,
    #[schema(example = "/api/v1/data-status/nba")]
    pub link: String,
}

/// `quota.threshold`: the account's requests this period reached 50, 80
/// or 100 % of its monthly quota (once per period and threshold).
#[derive(Debug, Serialize, ToSchema)]
pub struct QuotaThreshold {
    /// 50, 80 or 100.
    pub percent: u8,
    /// Requests counted this period when it was reached.
    pub used: u64,
    pub monthly_limit: u64,
    /// The UTC month, `YYYY-MM`.
    #[schema(example = "2026-11")]
    pub period: String,
    /// The first day of the next UTC month, when the count starts over.
    #[schema(format = Date)]
    pub reset_date: String,
    #[schema(example = "/api/v1/customers/me/usage")]
    pub link: String,
}

/// `key.expiring`: one of the account's API keys expires soon (7 days
/// before, then 1 day before; a key first seen within a day gets only the
/// second).
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyExpiring {
    /// The key, masked (`sk_service_XXXX*****`).
    pub api_key: String,
    pub name: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    /// 7 or 1: which notice this is.
    pub notice_days: i64,
    #[schema(example = "/api/v1/customers/me/api-keys")]
    pub link: String,
}

/// `webhook.endpoint_disabled`: one of the account's endpoints was
/// disabled by the delivery worker (sent to the account's other endpoints
/// subscribed to it).
#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointDisabled {
    pub endpoint_id: String,
    pub url: String,
    /// `gone` (the receiver answered 410) or `failing` (five days of
    /// failures).
    pub reason: String,
    #[schema(example = "/api/v1/webhooks/endpoints/ep_2hG7mQk9ZpX4vB1nR8sT0wYc")]
    pub link: String,
}

/// `webhook.test`: sent by send-test, to one endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct TestEvent {
    pub endpoint_id: String,
    pub message: String,
}

/// The body of a `webhook.test` event to `endpoint_id`, made at `at`.
pub fn test_payload(endpoint_id: &str, at: DateTime<Utc>) -> String {
    serde_json::to_string(&WebhookEvent {
        event_type: "webhook.test".to_owned(),
        timestamp: exact(at),
        data: TestEvent {
            endpoint_id: endpoint_id.to_owned(),
            message: "A test event from linecast: your endpoint receives and verifies deliveries.".to_owned(),
        },
    })
    .unwrap_or_else(|_| "{}".to_owned())
}
