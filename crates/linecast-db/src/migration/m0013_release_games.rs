//! The index of games per kept predictions release: one row per game and
//! release (series, game id, publication instant in microseconds), holding
//! the game's encoded row, so a game's history reads its own rows and never
//! the archive. Written before the release is recorded; forgotten with it.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, integer, string, text};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ReleaseGames {
    Table,
    Series,
    GameId,
    PublishedAtUs,
    Digest,
    GameCount,
    Size,
    Ordinal,
    Row,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ReleaseGames::Table)
                    .if_not_exists()
                    .col(string(ReleaseGames::Series))
                    .col(string(ReleaseGames::GameId))
                    .col(big_integer(ReleaseGames::PublishedAtUs))
                    .col(string(ReleaseGames::Digest))
                    .col(integer(ReleaseGames::GameCount))
                    .col(big_integer(ReleaseGames::Size))
                    .col(integer(ReleaseGames::Ordinal))
                    .col(text(ReleaseGames::Row))
                    .primary_key(
                        Index::create()
                            .col(ReleaseGames::Series)
                            .col(ReleaseGames::GameId)
                            .col(ReleaseGames::PublishedAtUs),
                    )
                    .take(),
            )
            .await?;
        // Which releases are indexed, and retention's delete.
        manager
            .create_index(
                Index::create()
                    .name("release_games_release")
                    .table(ReleaseGames::Table)
                    .col(ReleaseGames::Series)
                    .col(ReleaseGames::PublishedAtUs)
                    .if_not_exists()
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ReleaseGames::Table).if_exists().take())
            .await
    }
}
