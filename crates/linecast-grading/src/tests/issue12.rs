//! Issue 12 corrections: a decided game is not a push (windows), no model's
//! EV system counts a `no_prediction` row, and `grading` is a rule map.
//! Expectations are worked by hand in the comments, not by calling the rules.

use linecast_domain::{ModelColumn, ModelType, Sport};

use super::fixtures::{RowExt, date, game};
use crate::{FieldValue, GRADING_RULES, Model, summarize, track};

const BLEND: Model = Model::Column(ModelColumn::Blend);
const IMPLIED: Model = Model::Column(ModelColumn::Implied);
const ML: ModelType = ModelType::WonOnPoints;

fn field(entry: &crate::SummaryEntry, key: &str) -> FieldValue {
    entry.fields().into_iter().find(|(k, _)| *k == key).unwrap().1
}

/// Home wins 2-1 at -110/-110 with BLEND 0.6: a decided game BLEND hits.
fn hit(day: &str) -> linecast_domain::SeasonRow {
    game(day, "a", "b")
        .score(1.0, 2.0)
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, 0.6)
}

/// A 3-3 tie on the moneyline: a push, not a decided game.
fn push(day: &str) -> linecast_domain::SeasonRow {
    game(day, "c", "d")
        .score(3.0, 3.0)
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, 0.6)
}

#[test]
fn a_day_of_pushes_does_not_end_the_summary_windows() {
    // Decided games on 11-20 and 11-10; only pushes on 11-30.
    // Windows end 11-20: 1W = 11-14..11-20 (one game), 4W = 10-24..11-20 (two).
    let rows = [
        hit("2026-11-10"),
        hit("2026-11-20"),
        push("2026-11-30"),
        push("2026-11-30"),
    ];
    let s = summarize(&rows, Sport::Nba, ML);
    assert_eq!(s.window_end, Some(date("2026-11-20")));
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!((blend.one_week.n(), blend.four_weeks.n(), blend.season.n()), (1, 2, 2));
    assert_eq!(field(blend, "win % 1W"), FieldValue::Number(Some(100.0)));
}

#[test]
fn a_day_of_pushes_does_not_end_the_tracking_windows() {
    let rows = [hit("2026-11-10"), hit("2026-11-20"), push("2026-11-30")];
    let t = track(&rows, Sport::Nba, ML);
    assert_eq!(t.snapshot.last_1w.get(BLEND).map(|w| w.n), Some(1));
    assert_eq!(t.snapshot.last_4w.get(BLEND).map(|w| w.n), Some(2));
    // The weekly series ends on the latest decided game, 11-20.
    assert_eq!(t.weekly.last().map(|w| w.week_ending), Some(date("2026-11-20")));
    assert_eq!(t.ungraded_pushes, 1);
}

#[test]
fn no_model_counts_a_no_prediction_row_in_ev_roi_or_the_backtest() {
    let rows = [
        // Graded: BLEND 0.6 at -110/-110, home wins. EV home = 0.6 × 1.90909 − 1
        // = +14.5% ≥ 10%: a bt bet that returns 100/110 = 0.90909.
        hit("2026-11-01"),
        // no_prediction: BLEND exactly 0.5 (no pick), nobody else. At -110 home /
        // +200 away BLEND's EV away = 0.5 × 3 − 1 = +50% would bet away and win +2;
        // IMPLIED would bet too. The row belongs to nobody's record.
        game("2026-11-02", "e", "f")
            .score(5.0, 1.0)
            .ml(-110.0, 200.0)
            .prob(ModelColumn::Blend, 0.5),
        // Graded by BLEND (0.3 picks away, away wins) at -120/+100, so IMPLIED
        // (home 0.5217 > 0.5) has a graded pick and is listed.
        game("2026-11-03", "g", "h")
            .score(4.0, 1.0)
            .ml(-120.0, 100.0)
            .prob(ModelColumn::Blend, 0.3),
    ];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    // BLEND: row 1 +0.90909; row 3: EV away = 0.7 × 2 − 1 = +40%, bet away, wins +1.
    // Mean over two games = (0.90909 + 1) / 2 = 95.45% → 95.5.
    assert_eq!(blend.ev_season.games, 2);
    assert_eq!(field(blend, "ev roi"), FieldValue::Number(Some(95.5)));
    assert_eq!(field(blend, "bt bets"), FieldValue::Count(2));
    assert_eq!(field(blend, "bt wins"), FieldValue::Count(2));
    let implied = s.entries.iter().find(|e| e.model == IMPLIED).unwrap();
    // IMPLIED: row 1 (50/50, abstains but prices and final exist) and row 3;
    // never row 2.
    assert_eq!(implied.ev_season.games, 2);
    assert_eq!(implied.season.n(), 1);
}

#[test]
fn a_push_still_counts_in_ev_roi() {
    // One hit (+0.90909) and one push (0): mean 45.45% → 45.5.
    let rows = [hit("2026-11-01"), push("2026-11-02")];
    let s = summarize(&rows, Sport::Nba, ML);
    let blend = s.entries.iter().find(|e| e.model == BLEND).unwrap();
    assert_eq!(field(blend, "ev roi"), FieldValue::Number(Some(45.5)));
}

#[test]
fn grading_rules_are_named_sentences() {
    let names: Vec<&str> = GRADING_RULES.iter().map(|(k, _)| *k).collect();
    assert!(names.contains(&"pick") && names.contains(&"push"));
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "rule names are map keys");
    assert!(GRADING_RULES.iter().all(|(_, v)| v.ends_with('.')));
}
