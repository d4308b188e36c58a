//! `webhook_endpoints`: one row per endpoint of an account (`ep_...`).
//! Event types and sports are comma-separated; instants in microseconds.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_endpoints")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub customer_id: i64,
    pub url: String,
    pub description: Option<String>,
    pub event_types: String,
    pub sports: String,
    pub secret: String,
    pub previous_secret: Option<String>,
    pub previous_secret_until_us: Option<i64>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    pub failing_since_us: Option<i64>,
    pub created_at_us: i64,
    pub updated_at_us: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
