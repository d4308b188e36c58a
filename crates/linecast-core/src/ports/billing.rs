//! The billing port: what the billing provider (Stripe) has told us, kept
//! beside the accounts. One method applies one event as one transaction:
//! the event id (so it is applied once), the link from Stripe's customer
//! and subscription to a linecast customer, the subscription's status and
//! plan, the `created` of the last event applied to it, and an audit line.
//!
//! The rules an adapter follows inside that transaction are written here,
//! once, as pure functions ([`supersedes`]) and as the contract of
//! [`BillingLedger::apply_billing`]; the use case is
//! `services::billing`.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::accounts::{AccountsError, Customer, NewCustomer, SubscriptionStatus};

/// The plan a Stripe price grants (`LINECAST_STRIPE_PLANS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanGrant {
    /// The customer's `api_plan` (for example `ai`).
    pub plan: String,
    /// The monthly quota it sets; `None` leaves the quota as it is.
    pub monthly_limit: Option<u64>,
}

/// Who a checkout names as the buyer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buyer {
    /// `client_reference_id`, when it holds a linecast customer id.
    pub customer_id: Option<i64>,
    /// `customer_details.email`, matched case-insensitively.
    pub email: Option<String>,
    /// `customer_details.name`, for an account created by the checkout.
    pub name: Option<String>,
}

/// The account a checkout creates for a buyer no customer matches: the
/// `ai` tier and the default quota, but no plan and status `incomplete`
/// (no access) until its subscription event says otherwise. No key is
/// issued: a key is shown once, and a webhook has nobody to show it to.
pub fn new_buyer(email: &str, name: Option<&str>) -> NewCustomer {
    NewCustomer {
        email: email.to_owned(),
        name: name.filter(|n| !n.trim().is_empty()).unwrap_or(email).to_owned(),
        tier: "ai".to_owned(),
        api_plan: None,
        subscription_status: SubscriptionStatus::Incomplete,
        monthly_limit: crate::services::customers::DEFAULT_MONTHLY_LIMIT,
    }
}

/// A subscription's state as one event reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionState {
    pub status: SubscriptionStatus,
    /// The plan of the first item's price; `None` when the price has no
    /// mapping (the plan is then left as it was).
    pub plan: Option<PlanGrant>,
    /// The price's lookup key or id, for the audit line and the warning.
    pub price: Option<String>,
}

/// One billing event, read from the provider's JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BillingEvent {
    /// Stripe's event id (`evt_...`): applied once.
    pub event_id: String,
    /// The event's `created`, Unix seconds: orders the events of one
    /// subscription.
    pub created: i64,
    /// Stripe's customer (`cus_...`).
    pub stripe_customer: String,
    /// Stripe's subscription (`sub_...`).
    pub stripe_subscription: Option<String>,
    pub kind: BillingEventKind,
}

/// What an event does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BillingEventKind {
    /// `checkout.session.completed` in subscription mode: links the Stripe
    /// customer and subscription to a linecast customer (found or created).
    Checkout(Buyer),
    /// `customer.subscription.created`, `.updated` or `.deleted`.
    Subscription(SubscriptionState),
}

/// The link from Stripe's ids to one linecast customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StripeLink {
    pub customer_id: i64,
    pub stripe_customer: String,
    pub stripe_subscription: Option<String>,
    /// `created` of the last subscription event applied.
    pub last_created: Option<i64>,
    /// Id of the last event applied.
    pub last_event_id: Option<String>,
}

/// What applying one event did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BillingOutcome {
    /// The event id was applied before: nothing changed.
    Duplicate,
    /// A checkout linked (and perhaps created) the customer.
    /// `applied_pending` is true when a subscription event that was waiting
    /// for the link was applied with it.
    Linked {
        customer: Customer,
        created: bool,
        applied_pending: bool,
    },
    /// A subscription event set the customer's status (and plan, when the
    /// price is mapped).
    Applied { customer: Customer },
    /// Older than the last event applied to the subscription: nothing
    /// changed.
    Stale { customer_id: i64 },
    /// No customer is linked to the subscription yet: kept until its
    /// checkout arrives (only the newest such event is kept).
    Pending,
    /// The checkout names no customer that exists and carries no email to
    /// create one with: nothing changed.
    NoBuyer,
}

impl BillingOutcome {
    /// The outcome's code, as the webhook's answer and the audit tools word it.
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Duplicate => "duplicate",
            Self::Linked { .. } => "linked",
            Self::Applied { .. } => "applied",
            Self::Stale { .. } => "stale",
            Self::Pending => "pending",
            Self::NoBuyer => "no_buyer",
        }
    }
}

/// Whether an event created at `incoming` may change a subscription whose
/// last applied event was created at `last`: not when it is older. An event
/// of the same second as the last one applies (Stripe's `created` has
/// whole seconds; the later delivery wins).
pub const fn supersedes(last: Option<i64>, incoming: i64) -> bool {
    match last {
        Some(last) => incoming >= last,
        None => true,
    }
}

/// The billing ledger.
#[async_trait]
pub trait BillingLedger: Send + Sync {
    /// Applies one event in one transaction:
    ///
    /// 1. an event id seen before is [`BillingOutcome::Duplicate`]; otherwise
    ///    the id is recorded, whatever the outcome;
    /// 2. a checkout finds its customer by `Buyer::customer_id`, else by
    ///    email, else creates [`new_buyer`] (`NoBuyer` without an email); it links the Stripe
    ///    customer and subscription to it (replacing an older link), then
    ///    applies the newest pending subscription event of that
    ///    subscription or Stripe customer, if any, by rule 3;
    /// 3. a subscription event finds the customer linked to its subscription,
    ///    else to its Stripe customer. With none, it is kept pending
    ///    (replacing a pending one only if it [`supersedes`] it). With one,
    ///    it applies when it [`supersedes`] the link's `last_created`: both
    ///    statuses become its status, `api_plan` and the quota its plan's
    ///    (left as they were when the plan is `None`), and the link records
    ///    its subscription, `created` and id. Otherwise it is `Stale`.
    ///
    /// Every change writes an audit line with the actor `stripe` and the
    /// event id.
    async fn apply_billing(&self, event: &BillingEvent, now: DateTime<Utc>) -> Result<BillingOutcome, AccountsError>;

    /// Links an existing customer (by email) to a Stripe customer by hand,
    /// with an audit line naming `actor`. `NotFound` when no customer has
    /// that email; `Conflict` when the Stripe customer is linked to another.
    async fn link_stripe_customer(
        &self,
        email: &str,
        stripe_customer: &str,
        actor: &str,
        now: DateTime<Utc>,
    ) -> Result<StripeLink, AccountsError>;

    /// The customer's link, if any.
    async fn stripe_link(&self, customer_id: i64) -> Result<Option<StripeLink>, AccountsError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_older_event_never_supersedes_and_the_same_second_does() {
        assert!(supersedes(None, 0));
        assert!(supersedes(Some(100), 101));
        assert!(supersedes(Some(100), 100));
        assert!(!supersedes(Some(100), 99));
    }
}
