//! `linecast-admin data ...`: artifact store checks.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum DataCommand {
    /// Check a whole store against the data contract.
    Validate {
        /// Store URL (`file:///abs/path`, `memory://`, `s3://bucket/prefix`).
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: String,
    },
}

pub async fn run(command: DataCommand) -> anyhow::Result<ExitCode> {
    match command {
        DataCommand::Validate { store } => anyhow::bail!("data validate is not wired yet (store {store})"),
    }
}
