//! `billing replay`: applies Stripe events exported as JSON lines through
//! the same reading (`linecast_stripe`) and the same use case
//! (`services::billing`) as the webhook, without signatures: for a first
//! sync, or to catch up after the webhook was off. Every line is read
//! before any is applied, so a malformed file changes nothing.
//!
//! `billing pending`: what waits for an operator: checkouts held because
//! their email belongs to an existing customer (apply one with
//! `customers link-stripe`), and subscription events waiting for a link.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, anyhow};
use linecast_core::FixedClock;
use linecast_core::ports::billing::BillingLedger;
use linecast_core::services::billing::{Billing, PlanTable};
use linecast_stripe::{Parsed, Reader, ReferenceKey};
use serde_json::json;

use super::output::{escaped, instant, table};
use super::{Common, Session, config};

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
        /// Which plan each price grants, as the server reads it (else
        /// `stripe_plans` in linecast.toml).
        #[arg(long, env = "LINECAST_STRIPE_PLANS")]
        plans: Option<String>,
        /// The server's signing key, to honour subscribe references (else
        /// `signing_key` in linecast.toml).
        #[arg(long, env = "LINECAST_SIGNING_KEY", hide_env_values = true)]
        signing_key: Option<String>,
        /// The `livemode` of the events acted on, as the server reads it
        /// (else `stripe_livemode` in linecast.toml; default false).
        #[arg(long, env = "LINECAST_STRIPE_LIVEMODE")]
        livemode: Option<String>,
    },
    /// List checkouts held for an operator and subscription events waiting
    /// for a link, oldest first.
    Pending,
}

pub async fn run(args: BillingArgs) -> anyhow::Result<ExitCode> {
    let session = Session::open(&args.common).await?;
    let (file, plans, signing_key, livemode) = match args.command {
        BillingCommand::Pending => return pending(&session).await,
        BillingCommand::Replay {
            file,
            plans,
            signing_key,
            livemode,
        } => (file, plans, signing_key, livemode),
    };
    // The flag, the environment, then the server's config file: the same
    // values the server acts on.
    let plans = match plans {
        Some(plans) => plans,
        None => config::file_setting("stripe_plans")?.unwrap_or_default(),
    };
    let signing_key = match signing_key {
        Some(key) => Some(key),
        None => config::file_setting("signing_key")?,
    };
    let livemode = match livemode {
        Some(v) => config::flag("LINECAST_STRIPE_LIVEMODE", &v)?,
        None => match config::file_setting("stripe_livemode")? {
            Some(v) => config::flag("stripe_livemode", &v)?,
            None => false,
        },
    };
    let plans = PlanTable::parse(&plans).map_err(|e| anyhow!("LINECAST_STRIPE_PLANS: {e}"))?;
    let reader = Reader::new(
        plans,
        signing_key
            .filter(|k| !k.is_empty())
            .map(|k| ReferenceKey::new(k.as_bytes())),
        livemode,
    );
    let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let mut events = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = reader
            .read(line.as_bytes())
            .map_err(|e| anyhow!("{} line {}: {e}", file.display(), i + 1))?;
        events.push((i + 1, parsed));
    }
    let billing = Billing::new(
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

async fn pending(session: &Session) -> anyhow::Result<ExitCode> {
    let pending = session.billing.pending_billing().await?;
    let held: Vec<_> = pending
        .held
        .iter()
        .map(|h| {
            json!({
                "event_id": h.event_id,
                "created": h.created,
                "stripe_customer": h.stripe_customer,
                "stripe_subscription": h.stripe_subscription,
                "customer_id": h.customer_id,
                "customer_email": h.email,
                "received_at": instant(h.received_at),
            })
        })
        .collect();
    let waiting: Vec<_> = pending
        .waiting
        .iter()
        .map(|w| {
            json!({
                "event_id": w.event_id,
                "created": w.created,
                "stripe_customer": w.stripe_customer,
                "stripe_subscription": w.stripe_subscription,
                "status": w.status.code(),
                "received_at": instant(w.received_at),
            })
        })
        .collect();
    session.out.emit(&json!({"held_checkouts": held, "waiting_events": waiting}), || {
        let mut text = String::new();
        if pending.held.is_empty() {
            text.push_str("no checkout held\n");
        } else {
            text.push_str("checkouts held for an operator (apply one: customers link-stripe --email E --stripe-customer C):\n");
            let rows: Vec<Vec<String>> = pending
                .held
                .iter()
                .map(|h| {
                    vec![
                        escaped(&h.event_id).into_owned(),
                        escaped(&h.email).into_owned(),
                        escaped(&h.stripe_customer).into_owned(),
                        h.stripe_subscription
                            .as_deref()
                            .map_or_else(|| "-".to_owned(), |s| escaped(s).into_owned()),
                        instant(h.received_at),
                    ]
                })
                .collect();
            text.push_str(&table(&["EVENT", "EMAIL", "STRIPE CUSTOMER", "SUBSCRIPTION", "RECEIVED"], &rows));
            text.push('\n');
        }
        if pending.waiting.is_empty() {
            text.push_str("no subscription event waiting");
        } else {
            text.push_str("subscription events waiting for a link:\n");
            let rows: Vec<Vec<String>> = pending
                .waiting
                .iter()
                .map(|w| {
                    vec![
                        escaped(&w.event_id).into_owned(),
                        escaped(&w.stripe_customer).into_owned(),
                        escaped(&w.stripe_subscription).into_owned(),
                        w.status.code().to_owned(),
                        instant(w.received_at),
                    ]
                })
                .collect();
            text.push_str(&table(&["EVENT", "STRIPE CUSTOMER", "SUBSCRIPTION", "STATUS", "RECEIVED"], &rows));
        }
        text
    })?;
    Ok(ExitCode::SUCCESS)
}
