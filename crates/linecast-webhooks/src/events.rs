//! The events an endpoint can receive and their own rules: which quota
//! thresholds a usage increment crosses, when a key's expiry is notified,
//! the key that orders deliveries, the endpoint limit and the response
//! preview the portal shows.
//!
//! Owns the event names and these rules. Knows nothing of storage: what
//! was already notified comes in as an argument.

use chrono::{DateTime, TimeDelta, Utc};

/// The most endpoints one account may have.
pub const MAX_ENDPOINTS_PER_ACCOUNT: usize = 10;

/// How much of a receiver's response body the portal shows, in bytes.
pub const BODY_PREVIEW: usize = 4096;

/// The shares of the monthly quota, in percent, whose crossing is notified
/// (once per period each).
pub const QUOTA_THRESHOLDS: [u8; 3] = [50, 80, 100];

/// An event's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    /// A release was published.
    ReleasePublished,
    /// A series' data status changed.
    DataStatusChanged,
    /// The account's usage crossed a quota threshold.
    QuotaThreshold,
    /// An API key expires soon.
    KeyExpiring,
    /// An endpoint was disabled.
    EndpointDisabled,
}

impl EventType {
    /// Every event type.
    pub const ALL: [Self; 5] = [
        Self::ReleasePublished,
        Self::DataStatusChanged,
        Self::QuotaThreshold,
        Self::KeyExpiring,
        Self::EndpointDisabled,
    ];

    /// The type's name in payloads and subscriptions.
    pub fn code(self) -> &'static str {
        match self {
            Self::ReleasePublished => "release.published",
            Self::DataStatusChanged => "data_status.changed",
            Self::QuotaThreshold => "quota.threshold",
            Self::KeyExpiring => "key.expiring",
            Self::EndpointDisabled => "webhook.endpoint_disabled",
        }
    }

    /// The type a name stands for; `None` for an unknown name (names are
    /// exact: lowercase, no spaces).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.code() == name)
    }
}

/// Whether `used` calls reach `percent` % of `quota`: `used × 100 ≥
/// percent × quota`, in exact integers.
fn reaches(used: u64, percent: u8, quota: u64) -> bool {
    u128::from(used) * 100 >= u128::from(percent) * u128::from(quota)
}

/// How many of the thresholds (50, 80, 100 %) `used` calls reach: 0 below
/// 50 %, 3 at or past the quota. Arithmetic only, for the request path.
pub fn quota_thresholds_reached(used: u64, quota: u64) -> usize {
    QUOTA_THRESHOLDS
        .into_iter()
        .filter(|&percent| reaches(used, percent, quota))
        .count()
}

/// The thresholds (50, 80, 100 %) that usage going from `before` to
/// `after` calls crosses, smallest first: those `after` reaches and
/// `before` did not. A quota of 0 is reached from the start and never
/// crossed.
pub fn quota_thresholds_crossed(before: u64, after: u64, quota: u64) -> Vec<u8> {
    QUOTA_THRESHOLDS
        .into_iter()
        .filter(|&percent| reaches(after, percent, quota) && !reaches(before, percent, quota))
        .collect()
}

/// A notice of a key's coming expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyNotice {
    /// Seven days (or less) before.
    SevenDays,
    /// One day (or less) before.
    OneDay,
}

impl KeyNotice {
    /// The days before expiry the notice is sent at.
    pub fn days(self) -> i64 {
        match self {
            Self::SevenDays => 7,
            Self::OneDay => 1,
        }
    }
}

/// The notice due at `now` for a key expiring at `expires_at`, given the
/// last notice already sent for this expiry: the one-day notice from a day
/// before, the seven-day notice from seven days before, each sent once,
/// none once the key has expired. A key first seen within a day of its
/// expiry gets only the one-day notice.
pub fn key_notice_due(
    expires_at: DateTime<Utc>,
    last_sent: Option<KeyNotice>,
    now: DateTime<Utc>,
) -> Option<KeyNotice> {
    if now >= expires_at {
        return None;
    }
    let left = expires_at - now;
    let due = [KeyNotice::OneDay, KeyNotice::SevenDays]
        .into_iter()
        .find(|notice| left <= TimeDelta::days(notice.days()))?;
    (last_sent < Some(due)).then_some(due)
}

/// What a message's deliveries are ordered by, within each endpoint: an
/// endpoint receives every event of one sport in the order they happened
/// (so every event about one game, which belongs to one sport, in order:
/// `sport/{code}`), and its account's events in their own order
/// (`account`). A test message is ordered only with itself
/// (`test/{message id}`). Different keys are delivered independently, so
/// a slow lane holds up no other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane<'a> {
    Sport(&'a str),
    Account,
    Test(&'a str),
}

/// The order key of a lane.
pub fn ordering_key(lane: Lane<'_>) -> String {
    match lane {
        Lane::Sport(code) => format!("sport/{code}"),
        Lane::Account => "account".to_owned(),
        Lane::Test(message) => format!("test/{message}"),
    }
}

/// Whether an account with `existing` endpoints may add one more.
pub fn may_add_endpoint(existing: usize) -> bool {
    existing < MAX_ENDPOINTS_PER_ACCOUNT
}

/// The first [`BODY_PREVIEW`] bytes of a response body, the portal's
/// preview. When the cut falls inside a UTF-8 character of a text body, the
/// preview ends before that character; a body that is not UTF-8 is cut
/// at the byte.
pub fn truncate_body(body: &[u8]) -> &[u8] {
    let Some(head) = body.get(..BODY_PREVIEW) else {
        return body;
    };
    match std::str::from_utf8(head) {
        Err(error) if error.error_len().is_none() => &head[..error.valid_up_to()],
        _ => head,
    }
}
