//! One-time portal sign-in links (tokens stored only as their SHA-256).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, string, timestamp_with_time_zone, timestamp_with_time_zone_null};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum PortalLinks {
    Table,
    TokenHash,
    CustomerId,
    CreatedAt,
    ExpiresAt,
    UsedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PortalLinks::Table)
                    .if_not_exists()
                    .col(string(PortalLinks::TokenHash).primary_key())
                    .col(big_integer(PortalLinks::CustomerId))
                    .col(timestamp_with_time_zone(PortalLinks::CreatedAt))
                    .col(timestamp_with_time_zone(PortalLinks::ExpiresAt))
                    .col(timestamp_with_time_zone_null(PortalLinks::UsedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PortalLinks::Table, PortalLinks::CustomerId)
                            .to(Customers::Table, Customers::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PortalLinks::Table).if_exists().take())
            .await
    }
}
