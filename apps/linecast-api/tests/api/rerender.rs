//! A served body follows every object it depends on, for every GET of the
//! serving path. The routes are generated from the route table: every GET
//! row served `Read` (rendered once, cached) or `Fresh` (made per request)
//! whose bodies a cache may keep (not `no-store`: those are the caller's
//! own account and the probes), so a route added later is covered without
//! listing it here. The oracle is a fresh instance over the
//! same store: after each change of each object, a warm instance that
//! served (and cached) every route before the change must serve exactly
//! what a fresh one serves. Nothing here knows which route reads which
//! object.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use linecast_api::settings::{FreshnessWindows, Settings};

use crate::helpers::{TestApp, copy_fixture, fixture_now, fixtures_dir, spawn_with_settings};

/// A value for each path parameter the cached routes take.
fn path_value(name: &str) -> &'static str {
    match name {
        "sport" => "nba",
        "model_type" => "won_on_points",
        "market" => "moneyline",
        "strategy_id" => "edge-pb",
        "date" | "date_str" => "2026-11-14",
        "game_id" => "nba-20261115-dallas_mavericks-charlotte_hornets",
        other => panic!("no test value for path parameter {other}: add one here"),
    }
}

/// The first value a required query parameter's schema allows (its enum,
/// through a component reference).
fn first_allowed(doc: &serde_json::Value, schema: &serde_json::Value) -> String {
    let schema = match schema["$ref"].as_str() {
        Some(reference) => &doc["components"]["schemas"][reference.trim_start_matches("#/components/schemas/")],
        None => schema,
    };
    schema["enum"][0]
        .as_str()
        .unwrap_or_else(|| panic!("no value for a required query parameter of schema {schema}"))
        .to_owned()
}

/// Every GET route of the table whose bodies a cache may keep, with its
/// path parameters and required query parameters filled, and whether it is
/// served by the read pipeline (its bodies depend on stored objects, so
/// some change must reach it; a `Fresh` body may be a constant listing).
fn cached_routes() -> Vec<(String, bool)> {
    use linecast_api::endpoint::{NO_STORE, Serving};
    let doc = serde_json::to_value(linecast_api::openapi::document()).unwrap();
    let mut routes = Vec::new();
    for row in linecast_api::routes::table::ENDPOINTS {
        let served = match row.serving {
            Serving::Read(_) => true,
            Serving::Fresh(cache_control) => cache_control != NO_STORE,
            Serving::Stream | Serving::Write | Serving::Page(_) | Serving::Description(_) => false,
        };
        // A game's history, the history export, calibration (its CLV on
        // kept prices) and the public ledger read the release log of the
        // instance's own database, not the store alone, so a fresh
        // instance is no reference for them: their freshness after a new
        // release is pinned where releases are written (releases.rs,
        // ledger.rs).
        let from_release_log = row.path.starts_with("/api/v1/games/")
            || row.path.starts_with("/api/v1/public/ledger")
            || row.path.ends_with("/history/export")
            || row.path.ends_with("/calibration");
        if row.method != actix_web::http::Method::GET || !served || from_release_log {
            continue;
        }
        let template = row.path;
        let pipeline = matches!(row.serving, Serving::Read(_));
        let get = &doc["paths"][template]["get"];
        let path: Vec<String> = template
            .split('/')
            .map(
                |segment| match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    Some(name) => path_value(name).to_owned(),
                    None => segment.to_owned(),
                },
            )
            .collect();
        let query: Vec<String> = get["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["in"] == "query" && p["required"] == true)
            .map(|p| format!("{}={}", p["name"].as_str().unwrap(), first_allowed(&doc, &p["schema"])))
            .collect();
        let path = path.join("/");
        routes.push((
            if query.is_empty() {
                path
            } else {
                format!("{path}?{}", query.join("&"))
            },
            pipeline,
        ));
    }
    routes
}

/// The app over `store` with no version or resolution window, so a change
/// is visible to the next request (the windows are timing, not what this
/// test is about).
async fn instance(store: &Path) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = Settings::for_tests(&format!("file://{}", store.display()), dir.path(), fixture_now());
    settings.freshness_windows = FreshnessWindows {
        version_ttl: std::time::Duration::ZERO,
        resolution_ttl: std::time::Duration::ZERO,
        markets_ttl: std::time::Duration::ZERO,
    };
    // Thousands of calls on one frozen clock: a burst that never runs out.
    settings.rate_burst = 1_000_000;
    spawn_with_settings(settings, dir, store.to_path_buf()).await
}

/// Status and body; an error body only by status (it carries a timestamp).
async fn served(app: &TestApp, path: &str) -> (u16, Vec<u8>) {
    let res = app.get_authed(path).await;
    let status = res.status().as_u16();
    let body = res.bytes().await.unwrap().to_vec();
    (status, if status == 200 { body } else { Vec::new() })
}

async fn serve_all(app: &TestApp, routes: &[String]) -> Vec<(u16, Vec<u8>)> {
    let mut out = Vec::with_capacity(routes.len());
    for route in routes {
        out.push(served(app, route).await);
    }
    out
}

/// The objects the nba `won_on_points` routes could read (every nba object
/// but other markets' predictions and seasons).
fn nba_objects(store: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut all = Vec::new();
    walk(store, &mut all);
    let mut objects: Vec<PathBuf> = all
        .into_iter()
        .filter(|p| {
            let key = p.strip_prefix(store).unwrap().to_string_lossy().into_owned();
            let nba = key.contains("nba");
            let other_market = ["over_under", "won_on_spread"].iter().any(|m| key.contains(m));
            // The archive is linecast's own, written once and never edited.
            nba && !other_market && !key.starts_with("datasets/") && !key.starts_with("archive/")
        })
        .collect();
    objects.sort();
    objects
}

/// A new version of the object with other content: a CSV loses its last
/// row; a release manifest loses its completion (its run is in progress).
fn republish(object: &Path) {
    let text = std::fs::read_to_string(object).unwrap();
    let changed = if object.extension().is_some_and(|e| e == "json") {
        let mut manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
        manifest["run_completed_at"] = serde_json::Value::Null;
        serde_json::to_string_pretty(&manifest).unwrap()
    } else {
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 2, "{} has a row to drop", object.display());
        lines[..lines.len() - 1].join("\n") + "\n"
    };
    assert_ne!(changed, text);
    std::fs::write(object, changed).unwrap();
}

#[tokio::test]
async fn every_cached_route_serves_a_fresh_body_after_any_object_it_reads_changes() {
    let (routes, pipeline): (Vec<String>, Vec<bool>) = cached_routes().into_iter().unzip();
    assert!(
        pipeline.iter().filter(|p| **p).count() >= 13,
        "the cached routes: {routes:?}"
    );
    assert!(routes.len() >= 20, "the routes: {routes:?}");
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    copy_fixture(&fixtures_dir(), &store);
    let warm = instance(&store).await;
    let objects = nba_objects(&store);
    assert!(objects.len() >= 15, "{objects:?}");
    // Per route, the changes that changed its body (the check is only as
    // good as the changes that reach each route).
    let mut reached: BTreeMap<&str, usize> = routes
        .iter()
        .zip(&pipeline)
        .filter(|(_, p)| **p)
        .map(|(r, _)| (r.as_str(), 0))
        .collect();

    for object in &objects {
        let original = std::fs::read(object).unwrap();
        for change in ["republished", "deleted"] {
            let before = serve_all(&warm, &routes).await;
            if change == "deleted" {
                std::fs::remove_file(object).unwrap();
            } else {
                republish(object);
            }
            let after = serve_all(&warm, &routes).await;
            let fresh = instance(&store).await;
            let expected = serve_all(&fresh, &routes).await;
            fresh.handle.stop(false).await;
            for (i, route) in routes.iter().enumerate() {
                assert_eq!(
                    after[i].0,
                    expected[i].0,
                    "{route} after {} was {change}: status",
                    object.display()
                );
                assert!(
                    after[i].1 == expected[i].1,
                    "{route} after {} was {change}: a stale body was served",
                    object.display()
                );
                if expected[i] != before[i]
                    && let Some(n) = reached.get_mut(route.as_str())
                {
                    *n += 1;
                }
            }
            std::fs::write(object, &original).unwrap();
        }
    }
    let unreached: Vec<_> = reached.iter().filter(|(_, n)| **n == 0).collect();
    assert!(unreached.is_empty(), "no change reached {unreached:?}");
}
