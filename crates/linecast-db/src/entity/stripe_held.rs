//! `stripe_held`: checkouts kept for an operator (their email belongs to an
//! existing customer, and no reference linecast signed names it).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "stripe_held")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub event_id: String,
    pub created: i64,
    pub stripe_customer: String,
    pub stripe_subscription: Option<String>,
    pub customer_id: i64,
    pub email: String,
    pub received_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
