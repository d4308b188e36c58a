//! Subscriptions from the billing provider: one use case applies one billing
//! event to an account, through the billing ledger (one transaction per
//! event, see `ports::billing`), and makes this instance's key cache forget
//! the customer's keys so the change is seen at once here (other instances
//! see it when their cached entries expire). Which plan a price grants is
//! the operator's table, [`PlanTable`], read with the event (`linecast-stripe`).

use std::sync::Arc;

use crate::Clock;
use crate::ports::accounts::SubscriptionStatus;
use crate::ports::accounts::{Accounts, AccountsError, AuditEntry};
use crate::ports::billing::{BillingEvent, BillingLedger, BillingOutcome, PlanGrant, StripeLink};
use crate::ports::key_directory::KeyDirectory;

/// Which plan each Stripe price grants (`LINECAST_STRIPE_PLANS`): a price is
/// named by its lookup key or its id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanTable {
    rows: Vec<(String, PlanGrant)>,
}

impl PlanTable {
    /// Reads `price=plan[:limit],...`, for example
    /// `price_ai_monthly=ai,price_ai_pro=ai:500000`. Blank entries are
    /// skipped; a price named twice, an empty side or a limit that is not a
    /// whole number is an error naming the entry.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut rows: Vec<(String, PlanGrant)> = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (price, grant) = entry
                .split_once('=')
                .ok_or_else(|| format!("'{entry}': expected price=plan or price=plan:limit"))?;
            let (plan, limit) = match grant.split_once(':') {
                Some((plan, limit)) => (
                    plan,
                    Some(
                        limit
                            .trim()
                            .parse::<u64>()
                            .map_err(|e| format!("'{entry}': the monthly limit '{limit}': {e}"))?,
                    ),
                ),
                None => (grant, None),
            };
            let (price, plan) = (price.trim(), plan.trim());
            if price.is_empty() || plan.is_empty() {
                return Err(format!("'{entry}': expected price=plan or price=plan:limit"));
            }
            if rows.iter().any(|(p, _)| p == price) {
                return Err(format!("'{entry}': the price '{price}' is named twice"));
            }
            rows.push((
                price.to_owned(),
                PlanGrant {
                    plan: plan.to_owned(),
                    monthly_limit: limit,
                },
            ));
        }
        Ok(Self { rows })
    }

    /// The plan of a price: by its lookup key first, then by its id.
    pub fn grant(&self, lookup_key: Option<&str>, price_id: Option<&str>) -> Option<&PlanGrant> {
        [lookup_key, price_id]
            .into_iter()
            .flatten()
            .find_map(|name| self.rows.iter().find(|(p, _)| p == name).map(|(_, g)| g))
    }

    /// How many prices are mapped.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The price a customer subscribes to from the portal: the first entry
    /// named by a price id (`price_...`; a checkout takes an id, not a
    /// lookup key). The operator lists the price on sale first.
    pub fn subscribe_price(&self) -> Option<&str> {
        self.rows
            .iter()
            .map(|(p, _)| p.as_str())
            .find(|p| p.starts_with("price_"))
    }
}

/// What the portal's Billing page offers a customer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BillingActions {
    /// A checkout for a new subscription: for a customer whose link names
    /// no subscription that may still serve (none, or one that ended), and
    /// whose status grants nothing (an account an operator keeps active
    /// without Stripe is not sold a second subscription).
    pub subscribe: bool,
    /// The provider's billing page: for a customer linked to a Stripe
    /// customer (invoices, payment method, plan, cancel).
    pub manage: bool,
}

/// The actions of a customer with `status` and `link`.
pub fn billing_actions(status: SubscriptionStatus, link: Option<&StripeLink>) -> BillingActions {
    BillingActions {
        subscribe: !status.grants_access() && link.is_none_or(StripeLink::may_be_replaced),
        manage: link.is_some(),
    }
}

/// The audit action of the lines a billing event writes.
pub const BILLING_ACTION: &str = "billing";

/// A customer's billing as the portal shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingAccount {
    pub link: Option<StripeLink>,
    /// The newest billing audit lines, newest first.
    pub events: Vec<AuditEntry>,
}

/// The use case.
pub struct Billing {
    ledger: Arc<dyn BillingLedger>,
    accounts: Arc<dyn Accounts>,
    keys: Option<Arc<dyn KeyDirectory>>,
    /// The wall clock of the audit lines (`created_at` of a new buyer).
    clock: Arc<dyn Clock>,
}

impl Billing {
    /// `keys`: this instance's key directory, told to forget the keys of a
    /// customer whose subscription changed (`None` for the admin tool,
    /// which has no cache).
    pub fn new(
        ledger: Arc<dyn BillingLedger>,
        accounts: Arc<dyn Accounts>,
        keys: Option<Arc<dyn KeyDirectory>>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            ledger,
            accounts,
            keys,
            clock,
        }
    }

    /// What the portal's Billing page shows of a customer: the link to
    /// Stripe, if any, and the newest `last` billing lines of the ledger's
    /// audit trail (action `billing`: every change, hold and conflict an
    /// event made), newest first.
    pub async fn account(&self, customer_id: i64, last: usize) -> Result<BillingAccount, AccountsError> {
        let link = self.ledger.stripe_link(customer_id).await?;
        let mut events: Vec<AuditEntry> = self
            .accounts
            .audit_log(customer_id)
            .await?
            .into_iter()
            .filter(|line| line.action == BILLING_ACTION)
            .collect();
        events.reverse();
        events.truncate(last);
        Ok(BillingAccount { link, events })
    }

    /// Applies one event (see `BillingLedger::apply_billing` for the rules).
    pub async fn apply(&self, event: &BillingEvent) -> Result<BillingOutcome, AccountsError> {
        let outcome = self.ledger.apply_billing(event, self.clock.now()).await?;
        if let (BillingOutcome::Applied { customer } | BillingOutcome::Linked { customer, .. }, Some(keys)) =
            (&outcome, &self.keys)
        {
            for key in self.accounts.list_keys(customer.customer_id).await? {
                keys.forget(&key.key_hash).await;
            }
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn plans_map_prices_to_a_plan_and_an_optional_quota() {
        let table = PlanTable::parse(" price_ai_monthly=ai , price_ai_pro=ai:500000,,").unwrap();
        assert_eq!(table.len(), 2);
        assert_eq!(
            table.grant(None, Some("price_ai_pro")),
            Some(&PlanGrant {
                plan: "ai".into(),
                monthly_limit: Some(500_000)
            })
        );
        assert_eq!(table.grant(Some("price_ai_monthly"), None).unwrap().monthly_limit, None);
        assert_eq!(table.grant(Some("other"), Some("price_unknown")), None);
    }

    #[test]
    fn the_lookup_key_wins_over_the_price_id() {
        let table = PlanTable::parse("ai_monthly=ai:10,price_123=data:20").unwrap();
        assert_eq!(table.grant(Some("ai_monthly"), Some("price_123")).unwrap().plan, "ai");
        // An unmapped lookup key falls back to the id.
        assert_eq!(table.grant(Some("nope"), Some("price_123")).unwrap().plan, "data");
    }

    #[test]
    fn subscribe_sells_the_first_price_id() {
        let table = PlanTable::parse("ai_monthly=ai,price_new=ai:10,price_old=ai").unwrap();
        assert_eq!(table.subscribe_price(), Some("price_new"));
        assert_eq!(PlanTable::parse("ai_monthly=ai").unwrap().subscribe_price(), None);
        assert_eq!(PlanTable::default().subscribe_price(), None);
    }

    fn link(subscription: Option<&str>, last: Option<SubscriptionStatus>) -> StripeLink {
        StripeLink {
            customer_id: 1,
            stripe_customer: "cus_1".into(),
            stripe_subscription: subscription.map(str::to_owned),
            last_created: None,
            last_event_id: None,
            last_status: last,
            period_end: None,
        }
    }

    #[test]
    fn subscribe_is_offered_only_without_a_subscription_that_may_serve() {
        use SubscriptionStatus::{Active, Canceled, Incomplete, PastDue};
        let offer = |status, link: Option<&StripeLink>| {
            let a = billing_actions(status, link);
            (a.subscribe, a.manage)
        };
        assert_eq!(offer(Incomplete, None), (true, false));
        assert_eq!(
            offer(Canceled, Some(&link(Some("sub_1"), Some(Canceled)))),
            (true, true)
        );
        assert_eq!(offer(Incomplete, Some(&link(None, None))), (true, true));
        assert_eq!(offer(PastDue, Some(&link(Some("sub_1"), Some(PastDue)))), (false, true));
        assert_eq!(offer(Active, Some(&link(Some("sub_1"), Some(Active)))), (false, true));
        // Kept active by an operator, without Stripe: nothing to sell.
        assert_eq!(offer(Active, None), (false, false));
    }

    #[test]
    fn a_malformed_plan_table_names_the_entry() {
        for (text, needle) in [
            ("price_a", "'price_a'"),
            ("price_a=", "'price_a='"),
            ("=ai", "'=ai'"),
            ("price_a=ai:lots", "'lots'"),
            ("price_a=ai,price_a=data", "named twice"),
        ] {
            let err = PlanTable::parse(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
        assert!(PlanTable::parse("").unwrap().is_empty());
    }
}
