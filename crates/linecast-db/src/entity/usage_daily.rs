//! `usage_daily`: requests per customer per UTC day (`YYYY-MM-DD`); the
//! pair is the primary key so the upsert has a conflict target.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "usage_daily")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub customer_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
    pub requests: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
