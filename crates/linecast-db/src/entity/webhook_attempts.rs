//! `webhook_attempts`: the log of attempts, with the response's preview.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_attempts")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub delivery_id: i64,
    pub endpoint_id: String,
    pub attempted_at_us: i64,
    pub status_code: Option<i32>,
    pub latency_ms: i32,
    pub error: Option<String>,
    pub response_body: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
