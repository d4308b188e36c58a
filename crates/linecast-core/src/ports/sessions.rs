//! The portal's sessions: a customer signed in to the web portal with one of
//! their API keys. Only the SHA-256 of a session id is stored; the id itself
//! lives in the customer's cookie and nowhere else. The rules (expiry, which
//! key, CSRF) are `services::portal`'s.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::accounts::AccountsError;

/// A stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRecord {
    /// SHA-256 hex of the session id.
    pub id_hash: String,
    pub customer_id: i64,
    /// SHA-256 hex of the key the customer signed in with (as `api_keys`
    /// stores it): the session ends when that key is revoked or expires.
    pub key_hash: String,
    /// The token every form of this session carries (random, bound to it).
    pub csrf_token: String,
    pub created_at: DateTime<Utc>,
    pub last_seen_at: DateTime<Utc>,
    /// `ended_at` is set by signing out.
    pub ended_at: Option<DateTime<Utc>>,
}

/// A one-time sign-in link an operator made for a customer who lost every
/// key. Only the SHA-256 of its token is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInLink {
    pub token_hash: String,
    pub customer_id: i64,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// A one-time flash: what a form's answer leaves for the page it
/// redirects to, sealed (`services::portal`); one per session at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlashRecord {
    /// The session's id hash.
    pub id_hash: String,
    /// The page that may read it (`keys`, `data`).
    pub page: String,
    /// The sealed content (opaque here).
    pub sealed: String,
    pub created_at: DateTime<Utc>,
}

/// Portal sessions and sign-in links.
#[async_trait]
pub trait PortalSessions: Send + Sync {
    /// Stores a sign-in link (unused).
    async fn create_link(&self, link: &SignInLink) -> Result<(), AccountsError>;
    /// Marks the link with this token hash used, if it exists, is unused and
    /// has not expired at `now`, as one atomic step (two concurrent uses:
    /// one wins); its customer, or `None`.
    async fn consume_link(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<i64>, AccountsError>;
    /// The customer of an unused, unexpired link, without using it.
    async fn peek_link(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<i64>, AccountsError>;
    /// Stores a new session (its `ended_at` is `None`).
    async fn start_session(&self, session: &SessionRecord) -> Result<(), AccountsError>;
    /// The session with this id hash, whatever its state.
    async fn find_session(&self, id_hash: &str) -> Result<Option<SessionRecord>, AccountsError>;
    /// Moves `last_seen_at` to `now` (never back).
    async fn touch_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<(), AccountsError>;
    /// Ends the session (signing out); ending twice keeps the first instant.
    /// The session's flash, if any, goes with it.
    async fn end_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<(), AccountsError>;
    /// Stores the session's flash, replacing the one it had.
    async fn put_flash(&self, flash: &FlashRecord) -> Result<(), AccountsError>;
    /// Takes the session's flash for `page`, deleting it, as one atomic
    /// step (two concurrent reads: one gets it); `None` when there is none
    /// for that page (a flash for another page stays).
    async fn take_flash(&self, id_hash: &str, page: &str) -> Result<Option<FlashRecord>, AccountsError>;
}
