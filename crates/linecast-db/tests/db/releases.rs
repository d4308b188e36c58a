//! The release log: one row per series and publication instant (to the
//! microsecond), whichever instance records first; read back oldest first;
//! forgotten before a cutoff.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use linecast_core::ports::releases::{IndexedGame, KeptRelease, ReleaseLog, Series};
use linecast_db::SeaAccounts;
use linecast_domain::{ModelType, Sport};

fn release(series: Series, at: &str, digest: char) -> KeptRelease {
    KeptRelease {
        series,
        published_at: DateTime::parse_from_rfc3339(at).unwrap().with_timezone(&Utc),
        digest: digest.to_string().repeat(64),
        game_count: 12,
        size: 2_048,
    }
}

const NBA_ML: Series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
const NBA_ODDS: Series = Series::Odds(Sport::Nba);

pub async fn a_release_is_recorded_once_by_whichever_instance_comes_first(url: String) {
    let a = Arc::new(SeaAccounts::connect(&url).await.unwrap());
    let b = Arc::new(SeaAccounts::connect(&url).await.unwrap());
    let r = release(NBA_ML, "2026-11-20T14:00:00.123456Z", 'a');
    let (first, second) = tokio::join!(a.record(&r), b.record(&r));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert!(first ^ second, "exactly one records it: {first} {second}");
    assert!(!a.record(&r).await.unwrap());
    let kept = b.releases(NBA_ML).await.unwrap();
    assert_eq!(kept, [r], "read back equal, to the microsecond");
}

pub async fn releases_read_back_oldest_first_per_series_and_are_forgotten_before_a_cutoff(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let late = release(NBA_ML, "2026-11-21T10:00:00Z", 'c');
    let early = release(NBA_ML, "2026-11-20T10:00:00Z", 'b');
    let odds = release(NBA_ODDS, "2026-11-20T11:00:00Z", 'd');
    let other = release(
        Series::Predictions(Sport::Nba, ModelType::OverUnder),
        "2026-11-20T12:00:00Z",
        'e',
    );
    for r in [&late, &early, &odds, &other] {
        assert!(db.record(r).await.unwrap());
    }
    assert_eq!(db.releases(NBA_ML).await.unwrap(), [early.clone(), late.clone()]);
    assert_eq!(db.releases(NBA_ODDS).await.unwrap(), [odds]);
    let forgotten = db
        .forget_before(late.published_at - Duration::microseconds(1))
        .await
        .unwrap();
    assert_eq!(forgotten.len(), 3, "{forgotten:?}");
    assert_eq!(db.releases(NBA_ML).await.unwrap(), [late]);
    assert!(db.releases(NBA_ODDS).await.unwrap().is_empty());
}

fn game(id: &str, ordinal: u32, row: &str) -> IndexedGame {
    IndexedGame {
        game_id: id.to_owned(),
        ordinal,
        row: row.to_owned(),
    }
}

pub async fn a_releases_games_are_indexed_once_read_per_game_oldest_first_and_forgotten_with_it(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let other = SeaAccounts::connect(&url).await.unwrap();
    let (knicks, nets) = ("nba-20261120-knicks-celtics", "nba-20261120-nets-heat");
    let r1 = release(NBA_ML, "2026-11-20T10:00:00.000001Z", 'a');
    let r2 = release(NBA_ML, "2026-11-20T16:00:00Z", 'b');
    let r3 = release(NBA_ML, "2026-11-21T10:00:00Z", 'c');
    // Indexed before recorded; r3 is indexed but never recorded.
    db.index_games(&r2, &[game(nets, 0, "n2"), game(knicks, 1, "k2\twith\\tab")])
        .await
        .unwrap();
    db.index_games(&r1, &[game(knicks, 0, "k1")]).await.unwrap();
    db.index_games(&r3, &[game(knicks, 0, "k3")]).await.unwrap();
    // A row is one line: one holding a line feed is refused, nothing written.
    assert!(db.index_games(&r1, &[game(nets, 0, "one\ntwo")]).await.is_err());
    // A second write of the same games, by another instance, changes nothing.
    other.index_games(&r1, &[game(knicks, 0, "k1")]).await.unwrap();
    for r in [&r1, &r2] {
        assert!(db.record(r).await.unwrap());
    }
    let kept_before_index = release(NBA_ML, "2026-11-19T10:00:00Z", 'd');
    assert!(db.record(&kept_before_index).await.unwrap());
    let mut empty = release(NBA_ML, "2026-11-19T11:00:00Z", 'e');
    empty.game_count = 0;
    assert!(db.record(&empty).await.unwrap());

    let knicks_rows = other.game_releases(NBA_ML, knicks).await.unwrap();
    assert_eq!(
        knicks_rows,
        [
            (r1.clone(), game(knicks, 0, "k1")),
            (r2.clone(), game(knicks, 1, "k2\twith\\tab"))
        ],
        "recorded releases only, oldest first, to the microsecond"
    );
    assert_eq!(
        db.game_releases(NBA_ML, nets).await.unwrap(),
        [(r2.clone(), game(nets, 0, "n2"))]
    );
    assert!(
        db.game_releases(NBA_ML, "nba-20261120-nobody-none")
            .await
            .unwrap()
            .is_empty()
    );
    let over_under = Series::Predictions(Sport::Nba, ModelType::OverUnder);
    assert!(db.game_releases(over_under, knicks).await.unwrap().is_empty());
    // The release recorded with games but no index row is the one to index;
    // a release without games needs none.
    assert_eq!(
        db.unindexed(NBA_ML).await.unwrap(),
        std::slice::from_ref(&kept_before_index)
    );
    db.index_games(&kept_before_index, &[game(knicks, 0, "k0")])
        .await
        .unwrap();
    assert!(db.unindexed(NBA_ML).await.unwrap().is_empty());

    // Forgetting before r2 forgets r0, the empty one and r1, and their rows.
    let forgotten = db.forget_before(r2.published_at).await.unwrap();
    assert_eq!(forgotten.len(), 3, "{forgotten:?}");
    assert_eq!(
        db.game_releases(NBA_ML, knicks).await.unwrap(),
        [(r2, game(knicks, 1, "k2\twith\\tab"))]
    );
}

pub async fn the_index_of_games_keeps_every_row_through_its_rebuild_in_key_order(url: String) {
    use linecast_db::migration::Migrator;
    use sea_orm::ConnectionTrait;
    use sea_orm_migration::MigratorTrait;

    let conn = linecast_db::open_with_timeout(&url, std::time::Duration::from_secs(30))
        .await
        .unwrap();
    // The schema as m0014 left it, with a release indexed in it.
    Migrator::up(&conn, Some(14)).await.unwrap();
    let db = SeaAccounts::new(conn.clone());
    let (knicks, nets) = ("nba-20261120-knicks-celtics", "nba-20261120-nets-heat");
    let r1 = release(NBA_ML, "2026-11-20T10:00:00.000001Z", 'a');
    let r2 = release(NBA_ML, "2026-11-20T16:00:00Z", 'b');
    db.index_games(&r1, &[game(knicks, 0, "k1"), game(nets, 1, "n1")])
        .await
        .unwrap();
    db.index_games(&r2, &[game(knicks, 0, "k2\twith\\tab")]).await.unwrap();
    for r in [&r1, &r2] {
        assert!(db.record(r).await.unwrap());
    }
    let before = (
        db.game_releases(NBA_ML, knicks).await.unwrap(),
        db.game_releases(NBA_ML, nets).await.unwrap(),
    );
    assert_eq!(before.0.len(), 2);

    Migrator::up(&conn, None).await.unwrap();
    let after = (
        db.game_releases(NBA_ML, knicks).await.unwrap(),
        db.game_releases(NBA_ML, nets).await.unwrap(),
    );
    assert_eq!(after, before, "every indexed row survives the rebuild");
    // Still one row per game and release, and retention still forgets.
    db.index_games(&r2, &[game(knicks, 0, "k2\twith\\tab")]).await.unwrap();
    assert_eq!(db.game_releases(NBA_ML, knicks).await.unwrap(), before.0);
    if conn.get_database_backend() == sea_orm::DbBackend::Sqlite {
        let sql: String = conn
            .query_one_raw(sea_orm::Statement::from_string(
                sea_orm::DbBackend::Sqlite,
                "SELECT sql FROM sqlite_master WHERE name = 'release_games'",
            ))
            .await
            .unwrap()
            .unwrap()
            .try_get("", "sql")
            .unwrap();
        assert!(sql.contains("WITHOUT ROWID"), "{sql}");
    }
    db.forget_before(r2.published_at).await.unwrap();
    assert_eq!(db.game_releases(NBA_ML, knicks).await.unwrap(), before.0[1..]);
}
