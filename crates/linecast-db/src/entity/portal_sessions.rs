//! `portal_sessions`: one row per portal sign-in; the id only as its SHA-256.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "portal_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id_hash: String,
    pub customer_id: i64,
    pub key_hash: String,
    pub csrf_token: String,
    pub created_at: DateTimeUtc,
    pub last_seen_at: DateTimeUtc,
    pub ended_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
