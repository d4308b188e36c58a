//! Customers, API keys, the key audit log, entitlements, usage counters and
//! the refresh ledger.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, big_integer_null, big_pk_auto, boolean, integer, string, string_null, string_uniq, text,
    timestamp_with_time_zone, timestamp_with_time_zone_null,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Customers {
    Table,
    Id,
    Email,
    Name,
    Tier,
    ApiPlan,
    ApiSubscriptionStatus,
    SubscriptionStatus,
    MonthlyLimit,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ApiKeys {
    Table,
    Id,
    CustomerId,
    KeyHash,
    DisplayPrefix,
    Name,
    Tier,
    CreatedAt,
    IsActive,
    ExpiresAt,
    RevokedAt,
    LastUsedAt,
}

#[derive(DeriveIden)]
enum KeyAuditLog {
    Table,
    Id,
    CustomerId,
    KeyId,
    Action,
    Detail,
    At,
}

#[derive(DeriveIden)]
enum Entitlements {
    Table,
    CustomerId,
    OwnedProducts,
    OwnedSports,
    ExpiresAt,
}

#[derive(DeriveIden)]
enum UsageCounters {
    Table,
    CustomerId,
    Month,
    Requests,
}

#[derive(DeriveIden)]
enum RefreshLedger {
    Table,
    CustomerId,
    Month,
    Used,
    LastConsumedAt,
}

fn customer_fk(from: impl IntoIden + 'static, column: impl IntoIden + 'static) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .from(from, column)
        .to(Customers::Table, Customers::Id)
        .on_delete(ForeignKeyAction::Cascade)
        .take()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Customers::Table)
                    .if_not_exists()
                    .col(big_pk_auto(Customers::Id))
                    .col(string_uniq(Customers::Email))
                    .col(string(Customers::Name))
                    .col(string(Customers::Tier))
                    .col(string_null(Customers::ApiPlan))
                    .col(string(Customers::ApiSubscriptionStatus))
                    .col(string(Customers::SubscriptionStatus))
                    .col(big_integer(Customers::MonthlyLimit))
                    .col(timestamp_with_time_zone(Customers::CreatedAt))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ApiKeys::Table)
                    .if_not_exists()
                    .col(big_pk_auto(ApiKeys::Id))
                    .col(big_integer(ApiKeys::CustomerId))
                    .col(string_uniq(ApiKeys::KeyHash))
                    .col(string(ApiKeys::DisplayPrefix))
                    .col(string(ApiKeys::Name))
                    .col(string(ApiKeys::Tier))
                    .col(timestamp_with_time_zone(ApiKeys::CreatedAt))
                    .col(boolean(ApiKeys::IsActive))
                    .col(timestamp_with_time_zone_null(ApiKeys::ExpiresAt))
                    .col(timestamp_with_time_zone_null(ApiKeys::RevokedAt))
                    .col(timestamp_with_time_zone_null(ApiKeys::LastUsedAt))
                    .foreign_key(&mut customer_fk(ApiKeys::Table, ApiKeys::CustomerId))
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_api_keys_customer_id")
                    .table(ApiKeys::Table)
                    .col(ApiKeys::CustomerId)
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(KeyAuditLog::Table)
                    .if_not_exists()
                    .col(big_pk_auto(KeyAuditLog::Id))
                    .col(big_integer(KeyAuditLog::CustomerId))
                    .col(big_integer_null(KeyAuditLog::KeyId))
                    .col(string(KeyAuditLog::Action))
                    .col(text(KeyAuditLog::Detail))
                    .col(timestamp_with_time_zone(KeyAuditLog::At))
                    .foreign_key(&mut customer_fk(KeyAuditLog::Table, KeyAuditLog::CustomerId))
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .if_not_exists()
                    .name("idx_key_audit_log_customer_id")
                    .table(KeyAuditLog::Table)
                    .col(KeyAuditLog::CustomerId)
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Entitlements::Table)
                    .if_not_exists()
                    .col(big_integer(Entitlements::CustomerId).primary_key())
                    .col(text(Entitlements::OwnedProducts))
                    .col(text(Entitlements::OwnedSports))
                    .col(timestamp_with_time_zone_null(Entitlements::ExpiresAt))
                    .foreign_key(&mut customer_fk(Entitlements::Table, Entitlements::CustomerId))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(UsageCounters::Table)
                    .if_not_exists()
                    .col(big_integer(UsageCounters::CustomerId))
                    .col(string(UsageCounters::Month))
                    .col(big_integer(UsageCounters::Requests))
                    .primary_key(Index::create().col(UsageCounters::CustomerId).col(UsageCounters::Month))
                    .foreign_key(&mut customer_fk(UsageCounters::Table, UsageCounters::CustomerId))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(RefreshLedger::Table)
                    .if_not_exists()
                    .col(big_integer(RefreshLedger::CustomerId))
                    .col(string(RefreshLedger::Month))
                    .col(integer(RefreshLedger::Used))
                    .col(timestamp_with_time_zone(RefreshLedger::LastConsumedAt))
                    .primary_key(Index::create().col(RefreshLedger::CustomerId).col(RefreshLedger::Month))
                    .foreign_key(&mut customer_fk(RefreshLedger::Table, RefreshLedger::CustomerId))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            RefreshLedger::Table.into_iden(),
            UsageCounters::Table.into_iden(),
            Entitlements::Table.into_iden(),
            KeyAuditLog::Table.into_iden(),
            ApiKeys::Table.into_iden(),
            Customers::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().take())
                .await?;
        }
        Ok(())
    }
}
