//! Each deliberate awkward case is present in the small profile (and so in
//! the committed fixture), since consumers' edge-case tests rely on them.

use std::collections::BTreeMap;

use crate::{Table, fixture_store, tables};

fn store() -> &'static BTreeMap<String, Vec<u8>> {
    fixture_store()
}

/// True when some season-store row (under `prefix`) satisfies `pred`.
fn any_row(store: &BTreeMap<String, Vec<u8>>, prefix: &str, pred: impl Fn(&Table, &[String]) -> bool) -> bool {
    tables(store, prefix).any(|(_, t)| t.rows.iter().any(|r| pred(&t, r)))
}

#[test]
fn mlb_has_doubleheaders_with_the_same_teams_on_the_same_date_at_different_times() {
    let s = store();
    let found = tables(s, "seasons/mlb/won_on_points/").any(|(_, t)| {
        t.rows.windows(2).any(|w| {
            ["date", "away_team", "home_team"]
                .iter()
                .all(|c| t.get(&w[0], c) == t.get(&w[1], c))
                && t.get(&w[0], "time_est") != t.get(&w[1], "time_est")
        })
    });
    assert!(found);
}

#[test]
fn there_are_pushes_on_integer_totals_and_on_spreads() {
    let s = store();
    let final_sum = |t: &Table, r: &[String]| Some(t.num(r, "home_score")? + t.num(r, "away_score")?);
    assert!(any_row(s, "seasons/", |t, r| final_sum(t, r)
        .is_some_and(|sum| t.num(r, "over_under") == Some(sum))));
    assert!(any_row(s, "seasons/", |t, r| {
        let (Some(h), Some(a), Some(sp)) = (
            t.num(r, "home_score"),
            t.num(r, "away_score"),
            t.num(r, "home_point_spread"),
        ) else {
            return false;
        };
        h + sp == a
    }));
}

#[test]
fn some_past_games_have_no_final_postponed_or_still_scheduled() {
    let s = store();
    assert!(any_row(s, "scores/", |t, r| t.get(r, "status") == "postponed"
        && t.get(r, "home_score").is_empty()));
    assert!(any_row(s, "scores/", |t, r| t.get(r, "status") == "scheduled"
        && t.get(r, "date") < "2026-11-15"));
    assert!(any_row(s, "seasons/", |t, r| t.get(r, "home_score").is_empty()
        && t.get(r, "date") < "2026-11-15"));
}

#[test]
fn some_games_have_no_line_and_some_have_a_price_on_one_side_only() {
    let s = store();
    assert!(any_row(s, "seasons/", |t, r| [
        "home_money_line",
        "away_money_line",
        "home_point_spread",
        "over_under"
    ]
    .iter()
    .all(|c| t.get(r, c).is_empty())));
    assert!(any_row(s, "seasons/", |t, r| !t.get(r, "home_money_line").is_empty()
        && t.get(r, "away_money_line").is_empty()));
    assert!(any_row(s, "seasons/", |t, r| !t.get(r, "over_line").is_empty()
        && t.get(r, "under_line").is_empty()));
}

#[test]
fn placeholder_zero_openers_appear_in_season_stores_only() {
    let s = store();
    assert!(any_row(s, "seasons/", |t, r| t.get(r, "open_home_money_line") == "0"
        && t.get(r, "open_over_under") == "0"));
    // The releases print the real opener: a price of 0 cannot be posted.
    for (key, t) in tables(s, "predictions/") {
        for h in t
            .header
            .iter()
            .filter(|h| h.starts_with("open_") && h.ends_with("_line"))
        {
            assert!(t.rows.iter().all(|r| t.get(r, h) != "0"), "{key} {h}");
        }
    }
}

#[test]
fn professional_leagues_carry_preseason_rows() {
    let s = store();
    for sport in ["mlb", "nba", "nfl", "nhl"] {
        assert!(
            any_row(s, &format!("seasons/{sport}/"), |t, r| t.get(r, "season_type")
                == "preseason"),
            "{sport}"
        );
    }
    assert!(!any_row(s, "seasons/ncaab/", |t, r| t.get(r, "season_type") == "preseason"));
}

#[test]
fn provenance_covers_walk_forward_live_with_and_without_run_and_reconstructed_rows() {
    let s = store();
    assert!(any_row(s, "seasons/", |t, r| {
        t.get(r, "forecast_source") == "walk_forward"
            && t.get(r, "model_probability_source") == "walk_forward"
            && t.get(r, "forecast_run").starts_with("bt-")
            && t.get(r, "forecast_published_at").is_empty()
    }));
    assert!(any_row(s, "seasons/", |t, r| t.get(r, "forecast_source") == "live"
        && !t.get(r, "forecast_run").is_empty()
        && !t.get(r, "forecast_published_at").is_empty()));
    assert!(any_row(s, "seasons/", |t, r| t.get(r, "forecast_source") == "live"
        && t.get(r, "forecast_run").is_empty()
        && t.get(r, "forecast_published_at").is_empty()));
    assert!(any_row(s, "seasons/", |t, r| {
        t.get(r, "model_probability_source") == "reconstructed_oos"
            && !t.get(r, "model_training_through").is_empty()
            && !t.get(r, "model_reconstruction_method").is_empty()
    }));
}

#[test]
fn some_finals_are_pending_provisional_or_disputed() {
    let s = store();
    for status in ["pending", "provisional", "disputed"] {
        assert!(
            any_row(s, "seasons/", |t, r| t.get(r, "settlement_status") == status
                && !t.get(r, "home_score").is_empty()),
            "{status}"
        );
    }
}

#[test]
fn some_games_have_no_prediction_and_a_blend_of_one_half_only_between_its_components() {
    let s = store();
    assert!(any_row(s, "seasons/", |t, r| t.get(r, "BLEND").is_empty()
        && t.get(r, "CATB").is_empty()
        && t.get(r, "forecast_source").is_empty()));
    // BLEND combines the components: 0.5 only where they straddle it.
    assert!(!any_row(s, "seasons/", |t, r| {
        let parts: Vec<f64> = ["CATB", "RF", "LGB", "LOGR", "XGB", "XT"]
            .iter()
            .filter_map(|c| t.num(r, c))
            .collect();
        t.get(r, "BLEND") == "0.5000" && (parts.iter().all(|p| *p > 0.5) || parts.iter().all(|p| *p < 0.5))
    }));
}

#[test]
fn unknown_columns_appear_in_season_stores_and_in_one_predictions_artifact() {
    let s = store();
    assert!(tables(s, "seasons/").all(|(_, t)| t.col("home_rest_days").is_some() && t.col("travel_km").is_some()));
    let with_extras: Vec<_> = tables(s, "predictions/")
        .filter(|(_, t)| t.col("travel_km").is_some())
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(with_extras, ["predictions/nba/won_on_spread.csv"]);
}

#[test]
fn the_ai_column_is_in_some_prediction_artifacts_only_and_empty_on_some_rows() {
    let s = store();
    let with_ai: Vec<_> = tables(s, "predictions/")
        .filter(|(_, t)| t.col("AI").is_some())
        .collect();
    assert!(!with_ai.is_empty());
    assert!(with_ai.len() < 18);
    assert!(any_row(s, "seasons/", |t, r| t.col("AI").is_some()
        && t.get(r, "AI").is_empty()
        && !t.get(r, "BLEND").is_empty()));
}

#[test]
fn todays_slate_has_a_late_game_and_tomorrow_has_games() {
    let s = store();
    assert!(any_row(s, "predictions/", |t, r| t.get(r, "date") == "2026-11-15"
        && t.get(r, "time_est") == "23:30:00"));
    assert!(any_row(s, "odds/", |t, r| t.get(r, "date") == "2026-11-16"));
    assert!(
        any_row(s, "markets/", |t, r| t.get(r, "date") == "2026-11-15"
            && t.get(r, "away_price").is_empty())
            || any_row(s, "markets/", |t, r| t.get(r, "home_price").is_empty())
    );
}
