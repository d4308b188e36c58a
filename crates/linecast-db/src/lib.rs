//! linecast-db: the sea-orm adapter behind the `Accounts` and `UsageMeter`
//! ports of linecast-core. It owns the schema (migrations), the entities and
//! the translation of database errors into `AccountsError`; nothing outside
//! this crate sees sea-orm or sqlx types except `DatabaseConnection`.
//!
//! SQLite is the embedded default (`sqlite://var/linecast.db`,
//! `sqlite::memory:`); PostgreSQL (`postgres://...`) is the scaled-out one,
//! with the same migrations.

mod accounts;
mod billing;
mod connect;
pub mod entity;
mod error;
mod ledger;
pub mod migration;
mod pinned;
mod probe;
mod releases;
mod request_log;
pub mod schema;
mod sessions;
mod sql;
mod usage;
mod webhooks;

pub use connect::{connect, open_with_timeout};
pub use pinned::PinnedAccounts;
pub use probe::DatabaseProbe;
pub use sea_orm::DatabaseConnection;

/// The adapter: one pooled connection implementing both ports.
#[derive(Debug, Clone)]
pub struct SeaAccounts {
    db: DatabaseConnection,
}

impl SeaAccounts {
    /// Wraps a connection that `connect` returned (migrations applied).
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Connects, applies pending migrations and wraps the pool (tests and
    /// embedded use; see [`schema`] for who migrates in production).
    pub async fn connect(url: &str) -> Result<Self, linecast_core::AccountsError> {
        connect(url).await.map(Self::new)
    }

    /// Opens the pool without reading or changing the schema (the server
    /// and the operator CLI, which then [`schema::check`] or
    /// [`schema::migrate`] it).
    pub async fn open_with_timeout(
        url: &str,
        acquire_timeout: std::time::Duration,
    ) -> Result<Self, linecast_core::AccountsError> {
        connect::open_with_timeout(url, acquire_timeout).await.map(Self::new)
    }

    /// The underlying pool (for admin tooling and tests).
    pub fn connection(&self) -> &DatabaseConnection {
        &self.db
    }
}
