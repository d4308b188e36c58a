//! `linecast-admin data ...`: artifact store checks.

use std::process::ExitCode;

use linecast_store::{ObjectArtifactStore, StoreOptions, validate};

#[derive(Debug, clap::Subcommand)]
pub enum DataCommand {
    /// Check a whole store against the data contract.
    Validate {
        /// Store URL (`file:///abs/path`, `memory://`, `s3://bucket/prefix`).
        /// Defaults to `file://<current dir>/data`.
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: Option<String>,
    },
}

pub async fn run(command: DataCommand) -> anyhow::Result<ExitCode> {
    match command {
        DataCommand::Validate { store } => validate_store(store).await,
    }
}

/// Prints every problem as `object row N column C: reason`, then a summary;
/// exits 1 when anything is wrong.
async fn validate_store(url: Option<String>) -> anyhow::Result<ExitCode> {
    let url = match url {
        Some(url) => url,
        None => format!("file://{}", std::env::current_dir()?.join("data").display()),
    };
    let store = ObjectArtifactStore::from_url(&url, StoreOptions::default())?;
    let report = validate(&store).await;
    for problem in &report.problems {
        println!("{problem}");
    }
    let objects = report.objects_checked;
    let count = report.problems.len();
    if count == 0 {
        println!("ok: {objects} objects in {url} match the data contract");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{count} problem(s) in {objects} objects of {url}");
        Ok(ExitCode::FAILURE)
    }
}
