//! `billing replay`: applies Stripe events exported as JSON lines through
//! the same reading (`linecast_stripe`) and the same use case
//! (`services::billing`) as the webhook, without signatures: for a first
//! sync, or to catch up after the webhook was off. Every line is read
//! before any is applied, so a malformed file changes nothing.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, anyhow};
use linecast_core::FixedClock;
use linecast_core::services::billing::{Billing, PlanTable};
use linecast_stripe::Parsed;
use serde_json::json;

use super::output::escaped;
use super::{Common, Session};

#[derive(Debug, clap::Args)]
pub struct BillingArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: BillingCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum BillingCommand {
    /// Apply Stripe events from a file, one JSON event per line (blank lines
    /// skipped), in file order. Events already applied are skipped by id.
    Replay {
        /// The JSON-lines file.
        #[arg(long)]
        file: std::path::PathBuf,
        /// Which plan each price grants, as the server reads it.
        #[arg(long, env = "LINECAST_STRIPE_PLANS", default_value = "")]
        plans: String,
    },
}

pub async fn run(args: BillingArgs) -> anyhow::Result<ExitCode> {
    let session = Session::open(&args.common).await?;
    let BillingCommand::Replay { file, plans } = args.command;
    let plans = PlanTable::parse(&plans).map_err(|e| anyhow!("LINECAST_STRIPE_PLANS: {e}"))?;
    let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = linecast_stripe::parse_event(line.as_bytes(), &plans)
            .map_err(|e| anyhow!("{} line {}: {e}", file.display(), i + 1))?;
        events.push((i + 1, parsed));
    }
    let billing = Billing::new(
        plans,
        session.billing.clone(),
        session.billing.clone(),
        None,
        Arc::new(FixedClock(session.now)),
    );
    let mut report = Vec::new();
    for (line, parsed) in events {
        let (event_id, outcome) = match parsed {
            Parsed::Ignored { event_id, .. } => (event_id, "ignored"),
            Parsed::Event(event) => {
                let outcome = billing
                    .apply(&event)
                    .await
                    .with_context(|| format!("{} line {line}: applying {}", file.display(), event.event_id))?;
                (event.event_id, outcome.code())
            }
        };
        report.push(json!({"line": line, "event_id": event_id, "outcome": outcome}));
    }
    session.out.emit(&json!(report), || {
        if report.is_empty() {
            return "no events".to_owned();
        }
        report
            .iter()
            .map(|r| {
                format!(
                    "line {}: {} {}",
                    r["line"],
                    escaped(r["event_id"].as_str().unwrap_or_default()),
                    r["outcome"].as_str().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    Ok(ExitCode::SUCCESS)
}
