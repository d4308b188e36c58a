//! The accounts database's health probe (core's `Probe` port): `Own` for a
//! SQLite file, `Shared` for PostgreSQL.

use std::sync::Arc;

use async_trait::async_trait;
use linecast_core::Accounts;
use linecast_core::ports::probe::{Probe, Reach};

/// The accounts database answers.
pub struct DatabaseProbe(pub Arc<dyn Accounts>, pub Reach);

impl DatabaseProbe {
    /// Who shares the database at `url`: a SQLite file is this instance's.
    pub fn reach_of(url: &str) -> Reach {
        if url.starts_with("sqlite:") {
            Reach::Own
        } else {
            Reach::Shared
        }
    }
}

#[async_trait]
impl Probe for DatabaseProbe {
    fn name(&self) -> &'static str {
        "database"
    }
    fn reach(&self) -> Reach {
        self.1
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        self.0.ping().await.map_err(|e| e.to_string())?;
        Ok(serde_json::json!({}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sqlite_file_is_this_instances_and_postgresql_is_shared() {
        assert_eq!(
            DatabaseProbe::reach_of("sqlite:///var/lib/linecast/linecast.db?mode=rwc"),
            Reach::Own
        );
        assert_eq!(DatabaseProbe::reach_of("postgres://db/linecast"), Reach::Shared);
        assert_eq!(DatabaseProbe::reach_of("postgresql://db/linecast"), Reach::Shared);
    }
}
