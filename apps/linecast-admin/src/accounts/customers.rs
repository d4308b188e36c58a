//! `customers create|list|show`.

use std::process::ExitCode;

use anyhow::anyhow;
use linecast_core::SubscriptionStatus;
use linecast_core::ports::billing::BillingLedger;
use linecast_core::services::customers::{CustomerError, CustomerInput, DEFAULT_MONTHLY_LIMIT, Overview};
use serde_json::json;

use super::output::{escaped, instant, instant_or_dash, table};
use super::subscription::{STATUS_CODES, parse_status};
use super::{Common, Session, views};

#[derive(Debug, clap::Args)]
pub struct CustomersArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub command: CustomersCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum CustomersCommand {
    /// Create a customer (emails are unique, compared case-insensitively).
    Create {
        /// Unique; stored trimmed and lower-cased.
        #[arg(long)]
        email: String,
        /// The customer's display name (1 to 200 characters).
        #[arg(long)]
        name: String,
        /// `ai`, or a legacy tier (`data`, `basic`, `premium`) with the same access.
        #[arg(long, default_value = "ai")]
        tier: String,
        /// The API plan shown in the account payload.
        #[arg(long, default_value = "ai")]
        plan: String,
        /// Requests per UTC calendar month.
        #[arg(long, default_value_t = DEFAULT_MONTHLY_LIMIT)]
        monthly_limit: u64,
        /// Subscription status (API and account).
        #[arg(long, default_value = "active", value_name = STATUS_CODES, value_parser = parse_status)]
        status: SubscriptionStatus,
    },
    /// List every customer, oldest first.
    List,
    /// One customer with their keys (masked), this month's usage, entitlement,
    /// and Stripe link (ids and the last billing event applied).
    Show {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        email: String,
    },
    /// Print a one-time portal sign-in link (15 minutes) for a customer who
    /// lost every key; using it issues a new key, shown once.
    SignInLink {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        email: String,
        /// The server's public base URL, as the customer reaches it (else
        /// `public_url` in linecast.toml, else http://127.0.0.1:8080).
        #[arg(long, env = "LINECAST_PUBLIC_URL")]
        base_url: Option<String>,
    },
    /// Print a subscribe link for an existing customer: the Stripe Payment
    /// Link with a `client_reference_id` linecast signed, so the checkout
    /// links this customer (an email typed at checkout never does).
    SubscribeLink {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        email: String,
        /// The Stripe Payment Link the customer buys through
        /// (`https://buy.stripe.com/...`).
        #[arg(long, env = "LINECAST_STRIPE_PAYMENT_LINK")]
        payment_link: String,
        /// How long the link names the customer, in days.
        #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u16).range(1..=90))]
        valid_days: u16,
        /// The server's signing key: the webhook verifies the reference with
        /// it (else `signing_key` in linecast.toml).
        #[arg(long, env = "LINECAST_SIGNING_KEY", hide_env_values = true)]
        signing_key: Option<String>,
    },
    /// Link an existing customer to a Stripe customer by hand (customers who
    /// subscribed before the webhook was configured, or a checkout held for
    /// an operator: `billing pending` lists them). A held checkout of that
    /// Stripe customer gives the subscription; the newest subscription
    /// event that waited for it is applied.
    LinkStripe {
        /// The customer's email (case-insensitive).
        #[arg(long)]
        email: String,
        /// Stripe's customer id, `cus_...`.
        #[arg(long)]
        stripe_customer: String,
    },
}

pub async fn run(args: CustomersArgs) -> anyhow::Result<ExitCode> {
    let session = Session::open(&args.common).await?;
    match args.command {
        CustomersCommand::Create {
            email,
            name,
            tier,
            plan,
            monthly_limit,
            status,
        } => {
            let input = CustomerInput {
                email,
                name,
                tier,
                plan,
                monthly_limit,
                status,
            };
            create(&session, &input).await?;
        }
        CustomersCommand::List => list(&session).await?,
        CustomersCommand::Show { email } => show(&session, &email).await?,
        CustomersCommand::SignInLink { email, base_url } => {
            let base_url = match base_url {
                Some(url) => url,
                None => {
                    super::config::file_setting("public_url")?.unwrap_or_else(|| "http://127.0.0.1:8080".to_owned())
                }
            };
            sign_in_link(&session, &email, &base_url).await?;
        }
        CustomersCommand::SubscribeLink {
            email,
            payment_link,
            valid_days,
            signing_key,
        } => subscribe_link(&session, &email, &payment_link, valid_days, signing_key.as_deref()).await?,
        CustomersCommand::LinkStripe { email, stripe_customer } => {
            link_stripe(&session, &email, &stripe_customer).await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A refused input, worded with the flag that carries it.
fn flag_error(e: CustomerError) -> anyhow::Error {
    match e {
        CustomerError::InvalidEmail(email) => anyhow!("--email '{email}' is not an email address"),
        CustomerError::InvalidName => anyhow!("--name must be 1 to 200 characters"),
        CustomerError::UnknownTier(_) => anyhow!("--{e}"),
        other => anyhow!(other),
    }
}

async fn create(session: &Session, input: &CustomerInput) -> anyhow::Result<()> {
    let customer = session.customers.create(input, session.now).await.map_err(flag_error)?;
    session.out.emit(&views::customer(&customer), || {
        format!(
            "created customer {} <{}> (id {}, tier {}, {} requests/month, {})",
            escaped(&customer.name),
            escaped(&customer.email),
            customer.customer_id,
            escaped(&customer.tier),
            customer.monthly_limit,
            customer.subscription_status
        )
    })
}

async fn sign_in_link(session: &Session, email: &str, base_url: &str) -> anyhow::Result<()> {
    let customer = session.customer(email).await?;
    // The wall clock, whatever LINECAST_NOW says: the server times links
    // on its wall clock.
    let now = chrono::Utc::now();
    let token =
        linecast_core::services::portal::create_sign_in_link(session.billing.as_ref(), customer.customer_id, now)
            .await?;
    let url = format!("{}/portal/link/{token}", base_url.trim_end_matches('/'));
    let expires = now + linecast_core::services::portal::LINK_LIFETIME;
    session.out.emit(
        &json!({"customer_email": customer.email, "url": url, "expires_at": instant(expires)}),
        || {
            format!(
                "sign-in link for {} (works once, until {}):\n{url}",
                escaped(&customer.email),
                instant(expires)
            )
        },
    )
}

async fn subscribe_link(
    session: &Session,
    email: &str,
    payment_link: &str,
    valid_days: u16,
    signing_key: Option<&str>,
) -> anyhow::Result<()> {
    let from_file = match signing_key {
        Some(_) => None,
        None => super::config::file_setting("signing_key")?,
    };
    let Some(key) = signing_key.or(from_file.as_deref()).filter(|k| !k.is_empty()) else {
        return Err(anyhow!(
            "--signing-key (or LINECAST_SIGNING_KEY, or signing_key in linecast.toml) is required: the server \
             verifies the reference with its signing key"
        ));
    };
    let base = url::Url::parse(payment_link)
        .ok()
        .filter(|u| u.scheme() == "https" || u.scheme() == "http")
        .ok_or_else(|| anyhow!("--payment-link '{payment_link}' is not an http(s) URL"))?;
    let customer = session.customer(email).await?;
    // The wall clock: Stripe's `created` is what the reference is checked against.
    let expires = chrono::Utc::now() + chrono::Duration::days(i64::from(valid_days));
    let reference = linecast_stripe::ReferenceKey::new(key.as_bytes()).sign(customer.customer_id, expires.timestamp());
    let mut url = base;
    url.query_pairs_mut()
        .append_pair("client_reference_id", &reference)
        .append_pair("prefilled_email", &customer.email);
    session.out.emit(
        &json!({
            "customer_email": customer.email,
            "client_reference_id": reference,
            "url": url.as_str(),
            "expires_at": instant(expires),
        }),
        || {
            format!(
                "subscribe link for {} (names this customer until {}):\n{url}",
                escaped(&customer.email),
                instant(expires)
            )
        },
    )
}

async fn link_stripe(session: &Session, email: &str, stripe_customer: &str) -> anyhow::Result<()> {
    if !stripe_customer.starts_with("cus_") || stripe_customer.len() < 5 {
        return Err(anyhow!(
            "--stripe-customer '{stripe_customer}' is not a Stripe customer id (cus_...)"
        ));
    }
    let customer = session.customer(email).await?;
    let link = session
        .billing
        .link_stripe_customer(&customer.email, stripe_customer, "operator", session.now)
        .await
        .map_err(|e| match e {
            linecast_core::AccountsError::Conflict(detail) => anyhow!("--stripe-customer: {detail}"),
            other => anyhow!(other),
        })?;
    session.out.emit(&views::stripe_link(&link), || {
        format!(
            "{} is linked to Stripe customer {}{}",
            escaped(&customer.email),
            escaped(&link.stripe_customer),
            link.last_event_id
                .as_deref()
                .map_or_else(String::new, |e| format!(" (applied event {})", escaped(e)))
        )
    })
}

async fn list(session: &Session) -> anyhow::Result<()> {
    let customers = session.customers.list().await?;
    let value = json!(customers.iter().map(views::customer).collect::<Vec<_>>());
    session.out.emit(&value, || {
        if customers.is_empty() {
            return "no customers".to_owned();
        }
        let rows: Vec<Vec<String>> = customers
            .iter()
            .map(|c| {
                vec![
                    c.customer_id.to_string(),
                    escaped(&c.email).into_owned(),
                    escaped(&c.name).into_owned(),
                    escaped(&c.tier).into_owned(),
                    c.api_plan
                        .as_deref()
                        .map_or_else(|| "-".to_owned(), |p| escaped(p).into_owned()),
                    c.subscription_status.to_string(),
                    c.monthly_limit.to_string(),
                    instant(c.created_at),
                ]
            })
            .collect();
        table(
            &[
                "id",
                "email",
                "name",
                "tier",
                "plan",
                "status",
                "monthly_limit",
                "created_at",
            ],
            &rows,
        )
    })
}

async fn show(session: &Session, email: &str) -> anyhow::Result<()> {
    let customer = session.customer(email).await?;
    let Overview {
        customer,
        keys,
        month,
        used,
        refreshes_used: refreshes,
        entitlement,
        audit,
    } = session.customers.overview(customer, session.now).await?;
    let id = customer.customer_id;
    let month_key = linecast_core::quota_calendar::month_key(month);
    let mut value = views::customer(&customer);
    let obj = value
        .as_object_mut()
        .ok_or_else(|| anyhow!("customer view is not an object"))?;
    obj.insert("keys".into(), json!(keys.iter().map(views::key).collect::<Vec<_>>()));
    obj.insert(
        "usage".into(),
        json!({
            "month": month_key,
            "monthly_requests": used,
            "monthly_limit": customer.monthly_limit,
            "refreshes_used": refreshes,
        }),
    );
    obj.insert(
        "entitlement".into(),
        entitlement.as_ref().map_or(json!(null), views::entitlement),
    );
    let stripe = session.billing.stripe_link(id).await?;
    obj.insert("stripe".into(), stripe.as_ref().map_or(json!(null), views::stripe_link));
    obj.insert(
        "audit".into(),
        json!(
            audit
                .iter()
                .map(|a| json!({
                    "at": instant(a.at), "action": a.action, "key_id": a.key_id, "detail": a.detail,
                }))
                .collect::<Vec<_>>()
        ),
    );
    session.out.emit(&value, || {
        let mut lines = vec![
            format!(
                "customer {} <{}> (id {id})",
                escaped(&customer.name),
                escaped(&customer.email)
            ),
            format!(
                "  tier {}, plan {}, subscription {} (api {}), created {}",
                escaped(&customer.tier),
                escaped(customer.api_plan.as_deref().unwrap_or("-")),
                customer.subscription_status,
                customer.api_subscription_status,
                instant(customer.created_at),
            ),
            format!(
                "  usage {month_key}: {used} of {} requests, {refreshes} dataset refreshes",
                customer.monthly_limit
            ),
        ];
        lines.push(match &entitlement {
            Some(e) => format!(
                "  entitlement: sports {}; products {}; expires {}",
                join_or_dash(e.owned_sports.iter().map(|s| s.code())),
                join_or_dash(e.owned_products.iter().map(String::as_str)),
                instant_or_dash(e.expires_at),
            ),
            None => "  entitlement: none".to_owned(),
        });
        lines.push(match &stripe {
            Some(l) => format!(
                "  stripe: customer {}, subscription {}, last event {}",
                escaped(&l.stripe_customer),
                escaped(l.stripe_subscription.as_deref().unwrap_or("-")),
                escaped(l.last_event_id.as_deref().unwrap_or("-")),
            ),
            None => "  stripe: not linked".to_owned(),
        });
        if keys.is_empty() {
            lines.push("  keys: none".to_owned());
        } else {
            let rows: Vec<Vec<String>> = keys.iter().map(key_row).collect();
            let headers = [
                "key",
                "name",
                "active",
                "created_at",
                "expires_at",
                "revoked_at",
                "last_used_at",
            ];
            lines.push("  keys:".to_owned());
            lines.extend(table(&headers, &rows).lines().map(|line| format!("    {line}")));
        }
        lines.join("\n")
    })
}

fn key_row(k: &linecast_core::ApiKeyRecord) -> Vec<String> {
    vec![
        k.masked(),
        escaped(&k.name).into_owned(),
        if k.is_active && k.revoked_at.is_none() {
            "yes"
        } else {
            "no"
        }
        .to_owned(),
        instant(k.created_at),
        instant_or_dash(k.expires_at),
        instant_or_dash(k.revoked_at),
        instant_or_dash(k.last_used_at),
    ]
}

fn join_or_dash<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let joined = items.map(escaped).collect::<Vec<_>>().join(",");
    if joined.is_empty() { "-".to_owned() } else { joined }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn refused_input_names_the_flag_that_carries_it() {
        let input = |email: &str, name: &str, tier: &str| CustomerInput {
            email: email.into(),
            name: name.into(),
            tier: tier.into(),
            plan: "ai".into(),
            monthly_limit: 1,
            status: SubscriptionStatus::Active,
        };
        let message = |i: CustomerInput| flag_error(i.validate().unwrap_err()).to_string();
        assert_eq!(
            message(input("ops", "Ops", "ai")),
            "--email 'ops' is not an email address"
        );
        assert_eq!(message(input("a@b.c", " ", "ai")), "--name must be 1 to 200 characters");
        assert_eq!(
            message(input("a@b.c", "Ops", "gold")),
            "--tier 'gold' is unknown; allowed: ai, data, basic, premium"
        );
    }
}
