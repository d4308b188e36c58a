//! Render once, serve bytes: cached bodies carry strong ETags, 304 answers
//! only an exact match (and is still counted), content negotiation follows
//! Accept-Encoding, a republished artifact changes the body at the next
//! version check, and a cached body is never served after the instant it
//! would change (checked against a fresh, cache-less app at each instant).

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use linecast_api::settings::Settings;
use linecast_core::ManualClock;

use crate::helpers::{
    TestApp, copy_fixture, fixture_now, fixtures_dir, instant, spawn_app, spawn_app_with, spawn_with_settings,
};

const PREDICTIONS: &str = "/api/v1/predictions/nba/won_on_points";

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    app.get_keyed(path, &app.api_key, headers).await
}

#[tokio::test]
async fn a_body_has_a_strong_etag_and_304_answers_only_an_exact_match_still_counted() {
    let app = spawn_app().await;
    let first = get(&app, PREDICTIONS, &[]).await;
    assert_eq!(first.status(), 200);
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && !etag.starts_with("W/"),
        "{etag}"
    );
    assert_eq!(first.headers()["vary"], "Accept-Encoding");
    assert_eq!(first.headers()["cache-control"], "private, no-cache");
    let remaining: u64 = first.headers()["x-ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let body = first.bytes().await.unwrap();

    let again = get(&app, PREDICTIONS, &[("If-None-Match", &etag)]).await;
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["etag"], etag.as_str());
    let counted: u64 = again.headers()["x-ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(counted, remaining - 1, "a 304 is authenticated and counted");
    assert!(again.bytes().await.unwrap().is_empty());

    let listed = get(&app, PREDICTIONS, &[("If-None-Match", &format!("\"nope\", {etag}"))]).await;
    assert_eq!(listed.status(), 304);
    for other in [
        format!("W/{etag}"),
        etag[..etag.len() - 2].to_owned() + "\"",
        "\"0\"".to_owned(),
    ] {
        let r = get(&app, PREDICTIONS, &[("If-None-Match", &other)]).await;
        assert_eq!(r.status(), 200, "{other}");
        assert_eq!(r.bytes().await.unwrap(), body);
    }
    // Without a key, a matching tag still gets the gate's 401.
    let r = app
        .client
        .get(format!("{}{PREDICTIONS}", app.address))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn accept_encoding_picks_the_variant_and_every_variant_is_the_same_json() {
    let app = spawn_app().await;
    let identity = get(&app, PREDICTIONS, &[]).await;
    assert!(identity.headers().get("content-encoding").is_none());
    let json = identity.bytes().await.unwrap();
    let gz = get(&app, PREDICTIONS, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    let gz_tag = gz.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(crate::helpers::gunzip(&gz.bytes().await.unwrap()), json);
    let br = get(&app, PREDICTIONS, &[("Accept-Encoding", "gzip;q=0.5, br")]).await;
    assert_eq!(br.headers()["content-encoding"], "br");
    let br_tag = br.headers()["etag"].to_str().unwrap().to_owned();
    let mut out = Vec::new();
    brotli::Decompressor::new(&br.bytes().await.unwrap()[..], 4096)
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, json);
    assert_ne!(gz_tag, br_tag, "each coding is its own representation");
    let refused = get(&app, PREDICTIONS, &[("Accept-Encoding", "gzip;q=0, br;q=0")]).await;
    assert!(refused.headers().get("content-encoding").is_none());
    assert_eq!(refused.bytes().await.unwrap(), json);
}

#[tokio::test]
async fn a_republished_artifact_changes_the_etag_and_the_body_at_the_next_version_check() {
    let app = spawn_app().await;
    let path = "/api/v1/predictions/nba/won_on_points?upcoming_only=false";
    let before = get(&app, path, &[]).await;
    let etag = before.headers()["etag"].to_str().unwrap().to_owned();
    let before: serde_json::Value = before.json().await.unwrap();
    let csv = app.store_dir.join("predictions/nba/won_on_points.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let first_blend = before["games"][0]["predictions"]["BLEND"].as_f64().unwrap();
    let republished = text.replacen(&format!("{first_blend:.4}"), "0.1234", 1);
    assert_ne!(republished, text, "the fixture has the first game's BLEND");
    std::fs::write(&csv, republished).unwrap();
    let mut changed = None;
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let r = get(&app, path, &[("If-None-Match", &etag)]).await;
        if r.status() == 200 {
            changed = Some(r);
            break;
        }
        assert_eq!(r.status(), 304);
    }
    let r = changed.expect("the new generation is served within the version re-check");
    assert_ne!(r.headers()["etag"].to_str().unwrap(), etag);
    let after: serde_json::Value = r.json().await.unwrap();
    assert_eq!(after["games"][0]["predictions"]["BLEND"], 0.1234);
}

/// A store where nba's next slate (the 16th) completes at 13:34 UTC.
fn with_next_slate(store: &std::path::Path) {
    let today = store.join("releases/nba/2026-11-15.json");
    let text = std::fs::read_to_string(&today).unwrap();
    std::fs::write(
        store.join("releases/nba/2026-11-16.json"),
        text.replace("2026-11-15", "2026-11-16"),
    )
    .unwrap();
}

async fn body_at_fresh_app(store: &std::path::Path, now: DateTime<Utc>, path: &str) -> serde_json::Value {
    // The same store (publication times included), its own accounts.
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings::for_tests(&format!("file://{}", store.display()), dir.path(), now);
    let fresh = spawn_with_settings(settings, dir, store.to_path_buf()).await;
    let r = get(&fresh, path, &[]).await;
    assert_eq!(r.status(), 200, "{path} at {now}");
    let body = r.json().await.unwrap();
    fresh.handle.stop(false).await;
    body
}

#[tokio::test]
async fn a_cached_body_is_never_served_after_the_instant_it_would_change() {
    let clock = Arc::new(ManualClock::new(fixture_now()));
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    copy_fixture(&fixtures_dir(), &store_dir);
    with_next_slate(&store_dir);
    let mut settings = Settings::for_tests(&format!("file://{}", store_dir.display()), dir.path(), fixture_now());
    settings.manual_clock = Some(clock.clone());
    let app = spawn_with_settings(settings, dir, store_dir.clone()).await;
    let paths = [
        PREDICTIONS,
        "/api/v1/odds/nba",
        "/api/v1/results/nba/won_on_points/seasons",
        "/api/v1/results/nba/won_on_points/team-form",
        "/api/v1/results/nba/won_on_points/density",
        "/api/v1/summary/nba/won_on_points",
        "/api/v1/public/ml-picks/nba/moneyline",
    ];
    let instants = [
        "2026-11-15T17:00:00Z", // noon ET on the 15th
        "2026-11-16T04:59:59Z", // one second before ET midnight
        "2026-11-16T05:00:01Z", // just after: the 16th in ET
        "2026-11-16T13:40:00Z", // after the 16th's run completed
        "2026-11-16T15:16:00Z", // after the 10:15 ET deadline
    ];
    let mut seen = std::collections::HashMap::new();
    for at in instants {
        clock.set(instant(at));
        for path in paths {
            // Twice: the second is surely a cache hit if anything is cached.
            for _ in 0..2 {
                let r = get(&app, path, &[]).await;
                assert_eq!(r.status(), 200, "{path} at {at}");
                let served: serde_json::Value = r.json().await.unwrap();
                let expected = body_at_fresh_app(&store_dir, instant(at), path).await;
                assert_eq!(served, expected, "{path} at {at}: a stale body was served");
                seen.entry(path).or_insert_with(Vec::new).push(served);
            }
        }
    }
    let predictions = &seen[PREDICTIONS];
    assert!(
        predictions.windows(2).any(|w| w[0] != w[1]),
        "the instants cross a slate change, so the test exercises one"
    );
}

#[tokio::test]
async fn a_results_page_of_a_whole_season_is_served_from_the_cache_the_second_time() {
    let app = spawn_app_with(fixture_now(), |_| {}).await;
    let path = "/api/v1/results/nba/won_on_points?season=2025-26&limit=100000";
    let first = get(&app, path, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(first.status(), 200);
    let held = app.state.responses.bodies.entry_count();
    let tag = first.headers()["etag"].to_str().unwrap().to_owned();
    let second = get(&app, path, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(second.headers()["etag"].to_str().unwrap(), tag);
    assert_eq!(first.bytes().await.unwrap(), second.bytes().await.unwrap());
    assert_eq!(
        app.state.responses.bodies.entry_count(),
        held,
        "no second body was rendered"
    );
}
