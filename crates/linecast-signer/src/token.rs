//! The download token format: `base64url(payload) "." base64url(tag)` where
//! the payload is a small JSON object (object key, filename, expiry in unix
//! seconds) and the tag is HMAC-SHA256 over the encoded payload bytes. This
//! module owns encoding, parsing and verification; it knows nothing of HTTP.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// Why a download token was refused. The HTTP layer answers 403 to all three;
/// the variants exist for logs and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not two base64url parts joined by a dot, or a payload that is not ours.
    #[error("malformed download token")]
    Malformed,
    /// The tag does not match the payload under this signer's secret.
    #[error("download token signature mismatch")]
    BadSignature,
    /// The token was genuine but its lifetime is over.
    #[error("download token expired")]
    Expired,
}

/// What a genuine, unexpired token grants: one object, served as one filename.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedDownload {
    pub object_key: String,
    pub filename: String,
    pub expires_at: DateTime<Utc>,
}

/// Short field names keep the URL short; the token is opaque to clients.
#[derive(Serialize, Deserialize)]
struct Payload<'a> {
    #[serde(rename = "k", borrow)]
    object_key: std::borrow::Cow<'a, str>,
    #[serde(rename = "f", borrow)]
    filename: std::borrow::Cow<'a, str>,
    #[serde(rename = "e")]
    expires_unix: i64,
}

/// Encodes and signs a token. Sub-second precision of `expires_at` is dropped,
/// so a link never outlives the instant the caller reported.
pub(crate) fn encode(mac: &HmacSha256, object_key: &str, filename: &str, expires_at: DateTime<Utc>) -> String {
    let payload = Payload {
        object_key: object_key.into(),
        filename: filename.into(),
        expires_unix: expires_at.timestamp(),
    };
    // Serialising two strings and an integer cannot fail; an empty payload
    // would only make the token unverifiable, never forgeable.
    let json = serde_json::to_vec(&payload).unwrap_or_default();
    let body = URL_SAFE_NO_PAD.encode(json);
    let mut mac = mac.clone();
    mac.update(body.as_bytes());
    let tag = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    format!("{body}.{tag}")
}

/// Length of an HMAC-SHA256 tag in bytes.
const TAG_LEN: usize = 32;

/// Verifies a token at `now`. Shape (two canonical base64url parts, a tag of
/// the right length) is checked first, then the tag, and only then is the
/// payload parsed, so unauthenticated bytes never reach the JSON parser.
pub(crate) fn decode(mac: &HmacSha256, token: &str, now: DateTime<Utc>) -> Result<VerifiedDownload, TokenError> {
    let (body, tag) = token.split_once('.').ok_or(TokenError::Malformed)?;
    let json = URL_SAFE_NO_PAD.decode(body).map_err(|_| TokenError::Malformed)?;
    let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| TokenError::Malformed)?;
    if json.is_empty() || tag.len() != TAG_LEN {
        return Err(TokenError::Malformed);
    }
    let mut mac = mac.clone();
    mac.update(body.as_bytes());
    // verify_slice compares in constant time.
    mac.verify_slice(&tag).map_err(|_| TokenError::BadSignature)?;

    let payload: Payload<'_> = serde_json::from_slice(&json).map_err(|_| TokenError::Malformed)?;
    let expires_at = DateTime::from_timestamp(payload.expires_unix, 0).ok_or(TokenError::Malformed)?;
    // Valid up to and including the expiry instant, refused after it.
    if now > expires_at {
        return Err(TokenError::Expired);
    }
    Ok(VerifiedDownload {
        object_key: payload.object_key.into_owned(),
        filename: payload.filename.into_owned(),
        expires_at,
    })
}
