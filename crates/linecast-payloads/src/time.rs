//! How instants are written in payloads: RFC 3339, UTC, `Z`. Most are
//! whole seconds; a publication instant a client may pass back as `as_of`
//! carries every digit the release log keeps.

use chrono::{DateTime, SecondsFormat, Utc};

/// `2026-11-22T18:15:00Z`.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A publication instant with every digit the release log keeps (to the
/// microsecond; a whole second has no fraction): `2026-11-22T16:16:04.460357Z`.
/// Passed back as `as_of`, it reads the release published then, never the
/// one before. Release stamps, history entries, release events,
/// `predictions_date` and the public ledger are written through it; the
/// rule is `linecast_domain::time::exact` (the ledger's roots hash it).
pub use linecast_domain::time::exact;

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .with_timezone(&Utc)
    }

    #[test]
    fn other_instants_are_whole_seconds_and_publication_instants_keep_their_digits() {
        assert_eq!(exact(at("2026-11-22T16:16:04.460357Z")), "2026-11-22T16:16:04.460357Z");
        assert_eq!(rfc3339(at("2026-11-22T16:16:04.460357Z")), "2026-11-22T16:16:04Z");
    }
}
