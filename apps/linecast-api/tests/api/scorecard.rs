//! The public scorecard: the figures of the paid calibration with
//! `source=verified`, read without a key; each model's record and its
//! Wilson interval worked here from the matched rows `/results` serves; a
//! bootstrap interval recomputed here from those rows; a row made to
//! mismatch leaving it; the ledger days behind it listing the digests of
//! the rows' releases; and the page.

use serde_json::Value;

use crate::archive_check::{season, written_with};
use crate::calibration_quality::{check_blend, f};
use crate::helpers::assert_error_shape;

const SCORECARD: &str = "/api/v1/public/scorecard/nba/won_on_points?season=2026-27";
const VERIFIED: &str = "/api/v1/models/nba/won_on_points/calibration?season=2026-27&source=verified";
const RESULTS: &str = "/api/v1/results/nba/won_on_points?season=2026-27&limit=100";

/// The Wilson score interval at 95%, as Wilson (1927) writes it.
fn wilson(wins: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let p = wins / n;
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let denominator = 1.0 + z * z / n;
    (
        ((centre - spread) / denominator).max(0.0),
        ((centre + spread) / denominator).min(1.0),
    )
}

/// (wins, losses) of the side `column` favours on `rows` (graded only).
fn record(rows: &[&Value], column: &str) -> (usize, usize) {
    let mut tally = (0, 0);
    for row in rows.iter().filter(|r| r["graded"] == true) {
        let Some(p) = row[column].as_f64() else { continue };
        if (p - 0.5).abs() < 1e-12 {
            continue;
        }
        let home_won = row["home_score"].as_f64() > row["away_score"].as_f64();
        if (p > 0.5) == home_won {
            tally.0 += 1;
        } else {
            tally.1 += 1;
        }
    }
    tally
}

fn model<'a>(body: &'a Value, name: &str) -> &'a Value {
    body["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed: {body}"))
}

#[tokio::test]
async fn the_scorecard_is_the_verified_calibration_with_records_and_is_read_without_a_key() {
    let app = written_with(season()).await;
    let (status, card) = app.get_json(SCORECARD).await;
    assert_eq!(status, 200, "{card}");
    let (status, paid) = app.get_authed_json(VERIFIED).await;
    assert_eq!(status, 200, "{paid}");
    assert_eq!(card["source"], "verified");
    for field in [
        "sport",
        "model_type",
        "season",
        "games",
        "left_out",
        "unsettled",
        "intervals",
    ] {
        assert_eq!(card[field], paid[field], "{field}");
    }
    assert_eq!(card["win_rate_interval"], "wilson_score");
    // The market is a row of its own, first; each model's figures are the
    // paid calibration's, field for field.
    let rows = card["models"].as_array().unwrap();
    assert_eq!(rows[0]["model"], "IMPLIED");
    assert_eq!(rows[0]["role"], "market");
    assert!(rows[0]["skill_at_close"].is_null() && rows[0]["skill_at_forecast"].is_null());
    assert_eq!(rows.len(), paid["models"].as_array().unwrap().len());
    for row in rows {
        let name = row["model"].as_str().unwrap();
        let same = model(&paid, name);
        if name != "IMPLIED" {
            assert_eq!(row["role"], "model");
        }
        for (ours, theirs) in [
            ("n", "n"),
            ("brier", "brier"),
            ("brier_ci", "brier_ci"),
            ("log_loss", "log_loss"),
            ("log_loss_ci", "log_loss_ci"),
            ("skill_at_forecast", "skill_at_forecast"),
            ("skill_at_close", "skill_vs_market"),
        ] {
            assert_eq!(row[ours], same[theirs], "{name} {ours}");
        }
        assert_eq!(
            row["clv_from_opening"], same["clv_bases"]["kept_releases"],
            "{name} CLV"
        );
    }

    // The records, worked from the matched rows /results serves: the Nets
    // at the Celtics (BLEND 0.6123, home won) and the Hawks at the Magic
    // (BLEND 0.48, home won): BLEND 1–1; the market favoured both homes: 2–0.
    let (_, page) = app.get_authed_json(RESULTS).await;
    let matched: Vec<&Value> = page["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["archive_check"] == "matched")
        .collect();
    assert_eq!(matched.len(), 2);
    for (name, expected) in [("BLEND", (1, 1)), ("IMPLIED", (2, 0))] {
        assert_eq!(record(&matched, name), expected, "{name} worked by hand");
        let served = &model(&card, name)["record"];
        let (wins, losses) = expected;
        assert_eq!(
            (served["wins"].as_u64(), served["losses"].as_u64()),
            (Some(wins as u64), Some(losses as u64))
        );
        let n = (wins + losses) as f64;
        assert_eq!(served["n"].as_u64(), Some((wins + losses) as u64));
        assert!((f(&served["win_rate"]) - wins as f64 / n).abs() < 1e-4, "{served}");
        let (low, high) = wilson(wins as f64, n);
        let ci = &served["win_rate_ci"];
        assert!((f(&ci["low"]) - low).abs() < 1e-6, "{name}: {ci} vs {low}");
        assert!((f(&ci["high"]) - high).abs() < 1e-6, "{name}: {ci} vs {high}");
        assert!(f(&ci["low"]) <= f(&served["win_rate"]) && f(&served["win_rate"]) <= f(&ci["high"]));
    }
    // BLEND's bootstrap intervals, recomputed here from the matched rows
    // under the stated seed (the scorecard calls skill at the close what
    // the calibration calls skill_vs_market).
    let mut blend = model(&card, "BLEND").clone();
    blend["skill_vs_market"] = blend["skill_at_close"].clone();
    check_blend(&blend, &matched);

    // The ledger day behind it, with the digests of the matched rows'
    // releases: R1 (12:00:00.25Z) and R2 (18:00Z), both of the 14th.
    let digest_of = |away: &str| {
        matched
            .iter()
            .find(|r| r["game_id"].as_str().unwrap().contains(away))
            .map(|r| r["forecast_digest"].as_str().unwrap().to_owned())
            .unwrap()
    };
    let (r1, r2) = (digest_of("atlanta_hawks"), digest_of("brooklyn_nets"));
    assert_eq!(
        card["ledger_days"],
        serde_json::json!([{
            "date": "2026-11-14",
            "rows": 2,
            "ledger": "/api/v1/public/ledger/2026-11-14",
            "releases": [
                {"published_at": "2026-11-14T12:00:00.250Z", "digest": r1},
                {"published_at": "2026-11-14T18:00:00Z", "digest": r2},
            ],
        }])
    );
    // The 14th was sealed at the first round, when only R1 was kept: the
    // day lists R1; R2, recorded after, is a late release of the day it
    // was recorded on, never slipped into a sealed day.
    let (status, day) = app.get_json("/api/v1/public/ledger/2026-11-14").await;
    assert_eq!(status, 200, "{day}");
    let listed: Vec<&str> = day["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["digest"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [r1.as_str()], "{day}");
    assert_eq!(
        card["calibration"],
        "/api/v1/models/nba/won_on_points/calibration?season=2026-27&source=verified"
    );

    // Public: cacheable by anyone, one body per scorecard (an ETag and a 304).
    let res = app.get(SCORECARD).await;
    assert_eq!(res.headers()["cache-control"], "public, max-age=30");
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let again = app
        .client
        .get(format!("{}{SCORECARD}", app.address))
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
    // The diagram is the calibration's drawing of BLEND and the market.
    let svg = app.get(card["reliability_svg"].as_str().unwrap()).await;
    assert_eq!(svg.status(), 200);
    assert_eq!(svg.headers()["content-type"], "image/svg+xml");
    assert_eq!(svg.headers()["content-security-policy"], "default-src 'none'");
    let drawing = svg.text().await.unwrap();
    assert!(drawing.contains("BLEND") && drawing.contains("IMPLIED"), "{drawing}");
}

#[tokio::test]
async fn a_row_made_to_mismatch_the_archive_leaves_the_scorecard_and_is_counted() {
    let (_, before) = written_with(season()).await.get_json(SCORECARD).await;
    // The Nets at the Celtics: R2 carries BLEND 0.6123; the row now says 0.6000.
    let edited = season().replacen("-145,120,0.6123,live", "-145,120,0.6000,live", 1);
    assert_ne!(edited, season());
    let app = written_with(edited).await;
    let (status, after) = app.get_json(SCORECARD).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(after["games"].as_u64().unwrap() + 1, before["games"].as_u64().unwrap());
    assert_eq!(
        after["left_out"]["mismatch"].as_u64().unwrap(),
        before["left_out"]["mismatch"].as_u64().unwrap() + 1
    );
    // Only the Hawks at the Magic is left: BLEND 0–1, the market 1–0, one row on the 14th.
    assert_eq!(model(&after, "BLEND")["record"]["losses"], 1);
    assert_eq!(model(&after, "BLEND")["record"]["wins"], 0);
    assert_eq!(model(&after, "IMPLIED")["record"]["wins"], 1);
    assert_eq!(after["ledger_days"][0]["rows"], 1);
}

#[tokio::test]
async fn bad_choices_are_400s_naming_the_parameter_and_a_season_without_a_store_is_a_404() {
    let app = written_with(season()).await;
    for (path, parameter) in [
        ("/api/v1/public/scorecard/nba/won_on_points?format=png", "format"),
        ("/api/v1/public/scorecard/nba/won_on_points?season=26", "season"),
        ("/api/v1/public/scorecard/xfl/won_on_points", "sport"),
        ("/api/v1/public/scorecard/nba/parlay", "model_type"),
    ] {
        let (status, body) = app.get_json(path).await;
        assert_error_shape(status, &body, 400);
        assert_eq!(body["parameter"], parameter, "{path}: {body}");
    }
    let (status, body) = app
        .get_json("/api/v1/public/scorecard/nba/won_on_points?season=2019-20")
        .await;
    assert_error_shape(status, &body, 404);
}

#[tokio::test]
async fn the_page_shows_the_figures_and_links_each_ledger_day_and_its_errors_are_pages() {
    let app = written_with(season()).await;
    let res = app
        .get("/scorecard?sport=nba&market=won_on_points&season=2026-27")
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/html; charset=utf-8");
    assert_eq!(res.headers()["cache-control"], "public, max-age=30");
    assert!(res.headers().contains_key("etag"));
    assert!(
        res.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .starts_with("default-src 'self'")
    );
    let html = res.text().await.unwrap();
    let (_, card) = app.get_json(SCORECARD).await;
    for needle in [
        "NBA Moneyline 2026-27",
        "href=\"/api/v1/public/ledger/2026-11-14\"",
        "src=\"/api/v1/public/scorecard/nba/won_on_points?season=2026-27&#38;format=svg\"",
        "IMPLIED (market)",
        "1–1",
    ] {
        assert!(html.contains(needle), "{needle} in the page");
    }
    // BLEND's Brier as the JSON has it, to 4 decimals.
    let brier = format!("{:.4}", f(&model(&card, "BLEND")["brier"]));
    assert!(html.contains(&brier), "{brier}");
    // The default is NBA moneyline's current season; a season of another
    // sport's form (the form after only the sport changed) shows the
    // current one, and says so.
    assert_eq!(app.get("/scorecard").await.status(), 200);
    let other = app.get("/scorecard?sport=nba&market=won_on_points&season=2026").await;
    assert_eq!(other.status(), 200);
    let text = other.text().await.unwrap();
    assert!(
        text.contains("2026 is not a season of NBA Moneyline; showing 2026-27, its current season."),
        "{text}"
    );
    let bad = app.get("/scorecard?sport=xfl").await;
    assert_eq!(bad.status(), 400);
    assert_eq!(bad.headers()["content-type"], "text/html; charset=utf-8");
    assert!(bad.text().await.unwrap().contains("sport"));
}

#[tokio::test]
async fn the_scorecard_and_its_page_share_the_per_address_limit_of_public_routes() {
    let app = crate::helpers::spawn_app_configured(
        crate::helpers::fixture_now(),
        |_| {},
        |s| {
            s.public_rate_per_second = 1;
        },
    )
    .await;
    let paths = ["/api/v1/public/scorecard/nba/won_on_points", "/scorecard"];
    let sent = futures::future::join_all((0..12).map(|i| app.get(paths[i % 2]))).await;
    let mut refused = 0;
    for res in sent {
        match res.status().as_u16() {
            429 => refused += 1,
            status => assert_eq!(status, 200),
        }
    }
    // One per second with a burst of one: twelve at once cannot all pass,
    // however slow the machine (they would need eleven seconds).
    assert!(refused >= 1, "{refused} refused of 12");
}
