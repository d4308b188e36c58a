//! Exact instants: every publication instant the API prints, passed back
//! as `as_of`, reads that very release (digest for digest), down to the
//! microsecond; `/odds` says which games have started at the instant it
//! is judged at. The test writes its own predictions and odds at instants
//! it chooses, one microsecond apart where it matters.

use serde_json::Value;

use crate::helpers::{TestApp, fixture_now, publish, sha256, spawn_app_with};

const PREDICTIONS: &str = "predictions/nba/won_on_points.csv";
const ODDS: &str = "odds/nba.csv";
const HEADER: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,open_home_money_line,BLEND\n";
/// 19:30 ET on the 15th: 00:30 UTC on the 16th, after the test's now
/// (17:00 UTC on the 15th).
const GAME: &str = "nba-20261115-brooklyn_nets-boston_celtics";

/// Three versions; the last two one microsecond apart.
const INSTANTS: [&str; 3] = [
    "2026-11-15T08:00:00.250117Z",
    "2026-11-15T10:16:04.460357Z",
    "2026-11-15T10:16:04.460358Z",
];

fn version(blend: &str) -> Vec<u8> {
    format!("{HEADER}2026-11-15,19:30:00,brooklyn_nets,boston_celtics,120,-140,110,-130,{blend}\n").into_bytes()
}

async fn written() -> (TestApp, Vec<Vec<u8>>) {
    let versions = vec![version("0.5811"), version("0.5902"), version("0.6013")];
    let first = versions[0].clone();
    let app = spawn_app_with(fixture_now(), move |store| {
        publish(store, PREDICTIONS, &first, INSTANTS[0]);
    })
    .await;
    app.keep_releases().await;
    for (bytes, when) in versions.iter().zip(INSTANTS).skip(1) {
        publish(&app.store_dir, PREDICTIONS, bytes, when);
        app.keep_releases().await;
    }
    (app, versions)
}

/// The digest `as_of=instant` reads, through the predictions endpoint.
async fn digest_at(app: &TestApp, instant: &str) -> String {
    let encoded = instant.replace('+', "%2B");
    let (status, body) = app
        .get_authed_json(&format!(
            "/api/v1/predictions/nba/won_on_points?upcoming_only=false&as_of={encoded}"
        ))
        .await;
    assert_eq!(status, 200, "{instant}: {body}");
    body["release"]["digest"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn every_printed_publication_instant_read_back_as_as_of_reads_that_release() {
    let (app, versions) = written().await;
    let digests: Vec<String> = versions.iter().map(|v| sha256(v)).collect();

    // The game's history prints each release's instant with every digit.
    let (status, history) = app
        .get_authed_json(&format!("/api/v1/games/{GAME}/history?model_type=won_on_points"))
        .await;
    assert_eq!(status, 200, "{history}");
    let entries = history["releases"].as_array().unwrap();
    let printed: Vec<&str> = entries.iter().map(|e| e["published_at"].as_str().unwrap()).collect();
    assert_eq!(printed, INSTANTS, "every digit, to the microsecond");
    for (entry, digest) in entries.iter().zip(&digests) {
        assert_eq!(entry["digest"], digest.as_str());
        let instant = entry["published_at"].as_str().unwrap();
        assert_eq!(&digest_at(&app, instant).await, digest, "history's {instant}");
    }

    // An as_of answer's own release stamp and predictions_date read back
    // the same release; so does the current answer's predictions_date.
    for (instant, digest) in INSTANTS.iter().zip(&digests) {
        let (_, body) = app
            .get_authed_json(&format!(
                "/api/v1/predictions/nba/won_on_points?upcoming_only=false&as_of={instant}"
            ))
            .await;
        for printed in [&body["release"]["published_at"], &body["predictions_date"]] {
            let printed = printed.as_str().unwrap();
            assert_eq!(printed, *instant);
            assert_eq!(&digest_at(&app, printed).await, digest, "{printed}");
        }
    }
    let (_, current) = app
        .get_authed_json("/api/v1/predictions/nba/won_on_points?upcoming_only=false")
        .await;
    let date = current["predictions_date"].as_str().unwrap();
    assert_eq!(date, INSTANTS[2]);
    assert_eq!(digest_at(&app, date).await, digests[2]);
    // One microsecond before the last release reads the one before it.
    assert_eq!(digest_at(&app, "2026-11-15T10:16:04.460357999Z").await, digests[1]);
}

#[tokio::test]
async fn odds_say_which_games_have_started_at_the_instant_they_are_judged_at() {
    let header = "match_id,date,time_est,away_team,home_team,away_money_line,home_money_line,last_updated\n";
    // 11:00 ET is 16:00 UTC, an hour before the test's now; 19:30 ET is
    // 00:30 UTC the next day.
    let odds = format!(
        "{header}m1,2026-11-15,11:00:00,new_york_knicks,miami_heat,130,-150,2026-11-15 07:00:00\n\
m2,2026-11-15,19:30:00,brooklyn_nets,boston_celtics,120,-140,2026-11-15 07:00:00\n"
    );
    let bytes = odds.clone().into_bytes();
    let app = spawn_app_with(fixture_now(), move |store| {
        publish(store, ODDS, &bytes, "2026-11-15T07:30:00Z");
    })
    .await;
    app.keep_releases().await;
    let flags = |body: &Value| -> Vec<(String, String, bool)> {
        body["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                (
                    g["match_id"].as_str().unwrap().to_owned(),
                    g["starts_at"].as_str().unwrap().to_owned(),
                    g["started"].as_bool().unwrap(),
                )
            })
            .collect()
    };
    let (status, now) = app.get_authed_json("/api/v1/odds/nba").await;
    assert_eq!(status, 200, "{now}");
    assert_eq!(
        flags(&now),
        [
            ("m1".to_owned(), "2026-11-15T16:00:00Z".to_owned(), true),
            ("m2".to_owned(), "2026-11-16T00:30:00Z".to_owned(), false),
        ]
    );
    // As of 15:59:59 UTC neither had started; as of 16:00:00 the first had
    // (a game starting at the very instant has started).
    let (_, before) = app.get_authed_json("/api/v1/odds/nba?as_of=2026-11-15T15:59:59Z").await;
    assert_eq!(flags(&before).iter().map(|f| f.2).collect::<Vec<_>>(), [false, false]);
    let (_, at_start) = app.get_authed_json("/api/v1/odds/nba?as_of=2026-11-15T16:00:00Z").await;
    assert_eq!(flags(&at_start).iter().map(|f| f.2).collect::<Vec<_>>(), [true, false]);
}
