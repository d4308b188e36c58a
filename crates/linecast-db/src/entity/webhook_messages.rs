//! `webhook_messages`: the outbox, one row per message (`msg_...`, its
//! `webhook-id`); `dedupe_key` is unique when set.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub customer_id: Option<i64>,
    pub event_type: String,
    pub sport: Option<String>,
    pub order_key: String,
    pub payload: String,
    #[sea_orm(unique)]
    pub dedupe_key: Option<String>,
    pub created_at_us: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
