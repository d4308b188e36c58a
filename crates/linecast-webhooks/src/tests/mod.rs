//! The crate's rules pinned from the specification's numbers (issue 78,
//! the Standard Webhooks specification), written out literally here and
//! never computed with the crate's own constants. Signatures were computed
//! independently with Python's `hmac`, `hashlib` and `base64`; each test
//! gives the one-liner.
#![allow(clippy::unwrap_used)]
#![expect(
    clippy::duration_suboptimal_units,
    reason = "expected durations are written in seconds, one unit to compare at a glance"
)]

mod address;
mod breaker;
mod events;
mod schedule;
mod signature;

use chrono::{DateTime, Utc};

/// The instant `secs` seconds after the epoch.
fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}
