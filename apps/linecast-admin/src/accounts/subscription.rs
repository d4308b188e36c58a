//! `subscription set`: a customer's API and account subscription status.

use std::process::ExitCode;

use linecast_core::SubscriptionStatus;

use super::output::escaped;
use super::{Common, Session, views};

#[derive(Debug, clap::Args)]
pub struct SubscriptionArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: SubscriptionCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum SubscriptionCommand {
    /// Set both the API and the account subscription status.
    Set {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        customer_email: String,
        /// The new status.
        #[arg(long, value_name = STATUS_CODES, value_parser = parse_status)]
        status: SubscriptionStatus,
    },
}

/// The status codes, as the flags' value names list them.
pub const STATUS_CODES: &str = "active|trialing|past_due|unpaid|incomplete|incomplete_expired|paused|canceled";

/// Clap parser for a subscription status code (Stripe's).
pub fn parse_status(code: &str) -> Result<SubscriptionStatus, String> {
    SubscriptionStatus::parse(code).ok_or_else(|| {
        let allowed: Vec<&str> = SubscriptionStatus::ALL.iter().map(|s| s.code()).collect();
        format!("'{code}' is not a status; allowed: {}", allowed.join(", "))
    })
}

pub async fn run(args: SubscriptionArgs) -> anyhow::Result<ExitCode> {
    let session = Session::open(&args.common).await?;
    let SubscriptionCommand::Set { customer_email, status } = args.command;
    let customer = session.customers.set_subscription(&customer_email, status).await?;
    session.out.emit(&views::customer(&customer), || {
        format!(
            "subscription of {} is now {}",
            escaped(&customer.email),
            customer.subscription_status
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_code_parses_and_anything_else_names_the_allowed_ones() {
        assert_eq!(parse_status("past_due"), Ok(SubscriptionStatus::PastDue));
        assert_eq!(parse_status("canceled"), Ok(SubscriptionStatus::Canceled));
        assert_eq!(parse_status("trialing"), Ok(SubscriptionStatus::Trialing));
        assert_eq!(
            parse_status("cancelled"),
            Err(
                "'cancelled' is not a status; allowed: active, trialing, past_due, unpaid, incomplete, \
                 incomplete_expired, paused, canceled"
                    .to_owned()
            )
        );
        assert_eq!(STATUS_CODES.split('|').count(), SubscriptionStatus::ALL.len());
    }
}
