//! Schema migrations, the same for SQLite and PostgreSQL. `schema::migrate`
//! applies every pending one; a migration is never edited once released,
//! only added, and only adds (docs/operations.md, "Migrations").

use sea_orm_migration::prelude::*;

mod m0001_accounts;
mod m0002_billing;
mod m0003_portal;
mod m0004_usage_daily;
mod m0005_portal_links;
mod m0006_billing_guard;
mod m0007_kept_releases;
mod m0008_portal_flashes;
mod m0009_request_log;
mod m0010_billing_period_end;
mod m0011_request_log_segments;
mod m0012_request_log_packed;
mod m0013_release_games;
mod m0014_ledger_days;
mod m0015_release_games_clustered;
mod m0016_webhooks;

/// The migrations, in order.
#[derive(Debug)]
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m0001_accounts::Migration),
            Box::new(m0002_billing::Migration),
            Box::new(m0003_portal::Migration),
            Box::new(m0004_usage_daily::Migration),
            Box::new(m0005_portal_links::Migration),
            Box::new(m0006_billing_guard::Migration),
            Box::new(m0007_kept_releases::Migration),
            Box::new(m0008_portal_flashes::Migration),
            Box::new(m0009_request_log::Migration),
            Box::new(m0010_billing_period_end::Migration),
            Box::new(m0011_request_log_segments::Migration),
            Box::new(m0012_request_log_packed::Migration),
            Box::new(m0013_release_games::Migration),
            Box::new(m0014_ledger_days::Migration),
            Box::new(m0015_release_games_clustered::Migration),
            Box::new(m0016_webhooks::Migration),
        ]
    }
}
