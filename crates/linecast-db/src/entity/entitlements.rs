//! `entitlements`: one row per customer; products and sports are stored as
//! comma-separated codes.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "entitlements")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub customer_id: i64,
    pub owned_products: String,
    pub owned_sports: String,
    pub expires_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
