//! Kept releases: every version of a predictions or odds object linecast
//! has seen, once per series and publication instant (the bytes live in the
//! object store's archive under `digest`).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, integer, string, string_null, timestamp_with_time_zone};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum KeptReleases {
    Table,
    Series,
    PublishedAtUs,
    Sport,
    Artifact,
    ModelType,
    Digest,
    GameCount,
    Size,
    RecordedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(KeptReleases::Table)
                    .if_not_exists()
                    .col(string(KeptReleases::Series))
                    .col(big_integer(KeptReleases::PublishedAtUs))
                    .col(string(KeptReleases::Sport))
                    .col(string(KeptReleases::Artifact))
                    .col(string_null(KeptReleases::ModelType))
                    .col(string(KeptReleases::Digest))
                    .col(integer(KeptReleases::GameCount))
                    .col(big_integer(KeptReleases::Size))
                    .col(timestamp_with_time_zone(KeptReleases::RecordedAt))
                    .primary_key(
                        Index::create()
                            .col(KeptReleases::Series)
                            .col(KeptReleases::PublishedAtUs),
                    )
                    .take(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("kept_releases_published")
                    .table(KeptReleases::Table)
                    .col(KeptReleases::PublishedAtUs)
                    .if_not_exists()
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(KeptReleases::Table).if_exists().take())
            .await
    }
}
