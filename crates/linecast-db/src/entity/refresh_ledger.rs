//! `refresh_ledger`: dataset refreshes used per customer per `YYYY-MM` month.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "refresh_ledger")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub customer_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub month: String,
    pub used: i32,
    pub last_consumed_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
