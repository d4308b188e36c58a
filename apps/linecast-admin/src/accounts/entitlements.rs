//! `entitlements grant`: add historical datasets to what a customer owns.
//! Grants are unions, so granting twice never removes anything; the expiry is
//! replaced by the one given (none means the entitlement does not expire).

use std::process::ExitCode;

use anyhow::anyhow;
use linecast_core::services::customers::products_to_grant;
use linecast_domain::Sport;

use super::output::{escaped, instant_or_dash};
use super::{Common, Session, parse_instant, views};

#[derive(Debug, clap::Args)]
pub struct EntitlementsArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: EntitlementsCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum EntitlementsCommand {
    /// Grant sports and dataset products (added to what the customer owns).
    Grant {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        customer_email: String,
        /// Sport codes, comma-separated (mlb, nba, nfl, nhl, ncaaf, ncaab).
        #[arg(long, required = true, value_delimiter = ',', value_parser = parse_sport)]
        sports: Vec<Sport>,
        /// Product ids from the product catalog; default `<sport>_history` for each sport.
        #[arg(long, value_delimiter = ',')]
        products: Option<Vec<String>>,
        /// When the entitlement ends (RFC 3339); replaces any earlier expiry. Never by default.
        #[arg(long, value_name = "RFC3339")]
        expires_at: Option<String>,
    },
}

fn parse_sport(code: &str) -> Result<Sport, String> {
    Sport::parse(code.trim()).map_err(|e| e.to_string())
}

pub async fn run(args: EntitlementsArgs) -> anyhow::Result<ExitCode> {
    let session = Session::open(&args.common).await?;
    let EntitlementsCommand::Grant {
        customer_email,
        sports,
        products,
        expires_at,
    } = args.command;
    let products = products_to_grant(&sports, products.as_deref()).map_err(|e| anyhow!("--products: {e}"))?;
    let expires_at = expires_at.map(|v| parse_instant("--expires-at", &v)).transpose()?;
    let customer = session.customer(&customer_email).await?;
    let granted = session
        .customers
        .grant(&customer, &sports, &products, expires_at)
        .await?;
    let mut value = views::entitlement(&granted);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("customer_email".into(), customer.email.clone().into());
        obj.insert("granted_products".into(), products.clone().into());
    }
    session.out.emit(&value, || {
        format!(
            "granted {} to {}\n  now owns sports {}; products {}; expires {}",
            escaped(&products.join(",")),
            escaped(&customer.email),
            granted
                .owned_sports
                .iter()
                .map(|s| s.code())
                .collect::<Vec<_>>()
                .join(","),
            escaped(&granted.owned_products.join(",")),
            instant_or_dash(granted.expires_at),
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn an_unknown_sport_names_the_allowed_codes() {
        assert!(
            parse_sport("mls")
                .unwrap_err()
                .contains("mlb, nba, nfl, nhl, ncaaf, ncaab")
        );
    }
}
