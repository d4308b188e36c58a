//! `stripe_pending`: the newest subscription event of a subscription no
//! customer is linked to yet, applied when its checkout arrives.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "stripe_pending")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub stripe_subscription: String,
    pub stripe_customer: String,
    pub event_id: String,
    pub created: i64,
    pub status: String,
    pub plan: Option<String>,
    pub monthly_limit: Option<i64>,
    pub price: Option<String>,
    pub period_end: Option<i64>,
    pub received_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
