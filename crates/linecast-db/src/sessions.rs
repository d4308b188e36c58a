//! `PortalSessions` for `SeaAccounts`.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::sessions::{FlashRecord, PortalSessions, SessionRecord, SignInLink};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ActiveValue::Set, ColumnTrait, EntityTrait, QueryFilter};

use crate::SeaAccounts;
use crate::entity::{portal_flashes, portal_links, portal_sessions};
use crate::error::db_err;

fn to_record(m: portal_sessions::Model) -> SessionRecord {
    SessionRecord {
        id_hash: m.id_hash,
        customer_id: m.customer_id,
        key_hash: m.key_hash,
        csrf_token: m.csrf_token,
        created_at: m.created_at,
        last_seen_at: m.last_seen_at,
        ended_at: m.ended_at,
    }
}

#[async_trait]
impl PortalSessions for SeaAccounts {
    async fn create_link(&self, link: &SignInLink) -> Result<(), AccountsError> {
        portal_links::ActiveModel {
            token_hash: Set(link.token_hash.clone()),
            customer_id: Set(link.customer_id),
            created_at: Set(link.created_at),
            expires_at: Set(link.expires_at),
            used_at: Set(None),
        }
        .insert(&self.db)
        .await
        .map_err(db_err)?;
        Ok(())
    }

    async fn consume_link(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<i64>, AccountsError> {
        // One conditional update: of two concurrent uses, one changes the row.
        let res = portal_links::Entity::update_many()
            .col_expr(portal_links::Column::UsedAt, Expr::value(now))
            .filter(portal_links::Column::TokenHash.eq(token_hash))
            .filter(portal_links::Column::UsedAt.is_null())
            .filter(portal_links::Column::ExpiresAt.gt(now))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        if res.rows_affected == 0 {
            return Ok(None);
        }
        Ok(portal_links::Entity::find_by_id(token_hash.to_owned())
            .one(&self.db)
            .await
            .map_err(db_err)?
            .map(|l| l.customer_id))
    }

    async fn peek_link(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<i64>, AccountsError> {
        Ok(portal_links::Entity::find_by_id(token_hash.to_owned())
            .one(&self.db)
            .await
            .map_err(db_err)?
            .filter(|l| l.used_at.is_none() && l.expires_at > now)
            .map(|l| l.customer_id))
    }

    async fn start_session(&self, s: &SessionRecord) -> Result<(), AccountsError> {
        portal_sessions::ActiveModel {
            id_hash: Set(s.id_hash.clone()),
            customer_id: Set(s.customer_id),
            key_hash: Set(s.key_hash.clone()),
            csrf_token: Set(s.csrf_token.clone()),
            created_at: Set(s.created_at),
            last_seen_at: Set(s.last_seen_at),
            ended_at: Set(s.ended_at),
        }
        .insert(&self.db)
        .await
        .map_err(db_err)?;
        Ok(())
    }

    async fn find_session(&self, id_hash: &str) -> Result<Option<SessionRecord>, AccountsError> {
        Ok(portal_sessions::Entity::find_by_id(id_hash.to_owned())
            .one(&self.db)
            .await
            .map_err(db_err)?
            .map(to_record))
    }

    async fn touch_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<(), AccountsError> {
        portal_sessions::Entity::update_many()
            .col_expr(portal_sessions::Column::LastSeenAt, Expr::value(now))
            .filter(portal_sessions::Column::IdHash.eq(id_hash))
            .filter(portal_sessions::Column::LastSeenAt.lt(now))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        Ok(())
    }

    async fn end_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<(), AccountsError> {
        portal_sessions::Entity::update_many()
            .col_expr(portal_sessions::Column::EndedAt, Expr::value(now))
            .filter(portal_sessions::Column::IdHash.eq(id_hash))
            .filter(portal_sessions::Column::EndedAt.is_null())
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        portal_flashes::Entity::delete_by_id(id_hash.to_owned())
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        Ok(())
    }

    async fn put_flash(&self, flash: &FlashRecord) -> Result<(), AccountsError> {
        use sea_orm::sea_query::OnConflict;
        portal_flashes::Entity::insert(portal_flashes::ActiveModel {
            id_hash: Set(flash.id_hash.clone()),
            page: Set(flash.page.clone()),
            sealed: Set(flash.sealed.clone()),
            created_at: Set(flash.created_at),
        })
        .on_conflict(
            OnConflict::column(portal_flashes::Column::IdHash)
                .update_columns([
                    portal_flashes::Column::Page,
                    portal_flashes::Column::Sealed,
                    portal_flashes::Column::CreatedAt,
                ])
                .to_owned(),
        )
        .exec(&self.db)
        .await
        .map_err(db_err)?;
        Ok(())
    }

    async fn take_flash(&self, id_hash: &str, page: &str) -> Result<Option<FlashRecord>, AccountsError> {
        let Some(found) = portal_flashes::Entity::find_by_id(id_hash.to_owned())
            .filter(portal_flashes::Column::Page.eq(page))
            .one(&self.db)
            .await
            .map_err(db_err)?
        else {
            return Ok(None);
        };
        // Deleting exactly what was read: of two concurrent reads, one
        // deletes the row and gets the flash; a flash put meanwhile (other
        // content) is not deleted by the read of the one before it.
        let gone = portal_flashes::Entity::delete_many()
            .filter(portal_flashes::Column::IdHash.eq(id_hash))
            .filter(portal_flashes::Column::Page.eq(page))
            .filter(portal_flashes::Column::Sealed.eq(found.sealed.clone()))
            .exec(&self.db)
            .await
            .map_err(db_err)?;
        Ok((gone.rows_affected == 1).then_some(FlashRecord {
            id_hash: found.id_hash,
            page: found.page,
            sealed: found.sealed,
            created_at: found.created_at,
        }))
    }
}
