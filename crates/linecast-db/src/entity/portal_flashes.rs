//! `portal_flashes`: one sealed flash per session, keyed by the session's
//! id hash; deleted by the first read.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "portal_flashes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id_hash: String,
    pub page: String,
    #[sea_orm(column_type = "Text")]
    pub sealed: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
