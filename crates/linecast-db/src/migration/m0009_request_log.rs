//! The request log: each customer's own API requests (key id, method, route
//! template, status, duration, request id; never a key, a raw path or a
//! query), kept `LINECAST_REQUEST_LOG_DAYS`; and per customer and UTC day
//! how many requests were recorded, which caps the rows stored that day.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, big_pk_auto, integer, string};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum RequestLog {
    Table,
    Id,
    CustomerId,
    KeyId,
    /// Unix milliseconds.
    AtMs,
    /// `YYYY-MM-DD` (UTC) of `at_ms`, for the per-day counts.
    Day,
    Method,
    Route,
    Status,
    DurationUs,
    RequestId,
}

#[derive(DeriveIden)]
enum RequestLogDays {
    Table,
    CustomerId,
    Day,
    Offered,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(RequestLog::Table)
                    .if_not_exists()
                    .col(big_pk_auto(RequestLog::Id))
                    .col(big_integer(RequestLog::CustomerId))
                    .col(big_integer(RequestLog::KeyId))
                    .col(big_integer(RequestLog::AtMs))
                    .col(string(RequestLog::Day))
                    .col(string(RequestLog::Method))
                    .col(string(RequestLog::Route))
                    .col(integer(RequestLog::Status))
                    .col(big_integer(RequestLog::DurationUs))
                    .col(string(RequestLog::RequestId))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RequestLog::Table, RequestLog::CustomerId)
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
                    .name("idx_request_log_customer_at")
                    .table(RequestLog::Table)
                    .col(RequestLog::CustomerId)
                    .col(RequestLog::AtMs)
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_request_log_at")
                    .table(RequestLog::Table)
                    .col(RequestLog::AtMs)
                    .take(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(RequestLogDays::Table)
                    .if_not_exists()
                    .col(big_integer(RequestLogDays::CustomerId))
                    .col(string(RequestLogDays::Day))
                    .col(big_integer(RequestLogDays::Offered))
                    .primary_key(Index::create().col(RequestLogDays::CustomerId).col(RequestLogDays::Day))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RequestLogDays::Table, RequestLogDays::CustomerId)
                            .to(Customers::Table, Customers::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RequestLogDays::Table).if_exists().take())
            .await?;
        manager
            .drop_table(Table::drop().table(RequestLog::Table).if_exists().take())
            .await
    }
}
