//! `WebhookStore` for `SeaAccounts`: endpoints (`webhook_endpoints`), the
//! outbox (`webhook_messages`), one delivery per message and endpoint
//! (`webhook_deliveries`) and the attempts' log (`webhook_attempts`).
//!
//! A message and its deliveries are written in one transaction, the
//! message first with `ON CONFLICT DO NOTHING`, so two instances enqueuing
//! one dedupe key store it once. Claims run in one write transaction: on
//! PostgreSQL the candidates are locked `FOR UPDATE ... SKIP LOCKED`, so a
//! second claimer passes over them; on SQLite `BEGIN IMMEDIATE` makes
//! claimers take turns. Either way the claiming `UPDATE` repeats the
//! conditions, so a delivery is only ever claimed by one worker at a time.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::webhooks::{
    Attempt, Claimed, Delivery, DeliveryStatus, Endpoint, EndpointCreated, EndpointUpdate, Enqueued, Message,
    NewAttempt, NewEndpoint, NewMessage, WebhookStore,
};
use linecast_webhooks::events::{MAX_ENDPOINTS_PER_ACCOUNT, may_add_endpoint, truncate_body};
use sea_orm::sea_query::{Expr, ExprTrait as _, OnConflict, Query};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, IntoActiveModel,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, Value,
};

use crate::SeaAccounts;
use crate::accounts::customer_for_update;
use crate::entity::{api_keys, webhook_attempts, webhook_deliveries, webhook_endpoints, webhook_messages};
use crate::error::{corrupt, db_err};
use crate::sql::{begin_write, statement};

/// Deliveries written per statement (SQLite's bound-variable limit).
const DELIVERY_CHUNK: usize = 500;

fn us(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

fn instant(us: i64) -> Result<DateTime<Utc>, AccountsError> {
    DateTime::<Utc>::from_timestamp_micros(us).ok_or_else(|| corrupt(format_args!("webhook instant {us}")))
}

fn instant_opt(us: Option<i64>) -> Result<Option<DateTime<Utc>>, AccountsError> {
    us.map(instant).transpose()
}

/// A list as stored: comma-separated.
fn join(items: &[String]) -> String {
    items.join(",")
}

fn split(text: &str) -> Vec<String> {
    text.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// The response body as kept: the preview rule's bytes, as UTF-8 (bytes
/// that are not are replaced, and the result cut again to the preview).
fn preview(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(truncate_body(body));
    String::from_utf8_lossy(truncate_body(text.as_bytes())).into_owned()
}

fn to_endpoint(m: webhook_endpoints::Model) -> Result<Endpoint, AccountsError> {
    Ok(Endpoint {
        previous_secret_until: instant_opt(m.previous_secret_until_us)?,
        failing_since: instant_opt(m.failing_since_us)?,
        created_at: instant(m.created_at_us)?,
        updated_at: instant(m.updated_at_us)?,
        event_types: split(&m.event_types),
        sports: split(&m.sports),
        id: m.id,
        customer_id: m.customer_id,
        url: m.url,
        description: m.description,
        secret: m.secret,
        previous_secret: m.previous_secret,
        enabled: m.enabled,
        disabled_reason: m.disabled_reason,
    })
}

fn to_message(m: webhook_messages::Model) -> Result<Message, AccountsError> {
    Ok(Message {
        created_at: instant(m.created_at_us)?,
        id: m.id,
        customer_id: m.customer_id,
        event_type: m.event_type,
        sport: m.sport,
        order_key: m.order_key,
        payload: m.payload,
        dedupe_key: m.dedupe_key,
    })
}

fn to_delivery(m: webhook_deliveries::Model) -> Result<Delivery, AccountsError> {
    Ok(Delivery {
        status: DeliveryStatus::parse(&m.status)
            .ok_or_else(|| corrupt(format_args!("webhook delivery {} status {}", m.id, m.status)))?,
        attempts: u32::try_from(m.attempts).unwrap_or(0),
        next_attempt_at: instant(m.next_attempt_at_us)?,
        claimed_until: instant_opt(m.claimed_until_us)?,
        delivered_at: instant_opt(m.delivered_at_us)?,
        id: m.id,
        message_id: m.message_id,
        endpoint_id: m.endpoint_id,
        claimed_by: m.claimed_by,
    })
}

fn to_attempt(m: webhook_attempts::Model) -> Result<Attempt, AccountsError> {
    Ok(Attempt {
        attempted_at: instant(m.attempted_at_us)?,
        status_code: m.status_code.map(|c| u16::try_from(c).unwrap_or(0)),
        latency_ms: u32::try_from(m.latency_ms).unwrap_or(0),
        id: m.id,
        delivery_id: m.delivery_id,
        endpoint_id: m.endpoint_id,
        error: m.error,
        response_body: m.response_body,
    })
}

/// The account's endpoint, or `NotFound`.
async fn owned(
    conn: &impl ConnectionTrait,
    customer_id: i64,
    id: &str,
) -> Result<webhook_endpoints::Model, AccountsError> {
    webhook_endpoints::Entity::find_by_id(id.to_owned())
        .filter(webhook_endpoints::Column::CustomerId.eq(customer_id))
        .one(conn)
        .await
        .map_err(db_err)?
        .ok_or(AccountsError::NotFound)
}

/// The account's delivery (through its endpoint), or `None`.
async fn owned_delivery(
    conn: &impl ConnectionTrait,
    customer_id: i64,
    delivery_id: i64,
) -> Result<Option<webhook_deliveries::Model>, AccountsError> {
    let Some(delivery) = webhook_deliveries::Entity::find_by_id(delivery_id)
        .one(conn)
        .await
        .map_err(db_err)?
    else {
        return Ok(None);
    };
    match owned(conn, customer_id, &delivery.endpoint_id).await {
        Ok(_) => Ok(Some(delivery)),
        Err(AccountsError::NotFound) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether an endpoint receives a message.
fn subscribed(endpoint: &webhook_endpoints::Model, message: &NewMessage) -> bool {
    let types = split(&endpoint.event_types);
    let sports = split(&endpoint.sports);
    // The sports filter applies to a sport's events; an account's own
    // events (no sport) reach every endpoint subscribed to their type.
    types.contains(&message.event_type)
        && message
            .sport
            .as_ref()
            .is_none_or(|s| sports.is_empty() || sports.contains(s))
}

/// The pending deliveries due at `?` (twice: due and claim expiry) of
/// enabled endpoints, with no earlier pending delivery of the same endpoint
/// and order key, oldest due first, at most `?`.
const DUE: &str = "SELECT d.id FROM webhook_deliveries d \
     JOIN webhook_messages m ON m.id = d.message_id \
     JOIN webhook_endpoints e ON e.id = d.endpoint_id \
     WHERE d.status = 'pending' AND d.next_attempt_at_us <= ? \
     AND (d.claimed_until_us IS NULL OR d.claimed_until_us <= ?) \
     AND e.enabled = ? \
     AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p \
       JOIN webhook_messages pm ON pm.id = p.message_id \
       WHERE p.endpoint_id = d.endpoint_id AND p.status = 'pending' AND pm.order_key = m.order_key \
       AND (pm.created_at_us < m.created_at_us OR (pm.created_at_us = m.created_at_us AND p.id < d.id))) \
     ORDER BY d.next_attempt_at_us, d.id LIMIT ?";

/// Releases a pending delivery's claim and sets its state. `NotFound`
/// when no pending delivery has this id (one cancelled meanwhile, with its
/// endpoint's deletion, stays cancelled).
async fn settle(
    db: &impl ConnectionTrait,
    delivery_id: i64,
    status: DeliveryStatus,
    next_attempt_at: Option<i64>,
    delivered_at: Option<i64>,
) -> Result<(), AccountsError> {
    let mut update = webhook_deliveries::Entity::update_many()
        .col_expr(webhook_deliveries::Column::Status, Expr::value(status.code()))
        .col_expr(
            webhook_deliveries::Column::ClaimedBy,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            webhook_deliveries::Column::ClaimedUntilUs,
            Expr::value(Option::<i64>::None),
        );
    if let Some(next) = next_attempt_at {
        update = update.col_expr(webhook_deliveries::Column::NextAttemptAtUs, Expr::value(next));
    }
    if let Some(at) = delivered_at {
        update = update.col_expr(webhook_deliveries::Column::DeliveredAtUs, Expr::value(at));
    }
    let done = update
        .filter(webhook_deliveries::Column::Id.eq(delivery_id))
        .filter(webhook_deliveries::Column::Status.eq(DeliveryStatus::Pending.code()))
        .exec(db)
        .await
        .map_err(db_err)?;
    if done.rows_affected == 0 {
        return Err(AccountsError::NotFound);
    }
    Ok(())
}

/// Queues a delivery again, due at `now`, its attempts from zero.
fn requeue(now: DateTime<Utc>) -> sea_orm::UpdateMany<webhook_deliveries::Entity> {
    webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Status,
            Expr::value(DeliveryStatus::Pending.code()),
        )
        .col_expr(webhook_deliveries::Column::Attempts, Expr::value(0))
        .col_expr(webhook_deliveries::Column::NextAttemptAtUs, Expr::value(us(now)))
        .col_expr(
            webhook_deliveries::Column::ClaimedBy,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            webhook_deliveries::Column::ClaimedUntilUs,
            Expr::value(Option::<i64>::None),
        )
        .col_expr(
            webhook_deliveries::Column::DeliveredAtUs,
            Expr::value(Option::<i64>::None),
        )
}

#[async_trait]
impl WebhookStore for SeaAccounts {
    async fn create_endpoint(&self, new: NewEndpoint, now: DateTime<Utc>) -> Result<EndpointCreated, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        // PostgreSQL: concurrent creations for one account wait here for
        // each other, so each counts the endpoints before it. SQLite:
        // `BEGIN IMMEDIATE` already holds the write lock.
        if customer_for_update(new.customer_id)
            .one(&txn)
            .await
            .map_err(db_err)?
            .is_none()
        {
            return Err(AccountsError::NotFound);
        }
        let existing = webhook_endpoints::Entity::find()
            .filter(webhook_endpoints::Column::CustomerId.eq(new.customer_id))
            .count(&txn)
            .await
            .map_err(db_err)?;
        if !may_add_endpoint(usize::try_from(existing).unwrap_or(usize::MAX)) {
            txn.rollback().await.map_err(db_err)?;
            return Ok(EndpointCreated::LimitReached {
                limit: MAX_ENDPOINTS_PER_ACCOUNT,
            });
        }
        let row = webhook_endpoints::ActiveModel {
            id: Set(new.id),
            customer_id: Set(new.customer_id),
            url: Set(new.url),
            description: Set(new.description),
            event_types: Set(join(&new.event_types)),
            sports: Set(join(&new.sports)),
            secret: Set(new.secret),
            previous_secret: Set(None),
            previous_secret_until_us: Set(None),
            enabled: Set(true),
            disabled_reason: Set(None),
            failing_since_us: Set(None),
            created_at_us: Set(us(now)),
            updated_at_us: Set(us(now)),
        };
        let stored = row.insert(&txn).await.map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        to_endpoint(stored).map(|e| EndpointCreated::Created(Box::new(e)))
    }

    async fn endpoints(&self, customer_id: i64) -> Result<Vec<Endpoint>, AccountsError> {
        webhook_endpoints::Entity::find()
            .filter(webhook_endpoints::Column::CustomerId.eq(customer_id))
            .order_by_asc(webhook_endpoints::Column::CreatedAtUs)
            .order_by_asc(webhook_endpoints::Column::Id)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(to_endpoint)
            .collect()
    }

    async fn endpoint(&self, customer_id: i64, id: &str) -> Result<Option<Endpoint>, AccountsError> {
        match owned(&self.db, customer_id, id).await {
            Ok(m) => to_endpoint(m).map(Some),
            Err(AccountsError::NotFound) => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn find_endpoint(&self, id: &str) -> Result<Option<Endpoint>, AccountsError> {
        webhook_endpoints::Entity::find_by_id(id.to_owned())
            .one(&self.db)
            .await
            .map_err(db_err)?
            .map(to_endpoint)
            .transpose()
    }

    async fn keys_expiring(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<linecast_core::ApiKeyRecord>, AccountsError> {
        Ok(api_keys::Entity::find()
            .filter(api_keys::Column::IsActive.eq(true))
            .filter(api_keys::Column::RevokedAt.is_null())
            .filter(api_keys::Column::ExpiresAt.gt(after))
            .filter(api_keys::Column::ExpiresAt.lte(until))
            .order_by_asc(api_keys::Column::ExpiresAt)
            .order_by_asc(api_keys::Column::Id)
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(crate::accounts::to_key)
            .collect())
    }

    async fn update_endpoint(
        &self,
        customer_id: i64,
        id: &str,
        update: EndpointUpdate,
        now: DateTime<Utc>,
    ) -> Result<Endpoint, AccountsError> {
        let mut row = owned(&self.db, customer_id, id).await?.into_active_model();
        if let Some(url) = update.url {
            row.url = Set(url);
        }
        if let Some(description) = update.description {
            row.description = Set(description);
        }
        if let Some(types) = update.event_types {
            row.event_types = Set(join(&types));
        }
        if let Some(sports) = update.sports {
            row.sports = Set(join(&sports));
        }
        if let Some(enabled) = update.enabled {
            row.enabled = Set(enabled);
            if enabled {
                row.disabled_reason = Set(None);
                row.failing_since_us = Set(None);
            }
        }
        row.updated_at_us = Set(us(now));
        to_endpoint(row.update(&self.db).await.map_err(db_err)?)
    }

    async fn delete_endpoint(&self, customer_id: i64, id: &str) -> Result<(), AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        owned(&txn, customer_id, id).await?;
        webhook_deliveries::Entity::update_many()
            .col_expr(
                webhook_deliveries::Column::Status,
                Expr::value(DeliveryStatus::Cancelled.code()),
            )
            .col_expr(
                webhook_deliveries::Column::ClaimedBy,
                Expr::value(Option::<String>::None),
            )
            .col_expr(
                webhook_deliveries::Column::ClaimedUntilUs,
                Expr::value(Option::<i64>::None),
            )
            .filter(webhook_deliveries::Column::EndpointId.eq(id))
            .filter(webhook_deliveries::Column::Status.eq(DeliveryStatus::Pending.code()))
            .exec(&txn)
            .await
            .map_err(db_err)?;
        webhook_endpoints::Entity::delete_by_id(id.to_owned())
            .exec(&txn)
            .await
            .map_err(db_err)?;
        txn.commit().await.map_err(db_err)
    }

    async fn rotate_secret(
        &self,
        customer_id: i64,
        id: &str,
        new_secret: &str,
        previous_until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Endpoint, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let current = owned(&txn, customer_id, id).await?;
        let previous = current.secret.clone();
        let mut row = current.into_active_model();
        row.previous_secret = Set(Some(previous));
        row.previous_secret_until_us = Set(Some(us(previous_until)));
        row.secret = Set(new_secret.to_owned());
        row.updated_at_us = Set(us(now));
        let stored = row.update(&txn).await.map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        to_endpoint(stored)
    }

    async fn disable_endpoint(&self, id: &str, reason: &str, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let done = webhook_endpoints::Entity::update_many()
            .col_expr(webhook_endpoints::Column::Enabled, Expr::value(false))
            .col_expr(webhook_endpoints::Column::DisabledReason, Expr::value(reason))
            .col_expr(webhook_endpoints::Column::UpdatedAtUs, Expr::value(us(now)))
            .filter(webhook_endpoints::Column::Id.eq(id))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        if done.rows_affected == 0 {
            return Err(AccountsError::NotFound);
        }
        Ok(())
    }

    async fn enqueue(&self, message: NewMessage) -> Result<Enqueued, AccountsError> {
        store_message(self, message, None).await
    }

    async fn enqueue_to(&self, message: NewMessage, endpoint_id: &str) -> Result<Enqueued, AccountsError> {
        store_message(self, message, Some(endpoint_id)).await
    }

    async fn claim_due(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> Result<Vec<Claimed>, AccountsError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let backend = self.db.get_database_backend();
        let now_us = us(now);
        let until = now_us.saturating_add(i64::try_from(lease.as_micros()).unwrap_or(i64::MAX));
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let mut sql = DUE.to_owned();
        if backend == DbBackend::Postgres {
            // Rows another claimer holds are passed over, not waited for.
            sql.push_str(" FOR UPDATE OF d SKIP LOCKED");
        }
        let values: Vec<Value> = vec![now_us.into(), now_us.into(), true.into(), i64::from(limit).into()];
        let ids: Vec<i64> = txn
            .query_all_raw(statement(backend, &sql, values))
            .await
            .map_err(db_err)?
            .iter()
            .map(|row| row.try_get::<i64>("", "id"))
            .collect::<Result<_, _>>()
            .map_err(db_err)?;
        if ids.is_empty() {
            txn.rollback().await.map_err(db_err)?;
            return Ok(Vec::new());
        }
        // The conditions again: a row claimed meanwhile stays its claimer's.
        webhook_deliveries::Entity::update_many()
            .col_expr(webhook_deliveries::Column::ClaimedBy, Expr::value(worker))
            .col_expr(webhook_deliveries::Column::ClaimedUntilUs, Expr::value(until))
            .filter(webhook_deliveries::Column::Id.is_in(ids.clone()))
            .filter(webhook_deliveries::Column::Status.eq(DeliveryStatus::Pending.code()))
            .filter(
                webhook_deliveries::Column::ClaimedUntilUs
                    .is_null()
                    .or(webhook_deliveries::Column::ClaimedUntilUs.lte(now_us)),
            )
            .exec(&txn)
            .await
            .map_err(db_err)?;
        let claimed = webhook_deliveries::Entity::find()
            .filter(webhook_deliveries::Column::Id.is_in(ids))
            .filter(webhook_deliveries::Column::ClaimedBy.eq(worker))
            .filter(webhook_deliveries::Column::ClaimedUntilUs.eq(until))
            .order_by_asc(webhook_deliveries::Column::NextAttemptAtUs)
            .order_by_asc(webhook_deliveries::Column::Id)
            .all(&txn)
            .await
            .map_err(db_err)?;
        let message_ids: Vec<String> = claimed.iter().map(|d| d.message_id.clone()).collect();
        let messages = webhook_messages::Entity::find()
            .filter(webhook_messages::Column::Id.is_in(message_ids))
            .all(&txn)
            .await
            .map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        claimed
            .into_iter()
            .map(|d| {
                let message = messages
                    .iter()
                    .find(|m| m.id == d.message_id)
                    .cloned()
                    .ok_or_else(|| corrupt(format_args!("webhook delivery {} has no message", d.id)))?;
                Ok(Claimed {
                    delivery: to_delivery(d)?,
                    message: to_message(message)?,
                })
            })
            .collect()
    }

    async fn record_attempt(&self, delivery_id: i64, attempt: NewAttempt) -> Result<Attempt, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let delivery = webhook_deliveries::Entity::find_by_id(delivery_id)
            .one(&txn)
            .await
            .map_err(db_err)?
            .ok_or(AccountsError::NotFound)?;
        let at = us(attempt.attempted_at);
        let row = webhook_attempts::ActiveModel {
            delivery_id: Set(delivery_id),
            endpoint_id: Set(delivery.endpoint_id.clone()),
            attempted_at_us: Set(at),
            status_code: Set(attempt.status_code.map(i32::from)),
            latency_ms: Set(i32::try_from(attempt.latency_ms).unwrap_or(i32::MAX)),
            error: Set(attempt.error),
            response_body: Set(preview(&attempt.response_body)),
            ..Default::default()
        };
        let stored = row.insert(&txn).await.map_err(db_err)?;
        webhook_deliveries::Entity::update_many()
            .col_expr(
                webhook_deliveries::Column::Attempts,
                Expr::col(webhook_deliveries::Column::Attempts).add(1),
            )
            .filter(webhook_deliveries::Column::Id.eq(delivery_id))
            .exec(&txn)
            .await
            .map_err(db_err)?;
        // The endpoint's failures last from the first since its last success.
        let endpoint =
            webhook_endpoints::Entity::update_many().filter(webhook_endpoints::Column::Id.eq(delivery.endpoint_id));
        if attempt.succeeded {
            endpoint.col_expr(
                webhook_endpoints::Column::FailingSinceUs,
                Expr::value(Option::<i64>::None),
            )
        } else {
            endpoint
                .col_expr(webhook_endpoints::Column::FailingSinceUs, Expr::value(at))
                .filter(webhook_endpoints::Column::FailingSinceUs.is_null())
        }
        .exec(&txn)
        .await
        .map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        to_attempt(stored)
    }

    async fn mark_delivered(&self, delivery_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError> {
        settle(&self.db, delivery_id, DeliveryStatus::Delivered, None, Some(us(at))).await
    }

    async fn reschedule(&self, delivery_id: i64, next_attempt_at: DateTime<Utc>) -> Result<(), AccountsError> {
        settle(
            &self.db,
            delivery_id,
            DeliveryStatus::Pending,
            Some(us(next_attempt_at)),
            None,
        )
        .await
    }

    async fn mark_failed(&self, delivery_id: i64) -> Result<(), AccountsError> {
        settle(&self.db, delivery_id, DeliveryStatus::Failed, None, None).await
    }

    async fn attempts(&self, customer_id: i64, endpoint_id: &str, limit: u32) -> Result<Vec<Attempt>, AccountsError> {
        owned(&self.db, customer_id, endpoint_id).await?;
        webhook_attempts::Entity::find()
            .filter(webhook_attempts::Column::EndpointId.eq(endpoint_id))
            .order_by_desc(webhook_attempts::Column::AttemptedAtUs)
            .order_by_desc(webhook_attempts::Column::Id)
            .limit(u64::from(limit))
            .all(&self.db)
            .await
            .map_err(db_err)?
            .into_iter()
            .map(to_attempt)
            .collect()
    }

    async fn delivery(&self, customer_id: i64, delivery_id: i64) -> Result<Option<Delivery>, AccountsError> {
        owned_delivery(&self.db, customer_id, delivery_id)
            .await?
            .map(to_delivery)
            .transpose()
    }

    async fn resend(&self, customer_id: i64, delivery_id: i64, now: DateTime<Utc>) -> Result<Delivery, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let delivery = owned_delivery(&txn, customer_id, delivery_id)
            .await?
            .ok_or(AccountsError::NotFound)?;
        if delivery.status == DeliveryStatus::Pending.code() {
            return Err(AccountsError::Conflict(format!(
                "delivery {delivery_id} is still pending"
            )));
        }
        requeue(now)
            .filter(webhook_deliveries::Column::Id.eq(delivery_id))
            .exec(&txn)
            .await
            .map_err(db_err)?;
        let stored = webhook_deliveries::Entity::find_by_id(delivery_id)
            .one(&txn)
            .await
            .map_err(db_err)?
            .ok_or(AccountsError::NotFound)?;
        txn.commit().await.map_err(db_err)?;
        to_delivery(stored)
    }

    async fn recover_since(
        &self,
        customer_id: i64,
        endpoint_id: &str,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        owned(&txn, customer_id, endpoint_id).await?;
        let recent = Query::select()
            .column(webhook_messages::Column::Id)
            .from(webhook_messages::Entity)
            .and_where(Expr::col(webhook_messages::Column::CreatedAtUs).gte(us(since)))
            .to_owned();
        let done = requeue(now)
            .filter(webhook_deliveries::Column::EndpointId.eq(endpoint_id))
            .filter(webhook_deliveries::Column::Status.eq(DeliveryStatus::Failed.code()))
            .filter(webhook_deliveries::Column::MessageId.in_subquery(recent))
            .exec(&txn)
            .await
            .map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        Ok(done.rows_affected)
    }

    async fn prune_attempts(&self, before: DateTime<Utc>) -> Result<u64, AccountsError> {
        webhook_attempts::Entity::delete_many()
            .filter(webhook_attempts::Column::AttemptedAtUs.lt(us(before)))
            .exec(&self.db)
            .await
            .map(|done| done.rows_affected)
            .map_err(db_err)
    }
}

/// The message and, in its transaction, its deliveries: to `only` when
/// given (whatever its subscriptions; `NotFound` when it does not exist),
/// else to every subscribed endpoint.
async fn store_message(
    accounts: &SeaAccounts,
    message: NewMessage,
    only: Option<&str>,
) -> Result<Enqueued, AccountsError> {
    let txn = begin_write(&accounts.db).await.map_err(db_err)?;
    let row = webhook_messages::ActiveModel {
        id: Set(message.id.clone()),
        customer_id: Set(message.customer_id),
        event_type: Set(message.event_type.clone()),
        sport: Set(message.sport.clone()),
        order_key: Set(message.order_key.clone()),
        payload: Set(message.payload.clone()),
        dedupe_key: Set(message.dedupe_key.clone()),
        created_at_us: Set(us(message.created_at)),
    };
    // On PostgreSQL a concurrent insert of the same key waits for the
    // first transaction, then finds the row and inserts nothing.
    let inserted = webhook_messages::Entity::insert(row)
        .on_conflict(OnConflict::new().do_nothing().to_owned())
        .exec_without_returning(&txn)
        .await
        .map_err(db_err)?;
    if inserted == 0 {
        txn.rollback().await.map_err(db_err)?;
        return Ok(Enqueued {
            new: false,
            deliveries: 0,
        });
    }
    let targets: Vec<webhook_endpoints::Model> = if let Some(id) = only {
        let Some(endpoint) = webhook_endpoints::Entity::find_by_id(id.to_owned())
            .one(&txn)
            .await
            .map_err(db_err)?
        else {
            txn.rollback().await.map_err(db_err)?;
            return Err(AccountsError::NotFound);
        };
        vec![endpoint]
    } else {
        let mut endpoints = webhook_endpoints::Entity::find().filter(webhook_endpoints::Column::Enabled.eq(true));
        if let Some(customer_id) = message.customer_id {
            endpoints = endpoints.filter(webhook_endpoints::Column::CustomerId.eq(customer_id));
        }
        endpoints
            .order_by_asc(webhook_endpoints::Column::Id)
            .all(&txn)
            .await
            .map_err(db_err)?
            .into_iter()
            .filter(|e| subscribed(e, &message))
            .collect()
    };
    let deliveries: Vec<webhook_deliveries::ActiveModel> = targets
        .into_iter()
        .map(|e| webhook_deliveries::ActiveModel {
            message_id: Set(message.id.clone()),
            endpoint_id: Set(e.id),
            status: Set(DeliveryStatus::Pending.code().to_owned()),
            attempts: Set(0),
            next_attempt_at_us: Set(us(message.created_at)),
            claimed_by: Set(None),
            claimed_until_us: Set(None),
            delivered_at_us: Set(None),
            ..Default::default()
        })
        .collect();
    for chunk in deliveries.chunks(DELIVERY_CHUNK) {
        webhook_deliveries::Entity::insert_many(chunk.to_vec())
            .exec_without_returning(&txn)
            .await
            .map_err(db_err)?;
    }
    txn.commit().await.map_err(db_err)?;
    Ok(Enqueued {
        new: true,
        deliveries: deliveries.len() as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preview_is_utf8_and_at_most_the_rule_s_bytes() {
        let body = "é".repeat(3000);
        let kept = preview(body.as_bytes());
        assert!(kept.len() <= linecast_webhooks::events::BODY_PREVIEW);
        assert_eq!(kept.len(), 4096);
        let binary = vec![0xffu8; 5000];
        let kept = preview(&binary);
        assert!(kept.len() <= linecast_webhooks::events::BODY_PREVIEW, "{}", kept.len());
        assert_eq!(preview(b"ok"), "ok");
    }

    #[test]
    fn lists_round_trip_and_empty_is_none() {
        assert_eq!(split(&join(&["a".into(), "b".into()])), ["a", "b"]);
        assert!(split("").is_empty());
    }
}
