//! `keys issue|revoke`. The full key exists only in the output of `issue`;
//! the database keeps its SHA-256 hash and the four characters of its mask.
//! Both commands write one line to the customer's key audit log.

use std::process::ExitCode;

use anyhow::{anyhow, bail};
use chrono::{DateTime, Utc};
use linecast_core::key_material::parse_key_ref;
use linecast_core::services::keys::KeyError;
use serde_json::json;

use super::output::{escaped, instant};
use super::{Common, Session, parse_instant, views};

/// Where an audit line says a change came from.
const ORIGIN: &str = "linecast-admin";

#[derive(Debug, clap::Args)]
pub struct KeysArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: KeysCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum KeysCommand {
    /// Issue a new key and print it once; only its hash is stored.
    Issue {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        customer_email: String,
        /// A label for the key (1 to 100 printable characters).
        #[arg(long, default_value = linecast_core::services::keys::DEFAULT_NAME)]
        name: String,
        /// When the key stops working (RFC 3339, in the future); never by default.
        #[arg(long, value_name = "RFC3339")]
        expires_at: Option<String>,
    },
    /// Revoke one of the customer's keys, named by the full key or its masked form.
    Revoke {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        customer_email: String,
        /// `sk_service_...` or `sk_service_XXXX*****`.
        #[arg(long)]
        key: String,
    },
}

pub async fn run(args: KeysArgs) -> anyhow::Result<ExitCode> {
    let session = Session::open(&args.common).await?;
    match args.command {
        KeysCommand::Issue {
            customer_email,
            name,
            expires_at,
        } => {
            let expires_at = expires_at.map(|v| parse_instant("--expires-at", &v)).transpose()?;
            if let Some(at) = expires_at.filter(|at| *at <= session.now) {
                bail!("--expires-at {} is not in the future", instant(at));
            }
            issue(&session, &customer_email, name, expires_at).await?;
        }
        KeysCommand::Revoke { customer_email, key } => revoke(&session, &customer_email, &key).await?,
    }
    Ok(ExitCode::SUCCESS)
}

async fn issue(session: &Session, email: &str, name: String, expires_at: Option<DateTime<Utc>>) -> anyhow::Result<()> {
    let customer = session.customer(email).await?;
    let issued = session
        .keys
        .issue(&customer, &name, expires_at, ORIGIN, session.now)
        .await
        .map_err(|e| match e {
            KeyError::InvalidName => anyhow!(
                "--name must be 1 to 100 printable characters (no control characters, line breaks or bidi overrides)"
            ),
            other => anyhow!(other),
        })?;
    let (key, record) = (issued.key, issued.record);
    let mut value = views::key(&record);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("api_key".into(), json!(key));
        obj.insert("customer_id".into(), json!(customer.customer_id));
        obj.insert("customer_email".into(), json!(customer.email));
        obj.insert(
            "warning".into(),
            json!("This is the only time the full key is shown. Store it securely."),
        );
    }
    session.out.emit(&value, || {
        format!(
            "issued key '{}' ({}) for {}{}\n\n  {key}\n\nThis is the only time the full key is shown. Store it securely.",
            escaped(&record.name),
            record.masked(),
            escaped(&customer.email),
            record.expires_at.map(|at| format!(", expires {}", instant(at))).unwrap_or_default(),
        )
    })
}

async fn revoke(session: &Session, email: &str, raw: &str) -> anyhow::Result<()> {
    let customer = session.customer(email).await?;
    let reference = parse_key_ref(raw.trim()).ok_or_else(|| {
        anyhow!("--key must be a full key (sk_service_...) or its masked form (sk_service_XXXX*****)")
    })?;
    let service = &session.keys;
    let key = service
        .find(customer.customer_id, &reference)
        .await
        .map_err(|e| anyhow!("{}", pick_message(&e, raw.trim(), &customer.email)))?;
    let (revoked_at, already) = service.revoke(&key, ORIGIN, session.now).await?;
    let already = already.then_some(revoked_at);
    let revoked_at = already.unwrap_or(session.now);
    let value = json!({
        "key_id": key.id,
        "masked": key.masked(),
        "name": key.name,
        "customer_email": customer.email,
        "revoked_at": instant(revoked_at),
        "already_revoked": already.is_some(),
    });
    session.out.emit(&value, || match already {
        Some(at) => format!(
            "key '{}' ({}) of {} was already revoked at {}",
            escaped(&key.name),
            key.masked(),
            escaped(&customer.email),
            instant(at)
        ),
        None => format!(
            "revoked key '{}' ({}) of {}; running servers stop accepting it within their key-cache TTL (10 s)",
            escaped(&key.name),
            key.masked(),
            escaped(&customer.email)
        ),
    })
}

/// Why a key reference did not name exactly one of the customer's keys.
fn pick_message(err: &KeyError, raw: &str, email: &str) -> String {
    match err {
        KeyError::NotFound => format!("no key {raw} among the keys of {email}"),
        KeyError::Ambiguous { count } => {
            format!("the masked key {raw} matches {count} keys of {email}; pass the full key instead")
        }
        other => other.to_string(),
    }
}
