//! `releases import`: earlier versions written by the test into instant
//! folders are archived by their digest and recorded once; a broken version
//! is named by object, row and column; a second import records nothing.

use std::path::Path;

use chrono::{DateTime, Utc};
use linecast_core::ports::releases::{ReleaseLog, Series};
use linecast_domain::{ModelType, Sport};
use sha2::Digest as _;

use crate::support::Admin;

const HEADER: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,open_home_money_line,BLEND,CATB\n";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

#[tokio::test]
async fn import_keeps_each_earlier_version_once_and_names_a_broken_one() {
    let admin = Admin::new();
    let source = admin.dir().join("versions");
    let store = admin.dir().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let first = format!("{HEADER}2026-11-20,19:30:00,brooklyn_nets,boston_celtics,117,-140,107,-128,0.5973,0.51\n");
    let second = format!("{HEADER}2026-11-20,19:30:00,brooklyn_nets,boston_celtics,120,-145,107,-128,0.6011,0.52\n");
    write(
        &source,
        "2026-11-20T12:00:00Z/predictions/nba/won_on_points.csv",
        &first,
    );
    write(&source, "20261120T140000Z/predictions/nba/won_on_points.csv", &second);
    write(
        &source,
        "2026-11-20T16:00:00Z/predictions/nba/won_on_points.csv",
        &format!("{HEADER}2026-11-20,19:30:00,brooklyn_nets,boston_celtics,117,-140,107,-128,0.5973,high\n"),
    );
    write(&source, "2026-11-20T12:00:00Z/notes.txt", "not a release");

    admin.ok(&["migrate"]);
    let store_url = format!("file://{}", store.display());
    let source_arg = source.display().to_string();
    let args = ["releases", "import", source_arg.as_str(), "--store", store_url.as_str()];
    let run = admin.run(&args);
    assert_eq!(run.code, Some(1), "a broken version fails the import: {}", run.stdout);
    assert!(
        run.stdout
            .contains("2026-11-20T16:00:00Z/predictions/nba/won_on_points.csv row 1 column CATB"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("skipped 2026-11-20T12:00:00Z/notes.txt"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("2 release(s) kept, 0 already kept, 1 broken"),
        "{}",
        run.stdout
    );

    for text in [&first, &second] {
        let digest = hex::encode(sha2::Sha256::digest(text.as_bytes()));
        let archived = store.join(format!("archive/nba/predictions/won_on_points/{digest}.csv"));
        assert_eq!(&std::fs::read_to_string(&archived).unwrap(), text);
    }
    let kept = admin
        .db()
        .await
        .releases(Series::Predictions(Sport::Nba, ModelType::WonOnPoints))
        .await
        .unwrap();
    let instants: Vec<DateTime<Utc>> = kept.iter().map(|r| r.published_at).collect();
    assert_eq!(instants, [at("2026-11-20T12:00:00Z"), at("2026-11-20T14:00:00Z")]);
    assert!(kept.iter().all(|r| r.game_count == 1));

    let again = admin.run(&args);
    assert!(
        again.stdout.contains("0 release(s) kept, 2 already kept"),
        "{}",
        again.stdout
    );
}

/// The review's 2026-11-28 finding 6: a folder naming an instant after now
/// (the admin's clock: `LINECAST_NOW` when set, else the wall clock) refuses
/// the whole import, naming every such folder; nothing is kept.
#[tokio::test]
async fn import_refuses_a_folder_after_now_and_keeps_nothing() {
    let admin = Admin::new();
    let source = admin.dir().join("versions");
    let store = admin.dir().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let row = format!("{HEADER}2026-11-20,19:30:00,brooklyn_nets,boston_celtics,117,-140,107,-128,0.5973,0.51\n");
    write(&source, "2026-11-20T12:00:00Z/predictions/nba/won_on_points.csv", &row);
    write(
        &source,
        "2026-11-22T00:00:00Z/predictions/nba/won_on_points.csv",
        &row.replace("0.51", "0.52"),
    );
    write(
        &source,
        "20991120T140000Z/predictions/nba/won_on_points.csv",
        &row.replace("0.51", "0.53"),
    );
    write(&source, "20991120T140000Z/odds/nba.csv", "not read");
    admin.ok(&["migrate"]);
    let store_url = format!("file://{}", store.display());
    let source_arg = source.display().to_string();
    let args = ["releases", "import", source_arg.as_str(), "--store", store_url.as_str()];
    let series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);

    // With the server's frozen clock: the day after is refused too.
    let frozen = [
        ("LINECAST_DATABASE_URL", admin.database_url()),
        ("LINECAST_NOW", "2026-11-21T00:00:00Z"),
    ];
    let run = admin.run_with(&args, &frozen);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains(
            "2 folder(s) name an instant after now (2026-11-21T00:00:00Z): 2026-11-22T00:00:00Z, 20991120T140000Z;"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("Nothing was imported"), "{}", run.stderr);
    assert!(admin.db().await.releases(series).await.unwrap().is_empty());
    assert!(!store.join("archive").exists());

    // On the wall clock, 2099 is still refused.
    std::fs::remove_dir_all(source.join("2026-11-22T00:00:00Z")).unwrap();
    let run = admin.run(&args);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("1 folder(s) name an instant after now (") && run.stderr.contains("): 20991120T140000Z;"),
        "{}",
        run.stderr
    );
    assert!(admin.db().await.releases(series).await.unwrap().is_empty());

    // Renamed to the instant it was published, the import goes through.
    std::fs::rename(source.join("20991120T140000Z"), source.join("20261120T140000Z")).unwrap();
    std::fs::remove_file(source.join("20261120T140000Z/odds/nba.csv")).unwrap();
    let run = admin.run_with(&args, &frozen);
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("2 release(s) kept, 0 already kept, 0 broken"),
        "{}",
        run.stdout
    );
    let instants: Vec<DateTime<Utc>> = admin
        .db()
        .await
        .releases(series)
        .await
        .unwrap()
        .iter()
        .map(|r| r.published_at)
        .collect();
    assert_eq!(instants, [at("2026-11-20T12:00:00Z"), at("2026-11-20T14:00:00Z")]);
}

/// `releases index`: a release kept before the index of games existed (its
/// bytes archived and its release recorded, no index row) gets its games
/// indexed; a second run indexes nothing.
#[tokio::test]
async fn index_indexes_the_games_of_releases_kept_before_the_index_once() {
    let admin = Admin::new();
    let store = admin.dir().join("store");
    let text = format!("{HEADER}2026-11-20,19:30:00,brooklyn_nets,boston_celtics,117,-140,107,-128,0.5973,0.51\n");
    let digest = hex::encode(sha2::Sha256::digest(text.as_bytes()));
    write(
        &store,
        &format!("archive/nba/predictions/won_on_points/{digest}.csv"),
        &text,
    );
    admin.ok(&["migrate"]);
    let series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
    let release = linecast_core::ports::releases::KeptRelease {
        series,
        published_at: at("2026-11-20T12:00:00Z"),
        digest,
        game_count: 1,
        size: text.len() as u64,
    };
    let db = admin.db().await;
    assert!(db.record(&release).await.unwrap());
    assert_eq!(db.unindexed(series).await.unwrap(), std::slice::from_ref(&release));

    let store_url = format!("file://{}", store.display());
    let args = ["releases", "index", "--store", store_url.as_str()];
    let run = admin.run(&args);
    assert_eq!(run.code, Some(0), "{} {}", run.stdout, run.stderr);
    assert!(run.stdout.contains("1 release(s) indexed"), "{}", run.stdout);
    let id = "nba-20261120-brooklyn_nets-boston_celtics";
    let rows = db.game_releases(series, id).await.unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].0, release);
    assert_eq!(rows[0].1.game_id, id);
    assert!(db.unindexed(series).await.unwrap().is_empty());

    let again = admin.run(&args);
    assert!(again.stdout.contains("0 release(s) indexed"), "{}", again.stdout);
}
