//! A segment's rows packed in bytes (format 3): the nullable `packed`
//! column beside `body`, about 25 bytes a row where format 2's JSON was
//! 57. A segment of format 3 holds format 2's shape with no rows and
//! `"v":3` in `body`, so the release before names the format it cannot
//! read. Only adds a nullable column.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::blob_null;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum RequestLogSegments {
    Table,
    Packed,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(RequestLogSegments::Table)
                    .add_column(blob_null(RequestLogSegments::Packed))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(RequestLogSegments::Table)
                    .drop_column(RequestLogSegments::Packed)
                    .take(),
            )
            .await
    }
}
