//! `release_games`: the index of games per kept predictions release, one
//! row per series, game id and publication instant (microseconds).

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "release_games")]
pub struct Model {
    /// `{sport}/predictions/{model_type}`.
    #[sea_orm(primary_key, auto_increment = false)]
    pub series: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub game_id: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub published_at_us: i64,
    pub digest: String,
    pub game_count: i32,
    pub size: i64,
    /// The row's position in the release (0 first).
    pub ordinal: i32,
    /// The game's encoded row (`linecast_core::services::game_index`).
    #[sea_orm(column_type = "Text")]
    pub row: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
