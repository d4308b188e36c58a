//! The key relay port: API key records passed between instances through a
//! channel other than the accounts database (Redis where it is configured).
//!
//! An instance cut off from the database (a partition of that one instance:
//! its network, its pool, its proxy) would keep serving the keys it read
//! before for the outage grace. The database itself may still be up, and
//! take a revocation or a lapsed subscription from another instance or from
//! `linecast-admin`. Through the relay, the cut instance asks for the keys
//! it is serving, every instance that reaches the database reads them and
//! answers, and the cut instance takes those answers as database reads of
//! their age. Instances that reach the database also say so each time they
//! listen for asks, so the cut instance knows whether an answer is coming.

use std::time::Duration;

use async_trait::async_trait;

use super::accounts::AccountsError;
use super::key_directory::KeyEntry;

/// What an instance that reached the database found for one key hash.
#[derive(Debug, Clone)]
pub struct RelayedKey {
    /// The key hash asked for.
    pub key_hash: String,
    /// The key and its customer; `None` when no key has this hash.
    pub entry: Option<KeyEntry>,
    /// How long ago the database read that found it started.
    pub age: Duration,
}

/// The answer to an ask.
#[derive(Debug, Clone, Default)]
pub struct RelayAnswers {
    /// The answers already relayed for the hashes asked, each younger than
    /// asked for (a hash with no such answer is left out).
    pub keys: Vec<RelayedKey>,
    /// How long ago an instance that had just reached the database last
    /// listened for asks; `None` when none did lately.
    pub listened: Option<Duration>,
}

/// Key records relayed between instances.
#[async_trait]
pub trait KeyRelay: Send + Sync {
    /// Asks every instance that reaches the database to read `hashes` (none
    /// is fine: the answer still says whether one listens), and returns
    /// what has been relayed for them already, younger than `fresher_than`.
    async fn ask(&self, hashes: &[String], fresher_than: Duration) -> Result<RelayAnswers, AccountsError>;

    /// Called by an instance that has just reached the database: records
    /// that one listens, and returns the hashes asked for lately (at most
    /// `limit`).
    async fn listen(&self, limit: usize) -> Result<Vec<String>, AccountsError>;

    /// Publishes what one database read, started `age` ago, found for each
    /// hash; an answer is kept for `keep` after that read started.
    async fn answer(
        &self,
        found: &[(String, Option<KeyEntry>)],
        age: Duration,
        keep: Duration,
    ) -> Result<(), AccountsError>;
}
