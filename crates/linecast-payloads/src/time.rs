//! How instants are written in payloads: RFC 3339, UTC, whole seconds, `Z`.

use chrono::{DateTime, SecondsFormat, Utc};

/// `2026-11-22T18:15:00Z`.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}
