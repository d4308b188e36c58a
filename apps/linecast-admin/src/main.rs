//! `linecast-admin`: the operator CLI. Each subcommand lives in its own module
//! and only wires adapters; rules live in the crates.

mod accounts;
mod audit;
mod data;
mod fixtures;
mod releases;

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
    /// Apply the accounts database's pending migrations (the only command
    /// that changes its schema).
    Migrate(accounts::migrate::MigrateArgs),
    /// Customer accounts: create, list, show.
    Customers(accounts::customers::CustomersArgs),
    /// API keys: issue (printed once), revoke.
    Keys(accounts::keys::KeysArgs),
    /// Subscription status of a customer.
    Subscription(accounts::subscription::SubscriptionArgs),
    /// Historical dataset entitlements.
    Entitlements(accounts::entitlements::EntitlementsArgs),
    /// Stripe billing events: replay an export.
    Billing(accounts::billing::BillingArgs),
    /// Artifact store checks.
    Data {
        #[command(subcommand)]
        command: data::DataCommand,
    },
    /// Kept releases of predictions and odds: backfill.
    Releases {
        #[command(subcommand)]
        command: releases::ReleasesCommand,
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
        Command::Migrate(args) => accounts::migrate::run(args).await,
        Command::Customers(args) => accounts::customers::run(args).await,
        Command::Keys(args) => accounts::keys::run(args).await,
        Command::Subscription(args) => accounts::subscription::run(args).await,
        Command::Entitlements(args) => accounts::entitlements::run(args).await,
        Command::Billing(args) => accounts::billing::run(args).await,
        Command::Data { command } => data::run(command).await,
        Command::Fixtures { command } => fixtures::run(command).await,
        Command::Releases { command } => releases::run(command).await,
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
