//! `linecast-admin fixtures ...`: deterministic demo and test data.

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub enum FixturesCommand {
    /// Write a complete store for every sport and model type.
    Generate {
        #[arg(long)]
        out: std::path::PathBuf,
    },
}

pub async fn run(command: FixturesCommand) -> anyhow::Result<ExitCode> {
    match command {
        FixturesCommand::Generate { out } => anyhow::bail!("fixtures generate is not wired yet ({})", out.display()),
    }
}
