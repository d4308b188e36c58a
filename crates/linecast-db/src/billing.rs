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
    BillingEvent, BillingEventKind, BillingLedger, BillingOutcome, Buyer, PlanGrant, StripeLink, SubscriptionState,
    new_buyer, supersedes,
};
use linecast_core::{AccountsError, Customer, SubscriptionStatus};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseBackend, DatabaseTransaction,
    EntityTrait, QueryFilter, QueryOrder,
};

use crate::SeaAccounts;
use crate::accounts::{customer_for_update, customer_row, normalize_email, to_customer};
use crate::connect::begin_write;
use crate::entity::{customers, key_audit_log, stripe_events, stripe_links, stripe_pending};
use crate::error::{corrupt, db_err};

/// The audit actor of every change a billing event makes.
const ACTOR: &str = "stripe";

/// The advisory lock every billing transaction takes on PostgreSQL.
const BILLING_LOCK: i64 = 0x6c63_6269_6c6c; // "lcbill"

fn to_link(m: stripe_links::Model) -> StripeLink {
    StripeLink {
        customer_id: m.customer_id,
        stripe_customer: m.stripe_customer,
        stripe_subscription: m.stripe_subscription,
        last_created: m.last_created,
        last_event_id: m.last_event_id,
    }
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

/// The link of this subscription, else of this Stripe customer.
async fn link_of(
    txn: &DatabaseTransaction,
    stripe_customer: &str,
    stripe_subscription: Option<&str>,
) -> Result<Option<stripe_links::Model>, AccountsError> {
    if let Some(sub) = stripe_subscription {
        let by_sub = stripe_links::Entity::find()
            .filter(stripe_links::Column::StripeSubscription.eq(sub))
            .one(txn)
            .await
            .map_err(db_err)?;
        if by_sub.is_some() {
            return Ok(by_sub);
        }
    }
    stripe_links::Entity::find()
        .filter(stripe_links::Column::StripeCustomer.eq(stripe_customer))
        .one(txn)
        .await
        .map_err(db_err)
}

/// Rule 3 for a customer that is linked: applies `state` when the event
/// supersedes the link's last one.
async fn apply_state(
    txn: &DatabaseTransaction,
    link: stripe_links::Model,
    event_id: &str,
    created: i64,
    subscription: Option<&str>,
    state: &SubscriptionState,
    now: DateTime<Utc>,
) -> Result<Option<Customer>, AccountsError> {
    if !supersedes(link.last_created, created) {
        return Ok(None);
    }
    let customer_id = link.customer_id;
    let mut update = customers::Entity::update_many()
        .col_expr(customers::Column::SubscriptionStatus, Expr::value(state.status.code()))
        .col_expr(
            customers::Column::ApiSubscriptionStatus,
            Expr::value(state.status.code()),
        );
    if let Some(PlanGrant { plan, monthly_limit }) = &state.plan {
        update = update.col_expr(customers::Column::ApiPlan, Expr::value(plan.clone()));
        if let Some(limit) = monthly_limit {
            let limit = i64::try_from(*limit).map_err(|_| AccountsError::Conflict("monthly_limit too large".into()))?;
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
    row.stripe_subscription = Set(subscription.map(str::to_owned));
    row.last_created = Set(Some(created));
    row.last_event_id = Set(Some(event_id.to_owned()));
    row.updated_at = Set(now);
    row.update(txn).await.map_err(db_err)?;
    let plan = match &state.plan {
        Some(grant) => match grant.monthly_limit {
            Some(limit) => format!("plan={} monthly_limit={limit}", grant.plan),
            None => format!("plan={}", grant.plan),
        },
        None => format!(
            "plan unchanged (price {} has no mapping)",
            state.price.as_deref().unwrap_or("none")
        ),
    };
    audit(
        txn,
        customer_id,
        format!(
            "actor={ACTOR} event={event_id} customer={stripe_customer} subscription={} status={} {plan}",
            subscription.unwrap_or("none"),
            state.status.code(),
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

fn pending_state(p: &stripe_pending::Model) -> Result<SubscriptionState, AccountsError> {
    Ok(SubscriptionState {
        status: SubscriptionStatus::parse(&p.status)
            .ok_or_else(|| corrupt(format!("pending subscription status '{}'", p.status)))?,
        plan: p
            .plan
            .clone()
            .map(|plan| {
                Ok::<_, AccountsError>(PlanGrant {
                    plan,
                    monthly_limit: p
                        .monthly_limit
                        .map(|l| u64::try_from(l).map_err(|_| corrupt("negative pending monthly_limit")))
                        .transpose()?,
                })
            })
            .transpose()?,
        price: p.price.clone(),
    })
}

async fn subscription_event(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    state: &SubscriptionState,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    let sub = event.stripe_subscription.as_deref();
    if let Some(link) = link_of(txn, &event.stripe_customer, sub).await? {
        let customer_id = link.customer_id;
        return Ok(
            match apply_state(txn, link, &event.event_id, event.created, sub, state, now).await? {
                Some(customer) => BillingOutcome::Applied { customer },
                None => BillingOutcome::Stale { customer_id },
            },
        );
    }
    let Some(sub) = sub else {
        return Err(AccountsError::Conflict(
            "a subscription event without a subscription id".into(),
        ));
    };
    let held = stripe_pending::Entity::find_by_id(sub.to_owned())
        .one(txn)
        .await
        .map_err(db_err)?;
    if held
        .as_ref()
        .is_some_and(|h| !supersedes(Some(h.created), event.created))
    {
        return Ok(BillingOutcome::Pending);
    }
    let monthly_limit = state
        .plan
        .as_ref()
        .and_then(|g| g.monthly_limit)
        .map(|l| i64::try_from(l).map_err(|_| AccountsError::Conflict("monthly_limit too large".into())))
        .transpose()?;
    let row = stripe_pending::ActiveModel {
        stripe_subscription: Set(sub.to_owned()),
        stripe_customer: Set(event.stripe_customer.clone()),
        event_id: Set(event.event_id.clone()),
        created: Set(event.created),
        status: Set(state.status.code().to_owned()),
        plan: Set(state.plan.as_ref().map(|g| g.plan.clone())),
        monthly_limit: Set(monthly_limit),
        price: Set(state.price.clone()),
        received_at: Set(now),
    };
    if held.is_some() {
        row.update(txn).await.map_err(db_err)?;
    } else {
        row.insert(txn).await.map_err(db_err)?;
    }
    Ok(BillingOutcome::Pending)
}

/// The customer a checkout names: by id, else by email, else created.
async fn buyer(
    txn: &DatabaseTransaction,
    buyer: &Buyer,
    now: DateTime<Utc>,
) -> Result<Option<(customers::Model, bool)>, AccountsError> {
    if let Some(id) = buyer.customer_id
        && let Some(found) = customer_for_update(id).one(txn).await.map_err(db_err)?
    {
        return Ok(Some((found, false)));
    }
    let Some(email) = buyer.email.as_deref() else {
        return Ok(None);
    };
    let email = normalize_email(email);
    if let Some(found) = customers::Entity::find()
        .filter(customers::Column::Email.eq(email.as_str()))
        .one(txn)
        .await
        .map_err(db_err)?
    {
        return Ok(Some((found, false)));
    }
    let row = customer_row(new_buyer(&email, buyer.name.as_deref()), now)?;
    Ok(Some((row.insert(txn).await.map_err(db_err)?, true)))
}

/// Sets the customer's link to these Stripe ids, keeping what is known of
/// the subscription's events when it is the same subscription.
async fn set_link(
    txn: &DatabaseTransaction,
    customer_id: i64,
    stripe_customer: &str,
    stripe_subscription: Option<&str>,
    now: DateTime<Utc>,
) -> Result<stripe_links::Model, AccountsError> {
    // The Stripe customer may be linked to someone else (an earlier buyer
    // under another email): the newest checkout wins, so that link goes.
    stripe_links::Entity::delete_many()
        .filter(stripe_links::Column::StripeCustomer.eq(stripe_customer))
        .filter(stripe_links::Column::CustomerId.ne(customer_id))
        .exec(txn)
        .await
        .map_err(db_err)?;
    let existing = stripe_links::Entity::find_by_id(customer_id)
        .one(txn)
        .await
        .map_err(db_err)?;
    let same_subscription = existing
        .as_ref()
        .is_some_and(|l| stripe_subscription.is_none() || l.stripe_subscription.as_deref() == stripe_subscription);
    let row = stripe_links::ActiveModel {
        customer_id: Set(customer_id),
        stripe_customer: Set(stripe_customer.to_owned()),
        stripe_subscription: Set(stripe_subscription
            .map(str::to_owned)
            .or_else(|| existing.as_ref().and_then(|l| l.stripe_subscription.clone()))),
        last_created: Set(existing
            .as_ref()
            .filter(|_| same_subscription)
            .and_then(|l| l.last_created)),
        last_event_id: Set(existing.as_ref().and_then(|l| l.last_event_id.clone())),
        updated_at: Set(now),
    };
    if existing.is_some() {
        row.update(txn).await.map_err(db_err)
    } else {
        row.insert(txn).await.map_err(db_err)
    }
}

/// Applies the newest subscription event that waited for `link` (of its
/// subscription or its Stripe customer) by rule 3, and drops every event
/// that waited for it. The customer as it is after, if one was applied.
async fn apply_waiting(
    txn: &DatabaseTransaction,
    link: stripe_links::Model,
    now: DateTime<Utc>,
) -> Result<Option<Customer>, AccountsError> {
    let mut waiting = stripe_pending::Entity::find()
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
    let newest = waiting.remove(0);
    let state = pending_state(&newest)?;
    let applied = apply_state(
        txn,
        link,
        &newest.event_id,
        newest.created,
        Some(&newest.stripe_subscription),
        &state,
        now,
    )
    .await?;
    let subscriptions: Vec<String> = std::iter::once(newest.stripe_subscription)
        .chain(waiting.into_iter().map(|w| w.stripe_subscription))
        .collect();
    stripe_pending::Entity::delete_many()
        .filter(stripe_pending::Column::StripeSubscription.is_in(subscriptions))
        .exec(txn)
        .await
        .map_err(db_err)?;
    Ok(applied)
}

async fn checkout_event(
    txn: &DatabaseTransaction,
    event: &BillingEvent,
    who: &Buyer,
    now: DateTime<Utc>,
) -> Result<BillingOutcome, AccountsError> {
    let Some((customer, created)) = buyer(txn, who, now).await? else {
        return Ok(BillingOutcome::NoBuyer);
    };
    let sub = event.stripe_subscription.as_deref();
    let link = set_link(txn, customer.id, &event.stripe_customer, sub, now).await?;
    audit(
        txn,
        customer.id,
        format!(
            "actor={ACTOR} event={} linked customer={} subscription={}{}",
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
    let outcome = match &event.kind {
        BillingEventKind::Checkout(who) => checkout_event(txn, event, who, now).await?,
        BillingEventKind::Subscription(state) => subscription_event(txn, event, state, now).await?,
    };
    stripe_events::ActiveModel {
        event_id: Set(event.event_id.clone()),
        outcome: Set(outcome.code().to_owned()),
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
            let link = set_link(&txn, customer.id, stripe_customer, None, now).await?;
            audit(
                &txn,
                customer.id,
                format!("actor={actor} linked customer={stripe_customer} by hand"),
                now,
            )
            .await?;
            apply_waiting(&txn, link, now).await?;
            stripe_links::Entity::find_by_id(customer.id)
                .one(&txn)
                .await
                .map_err(db_err)?
                .map(to_link)
                .ok_or(AccountsError::NotFound)
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
        Ok(stripe_links::Entity::find_by_id(customer_id)
            .one(&self.db)
            .await
            .map_err(db_err)?
            .map(to_link))
    }
}
