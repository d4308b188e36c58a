//! Billing that a buyer cannot steer: the status each link's last event
//! set (an end is final within its second), why an event was ignored or
//! refused, and checkouts held for an operator.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, string, string_null, timestamp_with_time_zone};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum StripeLinks {
    Table,
    LastStatus,
}

#[derive(DeriveIden)]
enum StripeEvents {
    Table,
    Detail,
}

#[derive(DeriveIden)]
enum StripeHeld {
    Table,
    EventId,
    Created,
    StripeCustomer,
    StripeSubscription,
    CustomerId,
    Email,
    ReceivedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(StripeLinks::Table)
                    .add_column(string_null(StripeLinks::LastStatus))
                    .take(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StripeEvents::Table)
                    .add_column(string_null(StripeEvents::Detail))
                    .take(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(StripeHeld::Table)
                    .if_not_exists()
                    .col(string(StripeHeld::EventId).primary_key())
                    .col(big_integer(StripeHeld::Created))
                    .col(string(StripeHeld::StripeCustomer))
                    .col(string_null(StripeHeld::StripeSubscription))
                    .col(big_integer(StripeHeld::CustomerId))
                    .col(string(StripeHeld::Email))
                    .col(timestamp_with_time_zone(StripeHeld::ReceivedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(StripeHeld::Table, StripeHeld::CustomerId)
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
                    .name("idx_stripe_held_customer")
                    .table(StripeHeld::Table)
                    .col(StripeHeld::StripeCustomer)
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(StripeHeld::Table).if_exists().take())
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StripeEvents::Table)
                    .drop_column(StripeEvents::Detail)
                    .take(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StripeLinks::Table)
                    .drop_column(StripeLinks::LastStatus)
                    .take(),
            )
            .await
    }
}
