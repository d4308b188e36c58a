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

    /// Drops what is known of `key_hash` (after a rename or a revoke), so
    /// the next request with that key is looked up again.
    async fn forget(&self, key_hash: &str);
}
