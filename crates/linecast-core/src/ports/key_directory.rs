//! The key directory port: API keys looked up by hash on the request path.
//! The HTTP shell's adapter puts a cache in front of the accounts port
//! (unknown keys included), so a lookup rarely reaches the database.

use std::sync::Arc;

use async_trait::async_trait;

use super::accounts::{AccountsError, ApiKeyRecord, Customer};

/// A key and its customer, shared with the directory's cache.
pub type KeyEntry = Arc<(ApiKeyRecord, Customer)>;

/// Key lookups by hash (the adapter caches them).
#[async_trait]
pub trait KeyDirectory: Send + Sync {
    /// The key and its customer, whatever the key's state; `None` when no
    /// key has that hash. A database failure is an error, never `None`.
    async fn lookup(&self, key_hash: &str) -> Result<Option<KeyEntry>, AccountsError>;

    /// What [`KeyDirectory::lookup`] would answer, when the directory holds
    /// it and can say so without waiting (a cache hit): `Some(entry)`, with
    /// `entry` as `lookup` gives it. `None` means nothing is held: ask
    /// `lookup`. The request path asks this first, so a hit costs no
    /// boxed future.
    fn held(&self, _key_hash: &str) -> Option<Option<KeyEntry>> {
        None
    }

    /// Drops what is known of `key_hash` (after a rename or a revoke), so
    /// the next request with that key is looked up again.
    async fn forget(&self, key_hash: &str);
}
