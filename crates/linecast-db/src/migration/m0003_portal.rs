//! The customer portal's sessions (ids stored only as their SHA-256).

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
enum PortalSessions {
    Table,
    IdHash,
    CustomerId,
    KeyHash,
    CsrfToken,
    CreatedAt,
    LastSeenAt,
    EndedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PortalSessions::Table)
                    .if_not_exists()
                    .col(string(PortalSessions::IdHash).primary_key())
                    .col(big_integer(PortalSessions::CustomerId))
                    .col(string(PortalSessions::KeyHash))
                    .col(string(PortalSessions::CsrfToken))
                    .col(timestamp_with_time_zone(PortalSessions::CreatedAt))
                    .col(timestamp_with_time_zone(PortalSessions::LastSeenAt))
                    .col(timestamp_with_time_zone_null(PortalSessions::EndedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(PortalSessions::Table, PortalSessions::CustomerId)
                            .to(Customers::Table, Customers::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_portal_sessions_customer_id")
                    .table(PortalSessions::Table)
                    .col(PortalSessions::CustomerId)
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PortalSessions::Table).if_exists().take())
            .await
    }
}
