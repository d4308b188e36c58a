//! One memory budget: caches weigh what they hold by measured heap size (the
//! server counts the heap per thread), each stays within its share of
//! `LINECAST_CACHE_BYTES`, and `/metrics` shows every share.

use linecast_api::settings::Settings;
use linecast_core::memory::Budget;

use crate::helpers::{TestApp, copy_fixture, fixture_now, fixtures_dir, spawn_app, spawn_with_settings};

const SEASON: &str = "/api/v1/results/nba/won_on_points?season=2025-26&limit=1000";

async fn ok(app: &TestApp, path: &str) {
    let r = app.get_authed(path).await;
    assert_eq!(r.status(), 200, "{path}");
}

#[tokio::test]
async fn a_graded_season_weighs_its_measured_heap_which_grows_as_aggregates_are_computed() {
    let app = spawn_app().await;
    assert!(linecast_heap::is_active(), "the server counts the heap");
    ok(&app, SEASON).await;
    let only = app.state.history.cache_stats();
    assert_eq!(only.entries, 1);
    ok(&app, "/api/v1/summary/nba/won_on_points?season=2025-26").await;
    let graded = app.state.history.cache_stats();
    ok(&app, "/api/v1/models/nba/won_on_points/tracking?season=2025-26").await;
    let aggregated = app.state.history.cache_stats();
    assert_eq!(aggregated.entries, graded.entries, "no season was added");
    // An estimate from the object size would not move; the measured weight
    // grows by the tracking now held.
    assert!(aggregated.bytes > graded.bytes, "{graded:?} then {aggregated:?}");
    let graded = only;
    // The same season store, weighed by its object size alone, would be 8x
    // the file plus 4 KiB: the measured figure is the heap really held.
    let file = std::fs::metadata(app.store_dir.join("seasons/nba/won_on_points/2025-26.csv"))
        .unwrap()
        .len();
    assert_ne!(graded.bytes, file * 8 + 4096);
    assert!(graded.bytes > file, "parsed rows and grades hold more than the CSV");
}

#[tokio::test]
async fn every_cache_stays_within_its_share_of_one_small_budget() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    copy_fixture(&fixtures_dir(), &store_dir);
    let mut settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), fixture_now());
    // Smaller than two graded fixture seasons.
    settings.cache_bytes = 96 * 1024;
    let budget = Budget::new(settings.cache_bytes);
    let app = spawn_with_settings(settings, dir, store_dir).await;
    for model in ["over_under", "won_on_points", "won_on_spread"] {
        for season in ["2024-25", "2025-26", "2026-27"] {
            let path = format!("/api/v1/results/nba/{model}?season={season}&limit=1000");
            let r = app.get_authed(&path).await;
            assert!(matches!(r.status().as_u16(), 200 | 404), "{path}: {}", r.status());
            ok(&app, &format!("/api/v1/summary/nba/{model}")).await;
        }
    }
    let seasons = app.state.history.cache_stats();
    assert_eq!(seasons.budget, budget.seasons());
    assert!(seasons.evictions > 0, "{seasons:?}");
    assert!(
        seasons.bytes <= seasons.budget || seasons.entries == 1,
        "over its share with more than the season just graded: {seasons:?}"
    );
    let bodies = app.state.responses.bodies.stats();
    assert_eq!(bodies.budget, budget.bodies());
    let rows = app.state.responses.rows.stats();
    assert_eq!(rows.budget, budget.rows());
    assert_eq!(
        budget.artifacts() + budget.seasons() + budget.bodies() + budget.rows(),
        96 * 1024,
        "the shares are one budget"
    );
}

#[tokio::test]
async fn metrics_show_each_cache_s_share_weight_entries_and_evictions() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    copy_fixture(&fixtures_dir(), &store_dir);
    let mut settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), fixture_now());
    settings.metrics_bind = Some("127.0.0.1:0".parse().unwrap());
    let built = linecast_api::startup::Application::build(settings).await.unwrap();
    let port = built.metrics_port().unwrap();
    let app = TestApp::from_built(built, dir, store_dir);
    ok(&app, SEASON).await;
    let text = crate::helpers::metrics_text(port).await;
    for name in [
        "linecast_cache_budget_bytes",
        "linecast_cache_bytes",
        "linecast_cache_entries",
        "linecast_cache_evictions",
    ] {
        for cache in ["artifacts", "seasons", "bodies", "rows"] {
            let series = format!("{name}{{cache=\"{cache}\"}}");
            assert!(text.contains(&series), "{series} missing from\n{text}");
        }
    }
    let share = format!(
        "linecast_cache_budget_bytes{{cache=\"seasons\"}} {}",
        Budget::new(Settings::for_tests("memory://", std::path::Path::new("."), fixture_now()).cache_bytes).seasons()
    );
    assert!(text.contains(&share), "{share} missing");
}
