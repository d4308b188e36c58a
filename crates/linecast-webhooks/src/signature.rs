//! Signing and verifying a message as Standard Webhooks does: the signed
//! content is `{id}.{timestamp}.{body}`, the signature `v1,` and the
//! base64 (standard alphabet, padded) of its HMAC-SHA256 under the
//! endpoint's secret. During a secret rotation the header carries one
//! signature per secret, separated by spaces.
//!
//! Owns the bytes signed, the secret's text form and the timestamp
//! tolerance. Knows nothing of headers' transport or of where secrets are
//! kept.

use std::fmt;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// The header naming the message (the same on every attempt).
pub const HEADER_ID: &str = "webhook-id";
/// The header holding the signing instant, in whole seconds since the epoch.
pub const HEADER_TIMESTAMP: &str = "webhook-timestamp";
/// The header holding the space-separated signatures.
pub const HEADER_SIGNATURE: &str = "webhook-signature";

/// The text every secret starts with.
pub const SECRET_PREFIX: &str = "whsec_";
/// The length of a key this service generates, in bytes.
pub const KEY_LEN: usize = 24;
/// The shortest key a secret may hold, in bytes (the specification's minimum).
pub const MIN_KEY_LEN: usize = 24;
/// The longest key a secret may hold, in bytes (the specification's maximum).
pub const MAX_KEY_LEN: usize = 64;
/// How far a message's timestamp may be from the verifier's clock, either
/// way, before it is refused as a replay or a clock error.
pub const TOLERANCE: Duration = Duration::from_mins(5);

/// An endpoint's signing secret: the key bytes. Its text form is
/// `whsec_` and the key in standard base64. Its `Debug` form hides the key.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    key: Vec<u8>,
}

/// Why a secret's text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// The text does not start with `whsec_`.
    #[error("a webhook secret starts with whsec_")]
    MissingPrefix,
    /// What follows the prefix is not standard base64.
    #[error("a webhook secret's key is standard base64")]
    NotBase64,
    /// The key is shorter than 24 or longer than 64 bytes.
    #[error("a webhook secret's key is 24 to 64 bytes, not {0}")]
    Length(usize),
}

impl Secret {
    /// A new secret from random bytes the caller draws from a secure source.
    pub fn from_random(bytes: [u8; KEY_LEN]) -> Self {
        Self { key: bytes.to_vec() }
    }

    /// Reads a secret's text form, `whsec_` and the base64 of a key of 24
    /// to 64 bytes.
    pub fn parse(text: &str) -> Result<Self, SecretError> {
        let encoded = text.strip_prefix(SECRET_PREFIX).ok_or(SecretError::MissingPrefix)?;
        let key = STANDARD.decode(encoded).map_err(|_| SecretError::NotBase64)?;
        if !(MIN_KEY_LEN..=MAX_KEY_LEN).contains(&key.len()) {
            return Err(SecretError::Length(key.len()));
        }
        Ok(Self { key })
    }

    /// The key bytes the HMAC is keyed with.
    pub fn key(&self) -> &[u8] {
        &self.key
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SECRET_PREFIX}{}", STANDARD.encode(&self.key))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(whsec_…)")
    }
}

/// The HMAC-SHA256 of `{id}.{timestamp}.{body}` under the secret's key.
fn mac(secret: &Secret, id: &str, timestamp: i64, body: &[u8]) -> [u8; 32] {
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.key()) else {
        unreachable!("HMAC takes a key of any length")
    };
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body);
    mac.finalize().into_bytes().into()
}

/// One signature: `v1,` and the base64 of the HMAC-SHA256 of
/// `{id}.{timestamp}.{body}` under the secret.
pub fn sign(secret: &Secret, id: &str, timestamp: i64, body: &[u8]) -> String {
    format!("v1,{}", STANDARD.encode(mac(secret, id, timestamp, body)))
}

/// The `webhook-signature` header: one signature per secret, in the order
/// given, separated by single spaces (several while a secret is rotated).
pub fn signature_header(secrets: &[Secret], id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .map(|secret| sign(secret, id, timestamp, body))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why a message failed verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    /// The timestamp is more than the tolerance before the verifier's clock.
    #[error("the message's timestamp is too old")]
    TooOld,
    /// The timestamp is more than the tolerance after the verifier's clock.
    #[error("the message's timestamp is in the future")]
    TooNew,
    /// The header holds no `v1` signature.
    #[error("the message carries no v1 signature")]
    NoSignature,
    /// No `v1` signature matches any of the secrets.
    #[error("no signature matches")]
    Mismatch,
}

/// Verifies a message as a receiver does: the timestamp within
/// [`TOLERANCE`] of `now` (either way, the bound itself accepted), then
/// any `v1` signature of the header equal, in constant time, to the
/// signature under any of the secrets. Entries of other versions and
/// entries that are not base64 are skipped.
pub fn verify(
    secrets: &[Secret],
    header: &str,
    id: &str,
    timestamp: i64,
    body: &[u8],
    now: DateTime<Utc>,
) -> Result<(), VerifyError> {
    let tolerance = TOLERANCE.as_secs() as i64;
    let now = now.timestamp();
    if timestamp < now - tolerance {
        return Err(VerifyError::TooOld);
    }
    if timestamp > now + tolerance {
        return Err(VerifyError::TooNew);
    }
    let given: Vec<&str> = header
        .split(' ')
        .filter_map(|entry| entry.strip_prefix("v1,"))
        .collect();
    if given.is_empty() {
        return Err(VerifyError::NoSignature);
    }
    let expected: Vec<[u8; 32]> = secrets.iter().map(|s| mac(s, id, timestamp, body)).collect();
    let matches = given
        .iter()
        .filter_map(|encoded| STANDARD.decode(encoded).ok())
        .any(|decoded| expected.iter().any(|e| bool::from(e.as_slice().ct_eq(&decoded))));
    if matches { Ok(()) } else { Err(VerifyError::Mismatch) }
}
