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

/// Who a checkout names as the buyer. Only linecast's own signed
/// reference names an existing customer; an email typed at Checkout (not
/// verified by Stripe) or any other `client_reference_id` never does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buyer {
    /// The customer a `client_reference_id` that linecast signed names,
    /// verified (signature and expiry) before it reaches the ledger.
    pub signed_customer: Option<i64>,
    /// Why a `client_reference_id` that was present was not honoured
    /// (unsigned, forged, expired), for the audit line and the log.
    pub refused_reference: Option<String>,
    /// `customer_details.email`, matched case-insensitively.
    pub email: Option<String>,
    /// `customer_details.name`, for an account created by the checkout.
    pub name: Option<String>,
}

/// The account a checkout creates for a buyer no customer matches: the
/// `ai` tier and the default quota, but no plan and status `incomplete`
/// (no access) until its subscription event says otherwise. No key is
/// issued: a key is shown once, and a webhook has nobody to show it to.
///
/// The email and name pass the same rules as an operator's input
/// (`CustomerInput::validate`): an email that fails is no buyer (`None`);
/// a name that fails (empty, too long, unprintable or text-reordering
/// characters) is replaced by the email.
pub fn new_buyer(email: &str, name: Option<&str>) -> Option<NewCustomer> {
    let input = |name: &str| crate::services::customers::CustomerInput {
        email: email.to_owned(),
        name: name.to_owned(),
        tier: "ai".to_owned(),
        plan: String::new(),
        monthly_limit: crate::services::customers::DEFAULT_MONTHLY_LIMIT,
        status: SubscriptionStatus::Incomplete,
    };
    let named = name.and_then(|n| input(n).validate().ok());
    named.or_else(|| input(email.trim()).validate().ok())
}

/// A subscription's state as one event reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubscriptionState {
    pub status: SubscriptionStatus,
    /// The plan of the first item's price; `None` when the price has no
    /// mapping: such an event never grants, and changes only the status of
    /// a subscription linecast follows, when [`applies_without_plan`] says
    /// so.
    pub plan: Option<PlanGrant>,
    /// The price's lookup key or id, for the audit line and the warning.
    pub price: Option<String>,
    /// When the subscription's current period ends (Unix seconds), as the
    /// event reports it; `None` when it does not.
    pub period_end: Option<i64>,
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
    /// The status the last event applied set.
    pub last_status: Option<SubscriptionStatus>,
    /// The current period's end (Unix seconds) the last event applied
    /// reported.
    pub period_end: Option<i64>,
}

impl StripeLink {
    /// Whether a webhook may move this link to another Stripe customer or
    /// subscription: only once it no longer grants anything (no
    /// subscription yet, or its subscription ended). A link that may still
    /// serve is never moved by an event; an operator moves it by hand.
    pub fn may_be_replaced(&self) -> bool {
        self.stripe_subscription.is_none() || self.last_status.is_some_and(SubscriptionStatus::is_terminal)
    }
}

/// A checkout kept for an operator: its email belongs to an existing
/// customer, and nothing linecast signed says the buyer is that customer.
/// `customers link-stripe` applies it; nothing else does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldCheckout {
    pub event_id: String,
    pub created: i64,
    pub stripe_customer: String,
    pub stripe_subscription: Option<String>,
    /// The customer whose email the checkout carried.
    pub customer_id: i64,
    pub email: String,
    pub received_at: DateTime<Utc>,
}

/// A subscription event waiting for its checkout (or an operator's link).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingEvent {
    pub event_id: String,
    pub created: i64,
    pub stripe_customer: String,
    pub stripe_subscription: String,
    pub status: SubscriptionStatus,
    pub received_at: DateTime<Utc>,
}

/// What waits for an operator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PendingBilling {
    pub held: Vec<HeldCheckout>,
    pub waiting: Vec<WaitingEvent>,
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
    /// The checkout names no customer that exists and carries no valid
    /// email to create one with: nothing changed.
    NoBuyer,
    /// The checkout's email belongs to an existing customer and no signed
    /// reference names it: nothing linked, kept for an operator
    /// ([`HeldCheckout`]), with an audit line on that customer.
    Held { customer_id: i64 },
    /// The event would move a link that may still serve to another Stripe
    /// customer or subscription: refused, nothing changed, with an audit
    /// line on the customer whose link it would have moved.
    Conflict { customer_id: i64, detail: String },
    /// The event changes nothing by rule (a price with no plan that would
    /// grant access, or of a subscription linecast does not follow; another
    /// subscription of a linked Stripe customer); `reason` says which.
    Ignored { reason: String },
}

impl BillingOutcome {
    /// The outcome's code, as the webhook's answer and the audit tools word it.
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Duplicate => "duplicate",
            Self::Linked { .. } => "linked",
            Self::Applied { .. } => "applied",
            Self::Stale { .. } => "stale",
            Self::Pending | Self::Held { .. } => "pending",
            Self::NoBuyer => "no_buyer",
            Self::Conflict { .. } => "conflict",
            Self::Ignored { .. } => "ignored",
        }
    }
}

/// Whether an event created at `incoming` may change a subscription whose
/// last applied event was created at `last_created` and set `last_status`:
/// not when it is older. Of two events of the same second (Stripe's
/// `created` has whole seconds) the later delivery wins, unless the last
/// one ended the subscription: an end is final within its second, so a
/// late redelivery of an older `updated: active` cannot undo a `deleted`.
pub fn supersedes(last_created: Option<i64>, last_status: Option<SubscriptionStatus>, incoming: i64) -> bool {
    match last_created {
        Some(last) if incoming == last => !last_status.is_some_and(SubscriptionStatus::is_terminal),
        Some(last) => incoming > last,
        None => true,
    }
}

/// Whether an event whose price has no plan in `LINECAST_STRIPE_PLANS`
/// may still change a subscription linecast follows (the one a link names,
/// or one whose mapped event waits for its checkout): only when `status`
/// grants nothing, that is when it suspends or ends access. It then sets
/// the status and leaves the plan and quota as they were. An unmapped
/// price never grants: an `active` or `trialing` event at one is ignored,
/// whatever the account's state, so a plan switch to a price nobody mapped
/// neither grants a new plan nor restores a suspended account, and every
/// delivery order still ends in the same state.
pub const fn applies_without_plan(status: SubscriptionStatus) -> bool {
    !status.grants_access()
}

/// The billing ledger.
#[async_trait]
pub trait BillingLedger: Send + Sync {
    /// Applies one event in one transaction:
    ///
    /// 1. an event id seen before is [`BillingOutcome::Duplicate`]; otherwise
    ///    the id is recorded with its outcome, whatever it is;
    /// 2. a checkout names its customer, in this order: the customer its
    ///    Stripe customer is already linked to (a signed reference naming
    ///    another is a `Conflict`); else the customer of its signed
    ///    reference (`NoBuyer` when it no longer exists); else, when its
    ///    email belongs to an existing customer, nobody: it is
    ///    [`BillingOutcome::Held`] for an operator; else a customer created
    ///    by [`new_buyer`] (`NoBuyer` without a valid email). The link is
    ///    then set, unless that would move a link that may still serve
    ///    (not [`StripeLink::may_be_replaced`]) to another Stripe customer
    ///    or subscription: `Conflict`, nothing changed. Once linked, the
    ///    newest subscription event that waited for the link's
    ///    subscription (or, with none yet, its Stripe customer) is applied
    ///    by rule 3;
    /// 3. a subscription event whose price has a plan finds the link of
    ///    its subscription; else the link of its Stripe customer, which it
    ///    may take only when that link names no subscription or may be
    ///    replaced (otherwise `Ignored`: access follows the one
    ///    subscription that granted it). With no link, it is kept pending
    ///    (replacing a pending one only if it [`supersedes`] it). With one,
    ///    it applies when it [`supersedes`] the link's last event: both
    ///    statuses become its status, `api_plan` and the quota its plan's
    ///    (the quota left as it was when the plan sets none), and the link
    ///    records its subscription, `created`, status and id. Otherwise it
    ///    is `Stale`;
    /// 4. a subscription event whose price has no plan is `Ignored` when
    ///    its status grants access ([`applies_without_plan`]). Otherwise
    ///    (it suspends or ends access) it applies as in rule 3 to the link
    ///    that names its subscription, setting the statuses and leaving
    ///    `api_plan` and the quota as they were; with no such link it
    ///    replaces the pending event of its subscription when there is one
    ///    and it [`supersedes`] it (and is applied the same way when the
    ///    link arrives); anything else (another product's subscription,
    ///    linked or not) is `Ignored`. It never takes over a link.
    ///
    /// Every change, hold and conflict writes an audit line with the actor
    /// `stripe` and the event id.
    async fn apply_billing(&self, event: &BillingEvent, now: DateTime<Utc>) -> Result<BillingOutcome, AccountsError>;

    /// Links an existing customer (by email) to a Stripe customer by hand,
    /// with an audit line naming `actor`, then applies what waited for that
    /// Stripe customer: a [`HeldCheckout`] (its subscription becomes the
    /// link's) and the newest waiting subscription event. `NotFound` when
    /// no customer has that email; `Conflict` when the Stripe customer is
    /// linked to another.
    async fn link_stripe_customer(
        &self,
        email: &str,
        stripe_customer: &str,
        actor: &str,
        now: DateTime<Utc>,
    ) -> Result<StripeLink, AccountsError>;

    /// The customer's link, if any.
    async fn stripe_link(&self, customer_id: i64) -> Result<Option<StripeLink>, AccountsError>;

    /// Held checkouts and waiting subscription events, oldest first.
    async fn pending_billing(&self) -> Result<PendingBilling, AccountsError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    use SubscriptionStatus::{Active, Canceled, IncompleteExpired, PastDue};

    #[test]
    fn an_older_event_never_supersedes_and_the_same_second_does() {
        assert!(supersedes(None, None, 0));
        assert!(supersedes(Some(100), Some(Active), 101));
        assert!(supersedes(Some(100), Some(Active), 100));
        assert!(supersedes(Some(100), None, 100));
        assert!(!supersedes(Some(100), Some(Active), 99));
    }

    #[test]
    fn an_end_is_final_within_its_second_but_not_after_it() {
        for ended in [Canceled, IncompleteExpired] {
            assert!(!supersedes(Some(100), Some(ended), 100), "{ended}");
            assert!(supersedes(Some(100), Some(ended), 101), "{ended}");
        }
        assert!(supersedes(Some(100), Some(PastDue), 100));
    }

    fn link(subscription: Option<&str>, last_status: Option<SubscriptionStatus>) -> StripeLink {
        StripeLink {
            customer_id: 1,
            stripe_customer: "cus_1".into(),
            stripe_subscription: subscription.map(str::to_owned),
            last_created: Some(1),
            last_event_id: None,
            last_status,
            period_end: None,
        }
    }

    #[test]
    fn only_a_link_that_grants_nothing_may_be_replaced() {
        assert!(link(None, None).may_be_replaced());
        assert!(link(Some("sub_1"), Some(Canceled)).may_be_replaced());
        assert!(link(Some("sub_1"), Some(IncompleteExpired)).may_be_replaced());
        for live in [
            Active,
            PastDue,
            SubscriptionStatus::Trialing,
            SubscriptionStatus::Unpaid,
        ] {
            assert!(!link(Some("sub_1"), Some(live)).may_be_replaced(), "{live}");
        }
        // A subscription whose events were never seen may still serve.
        assert!(!link(Some("sub_1"), None).may_be_replaced());
    }

    #[test]
    fn an_unmapped_price_may_suspend_or_end_but_never_grant() {
        use SubscriptionStatus::{Incomplete, Paused, Trialing, Unpaid};
        for ends in [PastDue, Unpaid, Incomplete, IncompleteExpired, Paused, Canceled] {
            assert!(applies_without_plan(ends), "{ends}");
        }
        for grants in [Active, Trialing] {
            assert!(!applies_without_plan(grants), "{grants}");
        }
    }

    #[test]
    fn a_buyer_from_stripe_passes_the_operators_rules() {
        let ok = new_buyer(" Ada@Example.com ", Some(" Ada L ")).unwrap();
        assert_eq!((ok.email.as_str(), ok.name.as_str()), ("Ada@Example.com", "Ada L"));
        assert_eq!(ok.subscription_status, SubscriptionStatus::Incomplete);
        assert_eq!(ok.api_plan, None);
        // A name the operator could not type is replaced by the email.
        for bad in ["", "   ", "evil\u{202e}txt", "a\u{0}b", &"x".repeat(201)] {
            assert_eq!(
                new_buyer("ada@example.com", Some(bad)).unwrap().name,
                "ada@example.com",
                "{bad:?}"
            );
        }
        assert_eq!(new_buyer("ada@example.com", None).unwrap().name, "ada@example.com");
        // An email the operator could not type is no buyer.
        for bad in ["", "no-at-sign", "a b@example.com", "@example.com", "a@"] {
            assert_eq!(new_buyer(bad, Some("Ada")), None, "{bad:?}");
        }
    }
}
