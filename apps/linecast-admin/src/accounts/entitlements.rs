//! `entitlements grant`: add historical datasets to what a customer owns.
//! Grants are unions, so granting twice never removes anything; the expiry is
//! replaced by the one given (none means the entitlement does not expire).

use std::process::ExitCode;

use anyhow::bail;
use linecast_core::Accounts;
use linecast_domain::Sport;

use super::output::instant_or_dash;
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
    let products = products_to_grant(&sports, products)?;
    let expires_at = expires_at.map(|v| parse_instant("--expires-at", &v)).transpose()?;
    let customer = session.customer(&customer_email).await?;
    let granted = session
        .accounts
        .grant_entitlement(customer.customer_id, &products, &sports, expires_at)
        .await?;
    let mut value = views::entitlement(&granted);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("customer_email".into(), customer.email.clone().into());
        obj.insert("granted_products".into(), products.clone().into());
    }
    session.out.emit(&value, || {
        format!(
            "granted {} to {}\n  now owns sports {}; products {}; expires {}",
            products.join(","),
            customer.email,
            granted
                .owned_sports
                .iter()
                .map(|s| s.code())
                .collect::<Vec<_>>()
                .join(","),
            granted.owned_products.join(","),
            instant_or_dash(granted.expires_at),
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The products named, or each sport's history dataset (`<sport>_history`,
/// the catalog's naming) when none are.
fn products_to_grant(sports: &[Sport], products: Option<Vec<String>>) -> anyhow::Result<Vec<String>> {
    let Some(products) = products else {
        return Ok(sports.iter().map(|s| format!("{s}_history")).collect());
    };
    let products: Vec<String> = products
        .iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    if products.is_empty() {
        bail!("--products names no product");
    }
    if let Some(bad) = products.iter().find(|p| {
        !p.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    }) {
        bail!("--products '{bad}' is not a product id (lower-case letters, digits and '_', e.g. nba_history)");
    }
    Ok(products)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn without_products_each_sport_gets_its_history_dataset() {
        let got = products_to_grant(&[Sport::Mlb, Sport::Nba], None).unwrap();
        assert_eq!(got, ["mlb_history", "nba_history"]);
    }

    #[test]
    fn named_products_are_kept_and_malformed_ones_refused() {
        let got = products_to_grant(&[Sport::Nba], Some(vec![" nba_closing_lines ".into()])).unwrap();
        assert_eq!(got, ["nba_closing_lines"]);
        assert!(products_to_grant(&[Sport::Nba], Some(vec!["NBA History".into()])).is_err());
        assert!(products_to_grant(&[Sport::Nba], Some(vec![String::new()])).is_err());
    }

    #[test]
    fn an_unknown_sport_names_the_allowed_codes() {
        assert!(
            parse_sport("mls")
                .unwrap_err()
                .contains("mlb, nba, nfl, nhl, ncaaf, ncaab")
        );
    }
}
