//! The index of games stored in its key's order on SQLite (`WITHOUT
//! ROWID`): a game's rows, written one release at a time, sit together
//! under (series, game id, instant) instead of one per page of the
//! release that wrote them, so a game's history reads a few hundred pages
//! rather than one per release (4 ms instead of 8 for 2,160 releases,
//! measured with the `sqlite3` shell; bench/RESULTS.md). The table is
//! copied once, in one transaction. PostgreSQL keeps its table as it is.

use sea_orm::{ConnectionTrait, DbBackend};
use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// `release_games` rebuilt as `table_options` with every row copied, and
/// its release index made again.
fn rebuild(table_options: &str) -> String {
    format!(
        r#"CREATE TABLE "release_games_rebuilt" ( "series" varchar NOT NULL, "game_id" varchar NOT NULL,
 "published_at_us" integer NOT NULL, "digest" varchar NOT NULL, "game_count" integer NOT NULL,
 "size" integer NOT NULL, "ordinal" integer NOT NULL, "row" text NOT NULL,
 PRIMARY KEY ("series", "game_id", "published_at_us") ) {table_options};
INSERT INTO "release_games_rebuilt" ("series", "game_id", "published_at_us", "digest", "game_count", "size", "ordinal", "row")
 SELECT "series", "game_id", "published_at_us", "digest", "game_count", "size", "ordinal", "row" FROM "release_games";
DROP TABLE "release_games";
ALTER TABLE "release_games_rebuilt" RENAME TO "release_games";
CREATE INDEX "release_games_release" ON "release_games" ("series", "published_at_us");"#
    )
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Sqlite {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared(&rebuild("WITHOUT ROWID"))
            .await
            .map(|_| ())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Sqlite {
            return Ok(());
        }
        manager
            .get_connection()
            .execute_unprepared(&rebuild(""))
            .await
            .map(|_| ())
    }
}
