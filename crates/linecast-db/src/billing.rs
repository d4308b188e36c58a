//! `BillingLedger` for `SeaAccounts`: one write transaction per billing
//! event, following the rules written in `linecast_core::ports::billing`.
//! Billing transactions are serialized: SQLite's `BEGIN IMMEDIATE` holds the
//! write lock, and on PostgreSQL each takes the same transaction-scoped
//! advisory lock first. Events are rare; serializing them means a checkout
//! and its subscription event arriving together can never both miss each
//! other (one sees the other's link or pending row).

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::ports::billing::{
    BillingEvent, BillingEventKind, BillingLedger, BillingOutcome, Buyer, HeldCheckout, PendingBilling, PlanGrant,
    StripeLink, SubscriptionState, WaitingEvent, applies_without_plan, new_buyer, supersedes,
};
use linecast_core::{AccountsError, Customer, SubscriptionStatus};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseTransaction,
    EntityTrait, QueryFilter, QueryOrder,
};

use crate::SeaAccounts;
use crate::accounts::{customer_for_update, customer_row, normalize_email, to_customer};
use crate::entity::{customers, key_audit_log, stripe_events, stripe_held, stripe_links, stripe_pending};
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;

/// The audit actor of every change a billing event makes.
const ACTOR: &str = "stripe";

/// The advisory lock every billing transaction takes on PostgreSQL.
const BILLING_LOCK: i64 = 0x6c63_6269_6c6c; // "lcbill"

fn link_status(m: &stripe_links::Model) -> Result<Option<SubscriptionStatus>, AccountsError> {
    m.last_status
        .as_deref()
        .map(|code| SubscriptionStatus::parse(code).ok_or_else(|| corrupt(format!("link status '{code}'"))))
        .transpose()
}

fn to_link(m: &stripe_links::Model) -> Result<StripeLink, AccountsError> {
    Ok(StripeLink {
        customer_id: m.customer_id,
        stripe_customer: m.stripe_customer.clone(),
        stripe_subscription: m.stripe_subscription.clone(),
        last_created: m.last_created,
        last_event_id: m.last_event_id.clone(),
        last_status: link_status(m)?,
        period_end: m.period_end,
    })
}

/// One audit line of action `billing`; `detail` starts with `actor=...`.
async fn audit(
    txn: &DatabaseTransaction,
    customer_id: i64,
    detail: String,
    now: DateTime<Utc>,
) -> Result<(), AccountsError> {
    let line = key_audit_log::ActiveModel {
        customer_id: Set(customer_id),
        key_id: Set(None),
        action: Set("billing".to_owned()),
        detail: Set(detail),
        at: Set(now),
        ..Default::default()
    };
    key_audit_log::Entity::insert(line).exec(txn).await.map_err(db_err)?;
    Ok(())
}

/// The link of this subscription.
async fn link_of_subscription(
    txn: &DatabaseTransaction,
    subscription: &str,
) -> Result<Option<stripe_links::Model>, AccountsError> {
    stripe_links::Entity::find()
        .filter(stripe_links::Column::StripeSubscription.eq(subscription))
        .one(txn)
        .await
        .map_err(db_err)
}

/// The link of this Stripe customer.
async fn link_of_customer(
    txn: &DatabaseTransaction,
    stripe_customer: &str,
) -> Result<Option<stripe_links::Model>, AccountsError> {
    stripe_links::Entity::find()
        .filter(stripe_links::Column::StripeCustomer.eq(stripe_customer))
        .one(txn)
        .await
        .map_err(db_err)
}

/// What an applied event does to the plan: sets the plan of a mapped
/// price, or (rule 4: a suspension or end at a price with no plan) keeps
/// the plan and quota the account has.
#[derive(Clone, Copy)]
enum Grant<'a> {
    Plan(&'a PlanGrant),
    Kept { price: Option<&'a str> },
}

/// Rules 3 and 4 for a customer that is linked: applies `status` and
/// `grant` when the event supersedes the link's last one. A link taken
/// over by another subscription (`subscription` differs from the link's)
/// starts afresh.
#[allow(clippy::too_many_arguments)]
async fn apply_state(
    txn: &DatabaseTransaction,
    link: stripe_links::Model,
    event_id: &str,
    created: i64,
    subscription: &str,
    status: SubscriptionStatus,
    grant: Grant<'_>,
    period_end: Option<i64>,
    now: DateTime<Utc>,
) -> Result<Option<Customer>, AccountsError> {
    let same_subscription = link.stripe_subscription.as_deref() == Some(subscription);
    let (last_created, last_status) = if same_subscription {
        (link.last_created, link_status(&link)?)
    } else {
        (None, None)
    };
    if !supersedes(last_created, last_status, created) {
        return Ok(None);
    }
    let customer_id = link.customer_id;
    let mut update = customers::Entity::update_many()
        .col_expr(customers::Column::SubscriptionStatus, Expr::value(status.code()))
        .col_expr(customers::Column::ApiSubscriptionStatus, Expr::value(status.code()));
    if let Grant::Plan(grant) = grant {
        update = update.col_expr(customers::Column::ApiPlan, Expr::value(grant.plan.clone()));
        if let Some(limit) = grant.monthly_limit {
            let limit = i64::try_from(limit).map_err(|_| AccountsError::Conflict("monthly_limit too large".into()))?;
            update = update.col_expr(customers::Column::MonthlyLimit, Expr::value(limit));
        }
    }
    update
        .filter(customers::Column::Id.eq(customer_id))
        .exec(txn)
        .await
        .map_err(db_err)?;
    let stripe_customer = link.stripe_customer.clone();
    let mut row: stripe_links::ActiveModel = link.into();
    row.stripe_subscription = Set(Some(subscription.to_owned()));
    row.last_created = Set(Some(created));
    row.last_event_id = Set(Some(event_id.to_owned()));
    row.last_status = Set(Some(status.code().to_owned()));
    row.period_end = Set(period_end);
    row.updated_at = Set(now);
    row.update(txn).await.map_err(db_err)?;
    let plan = match grant {
        Grant::Plan(PlanGrant {
            plan,
            monthly_limit: Some(limit),
        }) => format!("plan={plan} monthly_limit={limit}"),
        Grant::Plan(PlanGrant { plan, .. }) => format!("plan={plan}"),
        Grant::Kept { price } => format!("price={} unmapped, plan kept", price.unwrap_or("none")),
    };
    audit(
        txn,
        customer_id,
        format!(
            "actor={ACTOR} event={event_id} customer={stripe_customer} subscription={subscription} status={} {plan}",
            status.code(),
        ),
        now,
    )
    .await?;
    let customer = customers::Entity::find_by_id(customer_id)
        .one(txn)
        .await
        .map_err(db_err)?
        .ok_or(AccountsError::NotFound)?;
    to_customer(customer).map(Some)
}

/// A waiting event's status and plan (`None`: a price with no plan, rule
/// 4); `None` altogether for a row whose price has no plan and whose status
/// grants (kept by an earlier release): it changes nothing.
#[allow(clippy::type_complexity)]
fn pending_state(p: &stripe_pending::Model) -> Result<Option<(SubscriptionStatus, Option<PlanGrant>)>, AccountsError> {
    let status = SubscriptionStatus::parse(&p.status)
        .ok_or_else(|| corrupt(format!("pending subscription status '{}'", p.status)))?;
    let Some(plan) = p.plan.clone() else {
        return Ok(applies_without_plan(status).then_some((status, None)));
    };
    let monthly_limit = p
        .monthly_limit
        .map(|l| u64::try_from(l).map_err(|_| corrupt("negative pending monthly_limit")))
        .transpose()?;
    Ok(Some((status, Some(PlanGrant { plan, monthly_limit }))))
}

/// Why an event at a price with no plan changes nothing.
fn unmapped(state: &SubscriptionState, why: &str) -> BillingOutcome {
    BillingOutcome::Ignored {
        reason: format!(
            "price {} has no plan in LINECAST_STRIPE_PLANS: {why}",
            state.price.as_deref().unwrap_or("none")
        ),
    }
}

/// Rule 4: an event at a price with no plan. It never grants; a suspension
/// or end applies to the subscription linecast follows, keeping the plan.
async fn unmapped_subscription_event(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    sub: &str,
    state: &SubscriptionState,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    if !applies_without_plan(state.status) {
        return Ok(unmapped(state, "a price with no plan never grants access"));
    }
    if let Some(link) = link_of_subscription(txn, sub).await? {
        let customer_id = link.customer_id;
        let grant = Grant::Kept {
            price: state.price.as_deref(),
        };
        return Ok(
            match apply_state(
                txn,
                link,
                &event.event_id,
                event.created,
                sub,
                state.status,
                grant,
                state.period_end,
                now,
            )
            .await?
            {
                Some(customer) => BillingOutcome::Applied { customer },
                None => BillingOutcome::Stale { customer_id },
            },
        );
    }
    let Some(held) = stripe_pending::Entity::find_by_id(sub.to_owned())
        .one(txn)
        .await
        .map_err(db_err)?
    else {
        return Ok(unmapped(
            state,
            &format!("{sub} is not a subscription linecast follows"),
        ));
    };
    if supersedes(
        Some(held.created),
        SubscriptionStatus::parse(&held.status),
        event.created,
    ) {
        let mut row: stripe_pending::ActiveModel = held.into();
        row.stripe_customer = Set(event.stripe_customer.clone());
        row.event_id = Set(event.event_id.clone());
        row.created = Set(event.created);
        row.status = Set(state.status.code().to_owned());
        row.plan = Set(None);
        row.monthly_limit = Set(None);
        row.price = Set(state.price.clone());
        row.period_end = Set(state.period_end);
        row.received_at = Set(now);
        row.update(txn).await.map_err(db_err)?;
    }
    Ok(BillingOutcome::Pending)
}

async fn subscription_event(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    state: &SubscriptionState,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    let Some(sub) = event.stripe_subscription.as_deref() else {
        return Err(AccountsError::Conflict(
            "a subscription event without a subscription id".into(),
        ));
    };
    let Some(grant) = &state.plan else {
        return unmapped_subscription_event(txn, event, sub, state, now).await;
    };
    let link = match link_of_subscription(txn, sub).await? {
        Some(link) => Some(link),
        None => match link_of_customer(txn, &event.stripe_customer).await? {
            Some(link) if to_link(&link)?.may_be_replaced() => Some(link),
            Some(link) => {
                return Ok(BillingOutcome::Ignored {
                    reason: format!(
                        "{sub} is another subscription of {}: customer {}'s access follows {}",
                        link.stripe_customer,
                        link.customer_id,
                        link.stripe_subscription.as_deref().unwrap_or("none")
                    ),
                });
            }
            None => None,
        },
    };
    if let Some(link) = link {
        let customer_id = link.customer_id;
        return Ok(
            match apply_state(
                txn,
                link,
                &event.event_id,
                event.created,
                sub,
                state.status,
                Grant::Plan(grant),
                state.period_end,
                now,
            )
            .await?
            {
                Some(customer) => BillingOutcome::Applied { customer },
                None => BillingOutcome::Stale { customer_id },
            },
        );
    }
    let held = stripe_pending::Entity::find_by_id(sub.to_owned())
        .one(txn)
        .await
        .map_err(db_err)?;
    if let Some(h) = &held {
        let held_status = SubscriptionStatus::parse(&h.status);
        if !supersedes(Some(h.created), held_status, event.created) {
            return Ok(BillingOutcome::Pending);
        }
    }
    let monthly_limit = grant
        .monthly_limit
        .map(|l| i64::try_from(l).map_err(|_| AccountsError::Conflict("monthly_limit too large".into())))
        .transpose()?;
    let row = stripe_pending::ActiveModel {
        stripe_subscription: Set(sub.to_owned()),
        stripe_customer: Set(event.stripe_customer.clone()),
        event_id: Set(event.event_id.clone()),
        created: Set(event.created),
        status: Set(state.status.code().to_owned()),
        plan: Set(Some(grant.plan.clone())),
        monthly_limit: Set(monthly_limit),
        price: Set(state.price.clone()),
        period_end: Set(state.period_end),
        received_at: Set(now),
    };
    if held.is_some() {
        row.update(txn).await.map_err(db_err)?;
    } else {
        row.insert(txn).await.map_err(db_err)?;
    }
    Ok(BillingOutcome::Pending)
}

/// Writes the customer's link to these Stripe ids (over `existing`, its
/// current link, if any), keeping what is known of the subscription's
/// events when it is the same subscription of the same Stripe customer.
async fn write_link(
    txn: &DatabaseTransaction,
    customer_id: i64,
    existing: Option<stripe_links::Model>,
    stripe_customer: &str,
    stripe_subscription: Option<&str>,
    now: DateTime<Utc>,
) -> Result<stripe_links::Model, AccountsError> {
    let keep = existing.as_ref().is_some_and(|l| {
        l.stripe_customer == stripe_customer
            && (stripe_subscription.is_none() || l.stripe_subscription.as_deref() == stripe_subscription)
    });
    let kept = existing.as_ref().filter(|_| keep);
    let row = stripe_links::ActiveModel {
        customer_id: Set(customer_id),
        stripe_customer: Set(stripe_customer.to_owned()),
        stripe_subscription: Set(stripe_subscription
            .map(str::to_owned)
            .or_else(|| kept.and_then(|l| l.stripe_subscription.clone()))),
        last_created: Set(kept.and_then(|l| l.last_created)),
        last_event_id: Set(kept.and_then(|l| l.last_event_id.clone())),
        last_status: Set(kept.and_then(|l| l.last_status.clone())),
        period_end: Set(kept.and_then(|l| l.period_end)),
        updated_at: Set(now),
    };
    if existing.is_some() {
        row.update(txn).await.map_err(db_err)
    } else {
        row.insert(txn).await.map_err(db_err)
    }
}

/// Applies the newest subscription event that waited for `link` by rule 3
/// (of the link's subscription; with none yet, of its Stripe customer), and
/// drops every event that waited for its Stripe customer or subscription.
/// The customer as it is after, if one was applied.
async fn apply_waiting(
    txn: &DatabaseTransaction,
    link: stripe_links::Model,
    now: DateTime<Utc>,
) -> Result<Option<Customer>, AccountsError> {
    let waiting = stripe_pending::Entity::find()
        .filter(
            sea_orm::Condition::any()
                .add(stripe_pending::Column::StripeCustomer.eq(link.stripe_customer.as_str()))
                .add(stripe_pending::Column::StripeSubscription.is_in(link.stripe_subscription.clone())),
        )
        .order_by_desc(stripe_pending::Column::Created)
        .all(txn)
        .await
        .map_err(db_err)?;
    if waiting.is_empty() {
        return Ok(None);
    }
    let subscriptions: Vec<String> = waiting.iter().map(|w| w.stripe_subscription.clone()).collect();
    let mut newest = None;
    for row in &waiting {
        let fits = match &link.stripe_subscription {
            Some(sub) => &row.stripe_subscription == sub,
            None => true,
        };
        if fits && let Some(state) = pending_state(row)? {
            newest = Some((row, state));
            break;
        }
    }
    let applied = match newest {
        Some((row, (status, grant))) => {
            let grant = match &grant {
                Some(plan) => Grant::Plan(plan),
                None => Grant::Kept {
                    price: row.price.as_deref(),
                },
            };
            apply_state(
                txn,
                link,
                &row.event_id,
                row.created,
                &row.stripe_subscription,
                status,
                grant,
                row.period_end,
                now,
            )
            .await?
        }
        None => None,
    };
    stripe_pending::Entity::delete_many()
        .filter(stripe_pending::Column::StripeSubscription.is_in(subscriptions))
        .exec(txn)
        .await
        .map_err(db_err)?;
    Ok(applied)
}

/// Refuses an event that would move a link: nothing changes but an audit
/// line on the customer whose link it is.
async fn conflict(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    customer_id: i64,
    detail: String,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    audit(
        txn,
        customer_id,
        format!("actor={ACTOR} event={} refused (conflict): {detail}", event.event_id),
        now,
    )
    .await?;
    Ok(BillingOutcome::Conflict { customer_id, detail })
}

fn ids(stripe_customer: &str, subscription: Option<&str>) -> String {
    format!("{stripe_customer}/{}", subscription.unwrap_or("none"))
}

async fn checkout_event(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    who: &Buyer,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    let sub = event.stripe_subscription.as_deref();
    let theirs = ids(&event.stripe_customer, sub);
    // Who the buyer is, from what a buyer cannot choose: the Stripe customer
    // already linked, then a reference linecast signed.
    let (customer, existing, created) = if let Some(link) = link_of_customer(txn, &event.stripe_customer).await? {
        if let Some(signed) = who.signed_customer
            && signed != link.customer_id
        {
            let detail = format!(
                "{} is linked to customer {}, and the signed reference names customer {signed}",
                event.stripe_customer, link.customer_id
            );
            return conflict(txn, event, link.customer_id, detail, now).await;
        }
        let customer = customer_for_update(link.customer_id)
            .one(txn)
            .await
            .map_err(db_err)?
            .ok_or(AccountsError::NotFound)?;
        (customer, Some(link), false)
    } else if let Some(id) = who.signed_customer {
        let Some(customer) = customer_for_update(id).one(txn).await.map_err(db_err)? else {
            return Ok(BillingOutcome::NoBuyer);
        };
        let existing = stripe_links::Entity::find_by_id(id).one(txn).await.map_err(db_err)?;
        (customer, existing, false)
    } else {
        let Some(email) = who.email.as_deref() else {
            return Ok(BillingOutcome::NoBuyer);
        };
        let email = normalize_email(email);
        if let Some(owner) = customers::Entity::find()
            .filter(customers::Column::Email.eq(email.as_str()))
            .one(txn)
            .await
            .map_err(db_err)?
        {
            return hold(txn, event, who, owner.id, &email, now).await;
        }
        let Some(new) = new_buyer(&email, who.name.as_deref()) else {
            return Ok(BillingOutcome::NoBuyer);
        };
        let row = customer_row(new, now)?;
        (row.insert(txn).await.map_err(db_err)?, None, true)
    };
    if let Some(link) = &existing {
        let moves = link.stripe_customer != event.stripe_customer
            || sub.is_some_and(|s| link.stripe_subscription.as_deref().is_some_and(|l| l != s));
        if moves && !to_link(link)?.may_be_replaced() {
            let detail = format!(
                "customer {} is linked to {}, which may still serve; {theirs} was not linked",
                customer.id,
                ids(&link.stripe_customer, link.stripe_subscription.as_deref())
            );
            return conflict(txn, event, customer.id, detail, now).await;
        }
    }
    let link = write_link(txn, customer.id, existing, &event.stripe_customer, sub, now).await?;
    let reference = if who.signed_customer.is_some() {
        " by signed reference"
    } else {
        ""
    };
    audit(
        txn,
        customer.id,
        format!(
            "actor={ACTOR} event={} linked customer={} subscription={}{reference}{}",
            event.event_id,
            event.stripe_customer,
            sub.unwrap_or("none"),
            if created { " (customer created by checkout)" } else { "" }
        ),
        now,
    )
    .await?;
    let mut customer = to_customer(customer)?;
    let applied_pending = match apply_waiting(txn, link, now).await? {
        Some(updated) => {
            customer = updated;
            true
        }
        None => false,
    };
    Ok(BillingOutcome::Linked {
        customer,
        created,
        applied_pending,
    })
}

/// Keeps a checkout whose email belongs to customer `owner` for an
/// operator: nothing is linked.
async fn hold(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    who: &Buyer,
    owner: i64,
    email: &str,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    stripe_held::ActiveModel {
        event_id: Set(event.event_id.clone()),
        created: Set(event.created),
        stripe_customer: Set(event.stripe_customer.clone()),
        stripe_subscription: Set(event.stripe_subscription.clone()),
        customer_id: Set(owner),
        email: Set(email.to_owned()),
        received_at: Set(now),
    }
    .insert(txn)
    .await
    .map_err(db_err)?;
    let why = who.refused_reference.as_deref().map_or_else(
        || "no signed reference".to_owned(),
        |r| format!("client_reference_id refused: {r}"),
    );
    audit(
        txn,
        owner,
        format!(
            "actor={ACTOR} event={} held for an operator: a checkout with this customer's email as {} ({why}); \
             apply with customers link-stripe",
            event.event_id,
            ids(&event.stripe_customer, event.stripe_subscription.as_deref())
        ),
        now,
    )
    .await?;
    Ok(BillingOutcome::Held { customer_id: owner })
}

fn outcome_detail(outcome: &BillingOutcome, who: Option<&Buyer>) -> Option<String> {
    match outcome {
        BillingOutcome::Ignored { reason } => Some(reason.clone()),
        BillingOutcome::Conflict { detail, .. } => Some(detail.clone()),
        BillingOutcome::Held { customer_id } => Some(format!("held: the email of customer {customer_id}")),
        _ => who
            .and_then(|w| w.refused_reference.as_ref())
            .map(|r| format!("client_reference_id refused: {r}")),
    }
}

async fn apply_in(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    if txn.get_database_backend() == DatabaseBackend::Postgres {
        txn.execute_unprepared(&format!("SELECT pg_advisory_xact_lock({BILLING_LOCK})"))
            .await
            .map_err(db_err)?;
    }
    if stripe_events::Entity::find_by_id(event.event_id.clone())
        .one(txn)
        .await
        .map_err(db_err)?
        .is_some()
    {
        return Ok(BillingOutcome::Duplicate);
    }
    let (outcome, who) = match &event.kind {
        BillingEventKind::Checkout(who) => (checkout_event(txn, event, who, now).await?, Some(who)),
        BillingEventKind::Subscription(state) => (subscription_event(txn, event, state, now).await?, None),
    };
    stripe_events::ActiveModel {
        event_id: Set(event.event_id.clone()),
        outcome: Set(outcome.code().to_owned()),
        detail: Set(outcome_detail(&outcome, who)),
        received_at: Set(now),
    }
    .insert(txn)
    .await
    .map_err(db_err)?;
    Ok(outcome)
}

#[async_trait]
impl BillingLedger for SeaAccounts {
    async fn apply_billing(&self, event: &BillingEvent, now: DateTime<Utc>) -> Result<BillingOutcome, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        match apply_in(&txn, event, now).await {
            Ok(BillingOutcome::Duplicate) => {
                txn.rollback().await.map_err(db_err)?;
                Ok(BillingOutcome::Duplicate)
            }
            Ok(outcome) => {
                txn.commit().await.map_err(db_err)?;
                Ok(outcome)
            }
            Err(e) => {
                if let Err(rollback) = txn.rollback().await {
                    tracing::warn!(error = %rollback, "rolling back a failed billing event");
                }
                Err(e)
            }
        }
    }

    async fn link_stripe_customer(
        &self,
        email: &str,
        stripe_customer: &str,
        actor: &str,
        now: DateTime<Utc>,
    ) -> Result<StripeLink, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let result = async {
            let customer = customers::Entity::find()
                .filter(customers::Column::Email.eq(normalize_email(email)))
                .one(&txn)
                .await
                .map_err(db_err)?
                .ok_or(AccountsError::NotFound)?;
            let other = stripe_links::Entity::find()
                .filter(stripe_links::Column::StripeCustomer.eq(stripe_customer))
                .filter(stripe_links::Column::CustomerId.ne(customer.id))
                .one(&txn)
                .await
                .map_err(db_err)?;
            if let Some(other) = other {
                return Err(AccountsError::Conflict(format!(
                    "{stripe_customer} is linked to customer {}",
                    other.customer_id
                )));
            }
            // A checkout held for this Stripe customer names its subscription.
            let held = stripe_held::Entity::find()
                .filter(stripe_held::Column::StripeCustomer.eq(stripe_customer))
                .order_by_desc(stripe_held::Column::Created)
                .all(&txn)
                .await
                .map_err(db_err)?;
            let subscription = held.first().and_then(|h| h.stripe_subscription.clone());
            let existing = stripe_links::Entity::find_by_id(customer.id)
                .one(&txn)
                .await
                .map_err(db_err)?;
            let link = write_link(
                &txn,
                customer.id,
                existing,
                stripe_customer,
                subscription.as_deref(),
                now,
            )
            .await?;
            let applied_held = if held.is_empty() {
                String::new()
            } else {
                let events: Vec<&str> = held.iter().map(|h| h.event_id.as_str()).collect();
                format!(" (applies held checkout {})", events.join(", "))
            };
            stripe_held::Entity::delete_many()
                .filter(stripe_held::Column::StripeCustomer.eq(stripe_customer))
                .exec(&txn)
                .await
                .map_err(db_err)?;
            audit(
                &txn,
                customer.id,
                format!("actor={actor} linked customer={stripe_customer} by hand{applied_held}"),
                now,
            )
            .await?;
            apply_waiting(&txn, link, now).await?;
            let link = stripe_links::Entity::find_by_id(customer.id)
                .one(&txn)
                .await
                .map_err(db_err)?
                .ok_or(AccountsError::NotFound)?;
            to_link(&link)
        }
        .await;
        match result {
            Ok(link) => {
                txn.commit().await.map_err(db_err)?;
                Ok(link)
            }
            Err(e) => {
                if let Err(rollback) = txn.rollback().await {
                    tracing::warn!(error = %rollback, "rolling back a failed Stripe link");
                }
                Err(e)
            }
        }
    }

    async fn stripe_link(&self, customer_id: i64) -> Result<Option<StripeLink>, AccountsError> {
        stripe_links::Entity::find_by_id(customer_id)
            .one(&self.db)
            .await
            .map_err(db_err)?
            .as_ref()
            .map(to_link)
            .transpose()
    }

    async fn pending_billing(&self) -> Result<PendingBilling, AccountsError> {
        let held = stripe_held::Entity::find()
            .order_by_asc(stripe_held::Column::ReceivedAt)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(|h| HeldCheckout {
                event_id: h.event_id,
                created: h.created,
                stripe_customer: h.stripe_customer,
                stripe_subscription: h.stripe_subscription,
                customer_id: h.customer_id,
                email: h.email,
                received_at: h.received_at,
            })
            .collect();
        let waiting = stripe_pending::Entity::find()
            .order_by_asc(stripe_pending::Column::ReceivedAt)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(|w| {
                Ok(WaitingEvent {
                    status: SubscriptionStatus::parse(&w.status)
                        .ok_or_else(|| corrupt(format!("pending subscription status '{}'", w.status)))?,
                    event_id: w.event_id,
                    created: w.created,
                    stripe_customer: w.stripe_customer,
                    stripe_subscription: w.stripe_subscription,
                    received_at: w.received_at,
                })
            })
            .collect::<Result<_, AccountsError>>()?;
        Ok(PendingBilling { held, waiting })
    }
}
