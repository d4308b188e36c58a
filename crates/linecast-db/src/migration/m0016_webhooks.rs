//! Signed webhooks (issue 78): each account's endpoints, the outbox of
//! messages, one delivery per message and endpoint, and the attempts' log.
//! Instants are microseconds since the epoch (`..._us`, `BIGINT`), the
//! same integers on both backends, so claims compare and order them
//! exactly.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, integer, integer_null, string, string_null, text, text_null,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum WebhookEndpoints {
    Table,
    Id,
    CustomerId,
    Url,
    Description,
    EventTypes,
    Sports,
    Secret,
    PreviousSecret,
    PreviousSecretUntilUs,
    Enabled,
    DisabledReason,
    FailingSinceUs,
    CreatedAtUs,
    UpdatedAtUs,
}

#[derive(DeriveIden)]
enum WebhookMessages {
    Table,
    Id,
    CustomerId,
    EventType,
    Sport,
    OrderKey,
    Payload,
    DedupeKey,
    CreatedAtUs,
}

#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    Id,
    MessageId,
    EndpointId,
    Status,
    Attempts,
    NextAttemptAtUs,
    ClaimedBy,
    ClaimedUntilUs,
    DeliveredAtUs,
}

#[derive(DeriveIden)]
enum WebhookAttempts {
    Table,
    Id,
    DeliveryId,
    EndpointId,
    AttemptedAtUs,
    StatusCode,
    LatencyMs,
    Error,
    ResponseBody,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(WebhookEndpoints::Table)
                    .if_not_exists()
                    .col(string(WebhookEndpoints::Id).primary_key())
                    .col(big_integer(WebhookEndpoints::CustomerId))
                    .col(text(WebhookEndpoints::Url))
                    .col(text_null(WebhookEndpoints::Description))
                    // Comma-separated event names; sports likewise, empty = all.
                    .col(text(WebhookEndpoints::EventTypes))
                    .col(text(WebhookEndpoints::Sports))
                    .col(string(WebhookEndpoints::Secret))
                    .col(string_null(WebhookEndpoints::PreviousSecret))
                    .col(big_integer_null(WebhookEndpoints::PreviousSecretUntilUs))
                    .col(boolean(WebhookEndpoints::Enabled))
                    .col(text_null(WebhookEndpoints::DisabledReason))
                    .col(big_integer_null(WebhookEndpoints::FailingSinceUs))
                    .col(big_integer(WebhookEndpoints::CreatedAtUs))
                    .col(big_integer(WebhookEndpoints::UpdatedAtUs))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookEndpoints::Table, WebhookEndpoints::CustomerId)
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
                    .name("webhook_endpoints_customer")
                    .table(WebhookEndpoints::Table)
                    .col(WebhookEndpoints::CustomerId)
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(WebhookMessages::Table)
                    .if_not_exists()
                    // The `webhook-id`.
                    .col(string(WebhookMessages::Id).primary_key())
                    // Null: every subscribed endpoint; set: that account's only.
                    .col(big_integer_null(WebhookMessages::CustomerId))
                    .col(string(WebhookMessages::EventType))
                    .col(string_null(WebhookMessages::Sport))
                    .col(string(WebhookMessages::OrderKey))
                    .col(text(WebhookMessages::Payload))
                    // Unique, nullable: an event written by two instances is kept once.
                    .col(string_null(WebhookMessages::DedupeKey).unique_key())
                    .col(big_integer(WebhookMessages::CreatedAtUs))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(WebhookDeliveries::Table)
                    .if_not_exists()
                    .col(big_pk_auto(WebhookDeliveries::Id))
                    .col(string(WebhookDeliveries::MessageId))
                    // No foreign key: a deleted endpoint's deliveries stay, cancelled.
                    .col(string(WebhookDeliveries::EndpointId))
                    // `pending`, `delivered`, `failed`, `cancelled`.
                    .col(string(WebhookDeliveries::Status))
                    .col(integer(WebhookDeliveries::Attempts))
                    .col(big_integer(WebhookDeliveries::NextAttemptAtUs))
                    .col(string_null(WebhookDeliveries::ClaimedBy))
                    .col(big_integer_null(WebhookDeliveries::ClaimedUntilUs))
                    .col(big_integer_null(WebhookDeliveries::DeliveredAtUs))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookDeliveries::Table, WebhookDeliveries::MessageId)
                            .to(WebhookMessages::Table, WebhookMessages::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("webhook_deliveries_message_endpoint")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::MessageId)
                    .col(WebhookDeliveries::EndpointId)
                    .unique()
                    .take(),
            )
            .await?;
        // What is due.
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("webhook_deliveries_due")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::Status)
                    .col(WebhookDeliveries::NextAttemptAtUs)
                    .take(),
            )
            .await?;
        // An endpoint's deliveries (the ordering check, recovery, deletion).
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("webhook_deliveries_endpoint")
                    .table(WebhookDeliveries::Table)
                    .col(WebhookDeliveries::EndpointId)
                    .col(WebhookDeliveries::Status)
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(WebhookAttempts::Table)
                    .if_not_exists()
                    .col(big_pk_auto(WebhookAttempts::Id))
                    .col(big_integer(WebhookAttempts::DeliveryId))
                    .col(string(WebhookAttempts::EndpointId))
                    .col(big_integer(WebhookAttempts::AttemptedAtUs))
                    .col(integer_null(WebhookAttempts::StatusCode))
                    .col(integer(WebhookAttempts::LatencyMs))
                    .col(text_null(WebhookAttempts::Error))
                    // At most 4096 bytes: `linecast_webhooks::events::truncate_body`.
                    .col(text(WebhookAttempts::ResponseBody))
                    .foreign_key(
                        ForeignKey::create()
                            .from(WebhookAttempts::Table, WebhookAttempts::DeliveryId)
                            .to(WebhookDeliveries::Table, WebhookDeliveries::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("webhook_attempts_endpoint")
                    .table(WebhookAttempts::Table)
                    .col(WebhookAttempts::EndpointId)
                    .col(WebhookAttempts::AttemptedAtUs)
                    .take(),
            )
            .await?;
        // Pruning by age.
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("webhook_attempts_attempted")
                    .table(WebhookAttempts::Table)
                    .col(WebhookAttempts::AttemptedAtUs)
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            WebhookAttempts::Table.into_iden(),
            WebhookDeliveries::Table.into_iden(),
            WebhookMessages::Table.into_iden(),
            WebhookEndpoints::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().take())
                .await?;
        }
        Ok(())
    }
}
