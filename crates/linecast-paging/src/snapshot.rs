//! Snapshot tokens: a 64-hex SHA-256 naming one generation of a season
//! store, so a client paging a named season notices a republish.

use sha2::{Digest, Sha256};

use crate::PagingError;

/// The snapshot of a season store generation: SHA-256 over its object
/// version and row count, as 64 lowercase hex characters. The row count is
/// included so a store that kept its version string but changed size still
/// reads as a new generation.
pub fn snapshot_token(object_version: &str, row_count: usize) -> String {
    let mut h = Sha256::new();
    h.update(object_version.as_bytes());
    h.update([0u8]);
    h.update((row_count as u64).to_be_bytes());
    hex::encode(h.finalize())
}

/// The snapshot of several season generations together (a whole-history
/// export): SHA-256 over their snapshot tokens in order, as 64 lowercase
/// hex characters. Any season's new generation changes it.
pub fn combined_snapshot<'a>(tokens: impl IntoIterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for token in tokens {
        h.update(token.as_bytes());
        h.update([0u8]);
    }
    hex::encode(h.finalize())
}

/// A syntactically valid snapshot query value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Snapshot(String);

impl Snapshot {
    /// Accepts exactly 64 lowercase hex characters.
    pub fn parse(value: &str) -> Result<Self, PagingError> {
        if value.len() == 64 && value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            Ok(Self(value.to_owned()))
        } else {
            Err(PagingError::InvalidSnapshot {
                value: value.to_owned(),
            })
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_combined_snapshot_follows_every_season_and_their_order() {
        let a = snapshot_token("v1", 10);
        let b = snapshot_token("v2", 12);
        let both = combined_snapshot([a.as_str(), b.as_str()]);
        assert_eq!(both.len(), 64);
        assert_eq!(both, combined_snapshot([a.as_str(), b.as_str()]));
        assert_ne!(both, combined_snapshot([b.as_str(), a.as_str()]));
        let republished = snapshot_token("v3", 12);
        assert_ne!(both, combined_snapshot([a.as_str(), republished.as_str()]));
        // Not just the last season's token.
        assert_ne!(combined_snapshot([a.as_str()]), a);
    }

    #[test]
    fn tokens_are_64_lowercase_hex_and_change_with_version_or_count() {
        let t = snapshot_token("\"abc\"", 10);
        assert_eq!(t.len(), 64);
        assert!(Snapshot::parse(&t).is_ok());
        assert_eq!(t, snapshot_token("\"abc\"", 10), "deterministic");
        assert_ne!(t, snapshot_token("\"abc\"", 11));
        assert_ne!(t, snapshot_token("\"abd\"", 10));
    }

    #[test]
    fn snapshots_must_be_64_lowercase_hex() {
        let t = snapshot_token("v", 1);
        assert!(Snapshot::parse(&t.to_uppercase()).is_err());
        assert!(Snapshot::parse(&t[..63]).is_err());
        assert!(Snapshot::parse(&format!("{t}0")).is_err());
        assert!(Snapshot::parse(&"g".repeat(64)).is_err());
        assert_eq!(
            Snapshot::parse(""),
            Err(PagingError::InvalidSnapshot { value: String::new() })
        );
    }

    proptest! {
        /// Every token parses as a snapshot.
        #[test]
        fn every_token_is_a_valid_snapshot(version in ".{0,40}", count in 0usize..1_000_000) {
            prop_assert!(Snapshot::parse(&snapshot_token(&version, count)).is_ok());
        }
    }
}
