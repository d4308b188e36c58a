//! `usage_counters`: requests per customer per `YYYY-MM` month; the pair is
//! the primary key so the upsert has a conflict target.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "usage_counters")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub customer_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub month: String,
    pub requests: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
