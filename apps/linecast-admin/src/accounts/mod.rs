//! `customers`, `keys`, `subscription`, `entitlements` and `billing`: the operator's
//! account commands. They parse the command line, call core's `Customers`
//! and `Keys` services over the linecast-db adapter, and print the outcome;
//! the rules (input checks, key format, hashing, masking, unions of
//! entitlements, default products) live in those services.

pub mod billing;
pub mod customers;
pub mod entitlements;
pub mod keys;
pub mod migrate;
pub mod subscription;

pub(crate) mod config;
mod output;
mod views;

use std::sync::Arc;

use anyhow::{Context, anyhow};
use chrono::{DateTime, Utc};
use linecast_core::Customer;
use linecast_core::services::customers::Customers;
use linecast_core::services::keys::Keys;
use linecast_db::SeaAccounts;

use output::Output;

/// Options every account command takes, wherever they appear on the line.
#[derive(Debug, clap::Args)]
pub struct Common {
    /// Accounts database, the same setting as the server's
    /// (default: linecast.toml's `database_url`, else `sqlite://<cwd>/var/linecast.db?mode=rwc`).
    #[arg(long, env = "LINECAST_DATABASE_URL", hide_env_values = true, global = true)]
    pub database_url: Option<String>,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, global = true)]
    pub json: bool,
}

/// The services over an open database, the output mode and the instant the
/// command runs at.
struct Session {
    customers: Customers,
    /// Operators are not held to the self-service cap on active keys.
    keys: Keys,
    /// Stripe links and billing events.
    billing: Arc<SeaAccounts>,
    out: Output,
    now: DateTime<Utc>,
}

impl Session {
    async fn open(common: &Common) -> anyhow::Result<Self> {
        let url = config::database_url(common.database_url.clone())?;
        let accounts = Arc::new(open_checked(&url).await?);
        Ok(Self {
            customers: Customers::new(accounts.clone(), accounts.clone()),
            keys: Keys::uncapped(accounts.clone()),
            billing: accounts,
            out: Output::new(common.json),
            now: now()?,
        })
    }

    /// The customer with that email, or an error naming it.
    async fn customer(&self, email: &str) -> anyhow::Result<Customer> {
        Ok(self.customers.find(email).await?)
    }
}

/// The pool for `url`, without reading or changing the schema.
/// Opens the accounts database and checks its schema. The schema is
/// `linecast-admin migrate`'s alone: every other command checks it and
/// never changes it.
pub(crate) async fn open_checked(url: &str) -> anyhow::Result<SeaAccounts> {
    let accounts = open(url).await?;
    let state = linecast_db::schema::check(accounts.connection())
        .await
        .map_err(|e| match e {
            linecast_db::schema::SchemaError::Pending { .. } => {
                anyhow!("{e}: run `linecast-admin migrate` against it first (docs/operations.md, \"Migrations\")")
            }
            other => anyhow!("{other}"),
        })
        .with_context(|| format!("opening the accounts database {}", redact(url)))?;
    warn_unknown(&state.unknown);
    Ok(accounts)
}

async fn open(url: &str) -> anyhow::Result<SeaAccounts> {
    SeaAccounts::open_with_timeout(url, OPEN_TIMEOUT)
        .await
        .with_context(|| format!("opening the accounts database {}", redact(url)))
}

/// Longest wait for a pooled connection.
const OPEN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Says on stderr which recorded migrations this build does not know (a
/// newer release applied them): the command carries on, since every
/// migration it knows is applied and migrations only add.
fn warn_unknown(unknown: &[String]) {
    if !unknown.is_empty() {
        eprintln!(
            "warning: the accounts database records migrations this linecast-admin does not know ({}): a newer \
             release applied them; carrying on",
            unknown.join(", ")
        );
    }
}

/// The server's clock: `LINECAST_NOW` freezes it (demos and tests), so usage
/// months and key timestamps agree with a server run the same way.
pub(crate) fn now() -> anyhow::Result<DateTime<Utc>> {
    match std::env::var("LINECAST_NOW") {
        Ok(v) if !v.is_empty() => parse_instant("LINECAST_NOW", &v),
        _ => Ok(Utc::now()),
    }
}

/// An RFC 3339 instant such as `2027-01-01T00:00:00Z`.
fn parse_instant(what: &str, value: &str) -> anyhow::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| anyhow!("{what} '{value}' is not an RFC 3339 instant ({e}); example: 2027-01-01T00:00:00Z"))
}

/// A URL safe to print: any password is replaced.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_password_in_the_database_url_is_never_printed() {
        assert_eq!(
            redact("postgres://app:s3cret@db:5432/linecast"),
            "postgres://app:***@db:5432/linecast"
        );
        assert_eq!(redact("postgres://app@db/linecast"), "postgres://app@db/linecast");
        assert_eq!(
            redact("sqlite:///srv/var/linecast.db?mode=rwc"),
            "sqlite:///srv/var/linecast.db?mode=rwc"
        );
    }

    #[test]
    fn an_instant_must_be_rfc_3339() {
        assert_eq!(
            parse_instant("x", "2027-01-01T05:00:00+05:00").unwrap().to_rfc3339(),
            "2027-01-01T00:00:00+00:00"
        );
        let err = parse_instant("--expires-at", "2027-01-01").unwrap_err().to_string();
        assert!(
            err.contains("--expires-at '2027-01-01' is not an RFC 3339 instant"),
            "{err}"
        );
    }
}
