//! One test per grading rule and per ungraded reason, on hand-built rows.

use linecast_domain::{ModelColumn, ModelType, SeasonType, Side, Sport};

use super::fixtures::{RowExt, game};
use crate::{Decision, Model, Pick, UngradedReason, grade_row, pick_for};

const BLEND: Model = Model::Column(ModelColumn::Blend);
const IMPLIED: Model = Model::Column(ModelColumn::Implied);
const ML: ModelType = ModelType::WonOnPoints;

#[test]
fn a_row_without_a_final_is_ungraded_with_no_final_and_null_push_and_outcome() {
    let g = grade_row(&game("2026-11-01", "a", "b").ml(-120.0, 100.0).all(0.6), Sport::Nba, ML);
    assert!(!g.graded);
    assert_eq!(g.ungraded_reason, Some(UngradedReason::NoFinal));
    assert_eq!((g.push, g.outcome), (None, None));
    assert_eq!(g.hit(BLEND), None);
    assert_eq!(
        g.pick(BLEND),
        Some(Pick::Side(Side::Positive)),
        "picks exist before the final"
    );
}

#[test]
fn no_final_is_reported_before_no_line() {
    let g = grade_row(&game("2026-11-01", "a", "b").all(0.6), Sport::Nba, ML);
    assert_eq!(g.ungraded_reason, Some(UngradedReason::NoFinal));
}

#[test]
fn a_final_without_a_posted_line_is_ungraded_with_no_line() {
    // Spread prices alone are not a posted spread: the rule needs home_point_spread.
    let mut row = game("2026-11-01", "a", "b").score(90.0, 100.0).all(0.6);
    row.lines.home_point_spread_line = Some(-110.0);
    row.lines.away_point_spread_line = Some(-110.0);
    let g = grade_row(&row, Sport::Nba, ModelType::WonOnSpread);
    assert_eq!(g.ungraded_reason, Some(UngradedReason::NoLine));
    assert_eq!((g.push, g.outcome), (None, None));
    assert!(!g.graded);
}

#[test]
fn a_total_landing_on_the_line_pushes_and_grades_no_model() {
    let row = game("2026-11-01", "a", "b")
        .score(100.0, 100.0)
        .total(200.0, -110.0, -110.0)
        .all(0.7);
    let g = grade_row(&row, Sport::Nba, ModelType::OverUnder);
    assert_eq!(g.push, Some(true));
    assert_eq!(g.outcome, Some(0), "a push reads as an under");
    assert_eq!(g.ungraded_reason, Some(UngradedReason::Push));
    assert!(!g.graded);
    for m in Model::ALL {
        assert_eq!(g.hit(m), None, "{m} must not grade a push");
    }
}

#[test]
fn a_spread_push_is_home_score_plus_home_spread_equal_to_away_score() {
    let row = game("2026-11-01", "a", "b")
        .score(97.0, 100.0)
        .spread(-3.0, -110.0, -110.0)
        .all(0.3);
    let g = grade_row(&row, Sport::Nba, ModelType::WonOnSpread);
    assert_eq!(g.decision, Some(Decision::Push));
    assert_eq!(g.outcome, Some(0), "a push reads as a non-cover");
    assert_eq!(g.ungraded_reason, Some(UngradedReason::Push));
}

#[test]
fn a_moneyline_tie_is_a_push() {
    let row = game("2026-11-01", "a", "b").score(3.0, 3.0).ml(-130.0, 110.0).all(0.6);
    let g = grade_row(&row, Sport::Nfl, ML);
    assert_eq!(g.push, Some(true));
    assert_eq!(g.ungraded_reason, Some(UngradedReason::Push));
}

#[test]
fn a_decided_game_without_probabilities_is_ungraded_with_no_prediction_even_with_implied() {
    let row = game("2026-11-01", "a", "b").score(90.0, 100.0).ml(-150.0, 130.0);
    let g = grade_row(&row, Sport::Nba, ML);
    assert!(g.implied.is_some());
    assert_eq!(g.pick(IMPLIED), Some(Pick::Side(Side::Positive)));
    assert!(!g.graded, "IMPLIED alone never grades a row");
    assert_eq!(g.hit(IMPLIED), None);
    assert_eq!(g.ungraded_reason, Some(UngradedReason::NoPrediction));
    assert_eq!(g.push, Some(false));
    assert_eq!(g.outcome, Some(1));
}

#[test]
fn every_probability_at_one_half_is_no_prediction() {
    let row = game("2026-11-01", "a", "b")
        .score(90.0, 100.0)
        .ml(-150.0, 130.0)
        .all(0.5);
    let g = grade_row(&row, Sport::Nba, ML);
    assert_eq!(g.pick(BLEND), Some(Pick::Abstain));
    assert_eq!(g.pick(Model::Ensemble), Some(Pick::Abstain));
    assert_eq!(g.ungraded_reason, Some(UngradedReason::NoPrediction));
}

#[test]
fn a_graded_row_has_no_reason_and_every_picking_model_has_a_hit() {
    let row = game("2026-11-01", "a", "b")
        .score(90.0, 100.0)
        .ml(-150.0, 130.0)
        .all(0.4);
    let g = grade_row(&row, Sport::Nba, ML);
    assert!(g.graded);
    assert_eq!(g.ungraded_reason, None);
    assert_eq!(g.hit(BLEND), Some(false));
    assert_eq!(g.hit(IMPLIED), Some(true));
    assert_eq!(g.hit(Model::Ensemble), Some(false));
    assert_eq!(g.hit(Model::Column(ModelColumn::Ai)), None, "AI has no probability");
}

#[test]
fn a_model_picks_the_side_its_probability_favors_and_abstains_at_one_half() {
    assert_eq!(pick_for(0.5), Some(Pick::Abstain));
    assert_eq!(pick_for(0.500_001), Some(Pick::Side(Side::Positive)));
    assert_eq!(pick_for(0.499_999), Some(Pick::Side(Side::Negative)));
    assert_eq!(pick_for(f64::NAN), None);
}

#[test]
fn implied_is_recomputed_from_both_prices_and_the_stored_column_is_ignored() {
    let row = game("2026-11-01", "a", "b")
        .score(90.0, 100.0)
        .ml(130.0, -150.0)
        .prob(ModelColumn::Implied, 0.9);
    let g = grade_row(&row, Sport::Nba, ML);
    let expected = (100.0 / 230.0) / (100.0 / 230.0 + 0.6);
    assert!((g.implied.unwrap() - expected).abs() < 1e-12);
    assert_eq!(g.pick(IMPLIED), Some(Pick::Side(Side::Negative)));
}

#[test]
fn a_one_sided_price_gives_no_implied_and_no_implied_pick_but_the_line_is_posted() {
    let mut row = game("2026-11-01", "a", "b")
        .score(90.0, 100.0)
        .prob(ModelColumn::Blend, 0.6);
    row.lines.home_money_line = Some(-150.0);
    let g = grade_row(&row, Sport::Nba, ML);
    assert_eq!(g.implied, None);
    assert_eq!(g.pick(IMPLIED), None);
    assert!(g.graded, "one moneyline price is a posted line");
    assert_eq!(g.hit(BLEND), Some(true));
}

#[test]
fn ensemble_needs_five_of_the_six_individual_models_on_one_side() {
    let base = game("2026-11-01", "a", "b")
        .score(90.0, 100.0)
        .ml(-150.0, 130.0)
        .all(0.6);
    let five = base.clone().prob(ModelColumn::Xt, 0.4);
    let four = five.clone().prob(ModelColumn::Xgb, 0.4);
    let g5 = grade_row(&five, Sport::Nba, ML);
    let g4 = grade_row(&four, Sport::Nba, ML);
    assert_eq!(g5.pick(Model::Ensemble), Some(Pick::Side(Side::Positive)));
    assert_eq!(g5.hit(Model::Ensemble), Some(true));
    assert_eq!(g4.pick(Model::Ensemble), Some(Pick::Abstain));
    assert_eq!(g4.hit(Model::Ensemble), None);
    // BLEND does not vote.
    let blend_only = game("2026-11-01", "a", "b").prob(ModelColumn::Blend, 0.9);
    assert_eq!(grade_row(&blend_only, Sport::Nba, ML).pick(Model::Ensemble), None);
}

#[test]
fn professional_preseason_rows_are_out_of_scope_and_never_graded() {
    let row = game("2026-10-05", "a", "b")
        .score(90.0, 100.0)
        .ml(-150.0, 130.0)
        .all(0.6)
        .kind(SeasonType::Preseason);
    for sport in [Sport::Mlb, Sport::Nba, Sport::Nfl, Sport::Nhl] {
        let g = grade_row(&row, sport, ML);
        assert!(!g.in_scope);
        assert!(!g.graded);
        assert_eq!(g.ungraded_reason, None);
        assert_eq!(g.hit(BLEND), None);
        assert_eq!(g.outcome, Some(1), "facts are still computed");
    }
}

#[test]
fn postseason_rows_grade_in_professional_leagues_and_college_grades_every_game_type() {
    let row = game("2026-10-05", "a", "b")
        .score(90.0, 100.0)
        .ml(-150.0, 130.0)
        .all(0.6);
    assert!(grade_row(&row.clone().kind(SeasonType::Postseason), Sport::Nhl, ML).graded);
    assert!(
        !grade_row(
            &row.clone().kind(SeasonType::Other("exhibition".into())),
            Sport::Nhl,
            ML
        )
        .graded
    );
    for sport in [Sport::Ncaab, Sport::Ncaaf] {
        let g = grade_row(&row.clone().kind(SeasonType::Preseason), sport, ML);
        assert!(g.in_scope && g.graded);
    }
}

#[test]
fn the_spread_outcome_is_the_home_cover() {
    let row = game("2026-11-01", "a", "b").spread(-3.5, -110.0, -110.0).all(0.6);
    let covered = grade_row(&row.clone().score(96.0, 100.0), Sport::Nba, ModelType::WonOnSpread);
    let missed = grade_row(&row.score(97.0, 100.0), Sport::Nba, ModelType::WonOnSpread);
    assert_eq!((covered.outcome, covered.hit(BLEND)), (Some(1), Some(true)));
    assert_eq!((missed.outcome, missed.hit(BLEND)), (Some(0), Some(false)));
}

#[test]
fn the_totals_outcome_is_the_over() {
    let row = game("2026-11-01", "a", "b").total(205.5, -110.0, -110.0).all(0.4);
    let over = grade_row(&row.clone().score(100.0, 110.0), Sport::Nba, ModelType::OverUnder);
    let under = grade_row(&row.score(100.0, 105.0), Sport::Nba, ModelType::OverUnder);
    assert_eq!((over.outcome, over.hit(BLEND)), (Some(1), Some(false)));
    assert_eq!((under.outcome, under.hit(BLEND)), (Some(0), Some(true)));
}

#[test]
fn ungraded_reasons_have_the_public_spellings() {
    let all = [
        UngradedReason::NoFinal,
        UngradedReason::NoLine,
        UngradedReason::Push,
        UngradedReason::NoPrediction,
    ];
    let names: Vec<_> = all.iter().map(|r| r.as_str()).collect();
    assert_eq!(names, ["no_final", "no_line", "push", "no_prediction"]);
}

/// `push` as result rows serve it (payloads.md): true when the final lands
/// on the line, false when the game was decided either way, null without a
/// final or a posted line; in every market.
#[test]
fn push_is_true_on_the_line_false_when_decided_and_null_without_a_final_or_line() {
    use crate::push;
    let landed = [
        (
            ModelType::WonOnPoints,
            game("2026-11-01", "a", "b").score(100.0, 100.0).ml(-110.0, -110.0),
        ),
        (
            ModelType::WonOnSpread,
            game("2026-11-01", "a", "b")
                .score(100.0, 97.0)
                .spread(3.0, -110.0, -110.0),
        ),
        (
            ModelType::OverUnder,
            game("2026-11-01", "a", "b")
                .score(100.0, 110.0)
                .total(210.0, -110.0, -110.0),
        ),
    ];
    for (mt, row) in landed {
        assert_eq!(push(&row, mt), Some(true), "{mt:?}");
    }
    let decided = [
        (
            ModelType::WonOnPoints,
            game("2026-11-01", "a", "b").score(100.0, 101.0).ml(-110.0, -110.0),
        ),
        (
            ModelType::WonOnPoints,
            game("2026-11-01", "a", "b").score(101.0, 100.0).ml(-110.0, -110.0),
        ),
        (
            ModelType::WonOnSpread,
            game("2026-11-01", "a", "b")
                .score(100.0, 98.0)
                .spread(3.0, -110.0, -110.0),
        ),
        (
            ModelType::OverUnder,
            game("2026-11-01", "a", "b")
                .score(100.0, 109.5)
                .total(210.0, -110.0, -110.0),
        ),
    ];
    for (mt, row) in decided {
        assert_eq!(push(&row, mt), Some(false), "{mt:?}");
    }
    assert_eq!(
        push(&game("2026-11-01", "a", "b").ml(-110.0, -110.0), ModelType::WonOnPoints),
        None
    );
    assert_eq!(
        push(&game("2026-11-01", "a", "b").score(1.0, 1.0), ModelType::WonOnPoints),
        None
    );
}

/// The CLV unit's label as the calibration payload spells it (payloads.md:
/// moneyline `probability_points`, spread and totals `points`).
#[test]
fn the_clv_units_are_labelled_as_the_payload_documents() {
    use crate::ClvUnit;
    assert_eq!(ClvUnit::ProbabilityPoints.as_str(), "probability_points");
    assert_eq!(ClvUnit::Points.as_str(), "points");
}

#[test]
fn a_margin_inside_the_float_noise_band_pushes_and_one_at_its_edge_is_decided() {
    // A 0-0 final against a home spread of s: the margin toward home is s.
    let at = |s: f64| {
        let row = game("2026-11-01", "a", "b").score(0.0, 0.0).spread(s, -110.0, -110.0);
        crate::decide(&row, ModelType::WonOnSpread)
    };
    assert_eq!(at(0.0), Some(Decision::Push));
    assert_eq!(at(5e-10), Some(Decision::Push));
    assert_eq!(at(-5e-10), Some(Decision::Push));
    assert_eq!(at(1e-9), Some(Decision::Won(Side::Positive)));
    assert_eq!(at(-1e-9), Some(Decision::Won(Side::Negative)));
}
