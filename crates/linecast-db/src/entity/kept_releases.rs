//! `kept_releases`: one row per kept version of a predictions or odds
//! object (series and publication instant in microseconds).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "kept_releases")]
pub struct Model {
    /// `{sport}/predictions/{model_type}` or `{sport}/odds`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub series: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub published_at_us: i64,
    pub sport: String,
    pub artifact: String,
    pub model_type: Option<String>,
    pub digest: String,
    pub game_count: i32,
    pub size: i64,
    pub recorded_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
