//! `ledger_days`: one row per sealed UTC day of the public ledger.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ledger_days")]
pub struct Model {
    /// `YYYY-MM-DD`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub day: String,
    pub previous_root: String,
    pub root: String,
    pub releases: i32,
    pub late: i32,
    pub sealed_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
