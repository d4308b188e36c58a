//! `GET /api/v1/data-status/{sport}` over HTTP (unauthenticated): each
//! status the fixture can be edited into, the refresh cycle, DST deadlines,
//! and no response-time field.

use std::collections::BTreeSet;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::helpers::{FIXTURE_TODAY, assert_error_shape, fixture_now, instant, spawn_app_with};

fn manifest_path(store: &Path, sport: &str) -> std::path::PathBuf {
    store.join(format!("releases/{sport}/{FIXTURE_TODAY}.json"))
}

fn edit_manifest(store: &Path, sport: &str, edit: impl FnOnce(&mut Value)) {
    let path = manifest_path(store, sport);
    let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut manifest);
    std::fs::write(path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

/// Every string of `body` that reads as an instant (recursively).
fn instants(body: &Value, out: &mut Vec<(String, DateTime<Utc>)>) {
    match body {
        Value::String(s) => {
            if let Ok(t) = DateTime::parse_from_rfc3339(s) {
                out.push((s.clone(), t.with_timezone(&Utc)));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| instants(v, out)),
        Value::Object(map) => map.values().for_each(|v| instants(v, out)),
        _ => {}
    }
}

/// Fetches the status at `now` (no key) and checks what holds for every
/// status: 200, the documented top-level fields, and no timestamp equal to
/// the response time.
async fn status_at(now: DateTime<Utc>, sport: &str, prepare: impl FnOnce(&Path)) -> Value {
    let app = spawn_app_with(now, prepare).await;
    let (status, body) = app.get_json(&format!("/api/v1/data-status/{sport}")).await;
    assert_eq!(status, 200, "{body}");
    let top: BTreeSet<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    let expected = BTreeSet::from([
        "sport",
        "slate_date",
        "status",
        "operational",
        "degradation_reason",
        "refresh_pending",
        "deadline",
        "release_id",
        "source_as_of",
        "markets",
        "artifacts",
    ]);
    assert_eq!(top, expected, "{body}");
    assert_eq!(body["sport"], sport);
    let mut found = Vec::new();
    instants(&body, &mut found);
    assert!(!found.is_empty());
    // The deadline is derived from the slate date; a test may sit on it.
    for (text, t) in found.iter().filter(|(text, _)| body["deadline"] != text.as_str()) {
        assert_ne!(*t, now, "{text} is the response time: {body}");
    }
    for market in body["markets"].as_object().unwrap().values() {
        let keys: BTreeSet<&str> = market.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            BTreeSet::from([
                "status",
                "published_at",
                "release_id",
                "source_as_of",
                "refresh_pending",
                "refresh_deadline",
                "held_games"
            ]),
            "{market}"
        );
    }
    body
}

fn assert_status(body: &Value, status: &str, operational: bool, reason: Option<&str>) {
    assert_eq!(body["status"], status, "{body}");
    assert_eq!(body["operational"], operational, "{body}");
    assert_eq!(body["degradation_reason"].as_str(), reason, "{body}");
}

#[tokio::test]
async fn a_completed_run_after_the_deadline_is_fresh_with_the_release_and_artifact_times() {
    let body = status_at(fixture_now(), "nba", |_| {}).await;
    assert_status(&body, "fresh", true, None);
    assert_eq!(body["slate_date"], FIXTURE_TODAY);
    assert_eq!(body["refresh_pending"], false);
    assert_eq!(body["release_id"], "nba-2026-11-15-r1");
    assert_eq!(body["source_as_of"], "2026-11-15T12:55:00Z");
    assert_eq!(body["deadline"], "2026-11-15T15:15:00Z", "10:15 EST");
    assert_eq!(
        body["artifacts"],
        serde_json::json!({
            "predictions": "2026-11-15T13:30:00Z", "results": "2026-11-15T13:31:00Z",
            "summaries": "2026-11-15T13:32:00Z", "model_tracking": "2026-11-15T13:33:30Z"
        })
    );
    let markets = body["markets"].as_object().unwrap();
    assert_eq!(
        markets.keys().map(String::as_str).collect::<Vec<_>>(),
        ["over_under", "won_on_points", "won_on_spread"]
    );
    for (name, market) in markets {
        assert_eq!(market["status"], "fresh", "{name}");
        assert_eq!(market["published_at"], "2026-11-15T13:30:00Z");
        assert_eq!(market["release_id"], "nba-2026-11-15-r1");
        assert_eq!(market["refresh_pending"], false);
        assert_eq!(market["refresh_deadline"], Value::Null);
    }
    assert_eq!(
        markets["won_on_points"]["held_games"],
        serde_json::json!(["2026-11-15 18:00:00 dallas_mavericks@charlotte_hornets"])
    );
    assert_eq!(markets["over_under"]["held_games"], serde_json::json!([]));
}

#[tokio::test]
async fn the_endpoint_is_public_and_an_unknown_sport_is_a_400() {
    let app = spawn_app_with(fixture_now(), |_| {}).await;
    for sport in ["mlb", "nba", "nfl", "nhl", "ncaaf", "ncaab"] {
        let (status, body) = app.get_json(&format!("/api/v1/data-status/{sport}")).await;
        assert_eq!(status, 200, "{sport} without a key: {body}");
        assert!(
            ["fresh", "off_day"].contains(&body["status"].as_str().unwrap()),
            "{sport}: {body}"
        );
        assert_eq!(body["operational"], true, "{sport}");
    }
    let (status, body) = app.get_json("/api/v1/data-status/polo").await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(detail.contains("sport") && detail.contains("polo"), "{detail}");
}

#[tokio::test]
async fn before_the_deadline_with_no_manifest_today_is_pending_and_serves_yesterdays_release() {
    // 09:00 ET.
    let body = status_at(instant("2026-11-15T14:00:00Z"), "nba", |store| {
        std::fs::remove_file(manifest_path(store, "nba")).unwrap();
    })
    .await;
    assert_status(&body, "pending", true, None);
    assert_eq!(body["release_id"], "nba-2026-11-14-r1", "what clients are still served");
}

#[tokio::test]
async fn after_the_deadline_with_no_manifest_today_is_stale_release_missing() {
    let body = status_at(fixture_now(), "nba", |store| {
        std::fs::remove_file(manifest_path(store, "nba")).unwrap();
    })
    .await;
    assert_status(&body, "stale", false, Some("release_missing"));
}

#[tokio::test]
async fn mlb_in_november_is_an_off_day_and_operational() {
    let body = status_at(fixture_now(), "mlb", |_| {}).await;
    assert_status(&body, "off_day", true, None);
    assert_eq!(body["release_id"], "mlb-2026-11-15-r1");
    assert_eq!(
        body["markets"],
        serde_json::json!({}),
        "no market is expected on an off day"
    );
}

#[tokio::test]
async fn an_unreadable_manifest_is_unknown_and_not_operational() {
    let body = status_at(fixture_now(), "nba", |store| {
        std::fs::write(manifest_path(store, "nba"), b"{ not json").unwrap();
    })
    .await;
    assert_status(&body, "unknown", false, Some("release_unavailable"));
    for market in body["markets"].as_object().unwrap().values() {
        assert_eq!(market["status"], "unknown", "{market}");
    }
}

/// Newer odds for nba's totals arrived at 15:00Z, after the 13:30Z rebuild.
fn late_odds(store: &Path) {
    edit_manifest(store, "nba", |m| {
        m["markets"]["over_under"]["odds_arrived_at"] = "2026-11-15T15:00:00Z".into();
    });
}

#[tokio::test]
async fn newer_odds_without_a_rebuild_mark_a_pending_refresh_with_its_deadline() {
    let body = status_at(instant("2026-11-15T16:20:00Z"), "nba", late_odds).await;
    assert_status(&body, "fresh", true, None);
    assert_eq!(body["refresh_pending"], true);
    let totals = &body["markets"]["over_under"];
    assert_eq!(totals["status"], "fresh");
    assert_eq!(totals["refresh_pending"], true);
    assert_eq!(
        totals["refresh_deadline"], "2026-11-15T17:00:00Z",
        "one two-hour odds cycle after arrival"
    );
    let moneyline = &body["markets"]["won_on_points"];
    assert_eq!(moneyline["refresh_pending"], false);
    assert_eq!(moneyline["refresh_deadline"], Value::Null);
}

#[tokio::test]
async fn a_refresh_past_its_deadline_is_stale_predictions_stale_yet_operational() {
    let body = status_at(instant("2026-11-15T17:20:00Z"), "nba", late_odds).await;
    assert_status(&body, "stale", true, Some("predictions_stale"));
    assert_eq!(body["refresh_pending"], true);
    assert_eq!(body["markets"]["over_under"]["status"], "partial", "the late market");
    assert_eq!(body["markets"]["won_on_points"]["status"], "fresh");
}

/// Odds kept arriving (latest 16:50Z) without a rebuild since 13:30Z; the
/// first unabsorbed arrival was 15:00Z.
fn odds_pending_since_15(store: &Path) {
    edit_manifest(store, "nba", |m| {
        m["markets"]["over_under"]["odds_arrived_at"] = "2026-11-15T16:50:00Z".into();
        m["markets"]["over_under"]["odds_pending_since"] = "2026-11-15T15:00:00Z".into();
    });
}

#[tokio::test]
async fn the_refresh_deadline_counts_from_the_first_unabsorbed_odds_not_the_latest() {
    let body = status_at(instant("2026-11-15T16:55:00Z"), "nba", odds_pending_since_15).await;
    assert_eq!(
        body["markets"]["over_under"]["refresh_deadline"],
        "2026-11-15T17:00:00Z"
    );
    assert_status(&body, "fresh", true, None);
    // 17:20Z: 2 h 20 min after the first unabsorbed odds, 30 min after the latest.
    let body = status_at(instant("2026-11-15T17:20:00Z"), "nba", odds_pending_since_15).await;
    assert_status(&body, "stale", true, Some("predictions_stale"));
    assert_eq!(body["markets"]["over_under"]["status"], "partial");
}

#[tokio::test]
async fn an_unreadable_predictions_object_makes_its_market_unknown_and_the_sport_not_operational() {
    let body = status_at(fixture_now(), "nba", |store| {
        std::fs::write(store.join("predictions/nba/over_under.csv"), "date,oops\n1,2,3\n").unwrap();
    })
    .await;
    assert_eq!(body["markets"]["over_under"]["status"], "unknown", "{body}");
    assert_eq!(body["markets"]["won_on_points"]["status"], "fresh", "{body}");
    assert_status(&body, "unknown", false, Some("release_unavailable"));
}

#[tokio::test]
async fn the_deadline_is_10_15_new_york_time_across_both_dst_changes() {
    for (now, slate, deadline) in [
        // 14:30Z each day: 09:30 EST (before) or 10:30 EDT (after the deadline).
        ("2026-03-07T14:30:00Z", "2026-03-07", "2026-03-07T15:15:00Z"), // EST, UTC-5
        ("2026-03-08T14:30:00Z", "2026-03-08", "2026-03-08T14:15:00Z"), // EDT from 02:00 that day
        ("2026-10-31T14:30:00Z", "2026-10-31", "2026-10-31T14:15:00Z"), // EDT, UTC-4
        ("2026-11-01T14:30:00Z", "2026-11-01", "2026-11-01T15:15:00Z"), // EST from 02:00 that day
    ] {
        let body = status_at(instant(now), "nhl", |_| {}).await;
        assert_eq!(body["slate_date"], slate, "{now}");
        assert_eq!(body["deadline"], deadline, "{now}");
        let before = instant(now) < instant(deadline);
        assert_eq!(
            body["status"],
            if before { "pending" } else { "stale" },
            "{now}: no manifest that day: {body}"
        );
    }
    // Just either side of the deadline on the spring-forward day.
    let body = status_at(instant("2026-03-08T14:14:59Z"), "nhl", |_| {}).await;
    assert_status(&body, "pending", true, None);
    let body = status_at(instant("2026-03-08T14:15:00Z"), "nhl", |_| {}).await;
    assert_status(&body, "stale", false, Some("release_missing"));
}
