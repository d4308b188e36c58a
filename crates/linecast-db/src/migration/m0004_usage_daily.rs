//! Requests per customer per UTC day (`YYYY-MM-DD`), written by the same
//! batch transaction as the monthly counters.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, string};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum UsageDaily {
    Table,
    CustomerId,
    Day,
    Requests,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(UsageDaily::Table)
                    .if_not_exists()
                    .col(big_integer(UsageDaily::CustomerId))
                    .col(string(UsageDaily::Day))
                    .col(big_integer(UsageDaily::Requests))
                    .primary_key(Index::create().col(UsageDaily::CustomerId).col(UsageDaily::Day))
                    .foreign_key(
                        ForeignKey::create()
                            .from(UsageDaily::Table, UsageDaily::CustomerId)
                            .to(Customers::Table, Customers::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(UsageDaily::Table).if_exists().take())
            .await
    }
}
