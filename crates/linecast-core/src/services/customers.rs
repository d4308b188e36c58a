//! Customer accounts, for the admin CLI and the demo bootstrap: create (with
//! the input rules), find, list, set the subscription, grant datasets, an
//! operator's overview of one customer, and the first-run demo customer.
//! Owns the rules: an email has text on both sides of its `@` and no
//! whitespace or unprintable character; a name is 1 to 200 characters
//! after trimming, none of them unprintable (`linecast_domain::text`); a tier is one
//! of [`ACCEPTED_TIERS`]; a product id is lower-case letters, digits and
//! `_`, and a sport's history dataset is [`history_product`]. Keys go
//! through [`Keys`], so the demo key follows the same rules as every other.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use linecast_domain::Sport;
use linecast_domain::text::is_unprintable;

use super::access::{ACCEPTED_TIERS, month_of};
use super::keys::{IssuedKey, KeyError, Keys};
use crate::ports::accounts::{
    Accounts, AccountsError, ApiKeyRecord, AuditEntry, Customer, Entitlement, NewCustomer, SubscriptionStatus,
    UsageMeter,
};
use crate::quota_calendar::Month;

/// Longest customer name, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// The demo customer's email (demo mode only).
pub const DEMO_EMAIL: &str = "demo@linecast.local";

/// The monthly request limit a customer gets unless told otherwise.
pub const DEFAULT_MONTHLY_LIMIT: u64 = 200_000;

/// A sport's historical dataset in the product catalog: `<sport>_history`.
pub fn history_product(sport: Sport) -> String {
    format!("{}_history", sport.code())
}

/// Why a customer operation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CustomerError {
    #[error("'{0}' is not an email address")]
    InvalidEmail(String),
    #[error("a customer name must be 1 to {MAX_NAME_CHARS} characters")]
    InvalidName,
    #[error("tier '{0}' is unknown; allowed: {allowed}", allowed = ACCEPTED_TIERS.join(", "))]
    UnknownTier(String),
    #[error("'{0}' is not a product id (lower-case letters, digits and '_', e.g. nba_history)")]
    InvalidProduct(String),
    #[error("no product to grant")]
    NoProducts,
    #[error("a customer with email '{0}' already exists")]
    EmailTaken(String),
    #[error("no customer with email '{0}'")]
    NotFound(String),
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Accounts(#[from] AccountsError),
}

/// What an operator asks for when creating a customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerInput {
    pub email: String,
    pub name: String,
    pub tier: String,
    /// The API plan shown in the account payload; blank means none.
    pub plan: String,
    pub monthly_limit: u64,
    pub status: SubscriptionStatus,
}

impl CustomerInput {
    /// The customer as stored: trimmed, each rule checked.
    pub fn validate(&self) -> Result<NewCustomer, CustomerError> {
        let email = self.email.trim();
        let valid_email = email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.is_empty()
                && !email.contains(char::is_whitespace)
                && !email.chars().any(is_unprintable)
        });
        if !valid_email {
            return Err(CustomerError::InvalidEmail(email.to_owned()));
        }
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(is_unprintable) {
            return Err(CustomerError::InvalidName);
        }
        if !ACCEPTED_TIERS.contains(&self.tier.as_str()) {
            return Err(CustomerError::UnknownTier(self.tier.clone()));
        }
        let plan = self.plan.trim();
        Ok(NewCustomer {
            email: email.to_owned(),
            name: name.to_owned(),
            tier: self.tier.clone(),
            api_plan: (!plan.is_empty()).then(|| plan.to_owned()),
            subscription_status: self.status,
            monthly_limit: self.monthly_limit,
        })
    }
}

/// The products to grant: those named (trimmed, blanks dropped, each a
/// product id), or each sport's history dataset when none are named.
pub fn products_to_grant(sports: &[Sport], named: Option<&[String]>) -> Result<Vec<String>, CustomerError> {
    let Some(named) = named else {
        return Ok(sports.iter().copied().map(history_product).collect());
    };
    let products: Vec<String> = named
        .iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect();
    if products.is_empty() {
        return Err(CustomerError::NoProducts);
    }
    if let Some(bad) = products.iter().find(|p| {
        !p.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    }) {
        return Err(CustomerError::InvalidProduct(bad.clone()));
    }
    Ok(products)
}

/// One customer as an operator sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    pub customer: Customer,
    pub keys: Vec<ApiKeyRecord>,
    /// The quota month of `now`.
    pub month: Month,
    /// Requests counted in the database this month (the server's buffer
    /// reaches it within a flush interval).
    pub used: u64,
    pub refreshes_used: u32,
    pub entitlement: Option<Entitlement>,
    pub audit: Vec<AuditEntry>,
}

/// The demo customer and its key, when the bootstrap created them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoAccount {
    pub customer: Customer,
    pub key: IssuedKey,
}

/// The customer use cases over the accounts and usage ports.
pub struct Customers {
    accounts: Arc<dyn Accounts>,
    usage: Arc<dyn UsageMeter>,
}

impl Customers {
    pub fn new(accounts: Arc<dyn Accounts>, usage: Arc<dyn UsageMeter>) -> Self {
        Self { accounts, usage }
    }

    /// Creates a customer; an email already in use is refused.
    pub async fn create(&self, input: &CustomerInput, now: DateTime<Utc>) -> Result<Customer, CustomerError> {
        let new = input.validate()?;
        let email = new.email.clone();
        match self.accounts.create_customer(new, now).await {
            Err(AccountsError::Conflict(_)) => Err(CustomerError::EmailTaken(email)),
            other => Ok(other?),
        }
    }

    /// Every customer, oldest first.
    pub async fn list(&self) -> Result<Vec<Customer>, CustomerError> {
        Ok(self.accounts.list_customers().await?)
    }

    /// The customer with that email (case-insensitive).
    pub async fn find(&self, email: &str) -> Result<Customer, CustomerError> {
        self.accounts
            .find_customer_by_email(email)
            .await?
            .ok_or_else(|| CustomerError::NotFound(email.trim().to_owned()))
    }

    /// Sets both the API and the account subscription status.
    pub async fn set_subscription(&self, email: &str, status: SubscriptionStatus) -> Result<Customer, CustomerError> {
        match self.accounts.set_subscription(email, status).await {
            Err(AccountsError::NotFound) => Err(CustomerError::NotFound(email.trim().to_owned())),
            other => Ok(other?),
        }
    }

    /// Adds `products` and `sports` to what the customer owns (a union:
    /// granting twice removes nothing); the expiry becomes `expires_at`.
    pub async fn grant(
        &self,
        customer: &Customer,
        sports: &[Sport],
        products: &[String],
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<Entitlement, CustomerError> {
        if products.is_empty() {
            return Err(CustomerError::NoProducts);
        }
        Ok(self
            .accounts
            .grant_entitlement(customer.customer_id, products, sports, expires_at)
            .await?)
    }

    /// Keys, this month's usage and refreshes, entitlement and audit log.
    pub async fn overview(&self, customer: Customer, now: DateTime<Utc>) -> Result<Overview, CustomerError> {
        let id = customer.customer_id;
        let month = month_of(now);
        Ok(Overview {
            keys: self.accounts.list_keys(id).await?,
            used: self.usage.get_usage(id, month).await?,
            refreshes_used: self.usage.refreshes_used(id, month).await?,
            entitlement: self.accounts.get_entitlement(id).await?,
            audit: self.accounts.audit_log(id).await?,
            month,
            customer,
        })
    }

    /// First run of a demo: with no customer at all, creates the demo
    /// customer (tier `ai`, active), one key through `keys`, and an
    /// entitlement to every sport's history dataset. With any customer
    /// present it changes nothing and answers `None`.
    pub async fn bootstrap_demo(&self, keys: &Keys, now: DateTime<Utc>) -> Result<Option<DemoAccount>, CustomerError> {
        if !self.accounts.list_customers().await?.is_empty() {
            return Ok(None);
        }
        let customer = self
            .create(
                &CustomerInput {
                    email: DEMO_EMAIL.to_owned(),
                    name: "Demo Customer".to_owned(),
                    tier: "ai".to_owned(),
                    plan: "ai".to_owned(),
                    monthly_limit: DEFAULT_MONTHLY_LIMIT,
                    status: SubscriptionStatus::Active,
                },
                now,
            )
            .await?;
        let key = keys.issue(&customer, "demo", None, "demo bootstrap", now).await?;
        let products = products_to_grant(Sport::ALL, None)?;
        self.grant(&customer, Sport::ALL, &products, None).await?;
        Ok(Some(DemoAccount { customer, key }))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;
    use crate::testing::MemoryAccounts;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
    }

    fn input(email: &str, name: &str, tier: &str) -> CustomerInput {
        CustomerInput {
            email: email.into(),
            name: name.into(),
            tier: tier.into(),
            plan: "ai".into(),
            monthly_limit: 1000,
            status: SubscriptionStatus::Active,
        }
    }

    fn service() -> (Arc<MemoryAccounts>, Customers, Keys) {
        let accounts = Arc::new(MemoryAccounts::new());
        let customers = Customers::new(accounts.clone(), accounts.clone());
        let keys = Keys::new(accounts.clone(), 5);
        (accounts, customers, keys)
    }

    #[test]
    fn a_valid_customer_is_trimmed_and_keeps_its_plan_and_a_blank_plan_is_none() {
        let new = input("  ops@example.com ", " Ops Team ", "ai").validate().unwrap();
        assert_eq!((new.email.as_str(), new.name.as_str()), ("ops@example.com", "Ops Team"));
        assert_eq!(new.api_plan.as_deref(), Some("ai"));
        let blank = CustomerInput {
            plan: "  ".into(),
            ..input("a@b.c", "A", "ai")
        };
        assert_eq!(blank.validate().unwrap().api_plan, None);
    }

    #[test]
    fn emails_names_and_tiers_are_checked() {
        for bad in ["ops", "@example.com", "ops@", "o ps@example.com"] {
            assert_eq!(
                input(bad, "Ops", "ai").validate(),
                Err(CustomerError::InvalidEmail(bad.trim().into())),
                "{bad}"
            );
        }
        assert_eq!(input("a@b.c", "  ", "ai").validate(), Err(CustomerError::InvalidName));
        assert_eq!(
            input("a@b.c", &"n".repeat(201), "ai").validate(),
            Err(CustomerError::InvalidName)
        );
        assert!(input("a@b.c", &"é".repeat(200), "ai").validate().is_ok());
        // Text that would reorder or break what an operator reads.
        for bad in ["Ada\u{202e}gpj.exe", "Ada\nforged line", "Ada\u{2066}x"] {
            assert_eq!(
                input("a@b.c", bad, "ai").validate(),
                Err(CustomerError::InvalidName),
                "{bad:?}"
            );
        }
        assert!(matches!(
            input("a\u{202e}@b.c", "Ops", "ai").validate(),
            Err(CustomerError::InvalidEmail(_))
        ));
        let err = input("a@b.c", "Ops", "gold").validate().unwrap_err();
        assert_eq!(
            err.to_string(),
            "tier 'gold' is unknown; allowed: ai, data, basic, premium"
        );
        for legacy in ["data", "basic", "premium"] {
            assert!(input("a@b.c", "Ops", legacy).validate().is_ok(), "{legacy}");
        }
    }

    #[test]
    fn without_products_each_sport_gets_its_history_dataset_and_named_ones_are_checked() {
        assert_eq!(
            products_to_grant(&[Sport::Mlb, Sport::Nba], None).unwrap(),
            ["mlb_history", "nba_history"]
        );
        let named = vec![" nba_closing_lines ".to_owned(), String::new()];
        assert_eq!(
            products_to_grant(&[Sport::Nba], Some(&named)).unwrap(),
            ["nba_closing_lines"]
        );
        assert_eq!(
            products_to_grant(&[Sport::Nba], Some(&["NBA History".to_owned()])),
            Err(CustomerError::InvalidProduct("NBA History".into()))
        );
        assert_eq!(
            products_to_grant(&[Sport::Nba], Some(&[" ".to_owned()])),
            Err(CustomerError::NoProducts)
        );
    }

    #[tokio::test]
    async fn a_second_customer_with_the_same_email_is_refused_by_name() {
        let (_, customers, _) = service();
        customers
            .create(&input("ops@example.com", "Ops", "ai"), now())
            .await
            .unwrap();
        assert_eq!(
            customers.create(&input("OPS@example.com", "Ops 2", "ai"), now()).await,
            Err(CustomerError::EmailTaken("OPS@example.com".into()))
        );
        assert_eq!(
            customers.find("nobody@example.com").await,
            Err(CustomerError::NotFound("nobody@example.com".into()))
        );
        assert_eq!(
            customers
                .set_subscription("nobody@example.com", SubscriptionStatus::Canceled)
                .await,
            Err(CustomerError::NotFound("nobody@example.com".into()))
        );
    }

    #[tokio::test]
    async fn the_overview_reads_this_months_usage_only() {
        let (accounts, customers, keys) = service();
        let c = customers
            .create(&input("ops@example.com", "Ops", "ai"), now())
            .await
            .unwrap();
        keys.issue(&c, "ci", None, "test", now()).await.unwrap();
        accounts.add_usage(c.customer_id, (2026, 11), 7).await.unwrap();
        accounts.add_usage(c.customer_id, (2026, 10), 99).await.unwrap();
        let view = customers.overview(c, now()).await.unwrap();
        assert_eq!((view.month, view.used, view.refreshes_used), ((2026, 11), 7, 0));
        assert_eq!(view.keys.len(), 1);
        assert_eq!(view.audit.len(), 1);
        assert_eq!(view.entitlement, None);
    }

    #[tokio::test]
    async fn the_demo_bootstrap_runs_once_on_an_empty_database_only() {
        let (accounts, customers, keys) = service();
        let demo = customers.bootstrap_demo(&keys, now()).await.unwrap().unwrap();
        assert_eq!(demo.customer.email, DEMO_EMAIL);
        assert_eq!(demo.customer.tier, "ai");
        assert!(demo.key.key.starts_with("sk_service_"));
        let owned = accounts
            .get_entitlement(demo.customer.customer_id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(owned.owned_sports.len(), Sport::ALL.len());
        assert!(owned.owned_products.contains(&"ncaab_history".to_owned()));
        assert_eq!(owned.expires_at, None);
        assert_eq!(customers.bootstrap_demo(&keys, now()).await.unwrap(), None);
        assert_eq!(accounts.list_customers().await.unwrap().len(), 1);

        // A database that already has a real customer gets no demo customer.
        let (accounts, customers, keys) = service();
        customers
            .create(&input("ops@example.com", "Ops", "ai"), now())
            .await
            .unwrap();
        assert_eq!(customers.bootstrap_demo(&keys, now()).await.unwrap(), None);
        assert_eq!(accounts.list_customers().await.unwrap().len(), 1);
    }
}
