//! One-time portal flashes: what a form's answer leaves for the page it
//! redirects to (a new key, signed links, a refused form), sealed with a key
//! only the session's cookie holds, and deleted by the first read.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{string, text, timestamp_with_time_zone};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum PortalFlashes {
    Table,
    IdHash,
    Page,
    Sealed,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PortalFlashes::Table)
                    .if_not_exists()
                    .col(string(PortalFlashes::IdHash).primary_key())
                    .col(string(PortalFlashes::Page))
                    .col(text(PortalFlashes::Sealed))
                    .col(timestamp_with_time_zone(PortalFlashes::CreatedAt))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PortalFlashes::Table).if_exists().take())
            .await
    }
}
