//! `migrate`: applies the accounts database's pending migrations, in
//! order, under the same lock whoever else migrates at the same time
//! (`linecast_db::schema::migrate`), and says what it applied. The only
//! `linecast-admin` command that changes the schema: the others check it
//! and stop while a migration is pending.

use std::process::ExitCode;

use anyhow::{Context, anyhow};
use serde_json::json;

use super::output::Output;
use super::{Common, config, open, redact, warn_unknown};

#[derive(Debug, clap::Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    pub common: Common,
}

pub async fn run(args: MigrateArgs) -> anyhow::Result<ExitCode> {
    let url = config::database_url(args.common.database_url.clone())?;
    let accounts = open(&url).await?;
    let migrated = linecast_db::schema::migrate(accounts.connection())
        .await
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("migrating the accounts database {}", redact(&url)))?;
    warn_unknown(&migrated.unknown);
    let value = json!({
        "database": redact(&url),
        "applied": migrated.applied_now,
        "already_applied": migrated.already_applied,
        "unknown": migrated.unknown,
    });
    Output::new(args.common.json).emit(&value, || {
        if migrated.applied_now.is_empty() {
            format!(
                "{} is up to date: {} migrations applied, none pending",
                redact(&url),
                migrated.already_applied.len()
            )
        } else {
            let mut text = format!(
                "applied {} migration{} to {}:\n",
                migrated.applied_now.len(),
                if migrated.applied_now.len() == 1 { "" } else { "s" },
                redact(&url)
            );
            for name in &migrated.applied_now {
                text.push_str("  ");
                text.push_str(name);
                text.push('\n');
            }
            text
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
