//! Key material: an API key's format (the product prefix and a base62
//! body), its generation from the OS random source, its SHA-256 hash (the
//! only stored form, remembered per thread for the hot path), its masked
//! form and display prefix, how a caller names a key, and the
//! constant-time comparison of secrets.

use rand::TryRngCore;
use sha2::{Digest, Sha256};

use crate::ports::accounts::AccountsError;

/// Every key starts with this product prefix.
pub const KEY_PREFIX: &str = "sk_service_";
/// Random base62 characters in a newly generated key body (spec: at least 32).
pub const KEY_BODY_LEN: usize = 40;
/// Body characters kept in the masked form and in `display_prefix`.
pub const DISPLAY_PREFIX_LEN: usize = 4;
/// What replaces the rest of the body in the masked form.
pub const MASK_SUFFIX: &str = "*****";

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// SHA-256 of the full key, lower-case hex: the only form that is stored.
pub fn hash_key(full_key: &str) -> String {
    KeyHash::of(full_key).as_str().to_owned()
}

/// [`hash_key`] held on the stack: the authenticated hot path hashes every
/// presented key and only needs to look it up.
#[derive(Clone, Copy)]
pub struct KeyHash([u8; 64]);

impl KeyHash {
    /// SHA-256 of `full_key`, as 64 lower-case hex digits. A pure function,
    /// so each worker thread remembers the digests of the keys it saw last
    /// (at most [`Self::REMEMBERED`], then it starts over): a key in use is
    /// hashed once per thread, not on every request. The map is keyed by
    /// the full key and compared exactly (foldhash, randomly seeded per
    /// process: no client can aim keys at one bucket without the seed, and
    /// the map holds at most `REMEMBERED`), so it can never answer another key's
    /// digest; it authorizes nothing by itself, every lookup still goes to
    /// the key directory with the digest.
    pub fn of(full_key: &str) -> Self {
        Self::remembered(full_key).unwrap_or_else(|| Self::learn(full_key, has_key_shape(full_key)))
    }

    /// The digest of `presented` when it has a key's shape
    /// ([`has_key_shape`]), `None` otherwise. Only keys of that shape are
    /// remembered, so a remembered one is not checked again.
    pub fn of_key(presented: &str) -> Option<Self> {
        Self::remembered(presented).or_else(|| has_key_shape(presented).then(|| Self::learn(presented, true)))
    }

    fn remembered(full_key: &str) -> Option<Self> {
        crate::memo::key_digest_known(full_key).map(Self)
    }

    /// Computes the digest, and remembers it when `full_key` has a key's
    /// shape (`shaped`, as the caller checked it).
    fn learn(full_key: &str, shaped: bool) -> Self {
        Self(crate::memo::key_digest(full_key, shaped, |k| Self::digest(k).0))
    }

    /// Digests each worker thread remembers (`memo::key_digests`).
    pub const REMEMBERED: usize = crate::memo::KEY_DIGESTS;

    /// SHA-256 of `full_key`, computed.
    fn digest(full_key: &str) -> Self {
        // Written through a stack buffer: `hex::encode` collects char by
        // char, which costs more than the digest.
        let mut out = [0_u8; 64];
        // 32 digest bytes always fit 64 hex digits.
        let _ = hex::encode_to_slice(Sha256::digest(full_key.as_bytes()), &mut out);
        Self(out)
    }

    pub fn as_str(&self) -> &str {
        // Hex digits are ASCII: the check is the ASCII fast path, never fails.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl std::fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("KeyHash").field(&self.as_str()).finish()
    }
}

impl crate::ports::accounts::ApiKeyRecord {
    /// The masked form shown in lists (the key's mask lives with its format,
    /// so the port's records do not depend on key material).
    pub fn masked(&self) -> String {
        masked_from_prefix(&self.display_prefix)
    }
}

/// A new key: the prefix and `KEY_BODY_LEN` base62 characters from the OS RNG.
/// Fails only when the OS random source fails.
pub fn generate_key() -> Result<String, AccountsError> {
    let mut key = String::with_capacity(KEY_PREFIX.len() + KEY_BODY_LEN);
    key.push_str(KEY_PREFIX);
    let mut buf = [0u8; 64];
    while key.len() < KEY_PREFIX.len() + KEY_BODY_LEN {
        rand::rngs::OsRng
            .try_fill_bytes(&mut buf)
            .map_err(|e| AccountsError::Unavailable(format!("OS random source failed: {e}")))?;
        // Rejection sampling: 248 = 4 * 62, so accepted bytes map uniformly.
        for &b in buf.iter().filter(|&&b| b < 248) {
            if key.len() == KEY_PREFIX.len() + KEY_BODY_LEN {
                break;
            }
            key.push(char::from(BASE62[usize::from(b % 62)]));
        }
    }
    Ok(key)
}

/// Shortest and longest key body accepted as a key (issued keys have
/// `KEY_BODY_LEN`; the spec's keys have at least 32 characters).
pub const KEY_BODY_CHARS: std::ops::RangeInclusive<usize> = 32..=64;

// The per-thread digest memo holds the longest key inline, in an array of
// its own fixed length.
const _: () = assert!(
    KEY_PREFIX.len() + *KEY_BODY_CHARS.end() == crate::memo::HELD_KEY_MAX,
    "memo::HELD_KEY_MAX must be the longest key: the prefix and the longest body"
);

/// The key body after the prefix, if `s` has the full-key shape: the
/// prefix, then `KEY_BODY_CHARS` base62 characters.
pub fn key_body(s: &str) -> Option<&str> {
    let body = s.strip_prefix(KEY_PREFIX)?;
    (KEY_BODY_CHARS.contains(&body.len()) && body.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(body)
}

/// Whether `s` could be a key at all (checked before any lookup).
pub fn has_key_shape(s: &str) -> bool {
    key_body(s).is_some()
}

/// The first four body characters of a full key, stored as `display_prefix`.
pub fn display_prefix(full_key: &str) -> Option<&str> {
    key_body(full_key).map(|body| &body[..DISPLAY_PREFIX_LEN])
}

/// The masked form of a full key: prefix, four body characters, `*****`.
/// `None` if `full_key` is not a key.
pub fn mask_key(full_key: &str) -> Option<String> {
    display_prefix(full_key).map(masked_from_prefix)
}

/// The masked form from a stored `display_prefix`.
pub fn masked_from_prefix(display_prefix: &str) -> String {
    format!("{KEY_PREFIX}{display_prefix}{MASK_SUFFIX}")
}

/// How a caller named a key in rename or revoke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRef {
    /// A full key, matched by its hash.
    Full { key_hash: String },
    /// A masked key, matched by `display_prefix` among the caller's keys.
    Masked { display_prefix: String },
}

/// Reads a full or masked key; `None` if it is neither.
pub fn parse_key_ref(s: &str) -> Option<KeyRef> {
    if key_body(s).is_some() {
        return Some(KeyRef::Full { key_hash: hash_key(s) });
    }
    let prefix = s.strip_prefix(KEY_PREFIX)?.strip_suffix(MASK_SUFFIX)?;
    (prefix.len() == DISPLAY_PREFIX_LEN && prefix.bytes().all(|b| b.is_ascii_alphanumeric())).then(|| KeyRef::Masked {
        display_prefix: prefix.to_owned(),
    })
}

/// Equality whose time does not depend on where two equal-length inputs
/// differ, for comparing secrets or their hashes.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use proptest::prelude::*;

    /// The remembered digests are the digests: each of more keys than a
    /// thread remembers, asked twice in rounds (so some are answered from
    /// memory and some after the memory started over), is the SHA-256 of
    /// that key, computed here independently.
    #[test]
    fn a_remembered_key_digest_is_always_that_keys_sha256() {
        let keys: Vec<String> = (0..KeyHash::REMEMBERED + 500)
            .map(|i| format!("sk_service_{i:040}"))
            .collect();
        for _ in 0..2 {
            for key in &keys {
                let expected = hex::encode(sha2::Sha256::digest(key.as_bytes()));
                assert_eq!(KeyHash::of(key).as_str(), expected);
                assert_eq!(KeyHash::of(key).as_str(), expected, "asked again");
            }
        }
    }

    /// A string without a key's shape is never taken for a key, even
    /// after its digest was asked for; a key's digest is its SHA-256
    /// whether or not it was remembered.
    #[test]
    fn only_a_string_with_a_keys_shape_is_digested_as_a_key() {
        for not_a_key in [
            "not-a-key",
            "sk_service_short",
            "sk_service_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!",
        ] {
            assert!(KeyHash::of_key(not_a_key).is_none(), "{not_a_key}");
            let _ = KeyHash::of(not_a_key);
            assert!(KeyHash::of_key(not_a_key).is_none(), "{not_a_key} after its digest");
        }
        let key = generate_key().unwrap();
        let expected = hex::encode(sha2::Sha256::digest(key.as_bytes()));
        for _ in 0..2 {
            assert_eq!(
                KeyHash::of_key(&key).map(|h| h.as_str().to_owned()),
                Some(expected.clone())
            );
        }
    }

    #[test]
    fn a_generated_key_is_the_prefix_and_forty_base62_characters() {
        let key = generate_key().unwrap();
        let body = key.strip_prefix(KEY_PREFIX).unwrap();
        assert_eq!(body.len(), KEY_BODY_LEN);
        assert!(body.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert!(key_body(&key).is_some());
    }

    #[test]
    fn two_generated_keys_differ() {
        assert_ne!(generate_key().unwrap(), generate_key().unwrap());
    }

    #[test]
    fn the_hash_is_lower_case_sha256_hex() {
        // SHA-256("abc") from FIPS 180-2.
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_masked_form_keeps_four_body_characters_then_five_asterisks() {
        let key = format!("{KEY_PREFIX}AbCd{}", "x".repeat(36));
        assert_eq!(mask_key(&key).unwrap(), "sk_service_AbCd*****");
        assert_eq!(display_prefix(&key).unwrap(), "AbCd");
    }

    #[test]
    fn a_short_or_foreign_string_is_not_a_key() {
        assert!(mask_key("sk_service_short").is_none());
        assert!(mask_key(&format!("pk_live_{}", "a".repeat(40))).is_none());
        assert!(key_body(&format!("{KEY_PREFIX}{}!", "a".repeat(40))).is_none());
    }

    #[test]
    fn a_masked_key_parses_to_its_display_prefix() {
        assert_eq!(
            parse_key_ref("sk_service_AbCd*****"),
            Some(KeyRef::Masked {
                display_prefix: "AbCd".into()
            })
        );
        assert_eq!(parse_key_ref("sk_service_AbC*****"), None);
        assert_eq!(parse_key_ref("nonsense"), None);
    }

    proptest! {
        /// Any full key parses back as a full-key reference carrying its own
        /// hash, and its mask parses as a masked reference to its prefix.
        #[test]
        fn full_and_masked_forms_of_any_key_parse_back(body in "[A-Za-z0-9]{32,64}") {
            let key = format!("{KEY_PREFIX}{body}");
            prop_assert_eq!(parse_key_ref(&key), Some(KeyRef::Full { key_hash: hash_key(&key) }));
            let masked = mask_key(&key).unwrap();
            prop_assert_eq!(parse_key_ref(&masked), Some(KeyRef::Masked { display_prefix: body[..4].to_owned() }));
        }

        /// Constant-time equality agrees with ordinary equality on every input.
        #[test]
        fn constant_time_eq_agrees_with_eq(a in proptest::collection::vec(any::<u8>(), 0..8), b in proptest::collection::vec(any::<u8>(), 0..8)) {
            prop_assert_eq!(constant_time_eq(&a, &b), a == b);
        }
    }
}
