//! `ledger_entries`: one row per release a sealed day of the public ledger
//! lists (series and publication instant in microseconds).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ledger_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub series: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub published_at_us: i64,
    pub digest: String,
    /// The sealed day that lists it (`YYYY-MM-DD`).
    pub day: String,
    /// Listed as late (published in an earlier day).
    pub late: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
