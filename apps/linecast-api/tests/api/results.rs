//! `/results` paging and the season list over HTTP (SERVICE-SPEC "Result
//! row", "Season list", "Results"; DESIGN "Results paging", "Grading").
//!
//! Also home of what the history and strategy modules share: a keyed
//! session that rotates demo keys, and an oracle read straight from the
//! fixture CSVs.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, NaiveDate};
use linecast_core::NewApiKey;
use linecast_core::key_material::{display_prefix, generate_key, hash_key};
use serde_json::Value;

use crate::helpers::{TestApp, assert_error_shape, fixture_now, spawn_app, spawn_app_with};

pub const SPORTS: [&str; 6] = ["mlb", "nba", "nfl", "nhl", "ncaaf", "ncaab"];
pub const MODEL_TYPES: [&str; 3] = ["over_under", "won_on_points", "won_on_spread"];

/// Requests one key makes before the session switches to a fresh one.
const CALLS_PER_KEY: usize = 40;

/// The app plus a key rotation. One key may make 50 requests a second and
/// these tests make hundreds back to back, so a session issues a new key for
/// the demo customer every 40 calls (a 429 here would be a test artefact,
/// not a finding).
pub struct Session {
    pub app: TestApp,
    calls: usize,
}

impl Session {
    pub async fn start() -> Self {
        Self::over(spawn_app().await)
    }

    pub fn over(app: TestApp) -> Self {
        Self { app, calls: 0 }
    }

    async fn pace(&mut self) {
        if self.calls == CALLS_PER_KEY {
            self.app.api_key = issue_demo_key(&self.app).await;
            self.calls = 0;
        }
        self.calls += 1;
    }

    /// `app.get_authed_json` under the rotation.
    pub async fn json(&mut self, path: &str) -> (u16, Value) {
        self.pace().await;
        self.app.get_authed_json(path).await
    }

    /// `app.get_authed` under the rotation, for header checks.
    pub async fn response(&mut self, path: &str) -> reqwest::Response {
        self.pace().await;
        self.app.get_authed(path).await
    }

    /// A 200 body, or a panic naming the path.
    pub async fn ok(&mut self, path: &str) -> Value {
        let (status, body) = self.json(path).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }
}

/// Another active key for the demo customer.
pub async fn issue_demo_key(app: &TestApp) -> String {
    let customers = app.ports.accounts.list_customers().await.unwrap();
    let demo = customers
        .iter()
        .find(|c| c.email == linecast_api::demo::DEMO_EMAIL)
        .expect("demo customer");
    let key = generate_key().unwrap();
    let new = NewApiKey {
        customer_id: demo.customer_id,
        key_hash: hash_key(&key),
        display_prefix: display_prefix(&key).unwrap().to_owned(),
        name: "rotation".to_owned(),
        tier: "ai".to_owned(),
        expires_at: None,
    };
    crate::helpers::seed_key(app.ports.accounts.as_ref(), new, fixture_now()).await;
    key
}

/// One season store read straight from its CSV: the oracle.
pub struct StoreFile {
    pub headers: Vec<String>,
    pub rows: Vec<HashMap<String, String>>,
}

pub fn season_path(store: &Path, sport: &str, model_type: &str, season: &str) -> PathBuf {
    store.join(format!("seasons/{sport}/{model_type}/{season}.csv"))
}

pub fn read_store_file(path: &Path) -> StoreFile {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = reader
        .records()
        .map(|r| {
            headers
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_owned))
                .collect()
        })
        .collect();
    StoreFile { headers, rows }
}

/// Season labels with a store file, oldest first.
pub fn store_seasons(store: &Path, sport: &str, model_type: &str) -> Vec<String> {
    let mut labels: Vec<String> = std::fs::read_dir(store.join(format!("seasons/{sport}/{model_type}")))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .trim_end_matches(".csv")
                .to_owned()
        })
        .collect();
    labels.sort();
    labels
}

pub fn outcome_column(model_type: &str) -> &'static str {
    match model_type {
        "over_under" => "over",
        "won_on_points" => "won_on_points",
        _ => "won_on_spread",
    }
}

/// Professional leagues serve regular season and postseason rows only.
pub fn in_scope(sport: &str, row: &HashMap<String, String>) -> bool {
    matches!(sport, "ncaaf" | "ncaab") || matches!(row["season_type"].as_str(), "regular" | "postseason")
}

/// DESIGN "Grading": the line the market posted for the model type.
pub fn line_posted(model_type: &str, row: &HashMap<String, String>) -> bool {
    let has = |c: &str| row.get(c).is_some_and(|v| !v.is_empty());
    match model_type {
        "over_under" => has("over_under"),
        "won_on_points" => has("home_money_line") || has("away_money_line"),
        _ => has("home_point_spread"),
    }
}

/// An in-scope game with a final and a posted line (a push included):
/// "played against a posted line".
pub fn decided(sport: &str, model_type: &str, row: &HashMap<String, String>) -> bool {
    in_scope(sport, row)
        && !row["home_score"].is_empty()
        && !row["away_score"].is_empty()
        && line_posted(model_type, row)
}

/// DESIGN "Grading" push, worked from the stored cells: totals land on
/// `over_under`, the home spread lands on the margin, moneyline ties.
pub fn is_push(model_type: &str, row: &HashMap<String, String>) -> bool {
    let n = |c: &str| row[c].parse::<f64>().unwrap();
    let (home, away) = (n("home_score"), n("away_score"));
    match model_type {
        "over_under" => (home + away - n("over_under")).abs() < 1e-9,
        "won_on_points" => (home - away).abs() < 1e-9,
        _ => (home + n("home_point_spread") - away).abs() < 1e-9,
    }
}

/// A decided game in the spec's sense: a final, a line, and not a push.
pub fn decided_not_push(sport: &str, model_type: &str, row: &HashMap<String, String>) -> bool {
    decided(sport, model_type, row) && !is_push(model_type, row)
}

/// The game key of a served or stored row.
pub fn game_key(row: &Value) -> (String, String, String, String) {
    let s = |k: &str| row[k].as_str().unwrap_or_else(|| panic!("{k} in {row}")).to_owned();
    (s("date"), s("time_est"), s("away_team"), s("home_team"))
}

fn csv_key(row: &HashMap<String, String>) -> (String, String, String, String) {
    (
        row["date"].clone(),
        row["time_est"].clone(),
        row["away_team"].clone(),
        row["home_team"].clone(),
    )
}

/// Fetches a whole season page by page, asserting the paging invariants on
/// every page, and returns the concatenated rows and the first page.
pub async fn fetch_all(session: &mut Session, base: &str, season: Option<&str>, limit: usize) -> (Vec<Value>, Value) {
    let mut rows = Vec::new();
    let mut offset = 0;
    let mut first: Option<Value> = None;
    loop {
        let mut path = format!("{base}?limit={limit}&offset={offset}");
        if let Some(season) = season {
            path = format!("{path}&season={season}");
            if let Some(snapshot) = first.as_ref().and_then(|f| f["snapshot"].as_str()) {
                path = format!("{path}&snapshot={snapshot}");
            }
        }
        let page = session.ok(&path).await;
        let results = page["results"].as_array().unwrap();
        let (total, returned) = (page["total"].as_u64().unwrap(), page["returned"].as_u64().unwrap());
        assert_eq!(returned as usize, results.len(), "returned == len(results) at {path}");
        assert_eq!(page["offset"], offset, "{path}");
        assert!(results.len() <= limit, "{path}");
        let end = offset as u64 + returned;
        if end < total {
            assert_eq!(page["next_offset"], end, "next_offset while below total at {path}");
        } else {
            assert!(page["next_offset"].is_null(), "next_offset null at the end, {path}");
        }
        if let Some(first) = &first {
            for field in [
                "season",
                "total",
                "snapshot",
                "last_updated",
                "source_start",
                "source_end",
            ] {
                assert_eq!(page[field], first[field], "{field} stable across pages of {base}");
            }
        }
        rows.extend(results.iter().cloned());
        let next = page["next_offset"].as_u64();
        first.get_or_insert(page);
        match next {
            Some(n) => offset = usize::try_from(n).unwrap(),
            None => break,
        }
    }
    let first = first.unwrap();
    assert_eq!(
        rows.len() as u64,
        first["total"].as_u64().unwrap(),
        "pages add up to total for {base}"
    );
    (rows, first)
}

/// Publication time given to the season store that is `age` seasons old
/// (0 = newest) by [`stamp_publication_times`].
pub fn stamped_publication(age: usize) -> &'static str {
    [
        "2026-11-14T12:00:00Z",
        "2026-06-01T08:30:00Z",
        "2025-06-01T08:30:00Z",
        "2024-06-01T08:30:00Z",
    ][age.min(3)]
}

/// Gives every season store a known publication (last-modified) time, newest
/// season published last, so `last_updated` fields can be compared exactly.
pub fn stamp_publication_times(store: &Path) {
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let mut seasons = store_seasons(store, sport, model_type);
            seasons.reverse();
            for (age, season) in seasons.iter().enumerate() {
                let at: std::time::SystemTime = DateTime::parse_from_rfc3339(stamped_publication(age)).unwrap().into();
                let file = std::fs::File::options()
                    .write(true)
                    .open(season_path(store, sport, model_type, season))
                    .unwrap();
                file.set_modified(at).unwrap();
            }
        }
    }
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[tokio::test]
async fn the_current_season_is_served_newest_first_with_plain_offset_paging_and_a_null_snapshot() {
    let mut s = Session::start().await;
    let store = read_store_file(&season_path(&s.app.store_dir, "nba", "won_on_points", "2026-27"));
    let expected = store.rows.iter().filter(|r| in_scope("nba", r)).count();
    let body = s.ok("/api/v1/results/nba/won_on_points").await;
    assert_eq!(body["sport"], "nba");
    assert_eq!(body["model_type"], "won_on_points");
    assert_eq!(body["season"], "2026-27", "without season the current season is named");
    assert!(
        body["snapshot"].is_null(),
        "no snapshot without season: {}",
        body["snapshot"]
    );
    assert_eq!(
        body["total"], expected,
        "total counts every in-scope row, graded or not"
    );
    assert_eq!(body["offset"], 0);
    assert!(DateTime::parse_from_rfc3339(body["last_updated"].as_str().unwrap()).is_ok());
    let keys: Vec<_> = body["results"].as_array().unwrap().iter().map(game_key).collect();
    let mut newest_first = keys.clone();
    newest_first.sort_by(|a, b| b.cmp(a));
    assert_eq!(keys, newest_first, "newest game first");
    assert_eq!(
        body["source_start"].as_str(),
        keys.last().map(|k| k.0.as_str()),
        "source_start is the first game date"
    );
    assert_eq!(
        body["source_end"].as_str(),
        keys.first().map(|k| k.0.as_str()),
        "source_end is the last game date"
    );

    // Offset paging of 5 walks the same order.
    let (paged, first) = fetch_all(&mut s, "/api/v1/results/nba/won_on_points", None, 5).await;
    assert!(first["snapshot"].is_null());
    assert_eq!(paged.iter().map(game_key).collect::<Vec<_>>(), keys);
}

#[tokio::test]
async fn limit_defaults_to_100_and_a_named_season_is_served_oldest_first_with_its_snapshot_echoed() {
    let mut s = Session::start().await;
    let base = "/api/v1/results/mlb/won_on_points";
    let first = s.ok(&format!("{base}?season=2025")).await;
    assert_eq!(first["season"], "2025");
    assert!(
        first["total"].as_u64().unwrap() > 100,
        "the fixture season is longer than one default page"
    );
    assert_eq!(first["returned"], 100, "limit defaults to 100");
    assert_eq!(first["next_offset"], 100);
    let snapshot = first["snapshot"].as_str().unwrap().to_owned();
    assert!(is_hex64(&snapshot), "64 lowercase hex: {snapshot}");
    let keys: Vec<_> = first["results"].as_array().unwrap().iter().map(game_key).collect();
    let mut oldest_first = keys.clone();
    oldest_first.sort();
    assert_eq!(keys, oldest_first, "oldest game first");

    let second = s
        .ok(&format!("{base}?season=2025&offset=100&snapshot={snapshot}"))
        .await;
    assert_eq!(
        second["snapshot"],
        snapshot.as_str(),
        "the snapshot is echoed on later pages"
    );
    assert_eq!(second["returned"], first["total"].as_u64().unwrap() - 100);
    assert!(second["next_offset"].is_null());
    assert!(game_key(&second["results"][0]) > *keys.last().unwrap());

    // The same season unnamed (mlb 2026 is current, so use 2026) serves the same rows in reverse.
    let named = s.ok(&format!("{base}?season=2026&limit=100000")).await;
    let current = s.ok(&format!("{base}?limit=100000")).await;
    assert_eq!(current["season"], "2026");
    let mut reversed: Vec<Value> = named["results"].as_array().unwrap().clone();
    reversed.reverse();
    assert_eq!(
        &reversed,
        current["results"].as_array().unwrap(),
        "the same rows and columns in both modes"
    );
}

#[tokio::test]
async fn next_offset_is_null_at_the_end_and_an_offset_past_the_end_is_an_empty_page() {
    let mut s = Session::start().await;
    let base = "/api/v1/results/nfl/over_under";
    let all = s.ok(&format!("{base}?season=2025-26&limit=100000")).await;
    let total = all["total"].as_u64().unwrap();
    assert_eq!(all["returned"], total);
    assert!(all["next_offset"].is_null());
    let snapshot = all["snapshot"].as_str().unwrap();

    let last = s
        .ok(&format!(
            "{base}?season=2025-26&limit=10&offset={}&snapshot={snapshot}",
            total - 3
        ))
        .await;
    assert_eq!(
        (last["returned"].as_u64(), last["next_offset"].clone()),
        (Some(3), Value::Null),
        "{last}"
    );

    let exact = s
        .ok(&format!(
            "{base}?season=2025-26&limit=10&offset={}&snapshot={snapshot}",
            total - 10
        ))
        .await;
    assert_eq!(exact["returned"], 10);
    assert!(exact["next_offset"].is_null(), "offset + returned == total is the end");

    for offset in [total, total + 1, 1_000_000, i64::MAX as u64] {
        let past = s
            .ok(&format!("{base}?season=2025-26&offset={offset}&snapshot={snapshot}"))
            .await;
        assert_eq!(past["results"], Value::Array(vec![]), "offset {offset}");
        assert_eq!(past["returned"], 0);
        assert_eq!(past["offset"], offset);
        assert_eq!(past["total"], total);
        assert!(past["next_offset"].is_null());
        let current = s.ok(&format!("{base}?offset={offset}")).await;
        assert_eq!(current["returned"], 0, "current season, offset {offset}");
        assert!(current["next_offset"].is_null());
    }
}

/// Pages of 37 (snapshot echoed) tile every season of every sport and model
/// type: concatenated, they equal one `limit=100000` fetch, and the current
/// season paged newest first equals the same single fetch.
#[tokio::test]
async fn pages_of_37_tile_every_stored_season_exactly() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let base = format!("/api/v1/results/{sport}/{model_type}");
            for season in store_seasons(&s.app.store_dir, sport, model_type) {
                let (paged, first) = fetch_all(&mut s, &base, Some(&season), 37).await;
                let whole = s.ok(&format!("{base}?season={season}&limit=100000")).await;
                assert_eq!(whole["snapshot"], first["snapshot"]);
                assert_eq!(&paged, whole["results"].as_array().unwrap(), "{base} {season}");
                let unique: BTreeSet<_> = paged.iter().map(game_key).collect();
                assert_eq!(unique.len(), paged.len(), "no row twice in {base} {season}");
            }
            let (paged, first) = fetch_all(&mut s, &base, None, 37).await;
            let whole = s.ok(&format!("{base}?limit=100000")).await;
            assert_eq!(whole["season"], first["season"]);
            assert_eq!(&paged, whole["results"].as_array().unwrap(), "{base} current season");
        }
    }
}

/// Rewrites one cell of a season store through a rename, as a publisher
/// would, producing a new generation with the same row count.
fn publish_changed_row(store_dir: &Path, sport: &str, model_type: &str, season: &str) {
    let path = season_path(store_dir, sport, model_type, season);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // The last row: a postseason game, served in every league.
    let last = lines.len() - 1;
    let (head, _) = lines[last].rsplit_once(',').unwrap();
    lines[last] = format!("{head},4242");
    let staging = store_dir.parent().unwrap().join(format!("{season}.staging"));
    std::fs::write(&staging, lines.join("\n") + "\n").unwrap();
    std::fs::rename(&staging, &path).unwrap();
}

#[tokio::test]
async fn a_new_season_generation_between_pages_is_a_409_telling_the_client_to_restart() {
    let mut s = Session::start().await;
    let base = "/api/v1/results/nba/won_on_points?season=2025-26&limit=37";
    let first = s.ok(base).await;
    let old = first["snapshot"].as_str().unwrap().to_owned();
    let second = s.ok(&format!("{base}&offset=37&snapshot={old}")).await;
    assert_eq!(second["snapshot"], old.as_str());

    publish_changed_row(&s.app.store_dir, "nba", "won_on_points", "2025-26");
    // The store trusts a seen object version for StoreOptions::version_ttl
    // (2 s, not configurable through Settings).
    tokio::time::sleep(Duration::from_millis(2300)).await;

    let (status, body) = s.json(&format!("{base}&offset=74&snapshot={old}")).await;
    let detail = assert_error_shape(status, &body, 409);
    assert!(detail.contains("restart from offset 0"), "{detail}");

    let restarted = s.ok(base).await;
    let new = restarted["snapshot"].as_str().unwrap();
    assert!(is_hex64(new));
    assert_ne!(
        new, old,
        "a new generation has a new snapshot even with the same row count"
    );
    assert_eq!(restarted["total"], first["total"]);
    let whole = s
        .ok("/api/v1/results/nba/won_on_points?season=2025-26&limit=100000")
        .await;
    let last = whole["results"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["travel_km"], "4242", "the new generation is served");
    let continued = s.ok(&format!("{base}&offset=37&snapshot={new}")).await;
    assert_eq!(continued["snapshot"], new);
    // Without a snapshot only the first page of a named season is served
    // (spec, results rule 3); a continuation must echo it.
    assert_eq!(s.ok(&format!("{base}&offset=0")).await["snapshot"], new);
    let (status, body) = s.json(&format!("{base}&offset=37")).await;
    assert!(assert_error_shape(status, &body, 400).contains("snapshot"));
}

/// A well-formed season without a store is a 404 that names the sport, the
/// model type and the season, and never the object key it was read from.
#[tokio::test]
async fn a_season_without_a_store_is_a_404_naming_sport_model_type_and_season_but_no_storage_path() {
    let mut s = Session::start().await;
    let cases = [
        (
            "/api/v1/results/nba/over_under?season=9999-00",
            ["nba", "over_under", "9999-00"],
        ),
        (
            "/api/v1/results/mlb/won_on_points?season=2031",
            ["mlb", "won_on_points", "2031"],
        ),
    ];
    for (path, names) in cases {
        let (status, body) = s.json(path).await;
        let detail = assert_error_shape(status, &body, 404);
        for name in names {
            assert!(detail.contains(name), "{path}: {detail}");
        }
        for leak in [".csv", "seasons/", "/"] {
            assert!(!detail.contains(leak), "{path} leaks {leak:?}: {detail}");
        }
    }
}

#[tokio::test]
async fn malformed_paging_parameters_are_400s_naming_the_parameter() {
    let mut s = Session::start().await;
    let base = "/api/v1/results/nba/won_on_points";
    let valid = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let cases: Vec<(String, &str)> = vec![
        ("limit=0".into(), "limit"),
        ("limit=100001".into(), "limit"),
        ("limit=abc".into(), "limit"),
        ("limit=-5".into(), "limit"),
        ("limit=".into(), "limit"),
        ("offset=-1".into(), "offset"),
        ("offset=1.5".into(), "offset"),
        ("offset=99999999999999999999999".into(), "offset"),
        ("season=2025".into(), "season"),
        ("season=2025-27".into(), "season"),
        ("season=2025-2026".into(), "season"),
        ("season=latest".into(), "season"),
        ("season=2025-26&snapshot=abc".into(), "snapshot"),
        ("season=2025-26&snapshot=".into(), "snapshot"),
        (format!("season=2025-26&snapshot={}", &valid[1..]), "snapshot"),
        (format!("season=2025-26&snapshot={}", valid.to_uppercase()), "snapshot"),
        (format!("season=2025-26&snapshot={}g", &valid[1..]), "snapshot"),
        (format!("snapshot={valid}"), "snapshot"),
    ];
    for (query, parameter) in cases {
        let (status, body) = s.json(&format!("{base}?{query}")).await;
        let detail = assert_error_shape(status, &body, 400);
        assert!(detail.contains(parameter), "{query}: {detail}");
    }
    let (status, body) = s.json("/api/v1/results/mlb/over_under?season=2025-26").await;
    assert!(
        assert_error_shape(status, &body, 400).contains("season"),
        "mlb seasons are YYYY"
    );
    // Well formed, but no store for it.
    for path in [
        "/api/v1/results/nba/won_on_points?season=2019-20",
        "/api/v1/results/mlb/over_under?season=2031",
    ] {
        let (status, body) = s.json(path).await;
        assert_error_shape(status, &body, 404);
    }
    // Well formed but never issued (its last 8 characters do not check
    // the first 56): a 400, not the 409 of a replaced generation.
    let (status, body) = s.json(&format!("{base}?season=2025-26&snapshot={valid}")).await;
    assert_error_shape(status, &body, 400);
    assert_eq!(body["code"], "invalid_snapshot");
    // A snapshot the service issues, of another season generation: a conflict.
    let other = linecast_paging::snapshot_token("another generation", 1);
    let (status, body) = s.json(&format!("{base}?season=2025-26&snapshot={other}")).await;
    assert_error_shape(status, &body, 409);
    assert_eq!(body["code"], "snapshot_changed");
}

/// Every served row has the stored columns in artifact (CSV header) order,
/// unknown extras included, then the outcome column when the store lacks
/// it, then `push`, `graded`, `ungraded_reason`; and the rows served are
/// exactly the in-scope rows of the store.
#[tokio::test]
async fn every_row_carries_the_stored_columns_in_artifact_order_then_push_graded_and_ungraded_reason() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            for season in store_seasons(&s.app.store_dir, sport, model_type) {
                let store = read_store_file(&season_path(&s.app.store_dir, sport, model_type, &season));
                assert!(
                    store.headers.iter().any(|h| h == "home_rest_days")
                        && store.headers.iter().any(|h| h == "travel_km")
                );
                let mut expected_keys = store.headers.clone();
                let outcome = outcome_column(model_type);
                if !expected_keys.iter().any(|h| h == outcome) {
                    expected_keys.push(outcome.to_owned());
                }
                if !expected_keys.iter().any(|h| h == "IMPLIED") {
                    expected_keys.push("IMPLIED".to_owned());
                }
                expected_keys.extend(
                    [
                        "push",
                        "graded",
                        "ungraded_reason",
                        "game_id",
                        "archive_check",
                        "forecast_digest",
                    ]
                    .map(str::to_owned),
                );
                let body = s
                    .ok(&format!(
                        "/api/v1/results/{sport}/{model_type}?season={season}&limit=100000"
                    ))
                    .await;
                let by_key: HashMap<_, _> = store.rows.iter().map(|r| (csv_key(r), r)).collect();
                let expected_rows: BTreeSet<_> =
                    store.rows.iter().filter(|r| in_scope(sport, r)).map(csv_key).collect();
                let served: BTreeSet<_> = body["results"].as_array().unwrap().iter().map(game_key).collect();
                assert_eq!(
                    served, expected_rows,
                    "{sport}/{model_type}/{season}: the in-scope rows"
                );
                for row in body["results"].as_array().unwrap() {
                    let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
                    assert_eq!(
                        keys,
                        expected_keys.iter().collect::<Vec<_>>(),
                        "{sport}/{model_type}/{season} key order"
                    );
                    let stored = by_key[&game_key(row)];
                    assert_row_values(sport, model_type, row, stored);
                }
            }
        }
    }
}

fn assert_row_values(sport: &str, model_type: &str, row: &Value, stored: &HashMap<String, String>) {
    let ctx = format!("{sport}/{model_type} {row}");
    let outcome = &row[outcome_column(model_type)];
    let push = &row["push"];
    let reason = &row["ungraded_reason"];
    let graded = row["graded"]
        .as_bool()
        .unwrap_or_else(|| panic!("graded is boolean: {ctx}"));
    assert!(
        reason.is_null() || ["no_final", "no_line", "push", "no_prediction"].contains(&reason.as_str().unwrap()),
        "{ctx}"
    );
    assert_eq!(
        graded,
        reason.is_null(),
        "an in-scope row is graded exactly when it has no ungraded_reason: {ctx}"
    );
    let final_score = !stored["home_score"].is_empty() && !stored["away_score"].is_empty();
    if !final_score {
        assert_eq!(reason, "no_final", "{ctx}");
    } else if !line_posted(model_type, stored) {
        assert_eq!(reason, "no_line", "{ctx}");
    }
    if decided(sport, model_type, stored) {
        assert!(push.is_boolean() && (outcome == 0 || outcome == 1), "{ctx}");
        if push == true {
            assert_eq!(outcome, 0, "a push reads 0: {ctx}");
            assert_eq!(reason, "push", "{ctx}");
        }
    } else {
        assert!(
            push.is_null() && outcome.is_null(),
            "push and outcome null without a final or line: {ctx}"
        );
    }
    for extra in ["home_rest_days", "travel_km"] {
        let v = &stored[extra];
        let expected = if v.is_empty() {
            Value::Null
        } else {
            Value::String(v.clone())
        };
        assert_eq!(row[extra], expected, "unknown columns verbatim: {ctx}");
    }
    assert_eq!(row["season"], stored["season"].as_str());
    assert_implied_and_openers(model_type, row, stored);
    for score in ["home_score", "away_score"] {
        match stored[score].as_str() {
            "" => assert!(row[score].is_null()),
            v => assert_eq!(
                row[score],
                serde_json::json!(v.parse::<u64>().unwrap()),
                "{ctx}: whole scores are integers"
            ),
        }
    }
}

/// The prices of (positive side, negative side) of the model type's market.
pub fn price_columns(model_type: &str) -> (&'static str, &'static str) {
    match model_type {
        "over_under" => ("over_line", "under_line"),
        "won_on_points" => ("home_money_line", "away_money_line"),
        _ => ("home_point_spread_line", "away_point_spread_line"),
    }
}

/// IMPLIED is the no-vig probability worked from the stored prices (null
/// with one side), whatever the store's own IMPLIED cell says; a stored
/// opener of exactly 0 is a placeholder served as null.
pub fn assert_implied_and_openers(model_type: &str, row: &Value, stored: &HashMap<String, String>) {
    let cell = |c: &str| {
        stored
            .get(c)
            .filter(|v| !v.is_empty())
            .map(|v| v.parse::<f64>().unwrap())
    };
    let (pos, neg) = price_columns(model_type);
    let want = crate::predictions::no_vig(cell(pos), cell(neg));
    match (row["IMPLIED"].as_f64(), want) {
        (Some(got), Some(want)) => assert!((got - want).abs() < 1e-6, "IMPLIED {got} vs {want}: {row}"),
        (None, None) => assert!(row.as_object().unwrap().contains_key("IMPLIED") && row["IMPLIED"].is_null()),
        other => panic!("IMPLIED {other:?}: {row}"),
    }
    for (name, raw) in stored.iter().filter(|(k, _)| k.starts_with("open_")) {
        match cell(name) {
            Some(0.0) => assert!(row[name].is_null(), "placeholder {name} is null: {row}"),
            Some(v) => assert_eq!(row[name].as_f64(), Some(v), "{name} {raw}: {row}"),
            None => assert!(row[name].is_null(), "{name}: {row}"),
        }
    }
}

/// The oracle of the seasons endpoint, from the store files.
fn expected_season_list(store: &Path, sport: &str, model_type: &str) -> (Vec<String>, Option<String>, bool) {
    let mut seasons = store_seasons(store, sport, model_type);
    seasons.reverse();
    let today = NaiveDate::from_ymd_opt(2026, 11, 15).unwrap();
    let date = |r: &HashMap<String, String>| NaiveDate::parse_from_str(&r["date"], "%Y-%m-%d").unwrap();
    for season in &seasons {
        let file = read_store_file(&season_path(store, sport, model_type, season));
        let played = file.rows.iter().any(|r| decided(sport, model_type, r));
        if played {
            let latest = file
                .rows
                .iter()
                .filter(|r| decided_not_push(sport, model_type, r))
                .map(date)
                .max();
            let live = latest.is_some_and(|l| l <= today && (today - l).num_days() <= 14);
            return (seasons.clone(), Some(season.clone()), live);
        }
    }
    (seasons, None, false)
}

#[tokio::test]
async fn the_season_list_is_newest_first_with_the_current_season_and_whether_it_is_live() {
    let mut s = Session::start().await;
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let body = s.ok(&format!("/api/v1/results/{sport}/{model_type}/seasons")).await;
            let (seasons, current, live) = expected_season_list(&s.app.store_dir, sport, model_type);
            let ctx = format!("{sport}/{model_type}: {body}");
            assert_eq!(body["seasons"], serde_json::json!(seasons), "{ctx}");
            assert_eq!(body["current_season"], serde_json::json!(current), "{ctx}");
            assert_eq!(body["live"], live, "{ctx}");
            let live_season = if live { serde_json::json!(current) } else { Value::Null };
            assert_eq!(body["live_season"], live_season, "{ctx}");
            let results = s.ok(&format!("/api/v1/results/{sport}/{model_type}?limit=1")).await;
            assert_eq!(
                results["season"], body["current_season"],
                "results default to the current season: {ctx}"
            );
        }
    }
    // On 2026-11-15 mlb is between seasons (2026 just finished), the others are live.
    let mlb = s.ok("/api/v1/results/mlb/over_under/seasons").await;
    assert_eq!(mlb["seasons"], serde_json::json!(["2026", "2025", "2024"]));
    assert_eq!(
        (
            mlb["current_season"].as_str(),
            mlb["live"].as_bool(),
            mlb["live_season"].is_null()
        ),
        (Some("2026"), Some(false), true)
    );
    let nba = s.ok("/api/v1/results/nba/won_on_spread/seasons").await;
    assert_eq!(nba["seasons"], serde_json::json!(["2026-27", "2025-26", "2024-25"]));
    assert_eq!(
        (
            nba["current_season"].as_str(),
            nba["live"].as_bool(),
            nba["live_season"].as_str()
        ),
        (Some("2026-27"), Some(true), Some("2026-27"))
    );
}

#[tokio::test]
async fn results_refuse_unknown_sports_and_model_types_and_answer_401_without_a_key() {
    let mut s = Session::start().await;
    for path in [
        "/api/v1/results/xfl/over_under",
        "/api/v1/results/nba/moneyline",
        "/api/v1/results/nba/spread/seasons",
    ] {
        let (status, body) = s.json(path).await;
        assert_error_shape(status, &body, 400);
    }
    let (status, body) = s.app.get_json("/api/v1/results/nba/over_under").await;
    assert_eq!(assert_error_shape(status, &body, 401), "API key required");
}

#[tokio::test]
async fn last_updated_is_the_season_store_publication_time_and_source_dates_bound_the_rows() {
    let mut s = Session::over(spawn_app_with(fixture_now(), stamp_publication_times).await);
    for sport in SPORTS {
        for model_type in MODEL_TYPES {
            let mut seasons = store_seasons(&s.app.store_dir, sport, model_type);
            seasons.reverse();
            for (age, season) in seasons.iter().enumerate() {
                let body = s
                    .ok(&format!(
                        "/api/v1/results/{sport}/{model_type}?season={season}&limit=100000"
                    ))
                    .await;
                assert_eq!(
                    body["last_updated"],
                    stamped_publication(age),
                    "{sport}/{model_type} {season}"
                );
                let dates: Vec<&str> = body["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r["date"].as_str().unwrap())
                    .collect();
                assert_eq!(
                    body["source_start"].as_str(),
                    dates.first().copied(),
                    "{sport}/{model_type} {season}"
                );
                assert_eq!(
                    body["source_end"].as_str(),
                    dates.last().copied(),
                    "{sport}/{model_type} {season}"
                );
            }
        }
    }
}

/// A season store that breaks the data contract is a server error on every
/// endpoint that reads it, never an empty page; other seasons still serve.
#[tokio::test]
async fn a_corrupt_season_store_is_a_server_error_never_empty_history() {
    let app = spawn_app_with(fixture_now(), |store| {
        let path = season_path(store, "nba", "won_on_points", "2025-26");
        std::fs::write(path, "date,time_est,season\n2025-13-45,25:00:00,2025-26\n").unwrap();
    })
    .await;
    let mut s = Session::over(app);
    for path in [
        "/api/v1/results/nba/won_on_points?season=2025-26",
        "/api/v1/results/nba/won_on_points/rolling",
        "/api/v1/results/nba/won_on_points/density",
        "/api/v1/strategies/nba/won_on_points?season=2025-26",
        "/api/v1/models/nba/won_on_points/tracking?season=2025-26",
    ] {
        let (status, body) = s.json(path).await;
        assert!((500..=503).contains(&status), "{path}: {status} {body}");
        assert_error_shape(status, &body, status);
    }
    let current = s.ok("/api/v1/results/nba/won_on_points").await;
    assert_eq!(current["season"], "2026-27");
    assert!(current["total"].as_u64().unwrap() > 0);
    s.ok("/api/v1/results/nba/won_on_points?season=2024-25").await;
}

/// `live` holds while the current season's latest decided game is at most
/// 14 days before today's ET date; the mlb fixture season ended 2026-10-14.
#[tokio::test]
async fn live_ends_fourteen_days_after_the_last_decided_game_counted_in_et_dates() {
    for (now, live) in [
        ("2026-10-28T17:00:00Z", true),
        // 23:00 ET on the 28th: still the 14th day.
        ("2026-10-29T03:00:00Z", true),
        ("2026-10-29T17:00:00Z", false),
    ] {
        let app = spawn_app_with(DateTime::parse_from_rfc3339(now).unwrap().into(), |_| {}).await;
        let (status, body) = app.get_authed_json("/api/v1/results/mlb/won_on_points/seasons").await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["current_season"], "2026", "{now}");
        assert_eq!(body["live"], live, "{now}: {body}");
        assert_eq!(
            body["live_season"],
            if live { Value::from("2026") } else { Value::Null },
            "{now}"
        );
    }
}

/// A newly published season with no decided game yet is listed first but is
/// not current: results and the summary stay on the season before, while the
/// strategies default to the latest season in the store.
#[tokio::test]
async fn a_new_season_without_a_decided_game_is_listed_but_not_current() {
    let app = spawn_app_with(fixture_now(), |store| {
        let text = std::fs::read_to_string(season_path(store, "nba", "won_on_points", "2026-27")).unwrap();
        let header = text.lines().next().unwrap();
        let future = text.lines().find(|l| l.starts_with("2026-11-16,")).unwrap();
        let row = future
            .replacen("2026-11-16,", "2027-10-20,", 1)
            .replacen(",2026-27,", ",2027-28,", 1);
        std::fs::write(
            season_path(store, "nba", "won_on_points", "2027-28"),
            format!("{header}\n{row}\n"),
        )
        .unwrap();
    })
    .await;
    let mut s = Session::over(app);
    let list = s.ok("/api/v1/results/nba/won_on_points/seasons").await;
    assert_eq!(
        list["seasons"],
        serde_json::json!(["2027-28", "2026-27", "2025-26", "2024-25"])
    );
    assert_eq!(
        (list["current_season"].as_str(), list["live"].as_bool()),
        (Some("2026-27"), Some(true))
    );
    assert_eq!(s.ok("/api/v1/results/nba/won_on_points").await["season"], "2026-27");
    assert_eq!(s.ok("/api/v1/summary/nba/won_on_points").await["season"], "2026-27");
    let next = s.ok("/api/v1/results/nba/won_on_points?season=2027-28").await;
    assert_eq!(
        (next["total"].as_u64(), next["results"][0]["ungraded_reason"].as_str()),
        (Some(1), Some("no_final"))
    );
    let board = s
        .ok("/api/v1/strategies/nba/won_on_points?accounting=recorded_v2")
        .await;
    assert_eq!(
        board["season"], "2027-28",
        "strategies default to the latest season in the store"
    );
    assert!(
        board["strategies"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["n"] == 0 && e["roi"].is_null())
    );
}

/// Counts the placeholder openers of a store, so the test knows it covers them.
fn zero_openers(store: &StoreFile) -> usize {
    store
        .rows
        .iter()
        .flat_map(|r| {
            r.iter()
                .filter(|(k, v)| k.starts_with("open_") && v.parse::<f64>().ok() == Some(0.0))
        })
        .count()
}

#[tokio::test]
async fn placeholder_zero_openers_are_null_in_result_rows_as_in_predictions() {
    let mut s = Session::start().await;
    let store = read_store_file(&season_path(&s.app.store_dir, "nba", "won_on_points", "2025-26"));
    assert!(zero_openers(&store) > 0, "the fixture has placeholder openers");
    let body = s
        .ok("/api/v1/results/nba/won_on_points?season=2025-26&limit=100000")
        .await;
    let by_key: HashMap<_, _> = store.rows.iter().map(|r| (csv_key(r), r)).collect();
    let mut nulled = 0;
    for row in body["results"].as_array().unwrap() {
        let stored = by_key[&game_key(row)];
        for (name, raw) in stored.iter().filter(|(k, _)| k.starts_with("open_")) {
            if raw.parse::<f64>().ok() == Some(0.0) {
                nulled += 1;
                assert!(row[name].is_null(), "{name}: {row}");
            }
        }
    }
    assert!(nulled > 0);
}

/// Rewrites a season store with `edit` applied to every row (header kept
/// unless `drop` names a column to remove).
fn rewrite_store(path: &Path, drop: Option<&str>, edit: impl Fn(&mut HashMap<String, String>)) {
    let file = read_store_file(path);
    let headers: Vec<&String> = file.headers.iter().filter(|h| Some(h.as_str()) != drop).collect();
    let mut writer = csv::Writer::from_path(path).unwrap();
    writer.write_record(headers.iter().map(|h| h.as_str())).unwrap();
    for mut row in file.rows {
        edit(&mut row);
        writer
            .write_record(headers.iter().map(|h| row[h.as_str()].as_str()))
            .unwrap();
    }
    writer.flush().unwrap();
}

#[tokio::test]
async fn result_rows_carry_a_recomputed_implied_even_when_the_store_has_no_implied_column() {
    let app = spawn_app_with(fixture_now(), |store| {
        rewrite_store(
            &season_path(store, "nba", "won_on_spread", "2025-26"),
            Some("IMPLIED"),
            |_| {},
        );
    })
    .await;
    let mut s = Session::over(app);
    let store = read_store_file(&season_path(&s.app.store_dir, "nba", "won_on_spread", "2025-26"));
    assert!(!store.headers.iter().any(|h| h == "IMPLIED"));
    let body = s
        .ok("/api/v1/results/nba/won_on_spread?season=2025-26&limit=100000")
        .await;
    let by_key: HashMap<_, _> = store.rows.iter().map(|r| (csv_key(r), r)).collect();
    let rows = body["results"].as_array().unwrap();
    assert!(!rows.is_empty());
    let mut valued = 0;
    for row in rows {
        assert_implied_and_openers("won_on_spread", row, by_key[&game_key(row)]);
        valued += usize::from(row["IMPLIED"].is_number());
        // IMPLIED is appended after the store's columns (and the outcome), before push.
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        let at = keys.iter().position(|k| *k == "IMPLIED").unwrap();
        assert_eq!(keys[at + 1], "push", "{row}");
    }
    assert!(valued > 0);
}

#[tokio::test]
async fn continuing_a_named_season_without_the_first_pages_snapshot_is_a_400() {
    let mut s = Session::start().await;
    let base = "/api/v1/results/nba/won_on_points?season=2025-26&limit=10";
    let (status, body) = s.json(&format!("{base}&offset=10")).await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(detail.contains("snapshot") && detail.contains("first page"), "{detail}");
    let first = s.ok(base).await;
    let snapshot = first["snapshot"].as_str().unwrap();
    let next = s.ok(&format!("{base}&offset=10&snapshot={snapshot}")).await;
    assert_eq!(next["offset"], 10);
    // offset=0 needs no snapshot; the current season pages without one.
    s.ok(&format!("{base}&offset=0")).await;
    s.ok("/api/v1/results/nba/won_on_points?limit=10&offset=10").await;
}

/// A final day of pushes does not keep a season live: `live` counts from the
/// latest decided (not pushed) game, while `current_season` still counts the
/// push as a game played against a posted line.
#[tokio::test]
async fn a_final_day_of_pushes_does_not_keep_the_season_live() {
    // mlb 2026 moneyline: games on 10-11, 10-12 and 10-14; make 10-14 a 4-4 tie.
    let prepare = |store: &Path| {
        rewrite_store(&season_path(store, "mlb", "won_on_points", "2026"), None, |row| {
            if row["date"] == "2026-10-14" {
                row.insert("home_score".into(), "4".into());
                row.insert("away_score".into(), "4".into());
                row.insert("won_on_points".into(), "0".into());
            }
        });
    };
    // 2026-10-27 ET: 13 days after the push, 15 after the last decided game (10-12).
    let app = spawn_app_with(crate::helpers::instant("2026-10-27T17:00:00Z"), prepare).await;
    let (status, body) = app.get_authed_json("/api/v1/results/mlb/won_on_points/seasons").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["current_season"], "2026", "{body}");
    assert_eq!(body["live"], false, "{body}");
    assert!(body["live_season"].is_null());
    // 2026-10-26 ET: exactly 14 days after 10-12, still live.
    let app = spawn_app_with(crate::helpers::instant("2026-10-26T17:00:00Z"), prepare).await;
    let (_, body) = app.get_authed_json("/api/v1/results/mlb/won_on_points/seasons").await;
    assert_eq!(body["live"], true, "{body}");
}
