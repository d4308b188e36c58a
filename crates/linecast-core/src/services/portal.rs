//! The customer portal's sign-in and sessions. A customer signs in with one
//! of their API keys, checked by the same rules as the API
//! ([`Access::check_key`]: shape, hash, usable, plan; no limit is touched
//! and nothing is counted). A session then starts:
//!
//! - its id is 256 random bits from the OS (64 hex digits), given to the browser once and
//!   stored only as its SHA-256;
//! - it carries its own random CSRF token, which every form must send back;
//! - it lasts at most [`IDLE`] between requests and [`ABSOLUTE`] in all;
//! - it ends when the customer signs out, and with the key it was started
//!   with: a session is resumed only while that key is usable, so revoking
//!   (or the expiry of) the key ends it;
//! - signing in (with a key or a link) ends the session the browser
//!   presented, if any.
//!
//! A page that shows what an API route serves (model quality) is served to
//! whom that route's policy serves, and never counted against the API
//! quota ([`Portal::may_view`]). A sign-in link
//! is refused, unused, for a customer the links' policy does not serve
//! ([`LINK_POLICY`]).
//!
//! A form's answer is a redirect to a page; what that page must show once
//! (a new key, signed links, a refused form and what was typed in it) is a
//! one-time flash ([`Portal::put_flash`], [`Portal::take_flash`]): stored
//! server-side, sealed (ChaCha20-Poly1305) under a key derived from the
//! session id, which the server never stores (only the browser's cookie
//! holds it), so the stored row cannot be read without the cookie; deleted
//! by the first read, and unread after [`FLASH_LIFETIME`] it is gone.
//!
//! The portal never authenticates the API: the API reads keys only.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use rand::TryRngCore;
use sha2::{Digest, Sha256};

use crate::Clock;
use crate::key_material::constant_time_eq;
use crate::ports::accounts::Accounts;
use crate::ports::accounts::AccountsError;
use crate::ports::key_directory::KeyEntry;
use crate::ports::sessions::{FlashRecord, PortalSessions, SessionRecord, SignInLink};
use crate::services::access::{Access, Policy, Refusal, serves};
use crate::services::keys::Keys;

/// How long a sign-in link works.
pub const LINK_LIFETIME: Duration = Duration::minutes(15);
/// The name of the key a sign-in link issues.
pub const LINK_KEY_NAME: &str = "Portal sign-in link";
/// Whom a sign-in link may sign in: a link issues a key, and issuing a key
/// needs what creating one through the API needs (a tier with API access
/// and a subscription that grants access). A link for anyone else is
/// refused before it is used, so it still works once the account is put
/// right.
pub const LINK_POLICY: Policy = Policy::Subscriber;

/// Makes a one-time sign-in link's token for `customer_id` at `now` (the
/// wall clock) and stores its hash; the token is returned once, to be sent
/// to the customer inside `/portal/link/{token}`.
pub async fn create_sign_in_link(
    sessions: &dyn PortalSessions,
    customer_id: i64,
    now: DateTime<Utc>,
) -> Result<String, AccountsError> {
    let token = random_token(32)?;
    sessions
        .create_link(&SignInLink {
            token_hash: hash_session_id(&token),
            customer_id,
            created_at: now,
            expires_at: now + LINK_LIFETIME,
        })
        .await?;
    Ok(token)
}

/// Longest quiet spell a session survives.
pub const IDLE: Duration = Duration::minutes(30);
/// Longest a session lives, however busy.
pub const ABSOLUTE: Duration = Duration::hours(12);
/// `last_seen_at` is written at most this often per session (a page view
/// within it costs no write).
pub const TOUCH_EVERY: Duration = Duration::seconds(60);

/// A signed-in customer, resumed from a session.
#[derive(Debug, Clone)]
pub struct Signed {
    /// The key the session was started with, and its customer (fresh from
    /// the key directory).
    pub entry: KeyEntry,
    /// The token this session's forms carry.
    pub csrf_token: String,
    pub id_hash: String,
}

/// A session just started: the id goes to the browser, once.
#[derive(Debug, Clone)]
pub struct Started {
    pub session_id: String,
    pub entry: KeyEntry,
}

/// SHA-256 hex of a session id (the stored form).
pub fn hash_session_id(id: &str) -> String {
    hex::encode(Sha256::digest(id.as_bytes()))
}

/// `bytes` random bytes from the OS, as lower-case hex.
fn random_token(bytes: usize) -> Result<String, AccountsError> {
    let mut buf = vec![0_u8; bytes];
    rand::rngs::OsRng
        .try_fill_bytes(&mut buf)
        .map_err(|e| AccountsError::Unavailable(format!("OS random source failed: {e}")))?;
    Ok(hex::encode(buf))
}

/// Whether a session in this state may be resumed at `now`.
pub fn is_live(session: &SessionRecord, now: DateTime<Utc>) -> bool {
    session.ended_at.is_none() && now - session.last_seen_at < IDLE && now - session.created_at < ABSOLUTE
}

/// Why a sign-in failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInRefusal {
    /// The key was refused by the API's rules (missing, malformed, unknown,
    /// revoked, expired, no API plan).
    Key(Refusal),
    /// A sign-in link's customer is not served by [`LINK_POLICY`] (its tier
    /// has no API access, or its subscription does not grant access): the
    /// link is left unused and no key is issued.
    Account(Refusal),
    Unavailable(String),
}

/// The use case.
pub struct Portal {
    access: Arc<Access>,
    sessions: Arc<dyn PortalSessions>,
    accounts: Arc<dyn Accounts>,
    /// The clock of session lifetimes: the wall clock, even when the data
    /// clock is frozen (a frozen clock would make every session immortal).
    clock: Arc<dyn Clock>,
}

impl Portal {
    pub fn new(
        access: Arc<Access>,
        sessions: Arc<dyn PortalSessions>,
        accounts: Arc<dyn Accounts>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            access,
            sessions,
            accounts,
            clock,
        }
    }

    /// The customer a sign-in link would sign in, if it is unused and
    /// unexpired (the link's page asks before using it).
    pub async fn link_customer(&self, token: &str) -> Result<Option<crate::ports::accounts::Customer>, AccountsError> {
        match self
            .sessions
            .peek_link(&hash_session_id(token), self.clock.now())
            .await?
        {
            Some(id) => Ok(Some(self.accounts.get_customer(id).await?)),
            None => Ok(None),
        }
    }

    /// Uses a sign-in link: checks that [`LINK_POLICY`] serves its customer
    /// (else refused, the link unused), marks it used (once, atomically),
    /// issues the customer a new key (an operator's grant: not held to the
    /// self-service cap; audited as issued via `sign-in link`) and starts a
    /// session with it, ending the browser's `previous` one. The new full
    /// key is returned to be shown once.
    pub async fn sign_in_with_link(
        &self,
        token: &str,
        previous: Option<&str>,
    ) -> Result<Option<(Started, String)>, SignInRefusal> {
        let unavailable = |e: AccountsError| SignInRefusal::Unavailable(e.to_string());
        let token_hash = hash_session_id(token);
        let Some(customer_id) = self
            .sessions
            .peek_link(&token_hash, self.clock.now())
            .await
            .map_err(unavailable)?
        else {
            return Ok(None);
        };
        let customer = self.accounts.get_customer(customer_id).await.map_err(unavailable)?;
        serves(&customer, LINK_POLICY).map_err(SignInRefusal::Account)?;
        let Some(customer_id) = self
            .sessions
            .consume_link(&token_hash, self.clock.now())
            .await
            .map_err(unavailable)?
        else {
            return Ok(None);
        };
        let customer = self.accounts.get_customer(customer_id).await.map_err(unavailable)?;
        let issued = Keys::uncapped(self.accounts.clone())
            .issue(&customer, LINK_KEY_NAME, None, "sign-in link", self.access.now())
            .await
            .map_err(|e| SignInRefusal::Unavailable(e.to_string()))?;
        let started = self.sign_in(Some(&issued.key), previous).await?;
        Ok(Some((started, issued.key)))
    }

    /// Checks `presented` as the API would and starts a new session (a new
    /// id at every sign-in), ending the session the browser presented
    /// (`previous`, its id), if any: a browser holds one session at a time,
    /// and a session id seen before a sign-in never opens a page after it.
    /// A refused key leaves `previous` as it was.
    pub async fn sign_in(&self, presented: Option<&str>, previous: Option<&str>) -> Result<Started, SignInRefusal> {
        let now = self.clock.now();
        let entry = self
            .access
            .check_key(presented, self.access.now())
            .await
            .map_err(|refusal| match refusal {
                Refusal::Unavailable { cause } => SignInRefusal::Unavailable(cause),
                other => SignInRefusal::Key(other),
            })?;
        let unavailable = |e: AccountsError| SignInRefusal::Unavailable(e.to_string());
        if let Some(previous) = previous {
            self.sessions
                .end_session(&hash_session_id(previous), now)
                .await
                .map_err(unavailable)?;
        }
        let session_id = random_token(32).map_err(unavailable)?;
        let record = SessionRecord {
            id_hash: hash_session_id(&session_id),
            customer_id: entry.1.customer_id,
            key_hash: entry.0.key_hash.clone(),
            csrf_token: random_token(32).map_err(unavailable)?,
            created_at: now,
            last_seen_at: now,
            ended_at: None,
        };
        self.sessions.start_session(&record).await.map_err(unavailable)?;
        Ok(Started { session_id, entry })
    }

    /// The customer behind a session id, if the session is live and its key
    /// still usable; `None` otherwise (the browser signs in again).
    pub async fn resume(&self, session_id: &str) -> Result<Option<Signed>, AccountsError> {
        let now = self.clock.now();
        let id_hash = hash_session_id(session_id);
        let Some(session) = self.sessions.find_session(&id_hash).await? else {
            return Ok(None);
        };
        if !constant_time_eq(session.id_hash.as_bytes(), id_hash.as_bytes()) || !is_live(&session, now) {
            return Ok(None);
        }
        let entry = match self.access.check_hash(&session.key_hash, self.access.now()).await {
            Ok(entry) if entry.1.customer_id == session.customer_id => entry,
            Err(Refusal::Unavailable { cause }) => return Err(AccountsError::Unavailable(cause)),
            // Another customer's key (cannot happen: keys never move), or
            // the key is revoked, expired or off its plan: the session is over.
            Ok(_) | Err(_) => return Ok(None),
        };
        if now - session.last_seen_at >= TOUCH_EVERY {
            self.sessions.touch_session(&id_hash, now).await?;
        }
        Ok(Some(Signed {
            entry,
            csrf_token: session.csrf_token,
            id_hash,
        }))
    }

    /// Whether `signed` may view what an API route of `policy` serves (the
    /// model quality page shows `/calibration`'s numbers): the route's
    /// account rule ([`serves`]: the plan, and on a `Subscriber` route a
    /// subscription that grants access). Nothing is counted and no API
    /// limit is touched: portal views are not API requests (the portal
    /// bounds them per session). A refusal is the one the API would answer
    /// for that rule.
    pub fn may_view(&self, signed: &Signed, policy: Policy) -> Result<(), Refusal> {
        serves(&signed.entry.1, policy)
    }

    /// Ends the session on the server.
    pub async fn sign_out(&self, signed: &Signed) -> Result<(), AccountsError> {
        self.sessions.end_session(&signed.id_hash, self.clock.now()).await
    }
}

/// How long an unread flash lasts: the redirect after a form is followed
/// at once; a flash older than this is discarded unread.
pub const FLASH_LIFETIME: Duration = Duration::minutes(10);

/// The key sealing a session's flash: SHA-256 of a label and the session
/// id (256 random bits, so no stretching is needed). The stored row holds
/// only the id's hash, never the id.
fn flash_key(session_id: &str) -> chacha20poly1305::Key {
    let mut h = Sha256::new();
    h.update(b"linecast portal flash v1\0");
    h.update(session_id.as_bytes());
    h.finalize()
}

/// Seals `content` for the session `session_id`, bound to `page` (hex of
/// the nonce and the ciphertext).
fn seal(session_id: &str, page: &str, content: &str) -> Result<String, AccountsError> {
    use chacha20poly1305::aead::{Aead, KeyInit, Payload};
    let cipher = chacha20poly1305::ChaCha20Poly1305::new(&flash_key(session_id));
    let mut nonce = [0_u8; 12];
    rand::rngs::OsRng
        .try_fill_bytes(&mut nonce)
        .map_err(|e| AccountsError::Unavailable(format!("OS random source failed: {e}")))?;
    let sealed = cipher
        .encrypt(
            (&nonce).into(),
            Payload {
                msg: content.as_bytes(),
                aad: page.as_bytes(),
            },
        )
        .map_err(|_| AccountsError::Unavailable("sealing a flash failed".to_owned()))?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    Ok(hex::encode(out))
}

/// Opens a sealed flash; `None` when it is not this session's or this
/// page's (or was altered).
fn open(session_id: &str, page: &str, sealed: &str) -> Option<String> {
    use chacha20poly1305::aead::{Aead, KeyInit, Payload};
    let bytes = hex::decode(sealed).ok()?;
    if bytes.len() < 12 {
        return None;
    }
    let (nonce, body) = bytes.split_at(12);
    let cipher = chacha20poly1305::ChaCha20Poly1305::new(&flash_key(session_id));
    let plain = cipher
        .decrypt(
            nonce.into(),
            Payload {
                msg: body,
                aad: page.as_bytes(),
            },
        )
        .ok()?;
    String::from_utf8(plain).ok()
}

impl Portal {
    /// Leaves `content` for the next read of `page` by the session
    /// `session_id` (its cookie's id), replacing the flash it had.
    pub async fn put_flash(&self, session_id: &str, page: &str, content: &str) -> Result<(), AccountsError> {
        let record = FlashRecord {
            id_hash: hash_session_id(session_id),
            page: page.to_owned(),
            sealed: seal(session_id, page, content)?,
            created_at: self.clock.now(),
        };
        self.sessions.put_flash(&record).await
    }

    /// Takes the session's flash for `page`, once: the first read deletes
    /// it. `None` when there is none, or it is older than
    /// [`FLASH_LIFETIME`] (then it is deleted unread).
    pub async fn take_flash(&self, session_id: &str, page: &str) -> Result<Option<String>, AccountsError> {
        let Some(record) = self.sessions.take_flash(&hash_session_id(session_id), page).await? else {
            return Ok(None);
        };
        if self.clock.now() - record.created_at >= FLASH_LIFETIME {
            return Ok(None);
        }
        Ok(open(session_id, page, &record.sealed))
    }
}

/// Whether a form's token is this session's (constant time).
pub fn csrf_matches(signed: &Signed, presented: &str) -> bool {
    constant_time_eq(signed.csrf_token.as_bytes(), presented.as_bytes())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_flash_opens_only_with_its_session_id_and_page_and_holds_no_plain_text() {
        let id = "a".repeat(64);
        let sealed = seal(&id, "keys", "sk_service_secret").unwrap();
        assert!(!sealed.contains("secret"));
        assert!(!hex::decode(&sealed).unwrap().windows(6).any(|w| w == b"secret"));
        assert_eq!(open(&id, "keys", &sealed).as_deref(), Some("sk_service_secret"));
        assert_eq!(open(&"b".repeat(64), "keys", &sealed), None, "another session");
        assert_eq!(
            open(&hash_session_id(&id), "keys", &sealed),
            None,
            "the stored hash is no key"
        );
        assert_eq!(open(&id, "data", &sealed), None, "another page");
        let mut altered = hex::decode(&sealed).unwrap();
        *altered.last_mut().unwrap() ^= 1;
        assert_eq!(open(&id, "keys", &hex::encode(altered)), None);
        assert_ne!(
            seal(&id, "keys", "x").unwrap(),
            seal(&id, "keys", "x").unwrap(),
            "a fresh nonce"
        );
    }

    fn session(created: DateTime<Utc>, seen: DateTime<Utc>) -> SessionRecord {
        SessionRecord {
            id_hash: String::new(),
            customer_id: 1,
            key_hash: String::new(),
            csrf_token: String::new(),
            created_at: created,
            last_seen_at: seen,
            ended_at: None,
        }
    }

    #[test]
    fn a_session_lives_thirty_idle_minutes_and_twelve_hours_in_all() {
        let t0 = Utc.with_ymd_and_hms(2026, 11, 24, 8, 0, 0).unwrap();
        let s = session(t0, t0);
        assert!(is_live(&s, t0 + Duration::minutes(29) + Duration::seconds(59)));
        assert!(!is_live(&s, t0 + Duration::minutes(30)));
        // Busy all day: still over after twelve hours.
        let busy = session(t0, t0 + Duration::hours(12) - Duration::minutes(1));
        assert!(is_live(&busy, t0 + Duration::hours(12) - Duration::seconds(1)));
        assert!(!is_live(&busy, t0 + Duration::hours(12)));
        let ended = SessionRecord {
            ended_at: Some(t0),
            ..session(t0, t0)
        };
        assert!(!is_live(&ended, t0));
    }

    #[test]
    fn session_ids_are_256_random_bits_and_stored_only_hashed() {
        let a = random_token(32).unwrap();
        let b = random_token(32).unwrap();
        assert_ne!(a, b);
        assert_eq!(hex::decode(&a).unwrap().len(), 32);
        let hash = hash_session_id(&a);
        assert_eq!(hash.len(), 64);
        assert!(!hash.contains(&a));
        assert_eq!(hash, hex::encode(Sha256::digest(a.as_bytes())));
    }
}
