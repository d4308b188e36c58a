//! The public ledger: the test publishes versions of the NBA moneyline
//! predictions and odds over three UTC days at instants it chooses, lets
//! the watcher keep them, and checks every listed digest against the bytes
//! it wrote and every root against its own SHA-256 of the bytes
//! docs/payloads.md ("Ledger") describes: computed here with `sha2`, never
//! with the service's code. Then it changes kept bytes, lets retention
//! forget releases, backfills a release into a sealed day and moves to the
//! next day: nothing published changes, and the next day chains on.

use std::sync::Arc;

use linecast_core::ManualClock;
use linecast_core::ports::releases::Series;
use linecast_domain::{ModelType, Sport};
use serde_json::Value;
use sha2::Digest as _;

use crate::helpers::{TestApp, assert_error_shape, at, fixture_now, publish, sha256, spawn_app_configured};

const PREDICTIONS: &str = "predictions/nba/won_on_points.csv";
const ODDS: &str = "odds/nba.csv";
const ML: &str = "nba/predictions/won_on_points";
const NBA_ODDS: &str = "nba/odds";
const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// `original` with the first row's `column` set to `value` (a valid version
/// of the same object, other bytes).
fn variant(original: &[u8], column: &str, value: &str) -> Vec<u8> {
    let text = std::str::from_utf8(original).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = lines[0].split(',').position(|h| h == column).unwrap();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_owned).collect();
    value.clone_into(&mut cells[at]);
    lines[1] = cells.join(",");
    (lines.join("\n") + "\n").into_bytes()
}

fn fixture(key: &str) -> Vec<u8> {
    std::fs::read(crate::helpers::fixtures_dir().join(key)).unwrap()
}

/// The versions written, by name, and when each was published.
struct Published {
    app: TestApp,
    clock: Arc<ManualClock>,
    /// (published_at as the test wrote it, series, bytes)
    versions: Vec<(&'static str, &'static str, Vec<u8>)>,
}

/// The 12th: two predictions versions and one odds; the 13th: nothing;
/// the 14th: one of each; the 15th (today, 17:00 UTC): one predictions.
/// The clock follows the publications (each is kept a second after it is
/// published, as the watcher would), then stops at the fixtures' now.
async fn three_days() -> Published {
    let p = fixture(PREDICTIONS);
    let o = fixture(ODDS);
    let versions: Vec<(&'static str, &'static str, Vec<u8>)> = vec![
        ("2026-11-12T10:00:00Z", ML, variant(&p, "BLEND", "0.5101")),
        (
            "2026-11-12T10:00:00.500Z",
            NBA_ODDS,
            variant(&o, "home_money_line", "-201"),
        ),
        ("2026-11-12T18:30:00.123456Z", ML, variant(&p, "BLEND", "0.5102")),
        ("2026-11-14T09:00:00Z", NBA_ODDS, variant(&o, "home_money_line", "-202")),
        ("2026-11-14T23:59:59.999999Z", ML, variant(&p, "BLEND", "0.5103")),
        ("2026-11-15T08:00:00Z", ML, variant(&p, "BLEND", "0.5104")),
    ];
    let start = at("2026-11-12T09:00:00Z");
    let clock = Arc::new(ManualClock::new(start));
    let for_app = clock.clone();
    let app = spawn_app_configured(start, |_| {}, move |s| s.manual_clock = Some(for_app)).await;
    for (when, series, bytes) in &versions {
        let key = if *series == ML { PREDICTIONS } else { ODDS };
        clock.set(at(when) + chrono::Duration::seconds(1));
        publish(&app.store_dir, key, bytes, when);
        app.keep_releases().await;
    }
    clock.set(fixture_now());
    Published { app, clock, versions }
}

/// A day's root as docs/payloads.md states it, from its listed entries.
fn recomputed(previous: &str, day: &Value) -> String {
    let mut bytes = format!("{previous}\n").into_bytes();
    for list in ["releases", "late"] {
        for e in day[list].as_array().unwrap() {
            for (i, field) in ["published_at", "series", "digest"].into_iter().enumerate() {
                if i > 0 {
                    bytes.push(b'\t');
                }
                bytes.extend_from_slice(e[field].as_str().unwrap().as_bytes());
            }
            bytes.push(b'\n');
        }
    }
    hex::encode(sha2::Sha256::digest(&bytes))
}

/// The (published_at, series, digest) listed in `list` of a day.
fn listed(day: &Value, list: &str) -> Vec<(String, String, String)> {
    day[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["published_at"].as_str().unwrap().to_owned(),
                e["series"].as_str().unwrap().to_owned(),
                e["digest"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What the test wrote on `date`, in ledger order (it wrote them in order).
fn written_on(versions: &[(&str, &str, Vec<u8>)], date: &str) -> Vec<(String, String, String)> {
    versions
        .iter()
        .filter(|(when, ..)| when.starts_with(date))
        .map(|(when, series, bytes)| ((*when).to_owned(), (*series).to_owned(), sha256(bytes)))
        .collect()
}

#[tokio::test]
async fn three_days_list_the_bytes_written_and_every_root_recomputes_from_the_listed_digests() {
    let Published { app, versions, .. } = three_days().await;
    let (status, roots) = app.get_json("/api/v1/public/ledger").await;
    assert_eq!(status, 200, "{roots}");
    let days = roots["days"].as_array().unwrap();
    let dates: Vec<&str> = days.iter().map(|d| d["date"].as_str().unwrap()).collect();
    assert_eq!(
        dates,
        ["2026-11-12", "2026-11-13", "2026-11-14"],
        "every past day, the empty 13th too"
    );
    let mut previous = ZEROS.to_owned();
    for summary in days {
        let date = summary["date"].as_str().unwrap();
        let (status, day) = app.get_json(&format!("/api/v1/public/ledger/{date}")).await;
        assert_eq!(status, 200, "{day}");
        assert_eq!(day["complete"], true);
        assert_eq!(listed(&day, "releases"), written_on(&versions, date), "{date}");
        assert!(listed(&day, "late").is_empty());
        assert_eq!(
            day["previous_root"],
            previous.as_str(),
            "{date} chains to the day before"
        );
        let root = recomputed(&previous, &day);
        assert_eq!(day["root"], root.as_str(), "{date}");
        assert_eq!(summary["root"], root.as_str());
        assert_eq!(summary["previous_root"], previous.as_str());
        assert_eq!(summary["releases"], day["releases"].as_array().unwrap().len());
        assert_eq!(day["count"], summary["releases"]);
        previous = root;
    }
    // The order within a day is by instant (10:00:00Z before 10:00:00.500Z,
    // whatever the text's order), and every digit of the instant is kept.
    let (_, twelfth) = app.get_json("/api/v1/public/ledger/2026-11-12").await;
    assert_eq!(twelfth["releases"][2]["published_at"], "2026-11-12T18:30:00.123456Z");
    // Today is open: what was published so far, no root.
    let (status, today) = app.get_json("/api/v1/public/ledger/2026-11-15").await;
    assert_eq!(status, 200, "{today}");
    assert_eq!(today["complete"], false);
    assert_eq!((&today["root"], &today["previous_root"]), (&Value::Null, &Value::Null));
    assert_eq!(listed(&today, "releases"), written_on(&versions, "2026-11-15"));
    // A release kept later today is served at once (the open day's body is
    // keyed by its list).
    let newer = variant(&fixture(PREDICTIONS), "BLEND", "0.5105");
    publish(&app.store_dir, PREDICTIONS, &newer, "2026-11-15T16:00:00Z");
    app.keep_releases().await;
    let (_, today) = app.get_json("/api/v1/public/ledger/2026-11-15").await;
    let mut expected = written_on(&versions, "2026-11-15");
    expected.push(("2026-11-15T16:00:00Z".to_owned(), ML.to_owned(), sha256(&newer)));
    assert_eq!(listed(&today, "releases"), expected);
    assert_eq!(today["count"], 2);
    // A day after today, a malformed one: 400 naming `date`; before the
    // ledger's first day: 404.
    for bad in ["2026-11-16", "2026-13-01", "yesterday"] {
        let (status, body) = app.get_json(&format!("/api/v1/public/ledger/{bad}")).await;
        assert_error_shape(status, &body, 400);
        assert_eq!(body["parameter"], "date", "{bad}: {body}");
    }
    let (status, body) = app.get_json("/api/v1/public/ledger/2026-11-11").await;
    let detail = assert_error_shape(status, &body, 404);
    assert!(detail.contains("2026-11-12"), "names the first day: {detail}");
}

#[tokio::test]
async fn nothing_published_changes_when_bytes_change_or_go_and_a_later_day_chains_to_the_published_root() {
    let Published { app, clock, versions } = three_days().await;
    let (_, roots) = app.get_json("/api/v1/public/ledger").await;
    let mut days = Vec::new();
    for date in ["2026-11-12", "2026-11-13", "2026-11-14"] {
        days.push(app.get_json(&format!("/api/v1/public/ledger/{date}")).await.1);
    }
    // One kept release's bytes changed in the store's archive.
    let digest = sha256(&versions[0].2);
    let archived = app
        .store_dir
        .join(format!("archive/nba/predictions/won_on_points/{digest}.csv"));
    assert!(archived.exists(), "{archived:?}");
    std::fs::write(&archived, b"tampered").unwrap();
    // Retention forgets every release before today, and their bytes.
    let db = Arc::new(
        linecast_db::SeaAccounts::connect(&format!(
            "sqlite://{}?mode=rwc",
            app.var_dir.join("linecast.db").display()
        ))
        .await
        .unwrap(),
    );
    let store = Arc::new(
        linecast_store::ObjectArtifactStore::from_url(
            &format!("file://{}", app.store_dir.display()),
            linecast_store::StoreOptions::default(),
        )
        .unwrap(),
    );
    let ledger = Arc::new(linecast_core::services::ledger::Ledger::new(db.clone()));
    let retention = linecast_core::services::releases::Releases::new(
        db.clone(),
        store.clone(),
        store,
        Some(chrono::Duration::hours(10)),
    )
    .with_ledger(ledger.clone());
    assert_eq!(retention.prune(fixture_now()).await.unwrap(), 5);
    let odds_bytes = format!("archive/nba/odds/{}.csv", sha256(&versions[1].2));
    assert!(!app.store_dir.join(odds_bytes).exists(), "retention deleted the bytes");
    // Another instance (nothing cached) and this one answer as before.
    let fresh = linecast_core::services::ledger::Ledger::new(db.clone());
    let again = fresh.roots(fixture_now()).await.unwrap().value;
    let fresh_roots: Vec<&str> = again.iter().map(|r| r.root.as_str()).collect();
    let published: Vec<&str> = roots["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["root"].as_str().unwrap())
        .collect();
    assert_eq!(fresh_roots, published);
    app.state.responses.memo.clear();
    assert_eq!(app.get_json("/api/v1/public/ledger").await.1, roots);
    for (date, day) in ["2026-11-12", "2026-11-13", "2026-11-14"].iter().zip(&days) {
        assert_eq!(&app.get_json(&format!("/api/v1/public/ledger/{date}")).await.1, day);
    }
    // A backfill of the (sealed) 13th, kept as `releases import` keeps it.
    let backfill = variant(&fixture(PREDICTIONS), "BLEND", "0.5199");
    let series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
    app.state
        .releases
        .keep(series, at("2026-11-13T12:00:00Z"), backfill.clone().into())
        .await
        .unwrap();
    // The next day: the 15th is sealed, chaining to the published 14th,
    // with the backfill listed late; nothing before it moved.
    clock.set(at("2026-11-16T02:00:00Z"));
    app.state.responses.memo.clear();
    let (status, fifteenth) = app.get_json("/api/v1/public/ledger/2026-11-15").await;
    assert_eq!(status, 200, "{fifteenth}");
    assert_eq!(fifteenth["complete"], true);
    assert_eq!(fifteenth["previous_root"], days[2]["root"]);
    assert_eq!(listed(&fifteenth, "releases"), written_on(&versions, "2026-11-15"));
    assert_eq!(
        listed(&fifteenth, "late"),
        [("2026-11-13T12:00:00Z".to_owned(), ML.to_owned(), sha256(&backfill))]
    );
    let previous = days[2]["root"].as_str().unwrap();
    assert_eq!(fifteenth["root"], recomputed(previous, &fifteenth).as_str());
    let (_, later) = app.get_json("/api/v1/public/ledger").await;
    assert_eq!(
        later["days"].as_array().unwrap()[..3],
        roots["days"].as_array().unwrap()[..]
    );
    assert_eq!(later["days"][3]["late"], 1);
    assert_eq!(app.get_json("/api/v1/public/ledger/2026-11-13").await.1, days[1]);
}

#[tokio::test]
async fn the_ledger_is_limited_per_client_address_and_a_keyed_route_is_not_charged() {
    let app = spawn_app_configured(fixture_now(), |_| {}, |s| s.public_rate_per_second = 3).await;
    let sent = futures::future::join_all((0..12).map(|_| app.get("/api/v1/public/ledger"))).await;
    let mut refused = 0;
    for res in sent {
        let status = res.status().as_u16();
        let body: Value = res.json().await.unwrap();
        if status == 429 {
            refused += 1;
            let detail = assert_error_shape(status, &body, 429);
            assert!(detail.contains("per client address"), "{detail}");
        } else {
            assert_eq!(status, 200, "{body}");
        }
    }
    assert!(refused >= 6, "3 per second with a burst of 3: {refused} refused of 12");
    // The address's bucket is spent; a keyed route from it is not charged.
    let (status, _) = app.get_authed_json("/api/v1/sports").await;
    assert_eq!(status, 200);
    // Cacheable by anyone for 30 seconds, as the free feed.
    let res = app.get("/api/v1/public/ledger/2026-11-15").await;
    if res.status() == 200 {
        assert_eq!(res.headers()["cache-control"], "public, max-age=30");
    }
}
