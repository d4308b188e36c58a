//! `linecast-admin`: the operator CLI. Each subcommand lives in its own module
//! and only wires adapters; rules live in the crates.

mod data;
mod fixtures;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "linecast-admin", version, about = "linecast operator CLI")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Artifact store checks.
    Data {
        #[command(subcommand)]
        command: data::DataCommand,
    },
    /// Deterministic demo and test data.
    Fixtures {
        #[command(subcommand)]
        command: fixtures::FixturesCommand,
    },
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Data { command } => data::run(command).await,
        Command::Fixtures { command } => fixtures::run(command).await,
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
