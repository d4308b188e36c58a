//! Signed webhooks' storage (issue 78): each account's endpoints, the
//! outbox of messages, one delivery per message and endpoint, and the log
//! of attempts. The delivery rules themselves (signatures, the retry
//! schedule, the endpoint limit, the response preview) are
//! `linecast_webhooks`; the adapter applies the limit and the preview, the
//! worker the rest.
//!
//! Instants are stored to the microsecond. A message's id is its
//! `webhook-id`: a retry, a resend or a recovery delivers the same id.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rand::TryRngCore;

use crate::AccountsError;

/// The prefix of an endpoint's id.
pub const ENDPOINT_ID_PREFIX: &str = "ep_";
/// The prefix of a message's id (its `webhook-id`).
pub const MESSAGE_ID_PREFIX: &str = "msg_";
/// Random base62 characters after an id's prefix.
pub const ID_BODY_LEN: usize = 24;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `prefix` and [`ID_BODY_LEN`] base62 characters from the OS random
/// source. Fails only when that source fails.
pub fn new_id(prefix: &str) -> Result<String, AccountsError> {
    let mut id = String::with_capacity(prefix.len() + ID_BODY_LEN);
    id.push_str(prefix);
    let mut buf = [0u8; 48];
    while id.len() < prefix.len() + ID_BODY_LEN {
        rand::rngs::OsRng
            .try_fill_bytes(&mut buf)
            .map_err(|e| AccountsError::Unavailable(format!("OS random source failed: {e}")))?;
        // Rejection sampling: 248 = 4 * 62, so accepted bytes map uniformly.
        for &b in buf.iter().filter(|&&b| b < 248) {
            if id.len() == prefix.len() + ID_BODY_LEN {
                break;
            }
            id.push(char::from(BASE62[usize::from(b % 62)]));
        }
    }
    Ok(id)
}

/// An endpoint to create. `id` is `ep_` + random ([`new_id`]), `secret`
/// a `whsec_...` secret (`linecast_webhooks::signature::Secret`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEndpoint {
    pub id: String,
    pub customer_id: i64,
    pub url: String,
    pub description: Option<String>,
    /// Event names (`linecast_webhooks::events::EventType::code`).
    pub event_types: Vec<String>,
    /// Sports received; empty receives every sport.
    pub sports: Vec<String>,
    pub secret: String,
}

/// A stored endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub id: String,
    pub customer_id: i64,
    pub url: String,
    pub description: Option<String>,
    pub event_types: Vec<String>,
    /// Empty: every sport.
    pub sports: Vec<String>,
    pub secret: String,
    /// The secret before the last rotation, still signing until
    /// `previous_secret_until`.
    pub previous_secret: Option<String>,
    pub previous_secret_until: Option<DateTime<Utc>>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    /// The first failure since the last success (`None` while succeeding).
    pub failing_since: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Endpoint {
    /// The secrets a delivery at `now` signs with: the current one, then
    /// the previous one while it is still kept.
    pub fn signing_secrets(&self, now: DateTime<Utc>) -> Vec<&str> {
        let mut secrets = vec![self.secret.as_str()];
        if let (Some(previous), Some(until)) = (&self.previous_secret, self.previous_secret_until)
            && now < until
        {
            secrets.push(previous);
        }
        secrets
    }
}

/// What `create_endpoint` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndpointCreated {
    Created(Box<Endpoint>),
    /// The account already has `limit` endpoints
    /// (`linecast_webhooks::events::MAX_ENDPOINTS_PER_ACCOUNT`); nothing
    /// was stored.
    LimitReached {
        limit: usize,
    },
}

/// The fields an update changes; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointUpdate {
    pub url: Option<String>,
    /// `Some(None)` clears the description.
    pub description: Option<Option<String>>,
    pub event_types: Option<Vec<String>>,
    pub sports: Option<Vec<String>>,
    /// Enabling clears the disabled reason and the failing instant.
    pub enabled: Option<bool>,
}

/// A message to enqueue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMessage {
    /// `msg_` + random ([`new_id`]): the `webhook-id`.
    pub id: String,
    /// `None`: every endpoint subscribed to the type (release events);
    /// `Some`: only that account's endpoints (quota thresholds).
    pub customer_id: Option<i64>,
    pub event_type: String,
    pub sport: Option<String>,
    /// Deliveries of one endpoint and one order key go out in the order of
    /// their messages (the game id, or the sport for events about no game).
    pub order_key: String,
    /// The JSON body.
    pub payload: String,
    /// An event written by several instances (a quota threshold, once per
    /// period) is stored once per key.
    pub dedupe_key: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A stored message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: String,
    pub customer_id: Option<i64>,
    pub event_type: String,
    pub sport: Option<String>,
    pub order_key: String,
    pub payload: String,
    pub dedupe_key: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What `enqueue` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Enqueued {
    /// `false` when a message with the same dedupe key was stored before:
    /// nothing was written.
    pub new: bool,
    /// The pending deliveries written (0 when not new).
    pub deliveries: u64,
}

/// A delivery's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
    Cancelled,
}

impl DeliveryStatus {
    pub const ALL: [Self; 4] = [Self::Pending, Self::Delivered, Self::Failed, Self::Cancelled];

    /// The stored name.
    pub fn code(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }
}

/// One message's delivery to one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: i64,
    pub message_id: String,
    pub endpoint_id: String,
    pub status: DeliveryStatus,
    /// Attempts recorded since it was last (re)queued.
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    pub claimed_by: Option<String>,
    pub claimed_until: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// A delivery a worker claimed, with what it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub delivery: Delivery,
    pub message: Message,
}

/// One attempt to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAttempt {
    pub attempted_at: DateTime<Utc>,
    /// The response's status; `None` for a timeout or a failed connection.
    pub status_code: Option<u16>,
    pub latency_ms: u32,
    pub error: Option<String>,
    /// The response body; the store keeps its preview
    /// (`linecast_webhooks::events::truncate_body`, at most 4096 bytes).
    pub response_body: Vec<u8>,
    /// Whether the attempt delivered the message (the schedule's
    /// `Decision::Delivered`): a success clears the endpoint's failing
    /// instant, a failure sets it when unset.
    pub succeeded: bool,
}

/// A recorded attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub id: i64,
    pub delivery_id: i64,
    pub endpoint_id: String,
    pub attempted_at: DateTime<Utc>,
    pub status_code: Option<u16>,
    pub latency_ms: u32,
    pub error: Option<String>,
    /// The preview: valid UTF-8 (bytes that are not are replaced), at most
    /// 4096 bytes.
    pub response_body: String,
}

/// What one HTTP attempt came to, as the sender saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// The receiver answered.
    Response {
        status: u16,
        /// Its `Retry-After` header, as sent.
        retry_after: Option<String>,
    },
    /// No answer within the sender's timeout.
    Timeout,
    /// No connection: refused, reset, TLS, or no address to try.
    ConnectFailed(String),
    /// The host resolved to an address the rules refuse
    /// (`linecast_webhooks::address`): nothing was sent. The code.
    Refused(&'static str),
}

/// One attempt's report: the outcome, how long it took and the first
/// bytes of the response body (at most the preview).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendReport {
    pub outcome: SendOutcome,
    pub latency: std::time::Duration,
    pub body: Vec<u8>,
}

/// Why an endpoint URL cannot be saved, as the sender's resolver sees it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdmitError {
    /// The URL's scheme, form or literal address is refused: the rule's
    /// code and words.
    #[error("{message}")]
    Refused { code: &'static str, message: String },
    /// The host does not resolve.
    #[error("the host {0} does not resolve")]
    Unresolved(String),
}

/// HTTP to receivers: resolves the endpoint's host, checks every address
/// it resolves to (at every attempt), connects only to a checked address,
/// sends the signed POST with a timeout, and reads the start of the
/// response.
#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Checks a URL before it is saved: its form, and every address its
    /// host resolves to now.
    async fn admit(&self, url: &str) -> Result<(), AdmitError>;
    /// POSTs `body` to `url` with `headers`.
    async fn send(&self, url: &str, headers: &[(&'static str, String)], body: bytes::Bytes) -> SendReport;
}

/// The webhooks' storage. Every method that names a customer touches only
/// that customer's endpoints: another account's id is `NotFound`.
#[async_trait]
pub trait WebhookStore: Send + Sync {
    /// Stores the endpoint unless its account already has the most allowed
    /// (`LimitReached`, nothing stored); concurrent creations never pass
    /// the limit. `NotFound` for an unknown customer, `Conflict` for an id
    /// in use.
    async fn create_endpoint(&self, new: NewEndpoint, now: DateTime<Utc>) -> Result<EndpointCreated, AccountsError>;
    /// The account's endpoints, oldest first.
    async fn endpoints(&self, customer_id: i64) -> Result<Vec<Endpoint>, AccountsError>;
    /// One of the account's endpoints.
    async fn endpoint(&self, customer_id: i64, id: &str) -> Result<Option<Endpoint>, AccountsError>;
    /// An endpoint whatever its account (what the delivery worker sends
    /// with).
    async fn find_endpoint(&self, id: &str) -> Result<Option<Endpoint>, AccountsError>;
    /// Changes the given fields; the endpoint as it now is.
    async fn update_endpoint(
        &self,
        customer_id: i64,
        id: &str,
        update: EndpointUpdate,
        now: DateTime<Utc>,
    ) -> Result<Endpoint, AccountsError>;
    /// Deletes the endpoint and cancels its pending deliveries (its
    /// deliveries and attempts stay, for the log, until pruned).
    async fn delete_endpoint(&self, customer_id: i64, id: &str) -> Result<(), AccountsError>;
    /// Makes `new_secret` the endpoint's secret and keeps the current one
    /// as the previous secret until `previous_until`.
    async fn rotate_secret(
        &self,
        customer_id: i64,
        id: &str,
        new_secret: &str,
        previous_until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Endpoint, AccountsError>;
    /// Disables the endpoint with a reason (a 410, five days of failures):
    /// its pending deliveries stay pending but are not claimed until it is
    /// enabled again.
    async fn disable_endpoint(&self, id: &str, reason: &str, now: DateTime<Utc>) -> Result<(), AccountsError>;

    /// Stores the message once per dedupe key and, in the same
    /// transaction, one pending delivery (due at the message's instant) per
    /// enabled endpoint subscribed to its type, whose sports are empty or
    /// contain its sport (a message of no sport passes any sports filter),
    /// and, when it names a customer, of that customer.
    async fn enqueue(&self, message: NewMessage) -> Result<Enqueued, AccountsError>;
    /// Stores the message and one pending delivery to this endpoint only,
    /// whatever its subscriptions (a test message). `NotFound` for an
    /// unknown endpoint.
    async fn enqueue_to(&self, message: NewMessage, endpoint_id: &str) -> Result<Enqueued, AccountsError>;
    /// Claims up to `limit` pending deliveries of enabled endpoints due at
    /// `now` whose claim is free or expired, for `worker` until `now +
    /// lease`, oldest due first. Never a delivery while an earlier one (by
    /// message instant, then enqueue order) of the same endpoint and order
    /// key is pending: one endpoint's deliveries of one key go out in order.
    /// Two concurrent claimers never get the same delivery.
    async fn claim_due(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> Result<Vec<Claimed>, AccountsError>;
    /// Appends an attempt to the delivery's log and counts it; keeps the
    /// endpoint's failing instant (see [`NewAttempt::succeeded`]).
    async fn record_attempt(&self, delivery_id: i64, attempt: NewAttempt) -> Result<Attempt, AccountsError>;
    /// The pending delivery is delivered; its claim is released. These
    /// three settle only a pending delivery: `NotFound` otherwise (one
    /// cancelled meanwhile, by its endpoint's deletion, stays cancelled).
    async fn mark_delivered(&self, delivery_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError>;
    /// The delivery stays pending, due again at `next_attempt_at`; its
    /// claim is released.
    async fn reschedule(&self, delivery_id: i64, next_attempt_at: DateTime<Utc>) -> Result<(), AccountsError>;
    /// The delivery has failed (its last attempt failed); its claim is
    /// released.
    async fn mark_failed(&self, delivery_id: i64) -> Result<(), AccountsError>;
    /// The endpoint's latest `limit` attempts, newest first.
    async fn attempts(&self, customer_id: i64, endpoint_id: &str, limit: u32) -> Result<Vec<Attempt>, AccountsError>;
    /// The account's delivery with this id.
    async fn delivery(&self, customer_id: i64, delivery_id: i64) -> Result<Option<Delivery>, AccountsError>;
    /// Queues a delivered, failed or cancelled delivery again, due at `now`
    /// with its attempts counted from zero: the same message, so the same
    /// `webhook-id`. `Conflict` while it is still pending.
    async fn resend(&self, customer_id: i64, delivery_id: i64, now: DateTime<Utc>) -> Result<Delivery, AccountsError>;
    /// Queues again, due at `now`, every failed delivery of the endpoint
    /// whose message was created at or after `since`; the number queued.
    async fn recover_since(
        &self,
        customer_id: i64,
        endpoint_id: &str,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, AccountsError>;
    /// Deletes the attempts made before `before`; the number deleted.
    async fn prune_attempts(&self, before: DateTime<Utc>) -> Result<u64, AccountsError>;
    /// Every active, unrevoked API key expiring after `after` and at or
    /// before `until`, soonest first (what `key.expiring` notices).
    async fn keys_expiring(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<crate::ApiKeyRecord>, AccountsError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_the_prefix_and_base62_characters() {
        let id = new_id(MESSAGE_ID_PREFIX).unwrap();
        let body = id.strip_prefix(MESSAGE_ID_PREFIX).unwrap();
        assert_eq!(body.len(), ID_BODY_LEN);
        assert!(body.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(new_id(ENDPOINT_ID_PREFIX).unwrap(), new_id(ENDPOINT_ID_PREFIX).unwrap());
    }

    #[test]
    fn statuses_round_trip_their_codes() {
        for status in DeliveryStatus::ALL {
            assert_eq!(DeliveryStatus::parse(status.code()), Some(status));
        }
        assert_eq!(DeliveryStatus::parse("Pending"), None);
    }
}
