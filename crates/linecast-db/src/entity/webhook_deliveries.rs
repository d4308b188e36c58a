//! `webhook_deliveries`: one row per message and endpoint, its state and
//! its claim by a worker (instants in microseconds).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub message_id: String,
    pub endpoint_id: String,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at_us: i64,
    pub claimed_by: Option<String>,
    pub claimed_until_us: Option<i64>,
    pub delivered_at_us: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
