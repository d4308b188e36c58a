//! The public ledger: one row per sealed UTC day (its root, the root it
//! chains from and its counts) and one row per release a sealed day lists
//! (series and publication instant in microseconds, as `kept_releases`
//! keys them). Written once per day, in one transaction, never rewritten;
//! retention does not touch them.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, boolean, integer, string, string_len, timestamp_with_time_zone};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum LedgerDays {
    Table,
    Day,
    PreviousRoot,
    Root,
    Releases,
    Late,
    SealedAt,
}

#[derive(DeriveIden)]
enum LedgerEntries {
    Table,
    Series,
    PublishedAtUs,
    Digest,
    Day,
    Late,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(LedgerDays::Table)
                    .if_not_exists()
                    // `YYYY-MM-DD`: sorts as the dates do.
                    .col(string_len(LedgerDays::Day, 10).primary_key())
                    .col(string_len(LedgerDays::PreviousRoot, 64))
                    .col(string_len(LedgerDays::Root, 64))
                    .col(integer(LedgerDays::Releases))
                    .col(integer(LedgerDays::Late))
                    .col(timestamp_with_time_zone(LedgerDays::SealedAt))
                    .take(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(LedgerEntries::Table)
                    .if_not_exists()
                    .col(string(LedgerEntries::Series))
                    .col(big_integer(LedgerEntries::PublishedAtUs))
                    .col(string_len(LedgerEntries::Digest, 64))
                    .col(string_len(LedgerEntries::Day, 10))
                    .col(boolean(LedgerEntries::Late))
                    .primary_key(
                        Index::create()
                            .col(LedgerEntries::Series)
                            .col(LedgerEntries::PublishedAtUs),
                    )
                    .take(),
            )
            .await?;
        // A day's entries.
        manager
            .create_index(
                Index::create()
                    .name("ledger_entries_day")
                    .table(LedgerEntries::Table)
                    .col(LedgerEntries::Day)
                    .if_not_exists()
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(LedgerEntries::Table).if_exists().take())
            .await?;
        manager
            .drop_table(Table::drop().table(LedgerDays::Table).if_exists().take())
            .await
    }
}
