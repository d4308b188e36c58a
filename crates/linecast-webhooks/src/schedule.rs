//! When a delivery is tried again: the Standard Webhooks schedule (an
//! immediate attempt, then retries after 5 s, 5 min, 30 min, 2 h, 5 h,
//! 10 h, 14 h, 20 h and 24 h, each with jitter), what a response means,
//! how `Retry-After` is honoured and when failures disable an endpoint.
//!
//! Owns the numbers and the decision. Knows nothing of HTTP clients or
//! queues: the response's outcome, the instant and the random draw come
//! in as arguments.

use std::time::{Duration, SystemTime};

use chrono::{DateTime, TimeDelta, Utc};

/// The delays before the 2nd to the 10th attempt, after the attempt before
/// fails. After the 10th attempt fails, the message has failed.
pub const SCHEDULE: [Duration; 9] = [
    Duration::from_secs(5),
    Duration::from_mins(5),
    Duration::from_mins(30),
    Duration::from_hours(2),
    Duration::from_hours(5),
    Duration::from_hours(10),
    Duration::from_hours(14),
    Duration::from_hours(20),
    Duration::from_hours(24),
];

/// How long one attempt may take, connection included, before it counts
/// as a timeout.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// The jitter, in thousandths of a delay, either way: a delay `d` becomes
/// a delay in `[0.8 d, 1.2 d)`, spread so endpoints that failed together
/// are not retried together.
pub const JITTER_PERMILLE: u64 = 200;

/// The longest wait a receiver's `Retry-After` can ask for.
pub const RETRY_AFTER_CAP: Duration = Duration::from_hours(24);

/// How long an endpoint's failures may last (from its first failure since
/// its last success) before a failure disables it.
pub const DISABLE_AFTER: Duration = Duration::from_hours(5 * 24);

/// What one attempt came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The receiver answered with this status and, when it sent one and it
    /// could be read ([`parse_retry_after`]), its `Retry-After`.
    Response {
        /// The HTTP status.
        status: u16,
        /// The receiver's `Retry-After`, as a wait from the attempt.
        retry_after: Option<Duration>,
    },
    /// No answer within [`TIMEOUT`].
    Timeout,
    /// The connection could not be made (refused, TLS, an address refused).
    ConnectFailed,
}

/// What to do after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A 2xx: the message is delivered.
    Delivered,
    /// A 410 Gone: the receiver asks to be disabled; the endpoint is.
    Disable,
    /// Try again at this instant.
    RetryAt(DateTime<Utc>),
    /// The last attempt failed: the message has failed.
    Failed,
}

/// Reads a `Retry-After` header: whole seconds, or an HTTP-date (any of
/// RFC 9110's three forms), as a wait from `now` (a date already past is
/// no wait). `None` when it is neither.
pub fn parse_retry_after(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return Some(value.parse().map_or(Duration::MAX, Duration::from_secs));
    }
    let date: SystemTime = httpdate::parse_http_date(value).ok()?;
    Some((DateTime::<Utc>::from(date) - now).to_std().unwrap_or(Duration::ZERO))
}

/// The delay before the attempt after attempt `attempt` (counted from 1),
/// jittered by a draw `jitter` in `[0, 1)`: 0 gives 80 % of the delay, 0.5
/// the delay, draws towards 1 up to 120 %. `None` after the last attempt.
pub fn delay(attempt: u32, jitter: f64) -> Option<Duration> {
    let base = *SCHEDULE.get(attempt.saturating_sub(1) as usize)?;
    let draw = (jitter.clamp(0.0, 1.0) * (2 * JITTER_PERMILLE) as f64) as u64;
    let permille = 1000 - JITTER_PERMILLE + draw;
    let millis = base.as_millis() as u64 * permille / 1000;
    Some(Duration::from_millis(millis))
}

/// The decision after attempt `attempt` (counted from 1; the first attempt
/// is made at once) ended in `outcome` at `now`, with a random draw
/// `jitter` in `[0, 1)`.
///
/// A 2xx is delivered; a 410 disables the endpoint; anything else (another
/// status, a timeout, a failed connection) is tried again after the
/// schedule's jittered delay, or has failed after the 10th attempt. A 429
/// or 503 carrying `Retry-After` waits the longer of the jittered delay
/// and the `Retry-After`, the latter capped at [`RETRY_AFTER_CAP`]: a
/// receiver may slow the retries but never hurry them, nor hold a message
/// longer than a day per attempt. It still uses up an attempt.
pub fn next_attempt(attempt: u32, outcome: Outcome, now: DateTime<Utc>, jitter: f64) -> Decision {
    let mut asked = Duration::ZERO;
    if let Outcome::Response { status, retry_after } = outcome {
        match status {
            200..=299 => return Decision::Delivered,
            410 => return Decision::Disable,
            429 | 503 => asked = retry_after.unwrap_or(Duration::ZERO).min(RETRY_AFTER_CAP),
            _ => {}
        }
    }
    let Some(delay) = delay(attempt, jitter) else {
        return Decision::Failed;
    };
    let wait = delay.max(asked);
    Decision::RetryAt(now + TimeDelta::from_std(wait).unwrap_or(TimeDelta::MAX))
}

/// Whether a failure at `now` disables an endpoint whose failures began
/// (its first failure since its last success) at `failing_since`: once
/// they have lasted [`DISABLE_AFTER`] or longer.
pub fn disables_endpoint(failing_since: DateTime<Utc>, now: DateTime<Utc>) -> bool {
    (now - failing_since)
        .to_std()
        .is_ok_and(|lasted| lasted >= DISABLE_AFTER)
}
