//! Signed webhooks' use cases: an account's endpoints ([`Endpoints`]:
//! create, update, rotate the secret, send a test) and the delivery of the
//! outbox ([`Deliverer::round`]: claim the due deliveries, sign, send,
//! record the attempt, settle the delivery by the schedule's decision).
//!
//! Owns the order of those steps, this instance's breakers and the factor
//! that shortens the schedule for tests. The rules are `linecast_webhooks`
//! (signature, schedule, breaker, address ranges, event names); storage is
//! the `WebhookStore` port; HTTP and DNS the `WebhookSender` port; the
//! payloads' JSON the caller's. Must not know SQL, HTTP clients or routes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use linecast_domain::Sport;
use linecast_webhooks::breaker::{Breaker, State, cool_down};
use linecast_webhooks::events::{EventType, Lane, may_add_endpoint, ordering_key};
use linecast_webhooks::schedule::{self, Decision, Outcome};
use linecast_webhooks::signature::{HEADER_ID, HEADER_SIGNATURE, HEADER_TIMESTAMP, KEY_LEN, Secret, signature_header};
use rand::{Rng, TryRngCore};

use crate::AccountsError;
use crate::clock::Clock;
use crate::ports::webhooks::{
    AdmitError, Claimed, ENDPOINT_ID_PREFIX, Endpoint, EndpointCreated, EndpointUpdate, NewAttempt, NewEndpoint,
    NewMessage, SendOutcome, WebhookSender, WebhookStore, new_id,
};

/// How long the previous secret still signs after a rotation: both
/// signatures are sent meanwhile, so a receiver switches without a gap.
pub const ROTATION_GRACE: TimeDelta = TimeDelta::hours(24);

/// The type of the message `send-test` sends, to one endpoint whatever its
/// subscriptions.
pub const TEST_EVENT: &str = "webhook.test";

/// Why an endpoint could not be saved or changed.
#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    /// The URL is refused: the rule's code and words.
    #[error("url: {message}")]
    Url { code: &'static str, message: String },
    /// An event type no endpoint can subscribe to.
    #[error("unknown event type {0}")]
    EventType(String),
    /// No event type at all.
    #[error("an endpoint subscribes to at least one event type")]
    NoEventType,
    /// An unknown sport code.
    #[error("unknown sport {0}")]
    Sport(String),
    /// The account has the most endpoints allowed.
    #[error("the account already has the most endpoints allowed")]
    LimitReached,
    /// The endpoint is disabled (a test is not sent to it).
    #[error("the endpoint is disabled")]
    Disabled,
    #[error(transparent)]
    Accounts(#[from] AccountsError),
}

impl From<AdmitError> for EndpointError {
    fn from(e: AdmitError) -> Self {
        match e {
            AdmitError::Refused { code, message } => Self::Url { code, message },
            AdmitError::Unresolved(host) => Self::Url {
                code: "unresolved",
                message: format!("the host {host} does not resolve"),
            },
        }
    }
}

/// The event types, each a known name: at least one, no repeats (kept in
/// the given order).
pub fn event_types(names: &[String]) -> Result<Vec<String>, EndpointError> {
    if names.is_empty() {
        return Err(EndpointError::NoEventType);
    }
    let mut kept: Vec<String> = Vec::new();
    for name in names {
        if EventType::parse(name).is_none() {
            return Err(EndpointError::EventType(name.clone()));
        }
        if !kept.contains(name) {
            kept.push(name.clone());
        }
    }
    Ok(kept)
}

/// The sport filter, each a sport code; empty means every sport.
pub fn sports(codes: &[String]) -> Result<Vec<String>, EndpointError> {
    let mut kept: Vec<String> = Vec::new();
    for code in codes {
        let sport = Sport::parse(code).map_err(|_| EndpointError::Sport(code.clone()))?;
        let code = sport.code().to_owned();
        if !kept.contains(&code) {
            kept.push(code);
        }
    }
    Ok(kept)
}

fn new_secret() -> Result<Secret, AccountsError> {
    let mut bytes = [0u8; KEY_LEN];
    rand::rngs::OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| AccountsError::Unavailable(format!("OS random source failed: {e}")))?;
    Ok(Secret::from_random(bytes))
}

/// What a customer asks for when creating an endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointRequest {
    pub url: String,
    pub description: Option<String>,
    pub event_types: Vec<String>,
    pub sports: Vec<String>,
}

/// An account's endpoints, as the API and the portal manage them.
pub struct Endpoints {
    store: Arc<dyn WebhookStore>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
}

impl Endpoints {
    pub fn new(store: Arc<dyn WebhookStore>, sender: Arc<dyn WebhookSender>, clock: Arc<dyn Clock>) -> Self {
        Self { store, sender, clock }
    }

    /// The store, for the reads and changes that need no rule of their
    /// own (list, read, delete, the log, resend, recover).
    pub fn store(&self) -> &Arc<dyn WebhookStore> {
        &self.store
    }

    /// The webhooks' clock (the system's: deliveries run in real time).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// Creates an endpoint (URL admitted by the sender's rules, event types
    /// and sports known, under the account's limit); the endpoint and its
    /// secret, shown once.
    pub async fn create(
        &self,
        customer_id: i64,
        request: EndpointRequest,
    ) -> Result<(Endpoint, Secret), EndpointError> {
        let event_types = event_types(&request.event_types)?;
        let sports = sports(&request.sports)?;
        // The limit is applied again, atomically, by the store; checked
        // first so a refused creation costs no DNS lookup.
        if !may_add_endpoint(self.store.endpoints(customer_id).await?.len()) {
            return Err(EndpointError::LimitReached);
        }
        self.sender.admit(&request.url).await?;
        let secret = new_secret()?;
        let new = NewEndpoint {
            id: new_id(ENDPOINT_ID_PREFIX)?,
            customer_id,
            url: request.url,
            description: request.description,
            event_types,
            sports,
            secret: secret.to_string(),
        };
        match self.store.create_endpoint(new, self.clock.now()).await? {
            EndpointCreated::Created(endpoint) => Ok((*endpoint, secret)),
            EndpointCreated::LimitReached { .. } => Err(EndpointError::LimitReached),
        }
    }

    /// Changes the given fields (a new URL is admitted again; enabling an
    /// endpoint clears its failures).
    pub async fn update(
        &self,
        customer_id: i64,
        id: &str,
        mut update: EndpointUpdate,
    ) -> Result<Endpoint, EndpointError> {
        if self.store.endpoint(customer_id, id).await?.is_none() {
            return Err(AccountsError::NotFound.into());
        }
        if let Some(types) = &update.event_types {
            update.event_types = Some(event_types(types)?);
        }
        if let Some(codes) = &update.sports {
            update.sports = Some(sports(codes)?);
        }
        if let Some(url) = &update.url {
            self.sender.admit(url).await?;
        }
        Ok(self
            .store
            .update_endpoint(customer_id, id, update, self.clock.now())
            .await?)
    }

    /// A new secret, shown once; the current one keeps signing beside it
    /// for [`ROTATION_GRACE`].
    pub async fn rotate(&self, customer_id: i64, id: &str) -> Result<(Endpoint, Secret), EndpointError> {
        let secret = new_secret()?;
        let now = self.clock.now();
        let endpoint = self
            .store
            .rotate_secret(customer_id, id, &secret.to_string(), now + ROTATION_GRACE, now)
            .await?;
        Ok((endpoint, secret))
    }

    /// Queues a test message (`payload`, of type [`TEST_EVENT`]) to this
    /// endpoint only; its message id.
    pub async fn send_test(&self, customer_id: i64, id: &str, payload: String) -> Result<String, EndpointError> {
        let endpoint = self
            .store
            .endpoint(customer_id, id)
            .await?
            .ok_or(AccountsError::NotFound)?;
        if !endpoint.enabled {
            return Err(EndpointError::Disabled);
        }
        let message_id = new_id(crate::ports::webhooks::MESSAGE_ID_PREFIX)?;
        let message = NewMessage {
            id: message_id.clone(),
            customer_id: Some(customer_id),
            event_type: TEST_EVENT.to_owned(),
            sport: None,
            order_key: ordering_key(Lane::Test(&message_id)),
            payload,
            dedupe_key: None,
            created_at: self.clock.now(),
        };
        self.store.enqueue_to(message, &endpoint.id).await?;
        Ok(message_id)
    }
}

/// The delivery worker's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeliverySettings {
    /// How long a claim holds: longer than an attempt may take, so a live
    /// worker keeps its claim and a dead one's lapses.
    pub lease: Duration,
    /// Deliveries claimed per round.
    pub batch: u32,
    /// The factor on every retry delay, on the breaker's cool-down and on
    /// the five days of failures that disable an endpoint: 1 in
    /// production; a test sets it lower to run the schedule in seconds.
    pub schedule_scale: f64,
}

impl Default for DeliverySettings {
    fn default() -> Self {
        Self {
            lease: schedule::TIMEOUT * 4,
            batch: 50,
            schedule_scale: 1.0,
        }
    }
}

/// What one delivery came to (for logs and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    Delivered,
    /// Due again at this instant.
    Retry(DateTime<Utc>),
    Failed,
    /// The endpoint was disabled (a 410, or five days of failures); the
    /// delivery waits, pending, until it is enabled.
    EndpointDisabled,
    /// The breaker is open: no attempt, due again when it half-opens.
    Held(DateTime<Utc>),
    /// The endpoint is gone (deleted meanwhile): nothing sent.
    Gone,
}

/// Delivers the outbox: one per instance, each round off the request path.
pub struct Deliverer {
    store: Arc<dyn WebhookStore>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    worker: String,
    settings: DeliverySettings,
    breakers: Mutex<HashMap<String, Breaker>>,
    /// Makes the `webhook.endpoint_disabled` message of an endpoint this
    /// worker disabled (the caller owns the payload's JSON); none: no
    /// message.
    disabled_notice: Option<DisabledNotice>,
}

/// Makes the message telling an account that one of its endpoints was
/// disabled (`endpoint`, the reason `gone` or `failing`, the instant).
pub type DisabledNotice = Arc<dyn Fn(&Endpoint, &'static str, DateTime<Utc>) -> Option<NewMessage> + Send + Sync>;

impl Deliverer {
    /// `worker` names this instance in claims (unique per process).
    pub fn new(
        store: Arc<dyn WebhookStore>,
        sender: Arc<dyn WebhookSender>,
        clock: Arc<dyn Clock>,
        worker: String,
        settings: DeliverySettings,
    ) -> Self {
        Self {
            store,
            sender,
            clock,
            worker,
            settings,
            breakers: Mutex::new(HashMap::new()),
            disabled_notice: None,
        }
    }

    /// Writes a `webhook.endpoint_disabled` message (made by `notice`) to
    /// the outbox whenever this worker disables an endpoint: the account's
    /// other endpoints subscribed to it are told.
    #[must_use]
    pub fn telling_disabled(mut self, notice: DisabledNotice) -> Self {
        self.disabled_notice = Some(notice);
        self
    }

    /// Disables the endpoint for `reason` and tells the account.
    async fn disable(&self, endpoint: &Endpoint, reason: &'static str, at: DateTime<Utc>) -> Result<(), AccountsError> {
        self.store.disable_endpoint(&endpoint.id, reason, at).await?;
        if let Some(message) = self
            .disabled_notice
            .as_ref()
            .and_then(|make| make(endpoint, reason, at))
            && let Err(e) = self.store.enqueue(message).await
        {
            tracing::warn!(endpoint = %endpoint.id, error = %e, "webhooks: the endpoint_disabled notice was not put in the outbox");
        }
        Ok(())
    }

    /// One round: claims the due deliveries and makes one attempt of each,
    /// every endpoint's at once (one slow receiver delays only its own);
    /// what each came to, in claim order.
    pub async fn round(&self) -> Result<Vec<(i64, Settled)>, AccountsError> {
        let claimed = self
            .store
            .claim_due(&self.worker, self.clock.now(), self.settings.lease, self.settings.batch)
            .await?;
        let settled = futures::future::join_all(claimed.into_iter().map(|c| async move {
            let id = c.delivery.id;
            (id, self.deliver(c).await)
        }))
        .await;
        let mut out = Vec::with_capacity(settled.len());
        for (id, result) in settled {
            match result {
                Ok(s) => out.push((id, s)),
                // The claim lapses and another round tries again.
                Err(e) => tracing::warn!(delivery = id, error = %e, "webhook delivery not settled"),
            }
        }
        Ok(out)
    }

    fn scaled(&self, wait: TimeDelta) -> TimeDelta {
        let scale = self.settings.schedule_scale;
        if (scale - 1.0).abs() < f64::EPSILON {
            return wait;
        }
        TimeDelta::microseconds((wait.num_microseconds().unwrap_or(i64::MAX) as f64 * scale) as i64)
    }

    fn with_breaker<T>(&self, endpoint: &str, f: impl FnOnce(&mut Breaker) -> T) -> T {
        let mut breakers = self.breakers.lock().unwrap_or_else(PoisonError::into_inner);
        f(breakers.entry(endpoint.to_owned()).or_default())
    }

    async fn deliver(&self, claimed: Claimed) -> Result<Settled, AccountsError> {
        let Claimed { delivery, message } = claimed;
        let Some(endpoint) = self.store.find_endpoint(&delivery.endpoint_id).await? else {
            return Ok(Settled::Gone);
        };
        let now = self.clock.now();
        // The breaker's instants run on the scaled clock: an open breaker
        // holds for its cool-down times the scale.
        let held = self.with_breaker(&endpoint.id, |b| {
            if b.allow(now) {
                None
            } else {
                Some(match b.state() {
                    State::Open { until } => now + self.scaled(until - now),
                    _ => now + self.scaled(TimeDelta::from_std(cool_down(1)).unwrap_or(TimeDelta::MAX)),
                })
            }
        });
        if let Some(at) = held {
            self.store.reschedule(delivery.id, at).await?;
            return Ok(Settled::Held(at));
        }
        let secrets: Vec<Secret> = endpoint
            .signing_secrets(now)
            .into_iter()
            .map(Secret::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| {
                AccountsError::Unavailable(format!("endpoint {}: a stored secret is malformed: {e}", endpoint.id))
            })?;
        let timestamp = now.timestamp();
        let body = Bytes::from(message.payload.into_bytes());
        let headers = [
            (HEADER_ID, message.id.clone()),
            (HEADER_TIMESTAMP, timestamp.to_string()),
            (
                HEADER_SIGNATURE,
                signature_header(&secrets, &message.id, timestamp, &body),
            ),
            ("content-type", "application/json".to_owned()),
        ];
        let report = self.sender.send(&endpoint.url, &headers, body).await;
        let done = self.clock.now();
        let (outcome, status_code, error) = match &report.outcome {
            SendOutcome::Response { status, retry_after } => (
                Outcome::Response {
                    status: *status,
                    retry_after: retry_after
                        .as_deref()
                        .and_then(|v| schedule::parse_retry_after(v, done)),
                },
                Some(*status),
                None,
            ),
            SendOutcome::Timeout => (Outcome::Timeout, None, Some("timeout".to_owned())),
            SendOutcome::ConnectFailed(why) => (Outcome::ConnectFailed, None, Some(format!("connect: {why}"))),
            SendOutcome::Refused(code) => (Outcome::ConnectFailed, None, Some(format!("address refused: {code}"))),
        };
        let jitter: f64 = rand::rng().random();
        let decision = match schedule::next_attempt(delivery.attempts + 1, outcome, done, jitter) {
            Decision::RetryAt(at) => Decision::RetryAt(done + self.scaled(at - done)),
            other => other,
        };
        let succeeded = decision == Decision::Delivered;
        self.store
            .record_attempt(
                delivery.id,
                NewAttempt {
                    attempted_at: now,
                    status_code,
                    latency_ms: u32::try_from(report.latency.as_millis()).unwrap_or(u32::MAX),
                    error,
                    response_body: report.body,
                    succeeded,
                },
            )
            .await?;
        self.with_breaker(&endpoint.id, |b| if succeeded { b.success() } else { b.failure(done) });
        match decision {
            Decision::Delivered => {
                self.store.mark_delivered(delivery.id, done).await?;
                Ok(Settled::Delivered)
            }
            Decision::Disable => {
                self.disable(&endpoint, "gone", done).await?;
                self.store.reschedule(delivery.id, done).await?;
                Ok(Settled::EndpointDisabled)
            }
            Decision::RetryAt(at) => {
                if self.failing_too_long(&endpoint, done) {
                    self.disable(&endpoint, "failing", done).await?;
                    self.store.reschedule(delivery.id, at).await?;
                    return Ok(Settled::EndpointDisabled);
                }
                self.store.reschedule(delivery.id, at).await?;
                Ok(Settled::Retry(at))
            }
            Decision::Failed => {
                self.store.mark_failed(delivery.id).await?;
                if self.failing_too_long(&endpoint, done) {
                    self.disable(&endpoint, "failing", done).await?;
                }
                Ok(Settled::Failed)
            }
        }
    }

    /// Whether the endpoint's failures (since `failing_since`, as read
    /// before this attempt) have lasted the scaled five days.
    fn failing_too_long(&self, endpoint: &Endpoint, now: DateTime<Utc>) -> bool {
        let Some(since) = endpoint.failing_since else {
            return false;
        };
        let scale = self.settings.schedule_scale.max(f64::MIN_POSITIVE);
        let lasted = (now - since).num_microseconds().unwrap_or(i64::MAX) as f64 / scale;
        let unscaled_since = now - TimeDelta::microseconds(lasted.min(i64::MAX as f64) as i64);
        schedule::disables_endpoint(unscaled_since, now)
    }
}

/// A quota threshold an account's usage reached this period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaCrossing {
    pub customer_id: i64,
    /// The UTC month counted in, `YYYY-MM`.
    pub period: String,
    /// 50, 80 or 100.
    pub percent: u8,
    /// Requests counted this period when it was seen.
    pub used: u64,
    pub monthly_limit: u64,
    pub at: DateTime<Utc>,
}

impl QuotaCrossing {
    /// What makes the notice once per account, period and threshold
    /// across instances (the outbox stores one message per key).
    pub fn dedupe_key(&self) -> String {
        format!("quota.threshold/{}/{}/{}", self.customer_id, self.period, self.percent)
    }
}

/// The quota thresholds admitted requests reach, noticed on the request
/// path (arithmetic only below 50 % and between two thresholds, one short
/// lock each) and taken off it by the delivery worker's round, which
/// writes them to the outbox.
#[derive(Debug, Default)]
pub struct QuotaNotices {
    /// Per account: what this instance last noted in a month.
    seen: Mutex<foldhash::HashMap<i64, Noted>>,
    crossed: Mutex<Vec<QuotaCrossing>>,
}

/// An account's month as this instance noted it.
#[derive(Debug, Clone, Copy)]
struct Noted {
    /// The UTC month, as months since year 0.
    month: i32,
    /// How many thresholds the requests noted reached.
    reached: usize,
    /// The requests counted when the last threshold was noted.
    used: u64,
}

impl QuotaNotices {
    pub fn new() -> Self {
        Self::default()
    }

    /// An admitted request: `used` requests counted this period (this one
    /// included) of `monthly_limit`, at `at`. Every threshold crossed since
    /// the most this instance saw counted this period is noted (all of
    /// those reached, the first time an account is seen in a period: the
    /// outbox keeps one of each whoever notes it). A request that reaches
    /// no threshold not noted yet formats, allocates and stores nothing.
    pub fn observe(&self, customer_id: i64, used: u64, monthly_limit: u64, at: DateTime<Utc>) {
        use chrono::Datelike as _;
        let reached = linecast_webhooks::events::quota_thresholds_reached(used, monthly_limit);
        if reached == 0 {
            return;
        }
        let month = at.year() * 12 + at.month0() as i32;
        let before = {
            let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
            let noted = seen.entry(customer_id).or_insert(Noted {
                month,
                reached: 0,
                used: 0,
            });
            if noted.month != month {
                *noted = Noted {
                    month,
                    reached: 0,
                    used: 0,
                };
            }
            if reached <= noted.reached {
                return;
            }
            let before = noted.used;
            *noted = Noted { month, reached, used };
            before
        };
        let crossed = linecast_webhooks::events::quota_thresholds_crossed(before, used, monthly_limit);
        let period = at.format("%Y-%m").to_string();
        let mut queue = self.crossed.lock().unwrap_or_else(PoisonError::into_inner);
        queue.extend(crossed.into_iter().map(|percent| QuotaCrossing {
            customer_id,
            period: period.clone(),
            percent,
            used,
            monthly_limit,
            at,
        }));
    }

    /// The crossings noted since the last call, oldest first.
    pub fn take(&self) -> Vec<QuotaCrossing> {
        std::mem::take(&mut *self.crossed.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Notes again crossings whose message could not be written (the
    /// database refused): the next round tries them again.
    pub fn put_back(&self, crossings: Vec<QuotaCrossing>) {
        let mut queue = self.crossed.lock().unwrap_or_else(PoisonError::into_inner);
        let later = std::mem::replace(&mut *queue, crossings);
        queue.extend(later);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn percents(notices: &QuotaNotices) -> Vec<(u8, u64)> {
        notices.take().into_iter().map(|c| (c.percent, c.used)).collect()
    }

    #[test]
    fn each_threshold_is_noted_once_a_period_whatever_the_steps_of_usage() {
        let notices = QuotaNotices::new();
        let nov = at("2026-11-20T10:00:00Z");
        // A quota of 10: 5 is 50 %, 8 is 80 %, 10 is 100 %.
        notices.observe(1, 4, 10, nov);
        assert!(percents(&notices).is_empty());
        notices.observe(1, 5, 10, nov);
        notices.observe(1, 5, 10, nov);
        assert_eq!(percents(&notices), vec![(50, 5)]);
        // A jump over two thresholds (usage leased in blocks) notes both.
        notices.observe(1, 10, 10, nov);
        assert_eq!(percents(&notices), vec![(80, 10), (100, 10)]);
        // An older count seen late notes nothing again.
        notices.observe(1, 9, 10, nov);
        assert!(percents(&notices).is_empty());
        // Another account, its own thresholds.
        notices.observe(2, 40, 50, nov);
        assert_eq!(percents(&notices), vec![(50, 40), (80, 40)]);
        // A new period starts over.
        notices.observe(1, 6, 10, at("2026-12-01T00:00:01Z"));
        let december = notices.take();
        assert_eq!(december.len(), 1);
        assert_eq!((december[0].percent, december[0].period.as_str()), (50, "2026-12"));
        assert_eq!(december[0].dedupe_key(), "quota.threshold/1/2026-12/50");
    }

    #[test]
    fn crossings_put_back_come_first_next_time() {
        let notices = QuotaNotices::new();
        let nov = at("2026-11-20T10:00:00Z");
        notices.observe(1, 5, 10, nov);
        let first = notices.take();
        notices.observe(1, 8, 10, nov);
        notices.put_back(first);
        assert_eq!(percents(&notices), vec![(50, 5), (80, 8)]);
    }
}
