//! What the billing provider (Stripe) told us: the link from its customer
//! and subscription to a linecast customer, the event ids applied (each
//! once), and subscription events waiting for their checkout.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, string, string_null, string_uniq, timestamp_with_time_zone,
};

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
    CustomerId,
    StripeCustomer,
    StripeSubscription,
    LastCreated,
    LastEventId,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum StripeEvents {
    Table,
    EventId,
    Outcome,
    ReceivedAt,
}

#[derive(DeriveIden)]
enum StripePending {
    Table,
    StripeSubscription,
    StripeCustomer,
    EventId,
    Created,
    Status,
    Plan,
    MonthlyLimit,
    Price,
    ReceivedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(StripeLinks::Table)
                    .if_not_exists()
                    .col(big_integer(StripeLinks::CustomerId).primary_key())
                    .col(string_uniq(StripeLinks::StripeCustomer))
                    .col(string_null(StripeLinks::StripeSubscription))
                    .col(big_integer_null(StripeLinks::LastCreated))
                    .col(string_null(StripeLinks::LastEventId))
                    .col(timestamp_with_time_zone(StripeLinks::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(StripeLinks::Table, StripeLinks::CustomerId)
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
                    .name("idx_stripe_links_subscription")
                    .table(StripeLinks::Table)
                    .col(StripeLinks::StripeSubscription)
                    .take(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(StripeEvents::Table)
                    .if_not_exists()
                    .col(string(StripeEvents::EventId).primary_key())
                    .col(string(StripeEvents::Outcome))
                    .col(timestamp_with_time_zone(StripeEvents::ReceivedAt))
                    .take(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(StripePending::Table)
                    .if_not_exists()
                    .col(string(StripePending::StripeSubscription).primary_key())
                    .col(string(StripePending::StripeCustomer))
                    .col(string(StripePending::EventId))
                    .col(big_integer(StripePending::Created))
                    .col(string(StripePending::Status))
                    .col(string_null(StripePending::Plan))
                    .col(big_integer_null(StripePending::MonthlyLimit))
                    .col(string_null(StripePending::Price))
                    .col(timestamp_with_time_zone(StripePending::ReceivedAt))
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_stripe_pending_customer")
                    .table(StripePending::Table)
                    .col(StripePending::StripeCustomer)
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            StripePending::Table.into_iden(),
            StripeEvents::Table.into_iden(),
            StripeLinks::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().take())
                .await?;
        }
        Ok(())
    }
}
