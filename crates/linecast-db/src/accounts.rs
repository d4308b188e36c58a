//! `Accounts` for `SeaAccounts`: customers, keys, the audit log and
//! entitlements, with entity rows converted to the core's domain types.
//! Issuing a key is one write transaction (cap count, insert, audit line):
//! SQLite serializes it with `BEGIN IMMEDIATE`, PostgreSQL by locking the
//! customer's row first.

use std::collections::BTreeSet;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::{
    Accounts, AccountsError, ApiKeyRecord, AuditEntry, Customer, Entitlement, KeyIssue, KeyIssued, NewCustomer,
    SubscriptionStatus,
};
use linecast_domain::Sport;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, Condition, DatabaseTransaction, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Select,
};

use crate::SeaAccounts;
use crate::entity::{api_keys, customers, entitlements, key_audit_log};
use crate::error::{corrupt, db_err};
use crate::sql::begin_write;

/// Emails are compared trimmed and lower-cased, so `A@x.io` and `a@x.io` are one account.
pub(crate) fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

fn status(code: &str) -> Result<SubscriptionStatus, AccountsError> {
    SubscriptionStatus::parse(code).ok_or_else(|| corrupt(format!("subscription status '{code}'")))
}

pub(crate) fn to_customer(m: customers::Model) -> Result<Customer, AccountsError> {
    Ok(Customer {
        customer_id: m.id,
        api_subscription_status: status(&m.api_subscription_status)?,
        subscription_status: status(&m.subscription_status)?,
        monthly_limit: u64::try_from(m.monthly_limit).map_err(|_| corrupt("negative monthly_limit"))?,
        email: m.email,
        name: m.name,
        tier: m.tier,
        api_plan: m.api_plan,
        created_at: m.created_at,
    })
}

pub(crate) fn to_key(m: api_keys::Model) -> ApiKeyRecord {
    ApiKeyRecord {
        id: m.id,
        customer_id: m.customer_id,
        key_hash: m.key_hash,
        display_prefix: m.display_prefix,
        name: m.name,
        tier: m.tier,
        created_at: m.created_at,
        is_active: m.is_active,
        expires_at: m.expires_at,
        revoked_at: m.revoked_at,
        last_used_at: m.last_used_at,
    }
}

fn split_codes(s: &str) -> impl Iterator<Item = &str> {
    s.split(',').filter(|c| !c.is_empty())
}

fn to_entitlement(m: &entitlements::Model) -> Result<Entitlement, AccountsError> {
    let owned_sports = split_codes(&m.owned_sports)
        .map(|c| Sport::parse(c).map_err(|e| corrupt(format!("entitlement of customer {}: {e}", m.customer_id))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Entitlement {
        customer_id: m.customer_id,
        owned_products: split_codes(&m.owned_products).map(str::to_owned).collect(),
        owned_sports,
        expires_at: m.expires_at,
    })
}

/// The row a new customer is stored as (the email normalized, both statuses
/// the new one).
pub(crate) fn customer_row(new: NewCustomer, now: DateTime<Utc>) -> Result<customers::ActiveModel, AccountsError> {
    let limit =
        i64::try_from(new.monthly_limit).map_err(|_| AccountsError::Conflict("monthly_limit too large".into()))?;
    Ok(customers::ActiveModel {
        email: Set(normalize_email(&new.email)),
        name: Set(new.name),
        tier: Set(new.tier),
        api_plan: Set(new.api_plan),
        api_subscription_status: Set(new.subscription_status.code().to_owned()),
        subscription_status: Set(new.subscription_status.code().to_owned()),
        monthly_limit: Set(limit),
        created_at: Set(now),
        ..Default::default()
    })
}

/// `SELECT ... FROM customers WHERE id = $1 FOR UPDATE` on PostgreSQL; the
/// plain select on SQLite, whose dialect has no row locks.
pub(crate) fn customer_for_update(customer_id: i64) -> Select<customers::Entity> {
    customers::Entity::find_by_id(customer_id).lock_exclusive()
}

/// The body of `issue_key`, inside its write transaction.
async fn issue_in(txn: &DatabaseTransaction, issue: KeyIssue, now: DateTime<Utc>) -> Result<KeyIssued, AccountsError> {
    let new = issue.key;
    // PostgreSQL: `FOR UPDATE` makes concurrent issues for one customer wait
    // here until the holder commits, so each counts the keys before it.
    // SQLite: sea-query writes no lock clause; `BEGIN IMMEDIATE` already
    // holds the database's write lock.
    let customer = customer_for_update(new.customer_id).one(txn).await.map_err(db_err)?;
    if customer.is_none() {
        return Err(AccountsError::NotFound);
    }
    if let Some(max) = issue.max_active {
        let keys = api_keys::Entity::find()
            .filter(api_keys::Column::CustomerId.eq(new.customer_id))
            .all(txn)
            .await
            .map_err(db_err)?;
        // Counted with the port's own definition, not a SQL date comparison.
        let usable = keys.into_iter().map(to_key).filter(|k| k.is_usable(now)).count();
        if usable >= max {
            return Ok(KeyIssued::LimitReached);
        }
    }
    let row = api_keys::ActiveModel {
        customer_id: Set(new.customer_id),
        key_hash: Set(new.key_hash),
        display_prefix: Set(new.display_prefix),
        name: Set(new.name),
        tier: Set(new.tier),
        created_at: Set(now),
        is_active: Set(true),
        expires_at: Set(new.expires_at),
        revoked_at: Set(None),
        last_used_at: Set(None),
        ..Default::default()
    };
    let record = to_key(row.insert(txn).await.map_err(db_err)?);
    let line = key_audit_log::ActiveModel {
        customer_id: Set(record.customer_id),
        key_id: Set(Some(record.id)),
        action: Set(issue.audit_action),
        detail: Set(issue.audit_detail),
        at: Set(now),
        ..Default::default()
    };
    key_audit_log::Entity::insert(line).exec(txn).await.map_err(db_err)?;
    Ok(KeyIssued::Stored(record))
}

impl SeaAccounts {
    /// The outcome of a guarded key update: done when it changed a row;
    /// otherwise the guard held (nothing to do) if the key exists, and
    /// `NotFound` if it does not.
    async fn changed_or_found(&self, rows_affected: u64, key_id: i64) -> Result<(), AccountsError> {
        if rows_affected > 0 {
            return Ok(());
        }
        match api_keys::Entity::find_by_id(key_id)
            .one(&self.db)
            .await
            .map_err(db_err)?
        {
            Some(_) => Ok(()),
            None => Err(AccountsError::NotFound),
        }
    }
}

#[async_trait]
impl Accounts for SeaAccounts {
    async fn create_customer(&self, new: NewCustomer, now: DateTime<Utc>) -> Result<Customer, AccountsError> {
        to_customer(customer_row(new, now)?.insert(&self.db).await.map_err(db_err)?)
    }

    async fn find_customer_by_email(&self, email: &str) -> Result<Option<Customer>, AccountsError> {
        customers::Entity::find()
            .filter(customers::Column::Email.eq(normalize_email(email)))
            .one(&self.db)
            .await
            .map_err(db_err)?
            .map(to_customer)
            .transpose()
    }

    async fn get_customer(&self, customer_id: i64) -> Result<Customer, AccountsError> {
        let row = customers::Entity::find_by_id(customer_id)
            .one(&self.db)
            .await
            .map_err(db_err)?;
        to_customer(row.ok_or(AccountsError::NotFound)?)
    }

    async fn list_customers(&self) -> Result<Vec<Customer>, AccountsError> {
        let rows = customers::Entity::find()
            .order_by_asc(customers::Column::Id)
            .all(&self.db)
            .await
            .map_err(db_err)?;
        rows.into_iter().map(to_customer).collect()
    }

    async fn set_subscription(&self, email: &str, status: SubscriptionStatus) -> Result<Customer, AccountsError> {
        let email = normalize_email(email);
        let res = customers::Entity::update_many()
            .col_expr(customers::Column::SubscriptionStatus, Expr::value(status.code()))
            .col_expr(customers::Column::ApiSubscriptionStatus, Expr::value(status.code()))
            .filter(customers::Column::Email.eq(email.as_str()))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        if res.rows_affected == 0 {
            return Err(AccountsError::NotFound);
        }
        self.find_customer_by_email(&email)
            .await?
            .ok_or(AccountsError::NotFound)
    }

    async fn issue_key(&self, issue: KeyIssue, now: DateTime<Utc>) -> Result<KeyIssued, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        match issue_in(&txn, issue, now).await {
            Ok(KeyIssued::Stored(record)) => {
                txn.commit().await.map_err(db_err)?;
                Ok(KeyIssued::Stored(record))
            }
            Ok(KeyIssued::LimitReached) => {
                txn.rollback().await.map_err(db_err)?;
                Ok(KeyIssued::LimitReached)
            }
            Err(e) => {
                // A failed step (the audit line included) undoes the key. The
                // step's error is the one to report; if the rollback fails
                // too, dropping the transaction still rolls it back.
                if let Err(rollback) = txn.rollback().await {
                    tracing::warn!(error = %rollback, "rolling back a failed key issue");
                }
                Err(e)
            }
        }
    }

    async fn find_key_by_hash(&self, key_hash: &str) -> Result<Option<(ApiKeyRecord, Customer)>, AccountsError> {
        let key = api_keys::Entity::find()
            .filter(api_keys::Column::KeyHash.eq(key_hash))
            .one(&self.db)
            .await
            .map_err(db_err)?;
        let Some(key) = key else { return Ok(None) };
        let customer = customers::Entity::find_by_id(key.customer_id)
            .one(&self.db)
            .await
            .map_err(db_err)?;
        let customer = customer.ok_or_else(|| corrupt(format!("api key {} has no customer", key.id)))?;
        Ok(Some((to_key(key), to_customer(customer)?)))
    }

    async fn find_keys_by_hashes(&self, key_hashes: &[String]) -> Result<Vec<(ApiKeyRecord, Customer)>, AccountsError> {
        let mut found = Vec::with_capacity(key_hashes.len());
        // Two statements per chunk, whatever the number of keys; chunks stay
        // far below either database's limit on bound parameters.
        for chunk in key_hashes.chunks(500) {
            let keys = api_keys::Entity::find()
                .filter(api_keys::Column::KeyHash.is_in(chunk.iter().cloned()))
                .all(&self.db)
                .await
                .map_err(db_err)?;
            let mut ids: Vec<i64> = keys.iter().map(|k| k.customer_id).collect();
            ids.sort_unstable();
            ids.dedup();
            let customers: std::collections::HashMap<i64, customers::Model> = customers::Entity::find()
                .filter(customers::Column::Id.is_in(ids))
                .all(&self.db)
                .await
                .map_err(db_err)?
                .into_iter()
                .map(|c| (c.id, c))
                .collect();
            for key in keys {
                let customer = customers
                    .get(&key.customer_id)
                    .cloned()
                    .ok_or_else(|| corrupt(format!("api key {} has no customer", key.id)))?;
                found.push((to_key(key), to_customer(customer)?));
            }
        }
        Ok(found)
    }

    async fn list_keys(&self, customer_id: i64) -> Result<Vec<ApiKeyRecord>, AccountsError> {
        let rows = api_keys::Entity::find()
            .filter(api_keys::Column::CustomerId.eq(customer_id))
            .order_by_asc(api_keys::Column::Id)
            .all(&self.db)
            .await
            .map_err(db_err)?;
        Ok(rows.into_iter().map(to_key).collect())
    }

    async fn rename_key(&self, key_id: i64, new_name: &str) -> Result<(), AccountsError> {
        let res = api_keys::Entity::update_many()
            .col_expr(api_keys::Column::Name, Expr::value(new_name))
            .filter(api_keys::Column::Id.eq(key_id))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        if res.rows_affected == 0 {
            Err(AccountsError::NotFound)
        } else {
            Ok(())
        }
    }

    async fn revoke_key(&self, key_id: i64, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let res = api_keys::Entity::update_many()
            .col_expr(api_keys::Column::IsActive, Expr::value(false))
            .col_expr(api_keys::Column::RevokedAt, Expr::value(now))
            .filter(api_keys::Column::Id.eq(key_id))
            .filter(api_keys::Column::RevokedAt.is_null())
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        // Nothing changed: either already revoked (fine) or no such key.
        self.changed_or_found(res.rows_affected, key_id).await
    }

    async fn set_key_expiry(&self, key_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError> {
        // One statement, so a concurrent earlier expiry is never overwritten
        // by a later one.
        let res = api_keys::Entity::update_many()
            .col_expr(api_keys::Column::ExpiresAt, Expr::value(at))
            .filter(api_keys::Column::Id.eq(key_id))
            .filter(
                Condition::any()
                    .add(api_keys::Column::ExpiresAt.is_null())
                    .add(api_keys::Column::ExpiresAt.gt(at)),
            )
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        // Nothing changed: either it already expires no later (fine) or no such key.
        self.changed_or_found(res.rows_affected, key_id).await
    }

    async fn touch_last_used(&self, key_ids: &[i64], now: DateTime<Utc>) -> Result<(), AccountsError> {
        if key_ids.is_empty() {
            return Ok(());
        }
        api_keys::Entity::update_many()
            .col_expr(api_keys::Column::LastUsedAt, Expr::value(now))
            .filter(api_keys::Column::Id.is_in(key_ids.iter().copied()))
            // A late flush must not move `last_used_at` backwards.
            .filter(
                Condition::any()
                    .add(api_keys::Column::LastUsedAt.is_null())
                    .add(api_keys::Column::LastUsedAt.lt(now)),
            )
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        Ok(())
    }

    async fn audit(
        &self,
        customer_id: i64,
        key_id: Option<i64>,
        action: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), AccountsError> {
        let row = key_audit_log::ActiveModel {
            customer_id: Set(customer_id),
            key_id: Set(key_id),
            action: Set(action.to_owned()),
            detail: Set(detail.to_owned()),
            at: Set(now),
            ..Default::default()
        };
        key_audit_log::Entity::insert(row)
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        Ok(())
    }

    async fn audit_log(&self, customer_id: i64) -> Result<Vec<AuditEntry>, AccountsError> {
        let rows = key_audit_log::Entity::find()
            .filter(key_audit_log::Column::CustomerId.eq(customer_id))
            .order_by_asc(key_audit_log::Column::Id)
            .all(&self.db)
            .await
            .map_err(db_err)?;
        Ok(rows
            .into_iter()
            .map(|m| AuditEntry {
                id: m.id,
                customer_id: m.customer_id,
                key_id: m.key_id,
                action: m.action,
                detail: m.detail,
                at: m.at,
            })
            .collect())
    }

    async fn grant_entitlement(
        &self,
        customer_id: i64,
        products: &[String],
        sports: &[Sport],
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<Entitlement, AccountsError> {
        let txn = begin_write(&self.db).await.map_err(db_err)?;
        let existing = entitlements::Entity::find_by_id(customer_id)
            .one(&txn)
            .await
            .map_err(db_err)?;
        let (mut owned_products, mut owned_sports) = (BTreeSet::new(), BTreeSet::new());
        if let Some(old) = &existing {
            let old = to_entitlement(old)?;
            owned_products.extend(old.owned_products);
            owned_sports.extend(old.owned_sports);
        }
        owned_products.extend(products.iter().filter(|p| !p.is_empty()).cloned());
        owned_sports.extend(sports.iter().copied());
        let products_col = owned_products.into_iter().collect::<Vec<_>>().join(",");
        let sports_col = owned_sports.iter().map(|s| s.code()).collect::<Vec<_>>().join(",");
        let row = entitlements::ActiveModel {
            customer_id: Set(customer_id),
            owned_products: Set(products_col),
            owned_sports: Set(sports_col),
            expires_at: Set(expires_at),
        };
        let saved = if existing.is_some() {
            row.update(&txn).await
        } else {
            row.insert(&txn).await
        }
        .map_err(db_err)?;
        txn.commit().await.map_err(db_err)?;
        to_entitlement(&saved)
    }

    async fn get_entitlement(&self, customer_id: i64) -> Result<Option<Entitlement>, AccountsError> {
        entitlements::Entity::find_by_id(customer_id)
            .one(&self.db)
            .await
            .map_err(db_err)?
            .as_ref()
            .map(to_entitlement)
            .transpose()
    }

    async fn ping(&self) -> Result<(), AccountsError> {
        self.db
            .ping()
            .await
            .map_err(|e| AccountsError::Unavailable(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use sea_orm::{DbBackend, QueryTrait};

    use super::customer_for_update;

    #[test]
    fn the_customer_row_is_locked_on_postgres_and_sqlite_gets_valid_sql() {
        let pg = customer_for_update(7).build(DbBackend::Postgres).to_string();
        assert!(pg.ends_with("FOR UPDATE"), "{pg}");
        let sqlite = customer_for_update(7).build(DbBackend::Sqlite).to_string();
        assert!(!sqlite.contains("FOR"), "{sqlite}");
    }
}
