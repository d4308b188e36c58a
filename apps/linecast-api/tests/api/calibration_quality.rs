//! The paid calibration's honesty figures: the 95% intervals of Brier, log
//! loss and skill (recomputed here from the served `/results` rows with a
//! bootstrap written from its published description: SplitMix64, the seed,
//! 1000 resamples, linear-interpolated percentiles), and `source=verified`
//! (only rows whose `archive_check` is `matched`, the rest counted by
//! check, as `/results` serves the checks).

use serde_json::Value;

use crate::archive_check::{season, written_with};
use crate::helpers::assert_error_shape;
use crate::results::Session;

const BASE: &str = "/api/v1/models/nba/won_on_points/calibration";
const SEEDED: &str = "/api/v1/models/nba/won_on_points/calibration?season=2026-27";
const SEEDED_RESULTS: &str = "/api/v1/results/nba/won_on_points?season=2026-27&limit=100";

/// The seed the payload states: "linecast" in ASCII.
const SEED: u64 = 7_811_896_410_388_919_156;
const RESAMPLES: usize = 1000;

pub(crate) fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// SplitMix64, as Steele, Lea and Flood publish it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Percentile `q` of `values` sorted, interpolated as (m − 1) q.
fn percentile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let h = (values.len() - 1) as f64 * q;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    values[lo] + (h - h.floor()) * (values[hi] - values[lo])
}

/// The 2.5% and 97.5% bounds of `figure` over 1000 resamples of `n` games.
fn bootstrap(n: usize, figure: impl Fn(&[usize]) -> Option<f64>) -> (f64, f64) {
    let mut rng = Rng(SEED);
    let mut figures = Vec::new();
    for _ in 0..RESAMPLES {
        let drawn: Vec<usize> = (0..n)
            .map(|_| ((u128::from(rng.next()) * n as u128) >> 64) as usize)
            .collect();
        if let Some(value) = figure(&drawn) {
            figures.push(value);
        }
    }
    let low = percentile(&mut figures, 0.025);
    let high = percentile(&mut figures, 0.975);
    (low, high)
}

/// (p, y) of `column` on the graded served rows, in served order.
fn forecasts(rows: &[&Value], column: &str) -> Vec<(f64, f64)> {
    rows.iter()
        .filter(|r| r["graded"] == true)
        .filter_map(|r| {
            let p = r[column].as_f64()?;
            Some((p, outcome(r)))
        })
        .collect()
}

/// y: 1 when the home side won, as the row's outcome column says.
fn outcome(row: &Value) -> f64 {
    match &row["won_on_points"] {
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(x) => x.as_f64().unwrap(),
        Value::String(s) => s.parse::<f64>().unwrap(),
        other => panic!("outcome {other}"),
    }
}

fn squared(p: f64, y: f64) -> f64 {
    (p - y) * (p - y)
}

fn log_loss(p: f64, y: f64) -> f64 {
    let happened = if y > 0.5 { p } else { 1.0 - p };
    -happened.clamp(1e-15, 1.0 - 1e-15).ln()
}

fn assert_interval(served: &Value, n: usize, (low, high): (f64, f64), point: f64, what: &str) {
    assert_eq!(served["n"].as_u64().unwrap() as usize, n, "{what}: n");
    assert!(
        (f(&served["low"]) - low).abs() < 1e-6,
        "{what}: low {} vs {low}",
        served["low"]
    );
    assert!(
        (f(&served["high"]) - high).abs() < 1e-6,
        "{what}: high {} vs {high}",
        served["high"]
    );
    assert!(
        f(&served["low"]) <= point + 1e-6 && point - 1e-6 <= f(&served["high"]),
        "{what}: {point} outside {served}"
    );
}

/// BLEND's Brier, log loss and skill intervals, recomputed from `rows`.
pub(crate) fn check_blend(model: &Value, rows: &[&Value]) {
    let blend = forecasts(rows, "BLEND");
    let n = blend.len();
    let mean = |drawn: &[usize], loss: fn(f64, f64) -> f64| {
        Some(drawn.iter().map(|i| loss(blend[*i].0, blend[*i].1)).sum::<f64>() / drawn.len() as f64)
    };
    let brier = bootstrap(n, |d| mean(d, squared));
    assert_interval(&model["brier_ci"], n, brier, f(&model["brier"]), "BLEND brier");
    let ll = bootstrap(n, |d| mean(d, log_loss));
    assert_interval(&model["log_loss_ci"], n, ll, f(&model["log_loss"]), "BLEND log loss");

    // Skill: the games where BLEND and IMPLIED are both served, the market
    // worked here from the served prices in full precision (the served
    // IMPLIED has 4 decimals).
    let paired: Vec<(f64, f64, f64)> = rows
        .iter()
        .filter(|r| r["graded"] == true && !r["IMPLIED"].is_null())
        .filter_map(|r| {
            let market = no_vig(r["home_money_line"].as_f64()?, r["away_money_line"].as_f64()?);
            assert!((market - f(&r["IMPLIED"])).abs() < 1e-4, "{r}");
            Some((r["BLEND"].as_f64()?, market, outcome(r)))
        })
        .collect();
    let skill = &model["skill_vs_market"];
    assert_eq!(skill["n"].as_u64().unwrap() as usize, paired.len());
    let ratio = |d: &[usize], loss: fn(f64, f64) -> f64| {
        let own: f64 = d.iter().map(|i| loss(paired[*i].0, paired[*i].2)).sum();
        let market: f64 = d.iter().map(|i| loss(paired[*i].1, paired[*i].2)).sum();
        (market != 0.0).then(|| 1.0 - own / market)
    };
    let brier_skill = bootstrap(paired.len(), |d| ratio(d, squared));
    assert_interval(
        &skill["brier_skill_ci"],
        paired.len(),
        brier_skill,
        f(&skill["brier_skill"]),
        "BLEND brier skill",
    );
    let ll_skill = bootstrap(paired.len(), |d| ratio(d, log_loss));
    assert_interval(
        &skill["log_loss_skill_ci"],
        paired.len(),
        ll_skill,
        f(&skill["log_loss_skill"]),
        "BLEND log loss skill",
    );
}

#[tokio::test]
async fn the_intervals_match_a_bootstrap_recomputed_from_the_served_rows_under_the_stated_seed() {
    let mut s = Session::start().await;
    let body = s.ok(BASE).await;
    assert_eq!(body["intervals"]["method"], "bootstrap_percentile");
    assert_eq!(body["intervals"]["seed"], format!("{SEED:#018x}"));
    assert_eq!(body["intervals"]["resamples"].as_u64(), Some(RESAMPLES as u64));
    assert!((f(&body["intervals"]["level"]) - 0.95).abs() < 1e-12);
    assert!(body["left_out"].is_null(), "only verified leaves rows out");
    let season = body["season"].as_str().unwrap().to_owned();
    let page = s
        .ok(&format!(
            "/api/v1/results/nba/won_on_points?season={season}&limit=100000"
        ))
        .await;
    let rows: Vec<&Value> = page["results"].as_array().unwrap().iter().collect();
    let models = body["models"].as_array().unwrap();
    let blend = models.iter().find(|m| m["model"] == "BLEND").unwrap();
    check_blend(blend, &rows);
    let implied = models.iter().find(|m| m["model"] == "IMPLIED").unwrap();
    assert!(implied["skill_vs_market"].is_null());
    assert!(implied["brier_ci"]["n"] == implied["n"]);
    // Deterministic: the same request, the same bounds.
    let again = s.ok(&format!("{BASE}?source=all")).await;
    assert_eq!(again["models"], body["models"]);
}

#[tokio::test]
async fn verified_reads_only_matched_rows_and_counts_the_rest_by_archive_check() {
    let app = written_with(season()).await;
    let (status, page) = app.get_authed_json(SEEDED_RESULTS).await;
    assert_eq!(status, 200, "{page}");
    let rows: Vec<&Value> = page["results"].as_array().unwrap().iter().collect();
    let matched: Vec<&Value> = rows
        .iter()
        .copied()
        .filter(|r| r["archive_check"] == "matched")
        .collect();
    let graded_with = |check: &str| {
        rows.iter()
            .filter(|r| r["graded"] == true && r["archive_check"] == check)
            .count()
    };

    let (status, body) = app.get_authed_json(&format!("{SEEDED}&source=verified")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["source"], "verified");
    let graded_matched = matched.iter().filter(|r| r["graded"] == true).count();
    assert!(graded_matched >= 2, "the fixture's two matched rows are graded");
    assert_eq!(body["games"].as_u64().unwrap() as usize, graded_matched);
    assert_eq!(
        body["left_out"],
        serde_json::json!({
            "mismatch": graded_with("mismatch"),
            "not_kept": graded_with("not_kept"),
            "not_applicable": graded_with("not_applicable"),
        })
    );
    let blend = body["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "BLEND")
        .unwrap();
    check_blend(blend, &matched);

    // The default is every graded row, as before.
    let (_, all) = app.get_authed_json(SEEDED).await;
    let graded = rows.iter().filter(|r| r["graded"] == true).count();
    assert_eq!(all["games"].as_u64().unwrap() as usize, graded);
    assert!(all["left_out"].is_null());
}

#[tokio::test]
async fn a_row_made_to_mismatch_the_archive_leaves_verified_and_the_left_out_count_says_so() {
    let base = written_with(season()).await;
    let (_, before) = base.get_authed_json(&format!("{SEEDED}&source=verified")).await;
    // The Nets at the Celtics: R2 carries BLEND 0.6123; the row now says 0.6000.
    let edited = season().replacen("-145,120,0.6123,live", "-145,120,0.6000,live", 1);
    assert_ne!(edited, season());
    let app = written_with(edited).await;
    let (status, after) = app.get_authed_json(&format!("{SEEDED}&source=verified")).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(
        after["games"].as_u64().unwrap() + 1,
        before["games"].as_u64().unwrap(),
        "the row leaves"
    );
    assert_eq!(
        after["left_out"]["mismatch"].as_u64().unwrap(),
        before["left_out"]["mismatch"].as_u64().unwrap() + 1,
        "and is counted as a mismatch"
    );
}

#[tokio::test]
async fn an_unknown_source_is_a_400_naming_source_and_listing_verified() {
    let mut s = Session::start().await;
    let (status, body) = s.json(&format!("{BASE}?source=matched")).await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(detail.contains("source") && detail.contains("verified"), "{detail}");
}

#[tokio::test]
async fn the_denominators_sit_beside_the_summary_and_tracking_counts_of_the_season() {
    let mut s = Session::start().await;
    let body = s.ok(BASE).await;
    let season = body["season"].as_str().unwrap().to_owned();
    let summary = s.ok("/api/v1/summary/nba/won_on_points").await;
    assert_eq!(
        summary["season"],
        season.as_str(),
        "the summary's season is calibration's current one"
    );
    let blend = summary["summaries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["model"] == "BLEND")
        .unwrap();
    let tracking = s
        .ok(&format!("/api/v1/models/nba/won_on_points/tracking?season={season}"))
        .await;
    let d = &body["denominators"];
    assert_eq!(d["calibration"], body["games"]);
    assert_eq!(d["summary"], blend["total_games"]);
    assert_eq!(d["summary_abstained"], blend["abstained"]);
    assert_eq!(d["tracking"], tracking["total_games"]);
    // Summary and tracking do not filter by source: the same counts for live.
    let live = s.ok(&format!("{BASE}?source=live")).await;
    assert_eq!(live["denominators"]["summary"], d["summary"]);
    assert_eq!(live["denominators"]["tracking"], d["tracking"]);
    assert_eq!(live["denominators"]["calibration"], live["games"]);
}

/// The implied probability of an American price.
fn implied(price: f64) -> f64 {
    if price < 0.0 {
        -price / (-price + 100.0)
    } else {
        100.0 / (price + 100.0)
    }
}

/// The no-vig probability of the home side from (home, away) prices.
fn no_vig(home: f64, away: f64) -> f64 {
    implied(home) / (implied(home) + implied(away))
}

#[tokio::test]
async fn skill_at_forecast_time_uses_the_market_in_the_forecasts_own_release_and_counts_the_rest() {
    let app = written_with(season()).await;
    let (status, body) = app.get_authed_json(SEEDED).await;
    assert_eq!(status, 200, "{body}");
    let blend = body["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "BLEND")
        .unwrap();
    let at = &blend["skill_at_forecast"];
    // The two matched rows: the Nets at the Celtics (R2: home -145, away
    // +120, BLEND 0.6123) and the Hawks at the Magic (R1: home -125, away
    // +105, BLEND 0.48); both home sides won.
    let games = [(0.6123, no_vig(-145.0, 120.0)), (0.48, no_vig(-125.0, 105.0))];
    assert_eq!(at["n"], 2, "{at}");
    let graded_blend = blend["n"].as_u64().unwrap();
    assert_eq!(at["left_out"].as_u64().unwrap(), graded_blend - 2, "{at}");
    let brier = |p: f64| (p - 1.0) * (p - 1.0);
    let own: f64 = games.iter().map(|(p, _)| brier(*p)).sum();
    let market: f64 = games.iter().map(|(_, m)| brier(*m)).sum();
    let expected = ((1.0 - own / market) * 10_000.0).round() / 10_000.0;
    assert!((f(&at["brier_skill"]) - expected).abs() < 1e-9, "{at} vs {expected}");
    let ll = |p: f64| -p.ln();
    let own: f64 = games.iter().map(|(p, _)| ll(*p)).sum();
    let market: f64 = games.iter().map(|(_, m)| ll(*m)).sum();
    let expected = ((1.0 - own / market) * 10_000.0).round() / 10_000.0;
    assert!((f(&at["log_loss_skill"]) - expected).abs() < 1e-9, "{at} vs {expected}");
    assert_eq!(at["brier_skill_ci"]["n"], 2);
    // The market against itself is not a skill.
    let implied_entry = body["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["model"] == "IMPLIED")
        .unwrap();
    assert!(implied_entry["skill_at_forecast"].is_null());
}

#[tokio::test]
async fn calibration_summary_and_tracking_count_their_unsettled_graded_finals_alike() {
    let mut s = Session::start().await;
    let body = s.ok(BASE).await;
    let season = body["season"].as_str().unwrap().to_owned();
    let page = s
        .ok(&format!(
            "/api/v1/results/nba/won_on_points?season={season}&limit=100000"
        ))
        .await;
    let rows = page["results"].as_array().unwrap();
    // Counted here from the served rows: graded, and the status as served.
    let count = |status: &str| {
        rows.iter()
            .filter(|r| r["graded"] == true && r["settlement_status"] == status)
            .count()
    };
    let expected = serde_json::json!({
        "disputed": count("disputed"),
        "pending": count("pending"),
        "provisional": count("provisional"),
    });
    assert!(
        count("pending") >= 1,
        "the fixture's pending final is graded: {expected}"
    );
    assert_eq!(
        body["unsettled"], expected,
        "calibration (source all reads every graded row)"
    );
    let summary = s.ok("/api/v1/summary/nba/won_on_points").await;
    assert_eq!(summary["unsettled"], expected, "summary");
    let tracking = s
        .ok(&format!("/api/v1/models/nba/won_on_points/tracking?season={season}"))
        .await;
    assert_eq!(tracking["unsettled"], expected, "tracking");
    // The rule is stated once, in the same words, by all three.
    let rule = &summary["grading"]["settlement"];
    assert!(
        rule.as_str()
            .is_some_and(|r| r.contains("disputed, pending or provisional"))
    );
    assert_eq!(&tracking["grading"]["settlement"], rule);
    assert_eq!(&body["grading"]["settlement"], rule);
}
