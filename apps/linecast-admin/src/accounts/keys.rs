//! `keys issue|revoke`. The full key exists only in the output of `issue`;
//! the database keeps its SHA-256 hash and the four characters of its mask.
//! Both commands write one line to the customer's key audit log.

use std::process::ExitCode;

use anyhow::{anyhow, bail};
use chrono::{DateTime, Utc};
use linecast_core::ports::accounts::{KeyRef, constant_time_eq, display_prefix, generate_key, hash_key, parse_key_ref};
use linecast_core::{Accounts, ApiKeyRecord, NewApiKey};
use serde_json::json;

use super::output::instant;
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
        /// A label for the key (1 to 100 characters).
        #[arg(long, default_value = "default")]
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
            let name = valid_name(&name)?;
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

fn valid_name(name: &str) -> anyhow::Result<String> {
    let trimmed = name.trim();
    if trimmed.is_empty() || trimmed.chars().count() > 100 {
        bail!("--name must be 1 to 100 characters");
    }
    Ok(trimmed.to_owned())
}

async fn issue(session: &Session, email: &str, name: String, expires_at: Option<DateTime<Utc>>) -> anyhow::Result<()> {
    let customer = session.customer(email).await?;
    let key = generate_key()?;
    let prefix = display_prefix(&key).ok_or_else(|| anyhow!("generated key has an unexpected shape"))?;
    let new = NewApiKey {
        customer_id: customer.customer_id,
        key_hash: hash_key(&key),
        display_prefix: prefix.to_owned(),
        name,
        tier: customer.tier.clone(),
        expires_at,
    };
    let record = session.accounts.insert_key(new, session.now).await?;
    let detail = format!("issued key '{}' ({}) via {ORIGIN}", record.name, record.masked());
    session
        .accounts
        .audit(customer.customer_id, Some(record.id), "issue", &detail, session.now)
        .await?;
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
            record.name,
            record.masked(),
            customer.email,
            record.expires_at.map(|at| format!(", expires {}", instant(at))).unwrap_or_default(),
        )
    })
}

async fn revoke(session: &Session, email: &str, raw: &str) -> anyhow::Result<()> {
    let customer = session.customer(email).await?;
    let reference = parse_key_ref(raw.trim()).ok_or_else(|| {
        anyhow!("--key must be a full key (sk_service_...) or its masked form (sk_service_XXXX*****)")
    })?;
    let keys = session.accounts.list_keys(customer.customer_id).await?;
    let key = pick_key(&keys, &reference).map_err(|e| anyhow!("{}", e.message(raw.trim(), &customer.email)))?;
    let already = key.revoked_at;
    if already.is_none() {
        session.accounts.revoke_key(key.id, session.now).await?;
        let detail = format!("revoked key '{}' ({}) via {ORIGIN}", key.name, key.masked());
        session
            .accounts
            .audit(customer.customer_id, Some(key.id), "revoke", &detail, session.now)
            .await?;
    }
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
            key.name,
            key.masked(),
            customer.email,
            instant(at)
        ),
        None => format!(
            "revoked key '{}' ({}) of {}; running servers stop accepting it within their key-cache TTL (10 s)",
            key.name,
            key.masked(),
            customer.email
        ),
    })
}

/// Why a key reference did not name exactly one key.
#[derive(Debug, PartialEq, Eq)]
enum PickError {
    NotFound,
    Ambiguous(usize),
}

impl PickError {
    fn message(&self, raw: &str, email: &str) -> String {
        match self {
            PickError::NotFound => format!("no key {raw} among the keys of {email}"),
            PickError::Ambiguous(n) => {
                format!("the masked key {raw} matches {n} keys of {email}; pass the full key instead")
            }
        }
    }
}

/// The one key among a customer's own that `reference` names.
fn pick_key<'a>(keys: &'a [ApiKeyRecord], reference: &KeyRef) -> Result<&'a ApiKeyRecord, PickError> {
    let matches: Vec<&ApiKeyRecord> = keys
        .iter()
        .filter(|k| match reference {
            KeyRef::Full { key_hash } => constant_time_eq(k.key_hash.as_bytes(), key_hash.as_bytes()),
            KeyRef::Masked { display_prefix } => &k.display_prefix == display_prefix,
        })
        .collect();
    match matches.as_slice() {
        [] => Err(PickError::NotFound),
        [one] => Ok(one),
        many => Err(PickError::Ambiguous(many.len())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use chrono::TimeZone;

    fn record(id: i64, full_key: &str) -> ApiKeyRecord {
        ApiKeyRecord {
            id,
            customer_id: 1,
            key_hash: hash_key(full_key),
            display_prefix: display_prefix(full_key).unwrap().to_owned(),
            name: format!("k{id}"),
            tier: "ai".into(),
            created_at: Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap(),
            is_active: true,
            expires_at: None,
            revoked_at: None,
            last_used_at: None,
        }
    }

    fn key(body_start: &str, fill: char) -> String {
        format!("sk_service_{body_start}{}", fill.to_string().repeat(36))
    }

    #[test]
    fn a_full_key_picks_its_own_record_even_when_masks_collide() {
        let (a, b) = (key("AbCd", 'x'), key("AbCd", 'y'));
        let keys = [record(1, &a), record(2, &b)];
        assert_eq!(pick_key(&keys, &parse_key_ref(&b).unwrap()).unwrap().id, 2);
    }

    #[test]
    fn a_masked_key_shared_by_two_keys_is_ambiguous() {
        let keys = [record(1, &key("AbCd", 'x')), record(2, &key("AbCd", 'y'))];
        let pick = pick_key(&keys, &parse_key_ref("sk_service_AbCd*****").unwrap());
        assert_eq!(pick.unwrap_err(), PickError::Ambiguous(2));
        assert!(PickError::Ambiguous(2).message("m", "e").contains("pass the full key"));
    }

    #[test]
    fn a_masked_key_with_one_match_picks_it_and_an_unknown_one_is_not_found() {
        let keys = [record(1, &key("AbCd", 'x')), record(2, &key("WxYz", 'y'))];
        assert_eq!(
            pick_key(&keys, &parse_key_ref("sk_service_WxYz*****").unwrap())
                .unwrap()
                .id,
            2
        );
        assert_eq!(
            pick_key(&keys, &parse_key_ref("sk_service_Nope*****").unwrap()).unwrap_err(),
            PickError::NotFound
        );
    }

    #[test]
    fn a_key_name_is_trimmed_and_bounded() {
        assert_eq!(valid_name("  ci  ").unwrap(), "ci");
        assert!(valid_name(" ").is_err());
        assert!(valid_name(&"n".repeat(101)).is_err());
    }
}
