//! Summary keys, value rules, windows and the EV system.

use linecast_domain::{ModelColumn, ModelType, Sport};

use super::fixtures::{RowExt, game};
use crate::{FieldValue, Model, summarize};

const BLEND: Model = Model::Column(ModelColumn::Blend);
const ML: ModelType = ModelType::WonOnPoints;

fn field(entry: &crate::SummaryEntry, key: &str) -> FieldValue {
    entry
        .fields()
        .into_iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("missing key {key}"))
        .1
}

#[test]
fn summary_entry_keys_have_the_exact_spellings_and_order() {
    let rows = [game("2026-11-01", "a", "b").score(1.0, 2.0).ml(-110.0, -110.0).all(0.6)];
    let keys = |mt| {
        let rows: Vec<_> = rows
            .iter()
            .cloned()
            .map(|r| r.total(2.5, -110.0, -110.0).spread(-0.5, -110.0, -110.0))
            .collect();
        summarize(&rows, Sport::Nba, mt).entries[0]
            .fields()
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        keys(ML),
        [
            "model",
            "total_games",
            "wins",
            "losses",
            "abstained",
            "win %",
            "fade %",
            "win % 1W",
            "win % 4W",
            "home %",
            "away %",
            "home % 1W",
            "home % 4W",
            "away % 1W",
            "away % 4W",
            "ev roi",
            "ev roi 1W",
            "ev roi 4W",
            "ev roi season",
            "bt bets",
            "bt wins",
            "bt losses",
            "bt units",
        ]
    );
    let ou = keys(ModelType::OverUnder);
    assert_eq!(
        &ou[9..15],
        [
            "over %",
            "under %",
            "over % 1W",
            "over % 4W",
            "under % 1W",
            "under % 4W"
        ]
    );
    assert_eq!(keys(ModelType::WonOnSpread)[9], "home %");
}

#[test]
fn win_and_fade_percent_have_one_decimal_and_side_rates_split_by_pick() {
    let rows = [
        game("2026-11-01", "a", "b")
            .score(1.0, 2.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.6), // home pick, hit
        game("2026-11-02", "a", "b")
            .score(2.0, 1.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.6), // home pick, miss
        game("2026-11-03", "a", "b")
            .score(2.0, 1.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.4), // away pick, hit
        game("2026-11-04", "a", "b")
            .score(2.0, 1.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.5)
            .prob(ModelColumn::Rf, 0.7),
    ];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!(field(blend, "total_games"), FieldValue::Count(3));
    assert_eq!(field(blend, "wins"), FieldValue::Count(2));
    assert_eq!(field(blend, "abstained"), FieldValue::Count(1));
    assert_eq!(field(blend, "win %"), FieldValue::Number(Some(66.7)));
    assert_eq!(field(blend, "fade %"), FieldValue::Number(Some(33.3)));
    assert_eq!(field(blend, "home %"), FieldValue::Number(Some(50.0)));
    assert_eq!(field(blend, "away %"), FieldValue::Number(Some(100.0)));
    assert_eq!(field(blend, "model"), FieldValue::Text("BLEND"));
}

#[test]
fn models_without_a_graded_pick_are_left_out() {
    let rows = [
        game("2026-11-01", "a", "b")
            .score(1.0, 2.0)
            .ml(-150.0, 130.0)
            .prob(ModelColumn::Blend, 0.6),
        game("2026-11-02", "a", "b")
            .score(2.0, 2.0)
            .ml(-150.0, 130.0)
            .prob(ModelColumn::Ai, 0.6),
    ];
    let models: Vec<_> = summarize(&rows, Sport::Nba, ML)
        .entries
        .iter()
        .map(|e| e.model)
        .collect();
    assert_eq!(
        models,
        [Model::Column(ModelColumn::Implied), BLEND],
        "AI only picked a push"
    );
}

#[test]
fn windows_are_7_and_28_days_ending_on_the_latest_decided_game_inclusive() {
    let hit = |d: &str| {
        game(d, "a", "b")
            .score(1.0, 2.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.6)
    };
    let rows = [
        hit("2026-11-30"), // end
        hit("2026-11-24"), // end - 6: in 1W
        hit("2026-11-23"), // end - 7: 4W only
        hit("2026-11-03"), // end - 27: 4W only
        hit("2026-11-02"), // end - 28: season only
        game("2026-12-05", "a", "b")
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.6), // undecided, later
    ];
    let s = summarize(&rows, Sport::Nba, ML);
    assert_eq!(s.window_end, Some(super::fixtures::date("2026-11-30")));
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!((blend.one_week.n(), blend.four_weeks.n(), blend.season.n()), (2, 4, 5));
}

#[test]
fn ev_roi_is_the_mean_return_of_the_higher_ev_side_and_a_push_returns_the_stake() {
    let rows = [
        // BLEND 0.6 at -110/-110: home EV = 0.6 * 1.9091 - 1 = +14.5%, bet home, wins 0.9091.
        game("2026-11-01", "a", "b")
            .score(1.0, 2.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.6),
        // Same bet on a tie: push, return 0; counts in ev roi but grades nobody.
        game("2026-11-02", "a", "b")
            .score(2.0, 2.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.6),
        // BLEND 0.45 at +200/-250: home EV = 0.45 * 3 - 1 = +35%, away EV = 0.55 * 1.4 - 1 = -23%: bet home, loses.
        game("2026-11-03", "a", "b")
            .score(2.0, 1.0)
            .ml(200.0, -250.0)
            .prob(ModelColumn::Blend, 0.45),
        // BLEND 0.52 at -110/-110: home EV -0.7% beats away -8.4%: bet home (below the backtest threshold), loses.
        game("2026-11-04", "a", "b")
            .score(2.0, 1.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.52),
    ];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    let win: f64 = 100.0 / 110.0;
    let roi = ((win + 0.0 - 1.0 - 1.0) / 4.0 * 1000.0).round() / 10.0;
    assert_eq!(field(blend, "ev roi"), FieldValue::Number(Some(roi)));
    assert_eq!(field(blend, "ev roi season"), FieldValue::Number(Some(roi)));
    assert_eq!(field(blend, "bt bets"), FieldValue::Count(3));
    assert_eq!(field(blend, "bt wins"), FieldValue::Count(1));
    assert_eq!(field(blend, "bt losses"), FieldValue::Count(1));
    assert_eq!(
        field(blend, "bt units"),
        FieldValue::Number(Some(((win - 1.0) * 1e4).round() / 1e4))
    );
}

#[test]
fn ensemble_has_null_ev_fields_because_it_has_no_probability() {
    let rows = [game("2026-11-01", "a", "b").score(1.0, 2.0).ml(-110.0, -110.0).all(0.6)];
    let s = summarize(&rows, Sport::Nba, ML);
    let ens = s.entries.iter().find(|e| e.model == Model::Ensemble).unwrap();
    assert_eq!(field(ens, "wins"), FieldValue::Count(1));
    assert_eq!(field(ens, "ev roi"), FieldValue::Number(None));
    assert_eq!(field(ens, "bt bets"), FieldValue::Count(0));
}

#[test]
fn percentages_are_null_when_the_window_has_no_pick_on_that_side() {
    let rows = [game("2026-11-01", "a", "b")
        .score(1.0, 2.0)
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, 0.6)];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!(field(blend, "away %"), FieldValue::Number(None));
    assert_eq!(field(blend, "away % 4W"), FieldValue::Number(None));
    assert_eq!(field(blend, "home % 1W"), FieldValue::Number(Some(100.0)));
}

#[cfg(feature = "serde")]
#[test]
fn a_serialized_entry_uses_the_public_keys() {
    let rows = [game("2026-11-01", "a", "b")
        .score(1.0, 2.0)
        .total(2.5, -110.0, -110.0)
        .prob(ModelColumn::Blend, 0.6)];
    let s = summarize(&rows, Sport::Nba, ModelType::OverUnder);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    let json = serde_json::to_value(blend).unwrap();
    assert_eq!(json["model"], "BLEND");
    assert_eq!(json["over %"], 100.0);
    assert!(json["under % 1W"].is_null());
    assert_eq!(json["bt bets"], 1);
}

#[test]
fn a_bet_whose_ev_is_exactly_ten_percent_is_a_bt_bet() {
    // payloads.md: bt bets only "when that EV ≥ +10%". Home at -175 pays
    // 100/175 = 4/7 per unit, so a 0.70 home probability has an EV of
    // 0.70 × 11/7 − 1 = 0.10 exactly (in binary floating point it comes
    // out a hair under). The away side at +120 has 0.30 × 2.2 − 1 < 0.
    let rows = [game("2026-11-01", "a", "b")
        .score(1.0, 2.0)
        .ml(-175.0, 120.0)
        .prob(ModelColumn::Blend, 0.70)];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!(field(blend, "bt bets"), FieldValue::Count(1));
    assert_eq!(field(blend, "bt wins"), FieldValue::Count(1));
    assert_eq!(field(blend, "bt units"), FieldValue::Number(Some(0.5714)));
    // Just under: 0.69 × 11/7 − 1 = 0.0843, not a bt bet.
    let rows = [game("2026-11-01", "a", "b")
        .score(1.0, 2.0)
        .ml(-175.0, 120.0)
        .prob(ModelColumn::Blend, 0.69)];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!(field(blend, "bt bets"), FieldValue::Count(0));
}
