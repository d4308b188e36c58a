//! `api_keys`: hashed keys; `key_hash` is unique, `customer_id` indexed.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "api_keys")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub customer_id: i64,
    #[sea_orm(unique)]
    pub key_hash: String,
    pub display_prefix: String,
    pub name: String,
    pub tier: String,
    pub created_at: DateTimeUtc,
    pub is_active: bool,
    pub expires_at: Option<DateTimeUtc>,
    pub revoked_at: Option<DateTimeUtc>,
    pub last_used_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
