//! linecast's own `client_reference_id`: the only way a checkout names an
//! existing customer. Stripe hands `client_reference_id` back unchanged, but
//! a buyer can set it too (a Payment Link takes `?client_reference_id=` in
//! its URL), so a bare customer id proves nothing. linecast signs it:
//!
//! `lc1_<customer id>_<expiry, unix seconds>_<hex HMAC-SHA256>`
//!
//! The MAC is keyed by the deployment's signing key (`LINECAST_SIGNING_KEY`)
//! over a domain label, the id and the expiry, so a download token signed
//! with the same key can never pass as a reference. Only letters, digits
//! and `_` appear, as Stripe requires of the field (at most 200 characters).

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Separates this MAC from every other use of the signing key.
const DOMAIN: &[u8] = b"linecast subscribe reference v1\0";

/// The version prefix of the form.
const PREFIX: &str = "lc1";

/// Why a `client_reference_id` was not honoured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceRefusal {
    #[error("not a reference linecast signed")]
    Unsigned,
    #[error("a reference whose signature does not match")]
    Forged,
    #[error("an expired reference")]
    Expired,
}

/// The key references are signed and verified with. `Debug` never shows it.
#[derive(Clone)]
pub struct ReferenceKey(Vec<u8>);

impl std::fmt::Debug for ReferenceKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReferenceKey(redacted)")
    }
}

impl ReferenceKey {
    pub fn new(secret: &[u8]) -> Self {
        Self(secret.to_vec())
    }

    fn mac(&self, customer_id: i64, expires: i64) -> Hmac<Sha256> {
        // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).unwrap_or_else(|_| unreachable!());
        mac.update(DOMAIN);
        mac.update(format!("{customer_id}.{expires}").as_bytes());
        mac
    }

    /// The reference naming `customer_id` until `expires` (unix seconds).
    pub fn sign(&self, customer_id: i64, expires: i64) -> String {
        let tag = hex::encode(self.mac(customer_id, expires).finalize().into_bytes());
        format!("{PREFIX}_{customer_id}_{expires}_{tag}")
    }

    /// The customer a reference names, when linecast signed it and it had
    /// not expired at `at` (the event's `created`: Stripe's clock, signed
    /// with the event, so a replay decides as the delivery did).
    pub fn verify(&self, reference: &str, at: i64) -> Result<i64, ReferenceRefusal> {
        let mut parts = reference.trim().split('_');
        let (Some(PREFIX), Some(id), Some(expires), Some(tag), None) =
            (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(ReferenceRefusal::Unsigned);
        };
        let (Ok(id), Ok(expires), Ok(tag)) = (id.parse::<i64>(), expires.parse::<i64>(), hex::decode(tag)) else {
            return Err(ReferenceRefusal::Unsigned);
        };
        // `verify_slice` compares in constant time.
        self.mac(id, expires)
            .verify_slice(&tag)
            .map_err(|_| ReferenceRefusal::Forged)?;
        if at > expires {
            return Err(ReferenceRefusal::Expired);
        }
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The MAC checked once against an independent HMAC:
    /// `printf 'linecast subscribe reference v1\0%s' '42.1800000000' | openssl dgst -sha256 -hmac k`.
    #[test]
    fn a_reference_is_the_documented_hmac() {
        let reference = ReferenceKey::new(b"k").sign(42, 1_800_000_000);
        assert_eq!(
            reference,
            "lc1_42_1800000000_cb04b8c89ef8ab09538e57d84f22b5ec40ef62f148d5f78a2acfeaf60139f5f6"
        );
    }

    #[test]
    fn a_signed_reference_names_its_customer_until_it_expires() {
        let key = ReferenceKey::new(b"signing key");
        let reference = key.sign(7, 1_000);
        assert!(reference.len() <= 200);
        assert!(reference.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
        assert_eq!(key.verify(&reference, 999), Ok(7));
        assert_eq!(key.verify(&reference, 1_000), Ok(7));
        assert_eq!(key.verify(&reference, 1_001), Err(ReferenceRefusal::Expired));
    }

    #[test]
    fn an_id_a_forgery_or_another_key_is_refused() {
        let key = ReferenceKey::new(b"signing key");
        for bare in [
            "1",
            " 1 ",
            "42",
            "",
            "lc1_1_1000",
            "lc1_x_1000_00",
            "lc1_1_1000_zz",
            "lc2_1_1000_00",
        ] {
            assert_eq!(key.verify(bare, 0), Err(ReferenceRefusal::Unsigned), "{bare:?}");
        }
        let signed = key.sign(7, 1_000);
        // Another customer id or expiry under the same tag.
        let tag = signed.rsplit('_').next().unwrap();
        assert_eq!(
            key.verify(&format!("lc1_1_1000_{tag}"), 0),
            Err(ReferenceRefusal::Forged)
        );
        assert_eq!(
            key.verify(&format!("lc1_7_9999_{tag}"), 0),
            Err(ReferenceRefusal::Forged)
        );
        // Another deployment's key.
        assert_eq!(
            ReferenceKey::new(b"other key").verify(&signed, 0),
            Err(ReferenceRefusal::Forged)
        );
        assert!(!format!("{key:?}").contains("signing"));
    }
}
