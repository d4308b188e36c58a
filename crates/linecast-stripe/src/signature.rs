//! Stripe's webhook signature scheme, pure: no HTTP, no clock of its own.
//!
//! The `Stripe-Signature` header is `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`
//! (other schemes, such as `v0`, are ignored); each `v1` is
//! HMAC-SHA256 of `"<t>." + raw body`, keyed by an endpoint secret
//! (`whsec_...`, used as its bytes). A delivery is accepted when any `v1`
//! matches any configured secret (so a secret can be rotated: configure the
//! new one beside the old, then drop the old), compared in constant time,
//! and `t` is within [`TOLERANCE_SECS`] of the time the caller gives (the
//! wall clock).
//!
//! [`Signature::parse`] judges the header alone, so a caller can refuse a
//! delivery before reading its body; [`Signature::matches`] then checks the
//! body. The HTTP shell applies them before a webhook handler runs.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// How far `t` may be from the wall clock, either way (Stripe's libraries'
/// default).
pub const TOLERANCE_SECS: i64 = 300;

/// The shortest text after `whsec_` taken as a secret (Stripe's are 32 or
/// more characters): an HMAC key of a few characters is as good as public.
pub const MIN_SECRET_CHARS: usize = 16;

/// The configured endpoint secrets (`LINECAST_STRIPE_WEBHOOK_SECRETS`).
/// Never printed: `Debug` shows only how many there are.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct WebhookSecrets(Vec<String>);

impl WebhookSecrets {
    /// Reads comma-separated secrets; blanks are skipped. A secret that does
    /// not start with `whsec_` is refused (a pasted API key or publishable
    /// key would otherwise silently never match), and so is one with fewer
    /// than [`MIN_SECRET_CHARS`] characters after it. Errors name the
    /// secret's position, never its text.
    pub fn parse(text: &str) -> Result<Self, String> {
        let secrets: Vec<String> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        for (position, secret) in secrets.iter().enumerate() {
            let Some(after) = secret.strip_prefix("whsec_") else {
                return Err(format!(
                    "secret {} of {} does not start with whsec_ (copy the endpoint's signing secret from Stripe)",
                    position + 1,
                    secrets.len()
                ));
            };
            if after.chars().count() < MIN_SECRET_CHARS {
                return Err(format!(
                    "secret {} of {} is too short: whsec_ must be followed by at least {MIN_SECRET_CHARS} characters \
                     (copy the endpoint's signing secret from Stripe)",
                    position + 1,
                    secrets.len()
                ));
            }
        }
        Ok(Self(secrets))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for WebhookSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WebhookSecrets({} redacted)", self.0.len())
    }
}

/// Why a delivery was refused (the 400's detail says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignatureRefusal {
    #[error("Missing Stripe-Signature header")]
    Missing,
    #[error("Malformed Stripe-Signature header: expected t=<unix seconds>,v1=<hex signature>")]
    Malformed,
    #[error("Stripe-Signature timestamp is outside the 300 s tolerance")]
    Stale,
    #[error("No Stripe-Signature v1 signature matches the body")]
    Mismatch,
}

/// HMAC-SHA256 of `"<t>." + body` under `secret`.
fn mac(secret: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).unwrap_or_else(|_| unreachable!());
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `v1` signature of `body` at `timestamp` under `secret`, as Stripe
/// computes it (lower-case hex). For tests and tools that sign deliveries.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    hex::encode(mac(secret, &timestamp.to_string(), body).finalize().into_bytes())
}

/// A `Stripe-Signature` header whose shape and timestamp passed: what is
/// known before any body byte is read.
#[derive(Debug)]
pub struct Signature<'h> {
    timestamp: &'h str,
    signatures: Vec<Vec<u8>>,
}

impl<'h> Signature<'h> {
    /// Reads `header` (the `Stripe-Signature` value) and checks that its
    /// timestamp is within the tolerance of `now` (Unix seconds).
    pub fn parse(header: Option<&'h str>, now: i64) -> Result<Self, SignatureRefusal> {
        let header = header.ok_or(SignatureRefusal::Missing)?;
        let mut timestamp = None;
        let mut signatures = Vec::new();
        for part in header.split(',') {
            let (name, value) = part.trim().split_once('=').ok_or(SignatureRefusal::Malformed)?;
            match name {
                "t" if timestamp.is_none() => timestamp = Some(value),
                "t" => return Err(SignatureRefusal::Malformed),
                "v1" => signatures.push(hex::decode(value).map_err(|_| SignatureRefusal::Malformed)?),
                _ => {}
            }
        }
        let timestamp = timestamp.ok_or(SignatureRefusal::Malformed)?;
        let t: i64 = timestamp.parse().map_err(|_| SignatureRefusal::Malformed)?;
        if signatures.is_empty() {
            return Err(SignatureRefusal::Malformed);
        }
        if (now - t).abs() > TOLERANCE_SECS {
            return Err(SignatureRefusal::Stale);
        }
        Ok(Self { timestamp, signatures })
    }

    /// Whether any `v1` is the signature of `body` under any of `secrets`.
    pub fn matches(&self, body: &[u8], secrets: &WebhookSecrets) -> Result<(), SignatureRefusal> {
        // `verify_slice` compares in constant time.
        let matched = secrets.0.iter().any(|secret| {
            self.signatures
                .iter()
                .any(|sig| mac(secret, self.timestamp, body).verify_slice(sig).is_ok())
        });
        if matched {
            Ok(())
        } else {
            Err(SignatureRefusal::Mismatch)
        }
    }
}

/// Checks one delivery: `header` is the `Stripe-Signature` value, `body` the
/// raw bytes, `now` the wall clock in Unix seconds.
pub fn verify(header: Option<&str>, body: &[u8], secrets: &WebhookSecrets, now: i64) -> Result<(), SignatureRefusal> {
    Signature::parse(header, now)?.matches(body, secrets)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn secrets(s: &[&str]) -> WebhookSecrets {
        WebhookSecrets::parse(&s.join(",")).unwrap()
    }

    /// The signature of Stripe's scheme, checked once against an
    /// independent HMAC: `printf '1700000000.{"id":"evt_1"}' | openssl
    /// dgst -sha256 -hmac whsec_test`.
    #[test]
    fn the_signature_is_stripes_hmac_of_timestamp_dot_body() {
        assert_eq!(
            sign("whsec_test", 1_700_000_000, br#"{"id":"evt_1"}"#),
            "c89214b5b5da833daed6f0b8c5bb6bd58cea9022bd80ccc78230f3942d632925"
        );
    }

    #[test]
    fn a_matching_signature_within_the_tolerance_passes() {
        let body = br#"{"id":"evt_1"}"#;
        let t = 1_700_000_000;
        let header = format!("t={t},v1={}", sign("whsec_aaaaaaaaaaaaaaaaaaaa", t, body));
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]), t + 300),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]), t - 300),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]), t + 301),
            Err(SignatureRefusal::Stale)
        );
    }

    #[test]
    fn any_v1_under_any_secret_passes_so_secrets_rotate() {
        let body = b"{}";
        let t = 1_700_000_000;
        // Stripe signs with both secrets while a rotation is under way.
        let header = format!(
            "t={t},v1={},v0=ignored,v1={}",
            sign("whsec_old_endpoint_secret", t, body),
            sign("whsec_new_endpoint_secret", t, body)
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_new_endpoint_secret"]), t),
            Ok(())
        );
        assert_eq!(
            verify(
                Some(&header),
                body,
                &secrets(&["whsec_other_endpoint_secret", "whsec_old_endpoint_secret"]),
                t
            ),
            Ok(())
        );
        assert_eq!(
            verify(Some(&header), body, &secrets(&["whsec_other_endpoint_secret"]), t),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn a_changed_body_or_timestamp_fails() {
        let t = 1_700_000_000;
        let sig = sign("whsec_aaaaaaaaaaaaaaaaaaaa", t, b"{\"a\":1}");
        let s = secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]);
        assert_eq!(
            verify(Some(&format!("t={t},v1={sig}")), b"{\"a\":2}", &s, t),
            Err(SignatureRefusal::Mismatch)
        );
        assert_eq!(
            verify(Some(&format!("t={},v1={sig}", t + 1)), b"{\"a\":1}", &s, t),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn a_missing_or_malformed_header_is_refused() {
        let s = secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"]);
        assert_eq!(verify(None, b"", &s, 0), Err(SignatureRefusal::Missing));
        for header in ["", "t=1", "v1=00", "t=x,v1=00", "t=1,v1=zz", "t=1,t=2,v1=00", "garbage"] {
            assert_eq!(
                verify(Some(header), b"", &s, 1),
                Err(SignatureRefusal::Malformed),
                "{header}"
            );
        }
    }

    #[test]
    fn the_header_is_judged_without_the_body() {
        let t = 1_700_000_000;
        assert_eq!(Signature::parse(None, t).unwrap_err(), SignatureRefusal::Missing);
        assert_eq!(
            Signature::parse(Some("t=1,v1=00"), t).unwrap_err(),
            SignatureRefusal::Stale
        );
        let header = format!("t={t},v1={}", sign("whsec_aaaaaaaaaaaaaaaaaaaa", t, b"{}"));
        let parsed = Signature::parse(Some(&header), t + 10).unwrap();
        assert_eq!(parsed.matches(b"{}", &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"])), Ok(()));
        assert_eq!(
            parsed.matches(b"{ }", &secrets(&["whsec_aaaaaaaaaaaaaaaaaaaa"])),
            Err(SignatureRefusal::Mismatch)
        );
    }

    #[test]
    fn secrets_must_look_like_endpoint_secrets_and_never_print() {
        assert!(WebhookSecrets::parse("whsec_aaaaaaaaaaaaaaaa, ,whsec_bbbbbbbbbbbbbbbb").is_ok());
        let err = WebhookSecrets::parse("whsec_aaaaaaaaaaaaaaaa,sk_live_123").unwrap_err();
        assert!(err.contains("secret 2 of 2") && !err.contains("sk_live_123"), "{err}");
        // `whsec_` alone, or with a few characters, is not a secret; the
        // error names the position, never the text.
        for short in ["whsec_", "whsec_test", "whsec_aaaaaaaaaaaaaaa"] {
            let err = WebhookSecrets::parse(&format!("whsec_abcdefghijklmnopqrstuvwxyz,{short}")).unwrap_err();
            assert!(err.contains("secret 2 of 2") && err.contains("at least 16"), "{err}");
            assert!(!err.contains("abcdefghijklmnop") && !err.contains("whsec_a"), "{err}");
        }
        let debug = format!("{:?}", secrets(&["whsec_supersecret_of_the_endpoint"]));
        assert!(!debug.contains("supersecret"), "{debug}");
    }
}
