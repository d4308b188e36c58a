//! The request log kept in segments: one row per customer, UTC day and
//! flush, its requests a JSON array in `body` (`[[at_ms, key_id, method,
//! route, status, duration_us, request_id], ...]`), so a flush writes one
//! row per customer-day instead of one per request. Only adds: rows of
//! `request_log` (written by the release before, or by it during a
//! rollout) are folded into segments by the prune round, and the table
//! goes in a later release.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, big_pk_auto, integer, string, text};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum RequestLogSegments {
    Table,
    Id,
    CustomerId,
    /// `YYYY-MM-DD` (UTC) of every request in the segment.
    Day,
    /// Unix milliseconds of the oldest and newest request in it.
    FirstMs,
    LastMs,
    /// How many requests `body` holds.
    Requests,
    Body,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(RequestLogSegments::Table)
                    .if_not_exists()
                    .col(big_pk_auto(RequestLogSegments::Id))
                    .col(big_integer(RequestLogSegments::CustomerId))
                    .col(string(RequestLogSegments::Day))
                    .col(big_integer(RequestLogSegments::FirstMs))
                    .col(big_integer(RequestLogSegments::LastMs))
                    .col(integer(RequestLogSegments::Requests))
                    .col(text(RequestLogSegments::Body))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RequestLogSegments::Table, RequestLogSegments::CustomerId)
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
                    .name("idx_request_log_segments_customer_last")
                    .table(RequestLogSegments::Table)
                    .col(RequestLogSegments::CustomerId)
                    .col(RequestLogSegments::LastMs)
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_request_log_segments_last")
                    .table(RequestLogSegments::Table)
                    .col(RequestLogSegments::LastMs)
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RequestLogSegments::Table).if_exists().take())
            .await
    }
}
