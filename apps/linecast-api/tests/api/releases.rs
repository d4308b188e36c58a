//! Point-in-time data: the test writes three versions of the NBA moneyline
//! predictions (and two of the odds) at instants it chooses, lets the
//! watcher keep them, and checks `as_of` against the version it wrote for
//! each instant, a game's history against the cells it wrote, and the
//! archive and the release log against the bytes it wrote.

use chrono::{DateTime, Utc};
use linecast_core::ports::releases::Series;
use linecast_domain::{ModelType, Sport};
use linecast_export::read_back::{arrow_array, arrow_schema, parquet};
use serde_json::Value;

use crate::helpers::{TestApp, at, fixture_now, publish, sha256, spawn_app_with};

const PREDICTIONS: &str = "predictions/nba/won_on_points.csv";
const ODDS: &str = "odds/nba.csv";
/// The Nets at the Celtics, 2026-11-14 19:30 ET (00:30 UTC on the 15th).
const NETS: &str = "nba-20261114-brooklyn_nets-boston_celtics";
const NETS_ROW: &str = "2026-11-14,19:30:00,brooklyn_nets,boston_celtics,117,-140,107,-128,0.5973,";
/// The rest of the Nets row (CATB, RF, LGB, LOGR, XGB, XT, AI), written by
/// hand: the fixture's own predictions are the release at its "now", after
/// the game's day.
const NETS_REST: &str = "0.6012,0.5921,0.6050,0.5987,0.5899,0.6001,0.5960";

/// The fixture predictions with the Nets row (as written here) first, in
/// place of the fixture's own.
fn with_nets(fixture: &str) -> String {
    let (header, rows) = fixture.split_once('\n').unwrap();
    assert_eq!(header.split(',').count(), 16, "{header}");
    // The fixture's own Nets row (yesterday's game, still on the slate)
    // gives way to the one written here.
    let mut kept = String::new();
    for row in rows
        .lines()
        .filter(|r| !r.starts_with("2026-11-14,19:30:00,brooklyn_nets,boston_celtics,"))
    {
        kept.push_str(row);
        kept.push('\n');
    }
    let rows = kept;
    format!("{header}\n{NETS_ROW}{NETS_REST}\n{rows}")
}

/// The fixture odds with the first game's home money line moved.
fn moved_odds(fixture: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(fixture).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let column = lines[0].split(',').position(|h| h == "home_money_line").unwrap();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_owned).collect();
    let moved = if cells[column] == "-275" { "-280" } else { "-275" };
    moved.clone_into(&mut cells[column]);
    lines[1] = cells.join(",");
    (lines.join("\n") + "\n").into_bytes()
}

/// The three publication instants: the first before the 14th's run
/// completed (13:45:57Z), the second before the Nets game's start, the
/// third after it.
const T1: &str = "2026-11-14T12:00:00Z";
const T2: &str = "2026-11-14T20:00:00Z";
const T3: &str = "2026-11-15T02:00:00Z";

/// The fixture predictions with the Nets game's BLEND set to `blend` and
/// its home price to `home_price`.
fn nets_version(original: &str, blend: &str, home_price: &str) -> String {
    let edited = NETS_ROW
        .replace(",-140,107,", &format!(",{home_price},107,"))
        .replace(",0.5973,", &format!(",{blend},"));
    original.replacen(NETS_ROW, &edited, 1)
}

fn nets(games: &Value) -> Option<&Value> {
    games.as_array().unwrap().iter().find(|g| g["game_id"] == NETS)
}

async fn round(app: &TestApp) {
    app.keep_releases().await;
}

struct Written {
    app: TestApp,
    versions: [Vec<u8>; 3],
    odds: [Vec<u8>; 2],
}

async fn written() -> Written {
    let original = with_nets(&std::fs::read_to_string(crate::helpers::fixtures_dir().join(PREDICTIONS)).unwrap());
    let v1 = original.clone().into_bytes();
    let v2 = nets_version(&original, "0.4321", "-155").into_bytes();
    let v3 = nets_version(&original, "0.5555", "-170").into_bytes();
    let odds1 = std::fs::read(crate::helpers::fixtures_dir().join(ODDS)).unwrap();
    let odds2 = moved_odds(&odds1);
    let (first, first_odds) = (v1.clone(), odds1.clone());
    let app = spawn_app_with(fixture_now(), move |store| {
        publish(store, PREDICTIONS, &first, T1);
        publish(store, ODDS, &first_odds, T1);
    })
    .await;
    round(&app).await;
    publish(&app.store_dir, PREDICTIONS, &v2, T2);
    publish(&app.store_dir, ODDS, &odds2, T2);
    round(&app).await;
    publish(&app.store_dir, PREDICTIONS, &v3, T3);
    round(&app).await;
    Written {
        app,
        versions: [v1, v2, v3],
        odds: [odds1, odds2],
    }
}

#[tokio::test]
async fn as_of_answers_with_the_version_written_at_that_instant_and_names_it() {
    let Written { app, versions, .. } = written().await;
    let base = "/api/v1/predictions/nba/won_on_points?upcoming_only=false";
    // (as_of, the version current then, the Nets BLEND written in it)
    let cases = [
        ("2026-11-14T12:00:00Z", 0, 0.5973),
        ("2026-11-14T19:59:59.999Z", 0, 0.5973),
        ("2026-11-14T20:00:00Z", 1, 0.4321),
        ("2026-11-14T21:00:00-05:00", 2, 0.5555),
        ("2026-11-15T16:59:00Z", 2, 0.5555),
    ];
    let published = [T1, T2, T3];
    for (as_of, version, blend) in cases {
        let encoded = as_of.replace('+', "%2B");
        let res = app.get_authed(&format!("{base}&as_of={encoded}")).await;
        assert_eq!(res.status(), 200, "{as_of}");
        assert_eq!(
            res.headers()["cache-control"],
            "private, max-age=86400",
            "an as_of answer never changes"
        );
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["release"]["digest"], sha256(&versions[version]), "{as_of}");
        assert_eq!(
            at(body["release"]["published_at"].as_str().unwrap()),
            at(published[version]),
            "{as_of}"
        );
        assert_eq!(at(body["predictions_date"].as_str().unwrap()), at(published[version]));
        assert_eq!(nets(&body["games"]).unwrap()["predictions"]["BLEND"], blend, "{as_of}");
    }
    // The current answer is the last version, without a release object.
    let (status, now) = app.get_authed_json(base).await;
    assert_eq!(status, 200);
    assert_eq!(nets(&now["games"]).unwrap()["predictions"]["BLEND"], 0.5555);
    assert!(now.get("release").is_none(), "{now}");
}

#[tokio::test]
async fn as_of_judges_upcoming_only_on_that_instants_et_date() {
    let Written { app, .. } = written().await;
    let base = "/api/v1/predictions/nba/won_on_points";
    // Now (the 15th, its run completed) the Nets game of the 14th is past.
    let (_, now) = app.get_authed_json(base).await;
    assert!(nets(&now["games"]).is_none(), "{now}");
    // At 15:00Z on the 14th its run had completed (13:45:57Z): the 14th's
    // slate, with the Nets game.
    let (status, then) = app.get_authed_json(&format!("{base}?as_of=2026-11-14T15:00:00Z")).await;
    assert_eq!(status, 200, "{then}");
    assert!(nets(&then["games"]).is_some(), "{then}");
    // At 13:00Z it had not: the 13th's slate still shows its games.
    let (_, earlier) = app.get_authed_json(&format!("{base}?as_of=2026-11-14T13:00:00Z")).await;
    let dates: Vec<&str> = earlier["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["date"].as_str().unwrap())
        .collect();
    assert!(dates.iter().all(|d| *d >= "2026-11-13"), "{dates:?}");
}

#[tokio::test]
async fn as_of_on_odds_reads_the_kept_odds() {
    let Written { app, odds, .. } = written().await;
    let (status, first) = app.get_authed_json("/api/v1/odds/nba?as_of=2026-11-14T13:00:00Z").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["release"]["digest"], sha256(&odds[0]));
    let (_, second) = app.get_authed_json("/api/v1/odds/nba?as_of=2026-11-15T00:00:00Z").await;
    assert_eq!(second["release"]["digest"], sha256(&odds[1]));
    let prices = |body: &Value| -> Vec<Value> {
        body["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["home_money_line"].clone())
            .collect()
    };
    assert_ne!(prices(&first), prices(&second), "the second odds moved one price");
}

/// The instants of one release on one slate share one body: a caller
/// walking them (down to the nanosecond) makes the server render and keep
/// nothing new. Another release, or another slate, is another body; equal
/// bytes published again are another release, named by their own instant.
#[tokio::test]
async fn as_of_instants_that_resolve_alike_share_one_body() {
    let Written { app, versions, odds } = written().await;
    let bodies = &app.state.responses.bodies;
    let base = "/api/v1/predictions/nba/won_on_points?as_of=";
    let get = |path: String| {
        let app = &app;
        async move {
            let res = app.get_authed(&path).await;
            assert_eq!(res.status(), 200, "{path}");
            let etag = res.headers()["etag"].to_str().unwrap().to_owned();
            let bytes = res.bytes().await.unwrap();
            (etag, bytes)
        }
    };
    let before = bodies.held().await;
    // Between the 14th's run (13:45:57Z) and the second release (T2): the
    // first release, the 14th's slate.
    let (etag, bytes) = get(format!("{base}2026-11-14T14:00:00Z")).await;
    let first: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(first["release"]["digest"], sha256(&versions[0]));
    for as_of in [
        "2026-11-14T14:00:00.000000001Z",
        "2026-11-14T14:00:00.000000002Z",
        "2026-11-14T09:00:00.5-05:00",
        "2026-11-14T19:59:59.999999999Z",
    ] {
        let (other_etag, other) = get(format!("{base}{}", as_of.replace('+', "%2B"))).await;
        assert_eq!(
            other, bytes,
            "{as_of}: the same bytes, which name the release, not the instant"
        );
        assert_eq!(other_etag, etag, "{as_of}");
    }
    assert_eq!(bodies.held().await, before + 1, "five instants, one body");

    // The next release: another body.
    let (second_etag, bytes) = get(format!("{base}2026-11-14T20:00:00.000001Z")).await;
    let second: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(second["release"]["digest"], sha256(&versions[1]));
    assert_ne!(second_etag, etag);
    assert_eq!(bodies.held().await, before + 2);
    // The first release on the 13th's slate (before the 14th's run
    // completed): another body (of the same games: the fixture has none
    // dated the 13th).
    get(format!("{base}2026-11-14T13:00:00Z")).await;
    assert_eq!(bodies.held().await, before + 3);

    // Odds alike: two instants of the first odds release, one body; the
    // second release another.
    let odds_base = "/api/v1/odds/nba?as_of=";
    let (odds_etag, odds_bytes) = get(format!("{odds_base}2026-11-14T14:00:00Z")).await;
    let (again, again_bytes) = get(format!("{odds_base}2026-11-14T14:00:00.000000001Z")).await;
    assert_eq!((again, again_bytes), (odds_etag.clone(), odds_bytes.clone()));
    let (later, later_bytes) = get(format!("{odds_base}2026-11-14T20:00:01Z")).await;
    assert_ne!(later, odds_etag);
    let later: Value = serde_json::from_slice(&later_bytes).unwrap();
    assert_eq!(later["release"]["digest"], sha256(&odds[1]));
    assert_eq!(bodies.held().await, before + 5);

    // The first version's bytes published again, after the third: a
    // release of their own, whose answer names its own instant.
    let t4 = "2026-11-15T03:00:00Z";
    publish(&app.store_dir, PREDICTIONS, &versions[0], t4);
    round(&app).await;
    let all = "/api/v1/predictions/nba/won_on_points?upcoming_only=false&as_of=";
    for (as_of, published) in [("2026-11-14T14:00:00Z", T1), ("2026-11-15T04:00:00Z", t4)] {
        let (status, body) = app.get_authed_json(&format!("{all}{as_of}")).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["release"]["digest"], sha256(&versions[0]), "{as_of}");
        assert_eq!(
            at(body["release"]["published_at"].as_str().unwrap()),
            at(published),
            "{as_of}"
        );
    }
}

#[tokio::test]
async fn a_malformed_or_future_as_of_is_a_400_naming_it_and_one_before_history_a_404_saying_when_it_starts() {
    let Written { app, .. } = written().await;
    for bad in ["yesterday", "2026-11-14", "2026-11-14T25:00:00Z"] {
        let (status, body) = app
            .get_authed_json(&format!("/api/v1/predictions/nba/won_on_points?as_of={bad}"))
            .await;
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["parameter"], "as_of", "{body}");
    }
    let (status, body) = app.get_authed_json("/api/v1/odds/nba?as_of=2026-11-15T17:00:01Z").await;
    assert_eq!(status, 400, "one second after the server's now: {body}");
    assert_eq!(body["parameter"], "as_of");
    let (status, body) = app
        .get_authed_json("/api/v1/predictions/nba/won_on_points?as_of=2026-11-14T11:59:59Z")
        .await;
    assert_eq!(status, 404, "{body}");
    assert!(
        body["detail"].as_str().unwrap().contains("2026-11-14T12:00:00Z"),
        "says when history starts: {body}"
    );
}

#[tokio::test]
async fn every_version_is_archived_once_by_digest_and_recorded_once_even_by_a_second_instance() {
    let Written { app, versions, .. } = written().await;
    for version in &versions {
        let archived = app
            .store_dir
            .join(format!("archive/nba/predictions/won_on_points/{}.csv", sha256(version)));
        assert_eq!(&std::fs::read(&archived).unwrap(), version, "{}", archived.display());
    }
    let series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
    let kept = app.state.releases.series(series, fixture_now()).await.unwrap();
    let instants: Vec<DateTime<Utc>> = kept.iter().map(|r| r.published_at).collect();
    assert_eq!(instants, [at(T1), at(T2), at(T3)]);
    let rows: Vec<u32> = kept.iter().map(|r| r.game_count).collect();
    let written: Vec<u32> = versions
        .iter()
        .map(|v| u32::try_from(v.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count() - 1).unwrap())
        .collect();
    assert_eq!(rows, written, "the games written in each version");

    // Another round, and a second instance over the same database and
    // store: nothing new is recorded.
    round(&app).await;
    let (second, store) = another_instance(&app, None).await;
    let watcher = linecast_core::services::events::Watcher::new(store);
    watcher.poll(fixture_now()).await;
    let recorded = second.keep_versions(&watcher.versions()).await;
    assert!(
        recorded.iter().all(|r| r.series != series),
        "a version kept by one instance is not recorded again by another: {recorded:?}"
    );
    let kept = second.series(series, fixture_now()).await.unwrap();
    assert_eq!(kept.len(), 3);
}

#[tokio::test]
async fn a_games_history_lists_every_release_that_carried_it_with_its_opening_and_closing() {
    let Written { app, versions, .. } = written().await;
    let (status, body) = app
        .get_authed_json(&format!("/api/v1/games/{NETS}/history?model_type=won_on_points"))
        .await;
    assert_eq!(status, 200, "{body}");
    let entries = body["releases"].as_array().unwrap();
    let blends: Vec<f64> = entries
        .iter()
        .map(|e| e["predictions"]["BLEND"].as_f64().unwrap())
        .collect();
    assert_eq!(blends, [0.5973, 0.4321, 0.5555]);
    let prices: Vec<f64> = entries.iter().map(|e| e["home_money_line"].as_f64().unwrap()).collect();
    assert_eq!(prices, [-140.0, -155.0, -170.0]);
    let digests: Vec<String> = entries
        .iter()
        .map(|e| e["digest"].as_str().unwrap().to_owned())
        .collect();
    let written: Vec<String> = versions.iter().map(|v| sha256(v)).collect();
    assert_eq!(digests, written);
    for e in entries {
        assert_eq!(e["game_id"], NETS);
        assert!(e["ev_home_ml"].is_number(), "{e}");
    }
    assert_eq!(at(body["opening"]["published_at"].as_str().unwrap()), at(T1));
    // The game started at 00:30Z on the 15th: T3 (02:00Z) came after.
    assert_eq!(at(body["closing"]["published_at"].as_str().unwrap()), at(T2));
    assert_eq!(body["closing"]["predictions"]["BLEND"], 0.4321);

    let (status, body) = app
        .get_authed_json("/api/v1/games/nba-20261114-brooklyn_nets-boston_celtics-2/history?model_type=won_on_points")
        .await;
    assert_eq!(status, 404, "{body}");
    for (path, parameter) in [
        (
            "/api/v1/games/nets-at-celtics/history?model_type=won_on_points",
            "game_id",
        ),
        (&format!("/api/v1/games/{NETS}/history") as &str, "model_type"),
        (
            &format!("/api/v1/games/{NETS}/history?model_type=moneyline") as &str,
            "model_type",
        ),
    ] {
        let (status, body) = app.get_authed_json(path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["parameter"], parameter, "{body}");
    }
}

/// T3 (02:00Z on the 15th) came after the Nets game's 00:30Z start: it is
/// listed, marked `after_start`, and the closing is T2, the last before.
#[tokio::test]
async fn a_release_after_the_games_start_is_listed_after_start_and_the_closing_is_the_last_before() {
    let Written { app, .. } = written().await;
    let (status, body) = app
        .get_authed_json(&format!("/api/v1/games/{NETS}/history?model_type=won_on_points"))
        .await;
    assert_eq!(status, 200, "{body}");
    let entries = body["releases"].as_array().unwrap();
    let marked: Vec<(DateTime<Utc>, bool)> = entries
        .iter()
        .map(|e| {
            (
                at(e["published_at"].as_str().unwrap()),
                e["after_start"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(marked, [(at(T1), false), (at(T2), false), (at(T3), true)]);
    assert_eq!(body["opening"]["after_start"], false);
    assert_eq!(body["closing"]["after_start"], false);
    assert_eq!(at(body["closing"]["published_at"].as_str().unwrap()), at(T2));
    // The release after the start is still what as_of reads at T3.
    let (status, after) = app
        .get_authed_json(&format!(
            "/api/v1/predictions/nba/won_on_points?upcoming_only=false&as_of={T3}"
        ))
        .await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(nets(&after["games"]).unwrap()["predictions"]["BLEND"], 0.5555);
}

/// A well-formed id that no kept release carried is a 404, every time
/// (asked twice: the second answer is the same).
#[tokio::test]
async fn a_game_no_kept_release_carried_is_a_404_each_time() {
    let Written { app, .. } = written().await;
    for _ in 0..2 {
        let (status, body) = app
            .get_authed_json("/api/v1/games/nba-20261114-no_such_team-boston_celtics/history?model_type=won_on_points")
            .await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(
            body["detail"], "No kept release of this market carried that game",
            "{body}"
        );
    }
}

#[tokio::test]
async fn the_history_export_has_one_row_per_game_and_release_with_the_written_values_in_csv_and_parquet() {
    use arrow_array::Array as _;
    use arrow_array::cast::AsArray as _;
    let Written { app, versions, .. } = written().await;
    let base = "/api/v1/predictions/nba/won_on_points/history/export";
    let (used_before, _) = app.get_authed_json("/api/v1/customers/me/usage").await;
    assert_eq!(used_before, 200);
    let res = app.get_authed(&format!("{base}?format=csv")).await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("nba_won_on_points_history_all.csv")
    );
    let text = res.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(
        &header[..7],
        [
            "game_id",
            "published_at",
            "digest",
            "date",
            "time_est",
            "away_team",
            "home_team"
        ]
    );
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    let written: usize = versions
        .iter()
        .map(|v| v.split(|b| *b == b'\n').filter(|l| !l.is_empty()).count() - 1)
        .sum();
    assert_eq!(rows.len(), written, "every game of each of the three releases");
    let nets: Vec<(String, String, String, String)> = rows
        .iter()
        .filter(|r| r[col("game_id")] == NETS)
        .map(|r| {
            (
                r[col("published_at")].clone(),
                r[col("digest")].clone(),
                r[col("BLEND")].clone(),
                r[col("home_money_line")].clone(),
            )
        })
        .collect();
    let expected: Vec<(String, String, String, String)> =
        [(T1, "0.5973", "-140"), (T2, "0.4321", "-155"), (T3, "0.5555", "-170")]
            .iter()
            .zip(&versions)
            .map(|((t, blend, price), bytes)| {
                (
                    (*t).to_owned(),
                    sha256(bytes),
                    (*blend).to_owned(),
                    format!("{price}.0"),
                )
            })
            .collect();
    assert_eq!(nets, expected);
    assert!(header.contains(&"ev_home_ml".to_owned()) && header.contains(&"open_home_money_line".to_owned()));

    // Parquet: the same rows, typed.
    let bytes = app
        .get_authed(&format!("{base}?format=parquet&season=2026-27"))
        .await
        .bytes()
        .await
        .unwrap();
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    let batches: Vec<arrow_array::RecordBatch> = builder.build().unwrap().map(Result::unwrap).collect();
    let batch = &batches[0];
    assert_eq!(
        batches.iter().map(arrow_array::RecordBatch::num_rows).sum::<usize>(),
        rows.len()
    );
    let schema = batch.schema();
    assert_eq!(
        schema.field_with_name("published_at").unwrap().data_type(),
        &arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, Some("UTC".into()))
    );
    assert_eq!(
        schema.field_with_name("date").unwrap().data_type(),
        &arrow_schema::DataType::Date32
    );
    let blend = batch
        .column_by_name("BLEND")
        .unwrap()
        .as_primitive::<arrow_array::types::Float64Type>();
    let ids = batch.column_by_name("game_id").unwrap().as_string::<i32>();
    let nets_blends: Vec<f64> = (0..batch.num_rows())
        .filter(|i| ids.value(*i) == NETS)
        .map(|i| blend.value(i))
        .collect();
    assert_eq!(nets_blends, [0.5973, 0.4321, 0.5555]);
    assert!(!blend.is_null(0));

    // Another season has none of these games.
    let text = app
        .get_authed(&format!("{base}?format=csv&season=2025-26"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(text.lines().count(), 1, "the header only: {text}");
    for (query, parameter) in [
        ("format=xlsx", "format"),
        ("", "format"),
        ("format=csv&season=26", "season"),
    ] {
        let (status, body) = app.get_authed_json(&format!("{base}?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert_eq!(body["parameter"], parameter);
    }
}

/// The history export is rendered once to a file of the spool directory
/// and served from it: ranges resume it (identity and gzip), a client that
/// prefers brotli gets gzip (the file has no brotli variant) that decodes
/// to the same bytes, `If-None-Match` answers 304, and a new release makes
/// a new file with a new tag.
#[tokio::test]
async fn the_history_export_is_served_from_its_file_on_disk_with_ranges_and_tags() {
    use std::io::Read as _;
    let Written { app, .. } = written().await;
    let path = "/api/v1/predictions/nba/won_on_points/history/export?format=csv";
    crate::export::a_file_resumes_by_range(&app, path).await;
    let csv = app.get_authed(path).await;
    let etag = csv.headers()["etag"].to_str().unwrap().to_owned();
    let csv = csv.bytes().await.unwrap();
    let br = app
        .get_keyed(path, &app.api_key, &[("Accept-Encoding", "br, gzip;q=0.5")])
        .await;
    assert_eq!(br.headers()["content-encoding"], "gzip");
    let gz_tag = format!("{}-gz\"", etag.trim_end_matches('"'));
    assert_eq!(br.headers()["etag"].to_str().unwrap(), gz_tag);
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&br.bytes().await.unwrap()[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, csv);
    let only_br = app.get_keyed(path, &app.api_key, &[("Accept-Encoding", "br")]).await;
    assert!(only_br.headers().get("content-encoding").is_none());
    assert_eq!(only_br.bytes().await.unwrap(), csv);
    let not_modified = app.get_keyed(path, &app.api_key, &[("If-None-Match", &etag)]).await;
    assert_eq!(not_modified.status(), 304);
    assert_eq!(not_modified.headers()["etag"].to_str().unwrap(), etag);
    let spool = spool_dir(&app);
    let files = || std::fs::read_dir(&spool).unwrap().count();
    assert_eq!(files(), 2, "the CSV and its gzip variant, made once");

    // A new release: a new file, a new tag, one more row per game.
    let original = with_nets(&std::fs::read_to_string(crate::helpers::fixtures_dir().join(PREDICTIONS)).unwrap());
    let v4 = nets_version(&original, "0.5", "-180");
    publish(&app.store_dir, PREDICTIONS, v4.as_bytes(), "2026-11-15T06:00:00Z");
    round(&app).await;
    let after = app.get_authed(path).await;
    assert_ne!(after.headers()["etag"].to_str().unwrap(), etag);
    let after = after.bytes().await.unwrap();
    assert!(
        after.starts_with(&csv),
        "the older releases' rows come first, as they were"
    );
    assert!(after.len() > csv.len());
    assert_eq!(files(), 4);
}

/// The spool directory of `app`'s server: the one `spool-*` directory
/// under its var directory.
fn spool_dir(app: &TestApp) -> std::path::PathBuf {
    let dirs: Vec<std::path::PathBuf> = std::fs::read_dir(&app.var_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("spool-"))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

#[tokio::test]
async fn calibration_measures_clv_on_the_kept_prices_and_says_so_and_counts_paired_games() {
    let Written { app, .. } = written().await;
    let (status, body) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?season=2026-27")
        .await;
    assert_eq!(status, 200, "{body}");
    let blend = body["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "BLEND")
        .unwrap();
    // The one graded game the kept releases priced before its start: the
    // Nets at the Celtics, BLEND 0.5973 (home). Home −140 / away +117 at
    // its first release (no-vig home 0.583333 / (0.583333 + 0.460829) =
    // 0.558661), −155 / +117 at its closing release (0.607843 /
    // 1.068672 = 0.568783): +1.0122 probability points.
    assert_eq!(blend["clv"]["basis"], "kept_releases", "{blend}");
    assert_eq!(blend["clv"]["unit"], "probability_points");
    assert_eq!(blend["clv"]["n"], 1);
    assert_eq!(blend["clv"]["mean"], 1.0122);
    assert_eq!(blend["n_paired"], blend["skill_vs_market"]["n"]);
    // A season without kept releases keeps the result rows' basis.
    let (_, last) = app
        .get_authed_json("/api/v1/models/nba/won_on_points/calibration?season=2025-26")
        .await;
    for model in last["models"].as_array().unwrap() {
        assert_eq!(model["clv"]["basis"], "result_rows", "{model}");
    }
}

#[tokio::test]
async fn calibration_follows_a_new_kept_release_and_a_new_season_store() {
    let Written { app, .. } = written().await;
    let url = "/api/v1/models/nba/won_on_points/calibration?season=2026-27";
    let blend = |body: &Value| {
        body["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["model"] == "BLEND")
            .unwrap()
            .clone()
    };
    let (_, before) = app.get_authed_json(url).await;
    assert_eq!(blend(&before)["clv"]["mean"], 1.0122);
    // A fourth version, still before the Nets' start, is their new close:
    // home −165 / away +117: 0.622642 / (0.622642 + 0.460829) = 0.574673,
    // +1.6012 points from the opening's 0.558661.
    let original = with_nets(&std::fs::read_to_string(crate::helpers::fixtures_dir().join(PREDICTIONS)).unwrap());
    publish(
        &app.store_dir,
        PREDICTIONS,
        nets_version(&original, "0.6100", "-165").as_bytes(),
        "2026-11-15T00:00:00Z",
    );
    app.keep_releases().await;
    let (_, after) = app.get_authed_json(url).await;
    assert_eq!(blend(&after)["clv"]["mean"], 1.6012, "{}", blend(&after));
    // A new season store generation reaches it too (one graded game fewer).
    let season = app.store_dir.join("seasons/nba/won_on_points/2026-27.csv");
    let text = std::fs::read_to_string(&season).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("brooklyn_nets,boston_celtics"))
        .collect();
    std::fs::write(&season, kept.join("\n") + "\n").unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_mins(1);
    loop {
        let (_, now) = app.get_authed_json(url).await;
        if blend(&now)["clv_bases"]["kept_releases"]["n"] == 0 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the new season store never reached calibration"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Another instance's view of the app's database and store (its own
/// `Releases` with `retention`), and that store.
async fn another_instance(
    app: &TestApp,
    retention: Option<chrono::Duration>,
) -> (
    linecast_core::services::releases::Releases,
    std::sync::Arc<linecast_store::ObjectArtifactStore>,
) {
    let db = linecast_db::SeaAccounts::connect(&format!(
        "sqlite://{}?mode=rwc",
        app.var_dir.join("linecast.db").display()
    ))
    .await
    .unwrap();
    let store = std::sync::Arc::new(
        linecast_store::ObjectArtifactStore::from_url(
            &format!("file://{}", app.store_dir.display()),
            linecast_store::StoreOptions::default(),
        )
        .unwrap(),
    );
    let releases = linecast_core::services::releases::Releases::new(
        std::sync::Arc::new(db),
        store.clone(),
        store.clone(),
        retention,
    );
    (releases, store)
}

/// Another instance with a retention of `hours`.
async fn with_retention(app: &TestApp, hours: i64) -> linecast_core::services::releases::Releases {
    another_instance(app, Some(chrono::Duration::hours(hours))).await.0
}

#[tokio::test]
async fn retention_forgets_old_releases_and_deletes_only_the_bytes_no_kept_release_names() {
    let Written { app, versions, .. } = written().await;
    // The first version's bytes published again after the third: a fourth
    // release with the first one's digest.
    publish(&app.store_dir, PREDICTIONS, &versions[0], "2026-11-15T10:00:00Z");
    app.keep_releases().await;
    let archived = |bytes: &[u8]| {
        app.store_dir
            .join(format!("archive/nba/predictions/won_on_points/{}.csv", sha256(bytes)))
            .exists()
    };
    let series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
    // Now is 2026-11-15T17:00Z. 24 hours: the cutoff 2026-11-14T17:00Z
    // forgets T1 (and whatever else is older); its bytes stay, the fourth
    // release names them.
    let instants = |releases: &std::sync::Arc<Vec<linecast_core::ports::releases::KeptRelease>>| -> Vec<DateTime<Utc>> {
        releases.iter().map(|r| r.published_at).collect()
    };
    let first = with_retention(&app, 24).await;
    assert!(first.prune(fixture_now()).await.unwrap() >= 1);
    assert_eq!(
        instants(&first.series(series, fixture_now()).await.unwrap()),
        [at(T2), at(T3), at("2026-11-15T10:00:00Z")]
    );
    assert!(archived(&versions[0]), "still named by the fourth release");
    // 16 hours: the cutoff 2026-11-15T01:00Z forgets T2: its bytes go,
    // the third's stay.
    let second = with_retention(&app, 16).await;
    assert!(second.prune(fixture_now()).await.unwrap() >= 1);
    assert!(!archived(&versions[1]), "no kept release names the second version");
    assert!(archived(&versions[2]) && archived(&versions[0]));
    assert_eq!(
        instants(&second.series(series, fixture_now()).await.unwrap()),
        [at(T3), at("2026-11-15T10:00:00Z")]
    );
    // What was forgotten is before history now: as_of there is a 404.
    let fresh = with_retention(&app, 16).await;
    let err = fresh
        .at(series, at("2026-11-14T21:00:00Z"), fixture_now())
        .await
        .unwrap_err();
    assert_eq!(
        err,
        linecast_core::services::releases::AsOfError::BeforeHistory { first: Some(at(T3)) }
    );
}

/// A first run over an empty store: the server generates the demo store and
/// keeps the past of the same market run (every release of the last 21
/// days, all 24 series). Every graded live result row whose game started in
/// that window then has its forecast in the history, at the instant the row
/// names, and its close is the history's `closing`.
#[tokio::test]
async fn the_demo_past_kept_at_first_run_carries_every_graded_live_rows_forecast_and_close_and_matches_it() {
    let now = at("2026-11-21T15:47:12Z");
    let begun = std::time::Instant::now();
    let app = spawn_app_with(now, |store| {
        std::fs::remove_dir_all(store).unwrap();
        std::fs::create_dir_all(store).unwrap();
    })
    .await;
    // The past is kept in the background: wait until every series holds
    // its 253 releases (21 days every two hours, both ends).
    let mut waited = 0;
    loop {
        let mut complete = true;
        for series in Series::all() {
            let kept = app.state.releases.series(series, now).await.unwrap();
            complete &= kept.len() >= 253;
        }
        if complete {
            // For the operations manual, not a check: how long a debug build
            // takes to generate the demo store and keep its past.
            eprintln!("demo store and its past kept in {:?}", begun.elapsed());
            break;
        }
        waited += 1;
        assert!(waited < 1200, "the demo's past was not kept in 20 minutes");
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    }
    let window_start = at("2026-10-31T14:00:00Z");
    let (status, body) = app
        .get_authed_json("/api/v1/results/nba/won_on_points?limit=100000")
        .await;
    assert_eq!(status, 200, "{body}");
    let mut checked = 0;
    // Many calls: spread over fresh keys of the demo customer.
    let mut ring = crate::helpers::KeyRing::new(&app);
    for row in body["results"].as_array().unwrap() {
        if row["graded"] != true || row["forecast_source"] != "live" {
            continue;
        }
        let Some(published) = row["forecast_published_at"].as_str() else {
            continue;
        };
        let published = at(published);
        // The row's forecast release is in the window, so the game's
        // close is too.
        if published <= window_start {
            continue;
        }
        let id = row["game_id"].as_str().unwrap();
        let (status, history) = ring
            .get_json(&format!("/api/v1/games/{id}/history?model_type=won_on_points"))
            .await;
        assert_eq!(status, 200, "{id}: {history}");
        let entry = history["releases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| at(e["published_at"].as_str().unwrap()) == published)
            .unwrap_or_else(|| panic!("{id}: no release at {published}"));
        assert_eq!(entry["predictions"]["BLEND"], row["BLEND"], "{id}");
        let closing = &history["closing"];
        assert_eq!(at(closing["published_at"].as_str().unwrap()), published, "{id}");
        for price in ["home_money_line", "away_money_line"] {
            assert_eq!(closing[price].as_f64(), row[price].as_f64(), "{id} {price}");
        }
        // The graded row is checked against that very release.
        assert_eq!(row["archive_check"], "matched", "{id}: {row}");
        assert_eq!(row["forecast_digest"], entry["digest"], "{id}");
        // Nothing after the start differs from the close.
        for later in history["releases"].as_array().unwrap() {
            if later["after_start"] == true {
                assert_eq!(later["predictions"], closing["predictions"], "{id}");
                for price in ["home_money_line", "away_money_line"] {
                    assert_eq!(later[price], closing[price], "{id} {price}");
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked} graded live rows checked");
}
