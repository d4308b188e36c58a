//! Faults while the server runs: a corrupted artifact, and a graceful
//! restart. Nothing is served empty, and nothing counted is lost.

use std::time::Duration;

use linecast_api::settings::Settings;
use linecast_core::ports::request_log::RequestFilter;

use crate::helpers::{assert_error_shape, demo_customer, fixture_now, spawn_app, spawn_with_settings};

/// The store re-checks an object's version at most every 2 s.
const VERSION_TTL: Duration = Duration::from_millis(2300);

#[tokio::test]
async fn an_artifact_corrupted_while_serving_is_a_503_and_recovers_without_restart() {
    let app = spawn_app().await;
    let path = "/api/v1/predictions/nba/won_on_points";
    let (status, before) = app.get_authed_json(path).await;
    assert_eq!(status, 200);
    let file = app.store_dir.join("predictions/nba/won_on_points.csv");
    let original = std::fs::read(&file).unwrap();
    let mut corrupt = original.clone();
    corrupt.extend_from_slice(b"2026-13-45,19:00:00,a,b\n");
    std::fs::write(&file, &corrupt).unwrap();
    tokio::time::sleep(VERSION_TTL).await;

    let (status, body) = app.get_authed_json(path).await;
    assert_error_shape(status, &body, 503);
    // What does not need the broken artifact keeps working.
    let (status, _) = app.get_authed_json("/api/v1/odds/nba").await;
    assert_eq!(status, 200);
    let (status, _) = app.get_json("/api/v1/public/ml-picks/nba/spread").await;
    assert_eq!(status, 200);

    std::fs::write(&file, &original).unwrap();
    tokio::time::sleep(VERSION_TTL).await;
    let (status, after) = app.get_authed_json(path).await;
    assert_eq!(status, 200, "recovered without a restart: {after}");
    assert_eq!(before["games"], after["games"]);
}

#[tokio::test]
async fn a_graceful_restart_loses_no_quota_increment() {
    let first = spawn_app().await;
    let served = 37;
    for _ in 0..served {
        let (status, _) = first.get_authed_json("/api/v1/sports").await;
        assert_eq!(status, 200);
    }
    first.handle.stop(true).await;
    // run_until_stopped flushes after the server stops.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let keep = tempfile::tempdir().unwrap();
    let mut settings = Settings::for_tests(
        &format!("file://{}", first.store_dir.display()),
        &first.var_dir,
        fixture_now(),
    );
    settings.var_dir.clone_from(&first.var_dir);
    let second = spawn_with_settings(settings, keep, first.store_dir.clone()).await;
    let (status, usage) = second.get_authed_json("/api/v1/customers/me/usage").await;
    assert_eq!(status, 200);
    // The usage call itself is counted too.
    assert_eq!(usage["monthly_requests"], served + 1, "{usage}");
    // The request log holds its requests 10 s before a round writes them:
    // the stop wrote them all the same.
    let customer = demo_customer(&second).await;
    let logged = second
        .state
        .request_log
        .all(customer.customer_id, &RequestFilter::default(), fixture_now())
        .await
        .unwrap();
    let sports = logged.iter().filter(|r| r.route == "/api/v1/sports").count();
    assert_eq!(sports, served as usize, "{logged:?}");
}
