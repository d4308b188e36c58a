//! The subscription's current period end, as the last applied Stripe event
//! (or the event waiting for its checkout) reported it: the portal's Billing
//! page shows it. Only adds nullable columns.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::big_integer_null;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum StripeLinks {
    Table,
    PeriodEnd,
}

#[derive(DeriveIden)]
enum StripePending {
    Table,
    PeriodEnd,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite adds one at a time.
        manager
            .alter_table(
                Table::alter()
                    .table(StripeLinks::Table)
                    .add_column(big_integer_null(StripeLinks::PeriodEnd))
                    .take(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StripePending::Table)
                    .add_column(big_integer_null(StripePending::PeriodEnd))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(StripePending::Table)
                    .drop_column(StripePending::PeriodEnd)
                    .take(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(StripeLinks::Table)
                    .drop_column(StripeLinks::PeriodEnd)
                    .take(),
            )
            .await
    }
}
