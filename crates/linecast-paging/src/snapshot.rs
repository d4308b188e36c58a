//! Snapshot tokens: 64 lowercase hex characters naming one generation of
//! a season store, so a client paging a named season notices a republish.
//! A token checks itself: its last 8 hex characters are a check over the
//! first 56, so a value the service never issued is told apart (a 400)
//! from one it issued for a generation since replaced (a 409).

use sha2::{Digest, Sha256};

use crate::PagingError;

/// Hex characters of a token's name of its generation.
const NAME_HEX: usize = 56;

/// The domain label of the check, so a check is never another hash's prefix.
const CHECK_LABEL: &[u8] = b"linecast snapshot check\0";

/// The check over a token's first 56 hex characters: the first 4 bytes of
/// SHA-256 over the label and them, as 8 lowercase hex characters.
fn check(name: &str) -> String {
    let mut h = Sha256::new();
    h.update(CHECK_LABEL);
    h.update(name.as_bytes());
    hex::encode(&h.finalize()[..4])
}

/// A token from a digest: its first 28 bytes, then their check.
fn token(digest: &[u8]) -> String {
    let mut name = hex::encode(digest);
    name.truncate(NAME_HEX);
    let check = check(&name);
    name.push_str(&check);
    name
}

/// The snapshot of a season store generation: the first 28 bytes of
/// SHA-256 over its object version and row count, as 56 lowercase hex
/// characters, then their check. The row count is included so a store that
/// kept its version string but changed size still reads as a new
/// generation.
pub fn snapshot_token(object_version: &str, row_count: usize) -> String {
    let mut h = Sha256::new();
    h.update(object_version.as_bytes());
    h.update([0u8]);
    h.update((row_count as u64).to_be_bytes());
    token(&h.finalize())
}

/// The snapshot of several season generations together (a whole-history
/// export): SHA-256 over their snapshot tokens in order, each followed by
/// a zero byte, made a token as `snapshot_token` makes one. Any season's
/// new generation changes it.
pub fn combined_snapshot<'a>(tokens: impl IntoIterator<Item = &'a str>) -> String {
    let mut h = Sha256::new();
    for token in tokens {
        h.update(token.as_bytes());
        h.update([0u8]);
    }
    token(&h.finalize())
}

/// A syntactically valid snapshot query value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Snapshot(String);

impl Snapshot {
    /// Accepts exactly 64 lowercase hex characters whose last 8 are the
    /// check of the first 56: a token this service issued.
    pub fn parse(value: &str) -> Result<Self, PagingError> {
        if value.len() == 64
            && value.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            && value[NAME_HEX..] == check(&value[..NAME_HEX])
        {
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

    /// The tokens of a worked example, computed outside Rust (Python's
    /// hashlib): SHA-256 of `v1`, a zero byte and 10 as 8 big-endian bytes,
    /// its first 56 hex, then the first 8 hex of SHA-256 of
    /// `linecast snapshot check`, a zero byte and those 56.
    #[test]
    fn a_token_is_the_generations_digest_then_its_check_as_spelled_by_hand() {
        let a = snapshot_token("v1", 10);
        assert_eq!(a, "03f4608a04bd4c3379b691581df58328411f8af5f3ebb2b4c5b86904a47e76bc");
        let b = snapshot_token("v2", 12);
        assert_eq!(
            combined_snapshot([a.as_str(), b.as_str()]),
            "b1115dd950a0eda814e11593b78a6ea42c7803a00d56a9b798b13a188d440e53"
        );
    }

    /// A well-formed value the service never issued is refused as
    /// malformed (400), not taken for a replaced generation (409).
    #[test]
    fn a_made_up_or_altered_snapshot_is_invalid() {
        let issued = "03f4608a04bd4c3379b691581df58328411f8af5f3ebb2b4c5b86904a47e76bc";
        assert!(Snapshot::parse(issued).is_ok());
        for made_up in [
            "0".repeat(64),
            "a".repeat(64),
            // One character of the name changed.
            format!("13{}", &issued[2..]),
            // One character of the check changed.
            format!("{}d", &issued[..63]),
        ] {
            assert_eq!(
                Snapshot::parse(&made_up),
                Err(PagingError::InvalidSnapshot { value: made_up.clone() }),
                "{made_up}"
            );
        }
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
