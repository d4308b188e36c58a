//! `stripe_links`: which Stripe customer and subscription a customer is.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "stripe_links")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub customer_id: i64,
    #[sea_orm(unique)]
    pub stripe_customer: String,
    pub stripe_subscription: Option<String>,
    pub last_created: Option<i64>,
    pub last_event_id: Option<String>,
    pub last_status: Option<String>,
    pub period_end: Option<i64>,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
