//! Calibration on hand-built seasons: every expectation is worked out by
//! hand in the comments, never with the module's own helpers.

use linecast_domain::{LineField, ModelColumn, ModelType, SeasonRow, SeasonType, Sport};

use super::fixtures::{RowExt, game};
use crate::calibration::{
    ClvBases, ClvBasis, ClvFrom, ClvReason, Forecast, PriceMove, PriceMoves, calibrate_graded_priced, log_loss, skill,
    wilson,
};
use crate::interval::Interval;
use crate::{
    CALIBRATION_RULES, Calibration, CalibrationSource, Clv, ClvUnit, GRADING_RULES, ModelCalibration, ReliabilityBin,
    Skill, calibrate, calibration_grading_rules, grade_rows,
};

const ML: ModelType = ModelType::WonOnPoints;

fn entry(c: &Calibration, model: ModelColumn) -> &ModelCalibration {
    c.models
        .iter()
        .find(|m| m.model == model)
        .unwrap_or_else(|| panic!("{} is not listed", model.code()))
}

fn codes(c: &Calibration) -> Vec<&'static str> {
    c.models.iter().map(|m| m.model.code()).collect()
}

/// A decided moneyline game at −110/−110 (IMPLIED exactly 0.5) with BLEND at `p`.
fn ml_game(day: &str, home_wins: bool, p: f64) -> SeasonRow {
    let (away, home) = if home_wins { (100.0, 110.0) } else { (110.0, 100.0) };
    game(day, "away", "home")
        .score(away, home)
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, p)
}

fn empty_bin(k: u32) -> ReliabilityBin {
    ReliabilityBin {
        lower: f64::from(k) / 10.0,
        upper: f64::from(k + 1) / 10.0,
        n: 0,
        mean_predicted: None,
        observed_rate: None,
        ci_low: None,
        ci_high: None,
    }
}

fn bin(k: u32, n: usize, mean: f64, rate: f64, ci: (f64, f64)) -> ReliabilityBin {
    ReliabilityBin {
        n,
        mean_predicted: Some(mean),
        observed_rate: Some(rate),
        ci_low: Some(ci.0),
        ci_high: Some(ci.1),
        ..empty_bin(k)
    }
}

/// The 95% bootstrap interval of the mean of `values` (in population
/// order), written here from `interval`'s published description and not
/// with its code: SplitMix64 from "linecast" in ASCII, 1000 resamples of
/// `n` draws `⌊x · n / 2⁶⁴⌋`, the 2.5% and 97.5% quantiles interpolated at
/// `(m − 1) q`, 6 decimals.
fn mean_ci(values: &[f64]) -> Option<Interval> {
    // `Option` as the served field is, so a literal reads `mean_ci: mean_ci(…)`.
    #![allow(clippy::unnecessary_wraps)]
    let mut state: u64 = u64::from_be_bytes(*b"linecast");
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let n = values.len();
    let mut means: Vec<f64> = (0..1000)
        .map(|_| {
            (0..n)
                .map(|_| values[((u128::from(next()) * n as u128) >> 64) as usize])
                .sum::<f64>()
                / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let h = 999.0 * q;
        means[h.floor() as usize] + (h - h.floor()) * (means[h.ceil() as usize] - means[h.floor() as usize])
    };
    let six = |x: f64| (x * 1e6).round() / 1e6;
    Some(Interval {
        n,
        low: six(at(0.025)),
        high: six(at(0.975)),
    })
}

/// The kept releases' basis of a season without kept releases.
/// A book-close basis without any named book's close.
fn no_book_closes(basis: ClvBasis) -> Clv {
    Clv {
        n: 0,
        mean: None,
        mean_ci: None,
        positive_share: None,
        unit: ClvUnit::ProbabilityPoints,
        basis,
        reason: Some(ClvReason::NoBookCloses),
    }
}

fn no_kept_releases() -> Clv {
    Clv {
        n: 0,
        mean: None,
        mean_ci: None,
        positive_share: None,
        unit: ClvUnit::ProbabilityPoints,
        basis: ClvBasis::KeptReleases,
        reason: Some(ClvReason::NoKeptReleases),
    }
}

/// The season of docs/payloads.md ("Calibration", worked example).
fn worked_example_season() -> Vec<SeasonRow> {
    let open = |r: SeasonRow, price: f64| r.line(LineField::OpenHomeMoneyLine, price);
    vec![
        open(ml_game("2026-11-01", true, 0.72), 100.0),
        open(ml_game("2026-11-02", false, 0.65), -120.0),
        open(ml_game("2026-11-03", true, 0.68), -120.0),
        open(ml_game("2026-11-04", false, 0.31), -120.0),
        // The placeholder opener 0 is no opener: no line move.
        open(ml_game("2026-11-05", true, 0.38), 0.0),
        // No opener at all: no line move either.
        ml_game("2026-11-06", true, 0.55),
        // Not played yet: no final, so not graded and not counted.
        game("2026-11-07", "away", "home")
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.60),
    ]
}

/// The worked example of docs/payloads.md ("Calibration", worked example), number by number.
#[test]
#[expect(
    clippy::approx_constant,
    reason = "IMPLIED's served log loss is ln 2 rounded to 6 places"
)]
fn worked_example_for_payloads_md() {
    let c = calibrate(&worked_example_season(), Sport::Nba, ML, CalibrationSource::All);
    // Six graded games; the seventh has no final.
    assert_eq!(c.games, 6);
    assert_eq!(c.bins, 10);
    // −110/−110 on every game prices IMPLIED at 0.5, so IMPLIED is listed;
    // no other column has a probability.
    assert_eq!(codes(&c), ["IMPLIED", "BLEND"]);

    // BLEND: p = 0.72 0.65 0.68 0.31 0.38 0.55, y = 1 0 1 0 1 1.
    //
    // brier: (0.28² + 0.65² + 0.32² + 0.31² + 0.62² + 0.45²) / 6
    //      = (0.0784 + 0.4225 + 0.1024 + 0.0961 + 0.3844 + 0.2025) / 6 = 1.2863 / 6 = 0.2143833.
    // log_loss: −(ln 0.72 + ln 0.35 + ln 0.68 + ln 0.69 + ln 0.38 + ln 0.55) / 6
    //      = (0.328504 + 1.049822 + 0.385662 + 0.371064 + 0.967584 + 0.597837) / 6
    //      = 3.700473 / 6 = 0.616746.
    //
    // Bins (Wilson 95%, z² = 3.841459):
    // - bin 3 [0.3, 0.4): 0.31 (y 0), 0.38 (y 1): n 2, p̄ 0.345, ō 0.5;
    //   Wilson(1 of 2): centre 0.5, half-width z / (1 + z²/2) × √(0.25/2 + z²/16)
    //   = 1.959964 / 2.920729 × √(0.125 + 0.240091) = 0.671055 × 0.604228 = 0.405469,
    //   so [0.094531, 0.905469] → [0.0945, 0.9055].
    // - bin 5 [0.5, 0.6): 0.55 (y 1): n 1, ō 1; Wilson(1 of 1): centre (1 + z²/2) / (1 + z²),
    //   half-width z / (1 + z²) × √(z²/4) = (z²/2) / (1 + z²), so low = 1 / (1 + z²)
    //   = 1 / 4.841459 = 0.206549 → 0.2065 and high 1.
    // - bin 6 [0.6, 0.7): 0.65 (y 0), 0.68 (y 1): n 2, p̄ 0.665, ō 0.5, Wilson as bin 3.
    // - bin 7 [0.7, 0.8): 0.72 (y 1): n 1, ō 1, Wilson as bin 5.
    //
    // ō = 4/6. reliability = (2 × 0.155² + 1 × 0.45² + 2 × 0.165² + 1 × 0.28²) / 6
    //   = (0.04805 + 0.2025 + 0.05445 + 0.0784) / 6 = 0.3834 / 6 = 0.0639.
    // resolution = (2 × (1/2 − 2/3)² + (1 − 2/3)² + 2 × (1/2 − 2/3)² + (1 − 2/3)²) / 6
    //   = (1/18 + 1/9 + 1/18 + 1/9) / 6 = (1/3) / 6 = 1/18 = 0.0555556.
    // uncertainty = 2/3 × 1/3 = 2/9 = 0.2222222.
    // (Forecasts vary inside bins 3 and 6, so brier 0.214383 ≠ 0.0639 − 0.055556 + 0.222222.)
    // ece = (2 × 0.155 + 0.45 + 2 × 0.165 + 0.28) / 6 = 1.37 / 6 = 0.2283333.
    //
    // skill: IMPLIED is 0.5 on all six games: Brier 0.25, log loss ln 2 = 0.693147.
    // brier_skill = 1 − 0.2143833 / 0.25 = 0.1424667 → 0.1425;
    // log_loss_skill = 1 − 0.616746 / 0.693147 = 0.110224 → 0.1102.
    //
    // clv (moneyline, probability points): recorded home −110 is 110/210 = 0.523810.
    // - game 1 opened +100 (0.5): move +0.023810, BLEND picks home → +2.380952;
    // - game 2 opened −120 (120/220 = 0.545455): move −0.021645, home pick → −2.164502;
    // - game 3 the same → −2.164502;
    // - game 4 the same move, away pick (0.31) → +2.164502;
    // - games 5 and 6 have no opener.
    // n 4, mean (2.380952 − 2.164502) / 4 = 0.054113 → 0.0541, positive share 2/4 = 0.5.
    let blend = entry(&c, ModelColumn::Blend);
    // No kept releases were given: that basis is null with its reason, and
    // the headline clv is the result rows' figure.
    let blend_clv = Clv {
        n: 4,
        mean: Some(0.0541),
        mean_ci: {
            let (up, down) = (100.0 * (110.0 / 210.0 - 0.5), 100.0 * (110.0 / 210.0 - 120.0 / 220.0));
            mean_ci(&[up, down, down, -down])
        },
        positive_share: Some(0.5),
        unit: ClvUnit::ProbabilityPoints,
        basis: ClvBasis::ResultRows,
        reason: None,
    };
    let wide = (0.0945, 0.9055);
    let certain = (0.2065, 1.0);
    let expected_bins = vec![
        empty_bin(0),
        empty_bin(1),
        empty_bin(2),
        bin(3, 2, 0.345, 0.5, wide),
        empty_bin(4),
        bin(5, 1, 0.55, 1.0, certain),
        bin(6, 2, 0.665, 0.5, wide),
        bin(7, 1, 0.72, 1.0, certain),
        empty_bin(8),
        empty_bin(9),
    ];
    assert_eq!(
        *blend,
        ModelCalibration {
            model: ModelColumn::Blend,
            n: 6,
            brier: 0.214_383,
            log_loss: 0.616_746,
            // Pinned by `interval_props`, recomputed independently there.
            brier_ci: blend.brier_ci,
            log_loss_ci: blend.log_loss_ci,
            reliability_bins: expected_bins,
            reliability: 0.0639,
            resolution: 0.055_556,
            uncertainty: 0.222_222,
            ece: 0.228_333,
            skill_at_forecast: None,
            skill_vs_market: Some(Skill {
                n: 6,
                brier_skill: Some(0.1425),
                log_loss_skill: Some(0.1102),
                brier_skill_ci: blend.skill_vs_market.and_then(|s| s.brier_skill_ci),
                log_loss_skill_ci: blend.skill_vs_market.and_then(|s| s.log_loss_skill_ci),
            }),
            n_paired: 6,
            clv: blend_clv,
            clv_bases: ClvBases {
                kept_releases: no_kept_releases(),
                result_rows: blend_clv,
                sharp_close: no_book_closes(ClvBasis::SharpClose),
                consensus_close: no_book_closes(ClvBasis::ConsensusClose),
            },
        }
    );

    // IMPLIED: 0.5 on the six games, four home wins. All in bin 5: p̄ 0.5,
    // ō 4/6 = 0.6667; Wilson(4 of 6): centre (2/3 + z²/12) / (1 + z²/6)
    // = 0.986788 / 1.640243 = 0.601611, half-width 1.959964 / 1.640243
    // × √((2/9)/6 + z²/144) = 1.194921 × 0.252417 = 0.301618 → [0.3000, 0.9032].
    // reliability (0.5 − 2/3)² = 1/36 = 0.027778, resolution 0 (one bin),
    // uncertainty 2/9; brier 0.25 = 0.027778 − 0 + 0.222222 (one forecast per bin).
    // ece |0.5 − 2/3| = 0.166667. No pick at 0.5, so no CLV; no skill against itself.
    // Its log loss is ln 2 = 0.693147 whatever the outcome.
    let implied = entry(&c, ModelColumn::Implied);
    // Four games have a line move, but IMPLIED at 0.5 picks none: no picks.
    let implied_clv = Clv {
        n: 0,
        mean: None,
        mean_ci: None,
        positive_share: None,
        unit: ClvUnit::ProbabilityPoints,
        basis: ClvBasis::ResultRows,
        reason: Some(ClvReason::NoPicks),
    };
    let mut implied_bins: Vec<_> = (0..10).map(empty_bin).collect();
    implied_bins[5] = bin(5, 6, 0.5, 0.6667, (0.3, 0.9032));
    assert_eq!(
        *implied,
        ModelCalibration {
            model: ModelColumn::Implied,
            n: 6,
            brier: 0.25,
            log_loss: 0.693_147,
            // Every forecast 0.5: every resample scores the same.
            brier_ci: Some(Interval {
                n: 6,
                low: 0.25,
                high: 0.25
            }),
            log_loss_ci: Some(Interval {
                n: 6,
                low: 0.693_147,
                high: 0.693_147
            }),
            reliability_bins: implied_bins,
            reliability: 0.027_778,
            resolution: 0.0,
            uncertainty: 0.222_222,
            ece: 0.166_667,
            skill_vs_market: None,
            skill_at_forecast: None,
            n_paired: 6,
            clv: implied_clv,
            clv_bases: ClvBases {
                kept_releases: no_kept_releases(),
                result_rows: implied_clv,
                sharp_close: no_book_closes(ClvBasis::SharpClose),
                consensus_close: no_book_closes(ClvBasis::ConsensusClose),
            },
        }
    );
}

#[test]
fn only_graded_rows_are_in_the_population() {
    let rows = vec![
        ml_game("2026-11-01", true, 0.7),
        // No final.
        game("2026-11-02", "a", "b")
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.7),
        // No line.
        game("2026-11-03", "a", "b")
            .score(1.0, 2.0)
            .prob(ModelColumn::Blend, 0.7),
        // Push.
        game("2026-11-04", "a", "b")
            .score(2.0, 2.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.7),
        // Preseason: outside the NBA season.
        ml_game("2026-10-01", true, 0.7).kind(SeasonType::Preseason),
        // no_prediction: BLEND exactly 0.5 and nobody else, so nobody's record,
        // though BLEND and IMPLIED have probabilities.
        ml_game("2026-11-05", true, 0.5),
    ];
    let c = calibrate(&rows, Sport::Nba, ML, CalibrationSource::All);
    assert_eq!(c.games, 1);
    assert_eq!(entry(&c, ModelColumn::Blend).n, 1);
    assert_eq!(entry(&c, ModelColumn::Implied).n, 1);
    // College leagues grade every game type: the preseason row counts.
    let college = calibrate(&rows, Sport::Ncaab, ML, CalibrationSource::All);
    assert_eq!(college.games, 2);
}

#[test]
fn models_are_listed_in_payload_order_and_only_with_a_population() {
    // CATB, XT and AI have probabilities (the catalog puts AI before BLEND;
    // calibration lists BLEND first); RF, LGB, LOGR and XGB have none; the
    // away price is missing, so IMPLIED has none either; ENSEMBLE never.
    let mut row = ml_game("2026-11-01", true, 0.7)
        .prob(ModelColumn::Xt, 0.6)
        .prob(ModelColumn::Catb, 0.6)
        .prob(ModelColumn::Ai, 0.55);
    row.lines.away_money_line = None;
    let c = calibrate(&[row.clone()], Sport::Nba, ML, CalibrationSource::All);
    assert_eq!(codes(&c), ["BLEND", "AI", "CATB", "XT"]);
    // Without a market price there is no pair to compare with.
    let skill = entry(&c, ModelColumn::Blend).skill_vs_market;
    assert_eq!(
        skill,
        Some(Skill {
            n: 0,
            brier_skill: None,
            log_loss_skill: None,
            brier_skill_ci: None,
            log_loss_skill_ci: None,
        })
    );

    // Every model column, and five agreeing individual models (ENSEMBLE
    // picks, but has no probability): the nine columns, ENSEMBLE absent.
    let mut full = ml_game("2026-11-02", true, 0.7);
    for column in ModelColumn::ALL {
        if *column != ModelColumn::Implied {
            full.models.set(*column, Some(0.6));
        }
    }
    let c = calibrate(&[full], Sport::Nba, ML, CalibrationSource::All);
    assert_eq!(
        codes(&c),
        ["IMPLIED", "BLEND", "AI", "CATB", "RF", "LGB", "LOGR", "XGB", "XT"]
    );
}

#[test]
fn a_season_without_graded_games_has_no_models() {
    let unplayed = game("2026-11-01", "a", "b")
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, 0.7);
    for rows in [vec![], vec![unplayed]] {
        let c = calibrate(&rows, Sport::Nba, ML, CalibrationSource::All);
        assert_eq!((c.games, c.bins, c.models.len()), (0, 10, 0));
    }
}

#[test]
#[expect(clippy::float_cmp, reason = "served values are rounded, so exact")]
fn the_source_filter_reads_model_probability_source_before_anything_else() {
    let mut forecast_live = ml_game("2026-11-06", true, 0.7).source("walk_forward");
    // forecast_source says live, model_probability_source walk_forward: the
    // filter reads model_probability_source.
    forecast_live.provenance.forecast_source = Some("live".into());
    let rows = vec![
        ml_game("2026-11-01", true, 0.7).source("live"),
        ml_game("2026-11-02", true, 0.7).source("walk_forward"),
        ml_game("2026-11-03", false, 0.7).source("reconstructed_oos"),
        ml_game("2026-11-04", true, 0.7),
        ml_game("2026-11-05", true, 0.7).source("something_else"),
        forecast_live,
        // A live row that does not grade (push) is filtered and then dropped.
        game("2026-11-07", "a", "b")
            .score(1.0, 1.0)
            .ml(-110.0, -110.0)
            .prob(ModelColumn::Blend, 0.7)
            .source("live"),
    ];
    let games = |source| calibrate(&rows, Sport::Nba, ML, source).games;
    assert_eq!(games(CalibrationSource::All), 6);
    assert_eq!(games(CalibrationSource::Live), 1);
    assert_eq!(games(CalibrationSource::Reconstructed), 3);
    // The reconstructed rows: home won twice of three; BLEND 0.7 each time,
    // so brier = (0.09 + 0.09 + 0.49) / 3 = 0.223333.
    let c = calibrate(&rows, Sport::Nba, ML, CalibrationSource::Reconstructed);
    assert_eq!(entry(&c, ModelColumn::Blend).brier, 0.223_333);
}

/// The verified source reads exactly the rows the archive marked, and
/// nothing without marks; its `left_out` is the caller's count.
#[test]
fn verified_reads_only_the_marked_rows() {
    use crate::calibration::{Inputs, LeftOut, calibrate_graded_with};
    let rows = vec![
        ml_game("2026-11-01", true, 0.7),
        ml_game("2026-11-02", false, 0.6),
        ml_game("2026-11-03", true, 0.4),
    ];
    let graded = grade_rows(&rows, Sport::Nba, ML);
    let left_out = LeftOut {
        mismatch: 1,
        not_kept: 0,
        not_applicable: 0,
    };
    let marks = [true, false, true];
    let c = calibrate_graded_with(
        &rows,
        &graded,
        Sport::Nba,
        ML,
        CalibrationSource::Verified,
        Inputs {
            verified: Some((&marks, left_out)),
            ..Inputs::default()
        },
    );
    assert_eq!(c.games, 2);
    assert_eq!(c.left_out, Some(left_out));
    // BLEND on the two marked games: (0.3² + 0.6²) / 2 = 0.225.
    assert!((entry(&c, ModelColumn::Blend).brier - 0.225).abs() < 1e-12);
    let unmarked = calibrate(&rows, Sport::Nba, ML, CalibrationSource::Verified);
    assert_eq!(unmarked.games, 0);
    assert_eq!(unmarked.left_out, Some(LeftOut::default()));
    assert_eq!(calibrate(&rows, Sport::Nba, ML, CalibrationSource::All).left_out, None);
}

#[test]
fn source_codes_parse_exactly() {
    for s in CalibrationSource::ALL {
        assert_eq!(CalibrationSource::parse(s.code()), Ok(s));
    }
    let err = CalibrationSource::parse("Live").unwrap_err();
    assert_eq!(err.allowed, "all, live, reconstructed, verified");
    assert_eq!(CalibrationSource::default(), CalibrationSource::All);
}

#[test]
fn spread_and_totals_clv_is_in_points_signed_by_the_pick() {
    let spread = |day: &str, p: f64, open: f64| {
        // Home −3.5 wins by 10: covered.
        game(day, "a", "b")
            .score(100.0, 110.0)
            .spread(-3.5, -110.0, -110.0)
            .line(LineField::OpenHomePointSpread, open)
            .prob(ModelColumn::Blend, p)
    };
    let rows = [
        // Opened −2.5, now −3.5: move = −2.5 − (−3.5) = +1 toward home; home pick → +1.
        spread("2026-11-01", 0.6, -2.5),
        // Same move, away pick → −1.
        spread("2026-11-02", 0.4, -2.5),
        // Opened −6: move −6 + 3.5 = −2.5; away pick → +2.5.
        spread("2026-11-03", 0.3, -6.0),
        // Opener 0 is no opener: no CLV.
        spread("2026-11-04", 0.3, 0.0),
    ];
    let c = calibrate(&rows, Sport::Nba, ModelType::WonOnSpread, CalibrationSource::All);
    // n 3, mean (1 − 1 + 2.5) / 3 = 0.833333 → 0.8333, positive 2 of 3 = 0.6667.
    assert_eq!(
        entry(&c, ModelColumn::Blend).clv,
        Clv {
            n: 3,
            mean: Some(0.8333),
            mean_ci: mean_ci(&[1.0, -1.0, 2.5]),
            positive_share: Some(0.6667),
            unit: ClvUnit::Points,
            basis: ClvBasis::ResultRows,
            reason: None,
        }
    );

    let total = |day: &str, p: f64, open: f64| {
        game(day, "a", "b")
            .score(100.0, 110.0)
            .total(220.5, -110.0, -110.0)
            .line(LineField::OpenOverUnder, open)
            .prob(ModelColumn::Blend, p)
    };
    let rows = [
        // 218 → 220.5: move +2.5 toward the over; under pick → −2.5.
        total("2026-11-01", 0.3, 218.0),
        // 222 → 220.5: move −1.5; under pick → +1.5.
        total("2026-11-02", 0.2, 222.0),
    ];
    let c = calibrate(&rows, Sport::Nba, ModelType::OverUnder, CalibrationSource::All);
    // n 2, mean (−2.5 + 1.5) / 2 = −0.5, positive 1 of 2.
    assert_eq!(
        entry(&c, ModelColumn::Blend).clv,
        Clv {
            n: 2,
            mean: Some(-0.5),
            mean_ci: mean_ci(&[-2.5, 1.5]),
            positive_share: Some(0.5),
            unit: ClvUnit::Points,
            basis: ClvBasis::ResultRows,
            reason: None,
        }
    );
}

#[test]
fn a_line_that_did_not_move_counts_in_clv_but_is_not_positive() {
    // payloads.md: "Positive means the market moved toward the pick after
    // the opener." A line that opened where it stands moved 0: the pick is
    // counted (n) with CLV 0, and is not positive.
    let spread = |day: &str, p: f64, open: f64| {
        game(day, "a", "b")
            .score(100.0, 110.0)
            .spread(-3.5, -110.0, -110.0)
            .line(LineField::OpenHomePointSpread, open)
            .prob(ModelColumn::Blend, p)
    };
    let rows = [
        // Opened −3.5, still −3.5: move 0, home pick → 0.
        spread("2026-11-01", 0.6, -3.5),
        // Opened −2.5: move +1, home pick → +1.
        spread("2026-11-02", 0.6, -2.5),
    ];
    let c = calibrate(&rows, Sport::Nba, ModelType::WonOnSpread, CalibrationSource::All);
    // n 2, mean (0 + 1) / 2 = 0.5, positive 1 of 2 = 0.5.
    assert_eq!(
        entry(&c, ModelColumn::Blend).clv,
        Clv {
            n: 2,
            mean: Some(0.5),
            mean_ci: mean_ci(&[0.0, 1.0]),
            positive_share: Some(0.5),
            unit: ClvUnit::Points,
            basis: ClvBasis::ResultRows,
            reason: None,
        }
    );
}

#[test]
fn moneyline_clv_is_in_probability_points_and_implied_picks_the_favourite() {
    // Home −150 / away +130: IMPLIED = 0.6 / (0.6 + 0.434783) = 0.579832, a
    // home pick. Opened −130: 130/230 = 0.565217; now 150/250 = 0.6; move
    // +0.034783 → +3.478261 points for a home pick, −3.478261 for an away pick.
    let row = |day: &str, p: f64| {
        game(day, "a", "b")
            .score(1.0, 2.0)
            .ml(-150.0, 130.0)
            .line(LineField::OpenHomeMoneyLine, -130.0)
            .prob(ModelColumn::Blend, p)
    };
    let rows = [
        row("2026-11-01", 0.7),
        row("2026-11-02", 0.45),
        // BLEND 0.5 picks no side (CATB's pick grades the row): no BLEND CLV.
        row("2026-11-03", 0.5).prob(ModelColumn::Catb, 0.7),
    ];
    let c = calibrate(&rows, Sport::Nba, ML, CalibrationSource::All);
    assert_eq!(entry(&c, ModelColumn::Blend).n, 3);
    // BLEND: +3.478261 and −3.478261 → mean 0, one positive of two.
    let blend = entry(&c, ModelColumn::Blend).clv;
    assert_eq!(
        (blend.n, blend.mean, blend.positive_share, blend.unit),
        (2, Some(0.0), Some(0.5), ClvUnit::ProbabilityPoints)
    );
    // IMPLIED picks home all three times: +3.478261 → 3.4783, all positive.
    let implied = entry(&c, ModelColumn::Implied).clv;
    assert_eq!(
        (implied.n, implied.mean, implied.positive_share),
        (3, Some(3.4783), Some(1.0))
    );
}

#[test]
fn a_certain_forecast_lands_in_the_last_bin_and_its_log_loss_is_clipped() {
    // BLEND 1.0 on a game the home side lost: (1 − 0)² = 1. The outcome that
    // happened had probability 1 − 1 = 0, clipped to 1e-15: log loss
    // −ln(1e-15) = 15 ln 10 = 34.538776.
    let lost = game("2026-11-01", "a", "b")
        .score(2.0, 1.0)
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, 1.0);
    let c = calibrate(&[lost], Sport::Nba, ML, CalibrationSource::All);
    let blend = entry(&c, ModelColumn::Blend);
    assert_eq!((blend.brier, blend.log_loss), (1.0, 34.538_776));
    // Wilson(0 of 1): centre (z²/2) / (1 + z²) and half-width z / (1 + z²) × √(z²/4)
    // = (z²/2) / (1 + z²), so low 0 and high z² / (1 + z²) = 3.841459 / 4.841459 = 0.793451.
    assert_eq!(blend.reliability_bins[9], bin(9, 1, 1.0, 0.0, (0.0, 0.7935)));
    // A forecast of 0 on a game the home side lost costs −ln(1 − 1e-15) ≈ 1e-15.
    assert!(log_loss(&[Forecast { p: 0.0, y: false }]).unwrap() < 1e-14);
}

#[test]
fn each_bin_holds_its_lower_edge_but_not_its_upper_edge() {
    // p = k/10 lands in bin k for k < 10; just under an edge stays below it.
    let rows: Vec<SeasonRow> = (0..10u32)
        .map(|k| ml_game(&format!("2026-11-{:02}", k + 1), true, f64::from(k) / 10.0))
        .chain([ml_game("2026-11-20", true, 0.299_999)])
        // CATB picks, so the BLEND 0.5 row is graded (not no_prediction).
        .map(|r| r.prob(ModelColumn::Catb, 0.9))
        .collect();
    let c = calibrate(&rows, Sport::Nba, ML, CalibrationSource::All);
    let counts: Vec<usize> = entry(&c, ModelColumn::Blend)
        .reliability_bins
        .iter()
        .map(|b| b.n)
        .collect();
    assert_eq!(counts, [1, 1, 2, 1, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn wilson_matches_hand_computed_intervals() {
    // 2 of 3: p̂ 2/3, z² = 3.841459, z²/3 = 1.280486.
    // centre = (p̂ + z²/6) / (1 + z²/3) = (0.666667 + 0.640243) / 2.280486 = 0.573084;
    // half-width = z / (1 + z²/3) × √(p̂(1 − p̂)/3 + z²/36)
    //            = 0.859450 × √(0.074074 + 0.106707) = 0.859450 × 0.425184 = 0.365424;
    // so [0.207660, 0.938508].
    let (low, high) = wilson(2, 3).unwrap();
    assert!((low - 0.207_660).abs() < 1e-6, "{low}");
    assert!((high - 0.938_508).abs() < 1e-6, "{high}");
    assert_eq!(wilson(0, 0), None);
}

#[test]
fn skill_is_null_without_pairs_or_when_the_market_scores_zero() {
    let none = skill(&[], &[]);
    assert_eq!((none.n, none.brier_skill, none.log_loss_skill), (0, None, None));
    // A market that was certain and right scores a Brier of 0: no skill
    // ratio. Its log loss is clipped to about 1e-15, not 0.
    let model = [Forecast { p: 0.8, y: true }];
    let market = [Forecast { p: 1.0, y: true }];
    let s = skill(&model, &market);
    assert_eq!((s.n, s.brier_skill), (1, None));
    assert!(s.log_loss_skill.is_some());
}

#[test]
fn calibrating_pre_graded_rows_equals_calibrating_the_rows() {
    let rows = worked_example_season();
    let graded = grade_rows(&rows, Sport::Nba, ML);
    for source in CalibrationSource::ALL {
        assert_eq!(
            crate::calibrate_graded(&rows, &graded, Sport::Nba, ML, source),
            calibrate(&rows, Sport::Nba, ML, source)
        );
    }
}

#[test]
fn calibration_rules_are_named_sentences_that_extend_the_grading_rules() {
    let names: Vec<&str> = calibration_grading_rules().map(|(k, _)| *k).collect();
    assert_eq!(names.len(), GRADING_RULES.len() + CALIBRATION_RULES.len());
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "rule names are map keys");
    for name in [
        "source",
        "population",
        "outcome",
        "brier",
        "log_loss",
        "reliability_bins",
        "decomposition",
        "ece",
        "skill_vs_market",
        "clv_kept_releases",
        "clv_result_rows",
        "clv",
    ] {
        assert!(CALIBRATION_RULES.iter().any(|(k, _)| *k == name), "{name}");
    }
    assert!(CALIBRATION_RULES.iter().all(|(_, v)| v.ends_with('.')));
}

#[test]
fn a_clv_reason_is_spelled_in_snake_case() {
    for (reason, text) in [
        (ClvReason::FixedLine, "fixed_line"),
        (ClvReason::NoKeptReleases, "no_kept_releases"),
        (ClvReason::NoLineMove, "no_line_move"),
        (ClvReason::NoPicks, "no_picks"),
    ] {
        assert_eq!(reason.as_str(), text);
    }
}

#[cfg(feature = "serde")]
#[test]
fn the_payload_serializes_with_the_public_spellings() {
    let c = calibrate(&worked_example_season(), Sport::Nba, ML, CalibrationSource::All);
    let json = serde_json::to_value(&c).unwrap();
    let blend = &json["models"][1];
    assert_eq!(json["games"], 6);
    assert_eq!(json["bins"], 10);
    assert_eq!(json["models"][0]["model"], "IMPLIED");
    assert_eq!(json["models"][0]["skill_vs_market"], serde_json::Value::Null);
    assert_eq!(blend["model"], "BLEND");
    assert_eq!(blend["clv"]["unit"], "probability_points");
    assert_eq!(blend["clv"]["basis"], "result_rows");
    assert_eq!(blend["clv"]["reason"], serde_json::Value::Null);
    assert_eq!(blend["clv_bases"]["kept_releases"]["reason"], "no_kept_releases");
    assert_eq!(blend["clv_bases"]["kept_releases"]["mean"], serde_json::Value::Null);
    assert_eq!(blend["clv_bases"]["kept_releases"]["n"], 0);
    assert_eq!(json["models"][0]["clv"]["reason"], "no_picks");
    assert_eq!(serde_json::to_value(ClvReason::FixedLine).unwrap(), "fixed_line");
    assert_eq!(serde_json::to_value(ClvReason::NoLineMove).unwrap(), "no_line_move");
    // The public value the portal prints is the one the JSON carries.
    for reason in [
        ClvReason::FixedLine,
        ClvReason::NoKeptReleases,
        ClvReason::NoLineMove,
        ClvReason::NoPicks,
    ] {
        assert_eq!(serde_json::to_value(reason).unwrap(), reason.as_str());
    }
    assert_eq!(
        serde_json::to_value(crate::calibration::ClvBasis::KeptReleases).unwrap(),
        "kept_releases"
    );
    assert_eq!(blend["reliability_bins"][0]["ci_low"], serde_json::Value::Null);
    let keys: Vec<&str> = blend.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = [
        "model",
        "n",
        "brier",
        "log_loss",
        "brier_ci",
        "log_loss_ci",
        "reliability_bins",
        "reliability",
        "resolution",
        "uncertainty",
        "ece",
        "skill_vs_market",
        "skill_at_forecast",
        "n_paired",
        "clv",
        "clv_bases",
    ];
    let mut keys = keys;
    keys.sort_unstable();
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(
        serde_json::to_value(CalibrationSource::Reconstructed).unwrap(),
        "reconstructed"
    );
    assert_eq!(serde_json::to_value(CalibrationSource::Verified).unwrap(), "verified");
    assert_eq!(blend["brier_ci"]["n"], 6);
    assert_eq!(json["left_out"], serde_json::Value::Null);
    assert_eq!(
        json["unsettled"],
        serde_json::json!({"disputed": 0, "pending": 0, "provisional": 0})
    );
}

/// The model columns of a game's row at the pick's release: BLEND at `p`.
fn blend_at(p: f64) -> linecast_domain::ModelProbs {
    let mut models = linecast_domain::ModelProbs::default();
    models.set(ModelColumn::Blend, Some(p));
    models
}

#[test]
fn on_kept_releases_clv_is_the_no_vig_move_of_the_side_picked_at_the_pick_release_in_probability_points() {
    // A puck line at ±1.5 on every game: the season rows' line never moves.
    let puck = |day: &str, id: &str, p: f64| {
        let mut row = game(day, "a", "b")
            .score(2.0, 5.0)
            .spread(-1.5, -110.0, -110.0)
            .line(LineField::OpenHomePointSpread, -1.5)
            .prob(ModelColumn::Blend, p);
        row.game_id = id.into();
        row
    };
    let rows = [
        puck("2026-11-01", "nhl-20261101-a-b", 0.6),
        // The season row (the standing forecast) picks away at 0.3, but the
        // opening release had BLEND 0.55: the pick is home.
        puck("2026-11-02", "nhl-20261102-a-b", 0.3),
        puck("2026-11-03", "nhl-20261103-a-b", 0.7),
        // No kept release carried this one: it has no CLV on this basis.
        puck("2026-11-04", "nhl-20261104-a-b", 0.7),
        // Graded on its line, but without prices: no IMPLIED, so not paired.
        {
            let mut row = puck("2026-11-05", "nhl-20261105-a-b", 0.7);
            row.lines.home_point_spread_line = None;
            row.lines.away_point_spread_line = None;
            row
        },
    ];
    // The run line and puck line never move on the result rows: null with
    // its reason, never a measured 0.
    let fixed = Clv {
        n: 0,
        mean: None,
        mean_ci: None,
        positive_share: None,
        unit: ClvUnit::Points,
        basis: ClvBasis::ResultRows,
        reason: Some(ClvReason::FixedLine),
    };
    let on_rows = calibrate(&rows, Sport::Nhl, ModelType::WonOnSpread, CalibrationSource::All);
    assert_eq!(entry(&on_rows, ModelColumn::Blend).clv_bases.result_rows, fixed);
    assert_eq!(entry(&on_rows, ModelColumn::Blend).clv, fixed);
    let mut prices = PriceMoves::new();
    // Home picked at the opening (0.6), home's no-vig 0.50 → 0.55: +5 points.
    prices.insert(
        "nhl-20261101-a-b".into(),
        PriceMove {
            opening: 0.50,
            closing: 0.55,
            models: blend_at(0.6),
            // The sharp book closed home at 0.58 and the books' consensus
            // at 0.56: +8 and +6 points from the same pick and price.
            sharp_closing: Some(0.58),
            consensus_closing: Some(0.56),
        },
    );
    // Home picked at the opening (0.55), home 0.40 → 0.47: +7 points (the
    // season row's away pick would have made it −7).
    prices.insert(
        "nhl-20261102-a-b".into(),
        PriceMove {
            opening: 0.40,
            closing: 0.47,
            models: blend_at(0.55),
            // No sharp close; the consensus closed home at 0.45: +5.
            sharp_closing: None,
            consensus_closing: Some(0.45),
        },
    );
    // Away picked at the opening (0.45), home 0.62 → 0.60 (away 0.38 → 0.40): +2 points.
    prices.insert(
        "nhl-20261103-a-b".into(),
        PriceMove {
            opening: 0.62,
            closing: 0.60,
            models: blend_at(0.45),
            sharp_closing: None,
            consensus_closing: None,
        },
    );
    let graded = grade_rows(&rows, Sport::Nhl, ModelType::WonOnSpread);
    let c = calibrate_graded_priced(
        &rows,
        &graded,
        Sport::Nhl,
        ModelType::WonOnSpread,
        CalibrationSource::All,
        Some(&prices),
    );
    // n 3, mean (5 + 7 + 2) / 3 = 4.666667, positive 3 of 3.
    let kept = Clv {
        n: 3,
        mean: Some(4.6667),
        mean_ci: mean_ci(&[5.0, 7.0, 2.0]),
        positive_share: Some(1.0),
        unit: ClvUnit::ProbabilityPoints,
        basis: ClvBasis::KeptReleases,
        reason: None,
    };
    let blend = entry(&c, ModelColumn::Blend);
    assert_eq!(blend.clv_bases.kept_releases, kept);
    assert_eq!(blend.clv_bases.result_rows, fixed, "neither basis replaces the other");
    assert_eq!(blend.clv, kept, "the headline is the kept releases' when it has picks");
    // Against the books' closes, from the same picks and first prices: the
    // sharp close on one game (+8), the consensus close on two (+6, +5).
    let sharp = blend.clv_bases.sharp_close;
    assert_eq!(
        (sharp.n, sharp.mean, sharp.positive_share, sharp.basis, sharp.reason),
        (1, Some(8.0), Some(1.0), ClvBasis::SharpClose, None)
    );
    let consensus = blend.clv_bases.consensus_close;
    assert_eq!(
        (consensus.n, consensus.mean, consensus.basis),
        (2, Some(5.5), ClvBasis::ConsensusClose)
    );
    assert_eq!(consensus.mean_ci, mean_ci(&[6.0, 5.0]));
    // IMPLIED picks the side the opening's no-vig favours: none at 0.50
    // (exactly 0.5); away at 0.40 (home 0.40 → 0.47: −7); home at 0.62
    // (0.62 → 0.60: −2). n 2, mean −4.5, none positive.
    let implied = entry(&c, ModelColumn::Implied).clv_bases.kept_releases;
    assert_eq!(
        (implied.n, implied.mean, implied.positive_share),
        (2, Some(-4.5), Some(0.0))
    );
    // Five graded BLEND forecasts, four of them paired with IMPLIED.
    assert_eq!((blend.n, blend.n_paired), (5, 4));
    assert_eq!(blend.skill_vs_market.map(|s| s.n), Some(4));
    let implied = entry(&c, ModelColumn::Implied);
    assert_eq!((implied.n, implied.n_paired), (4, 4));
    // The scores do not depend on the prices; an empty price map is no kept releases.
    assert_eq!(
        blend.brier.to_bits(),
        entry(&on_rows, ModelColumn::Blend).brier.to_bits()
    );
    let empty = calibrate_graded_priced(
        &rows,
        &graded,
        Sport::Nhl,
        ModelType::WonOnSpread,
        CalibrationSource::All,
        Some(&PriceMoves::new()),
    );
    assert_eq!(
        entry(&empty, ModelColumn::Blend).clv_bases.kept_releases.reason,
        Some(ClvReason::NoKeptReleases)
    );
    assert_eq!(entry(&empty, ModelColumn::Blend).clv, fixed);
}

#[test]
fn each_basis_counts_its_own_games_when_only_some_have_kept_releases() {
    // Moneyline, home −150 / away +130 recorded, opened −130: the result
    // rows' move for home is 150/250 − 130/230 = 0.6 − 0.565217 = +3.478261 points.
    let row = |day: &str, id: &str, p: f64| {
        let mut row = game(day, "a", "b")
            .score(1.0, 2.0)
            .ml(-150.0, 130.0)
            .line(LineField::OpenHomeMoneyLine, -130.0)
            .prob(ModelColumn::Blend, p);
        row.game_id = id.into();
        row
    };
    let rows = [
        row("2026-11-01", "nba-20261101-a-b", 0.7),
        row("2026-11-02", "nba-20261102-a-b", 0.6),
        row("2026-11-03", "nba-20261103-a-b", 0.4),
        row("2026-11-04", "nba-20261104-a-b", 0.8),
    ];
    // Only the first game has kept releases: opening BLEND 0.35 (away),
    // home no-vig 0.45 → 0.52, so away 0.55 → 0.48: −7 points.
    let mut prices = PriceMoves::new();
    prices.insert(
        "nba-20261101-a-b".into(),
        PriceMove {
            opening: 0.45,
            closing: 0.52,
            models: blend_at(0.35),
            sharp_closing: None,
            consensus_closing: None,
        },
    );
    let graded = grade_rows(&rows, Sport::Nba, ML);
    let c = calibrate_graded_priced(&rows, &graded, Sport::Nba, ML, CalibrationSource::All, Some(&prices));
    let blend = entry(&c, ModelColumn::Blend);
    assert_eq!(
        blend.clv_bases.kept_releases,
        Clv {
            n: 1,
            // One pick: every resample is that pick.
            mean_ci: Some(Interval {
                n: 1,
                low: -7.0,
                high: -7.0
            }),
            mean: Some(-7.0),
            positive_share: Some(0.0),
            unit: ClvUnit::ProbabilityPoints,
            basis: ClvBasis::KeptReleases,
            reason: None,
        }
    );
    // The result rows keep all four games, each signed by the season row's
    // pick: home +3.478261 three times, away −3.478261 once: mean
    // (3 − 1) × 3.478261 / 4 = 1.739130 → 1.7391, three positive of four.
    assert_eq!(
        blend.clv_bases.result_rows,
        Clv {
            n: 4,
            mean: Some(1.7391),
            mean_ci: {
                let v = 100.0 * (150.0 / 250.0 - 130.0 / 230.0);
                mean_ci(&[v, v, -v, v])
            },
            positive_share: Some(0.75),
            unit: ClvUnit::ProbabilityPoints,
            basis: ClvBasis::ResultRows,
            reason: None,
        }
    );
    // A model without a probability at the one priced game's release picks
    // nothing there: CATB has season-row probabilities only.
    let rows: Vec<SeasonRow> = rows.into_iter().map(|r| r.prob(ModelColumn::Catb, 0.6)).collect();
    let graded = grade_rows(&rows, Sport::Nba, ML);
    let c = calibrate_graded_priced(&rows, &graded, Sport::Nba, ML, CalibrationSource::All, Some(&prices));
    let catb = entry(&c, ModelColumn::Catb);
    assert_eq!(catb.clv_bases.kept_releases.n, 0);
    assert_eq!(catb.clv_bases.kept_releases.mean, None);
    assert_eq!(catb.clv_bases.kept_releases.reason, Some(ClvReason::NoPicks));
    assert_eq!(
        catb.clv.basis,
        ClvBasis::ResultRows,
        "no picks on kept releases: the headline falls back"
    );
    assert_eq!(catb.clv.n, 4);
}

#[test]
fn from_is_parsed_exactly_and_a_bad_value_names_from() {
    assert_eq!(ClvFrom::parse("opening").unwrap(), ClvFrom::Opening);
    assert_eq!(ClvFrom::parse("forecast").unwrap(), ClvFrom::Forecast);
    assert_eq!(ClvFrom::default(), ClvFrom::Opening);
    let e = ClvFrom::parse("Opening").unwrap_err();
    assert_eq!((e.kind, e.value.as_str()), ("from", "Opening"));
}

#[test]
fn a_fixed_line_is_only_the_mlb_and_nhl_spread() {
    use crate::calibration::fixed_line;
    assert!(fixed_line(Sport::Mlb, ModelType::WonOnSpread));
    assert!(fixed_line(Sport::Nhl, ModelType::WonOnSpread));
    assert!(!fixed_line(Sport::Nba, ModelType::WonOnSpread));
    assert!(!fixed_line(Sport::Nfl, ModelType::WonOnSpread));
    assert!(!fixed_line(Sport::Mlb, ModelType::OverUnder));
    assert!(!fixed_line(Sport::Nhl, ModelType::WonOnPoints));
    let fixed = Sport::ALL
        .iter()
        .flat_map(|s| ModelType::ALL.iter().map(move |m| (*s, *m)))
        .filter(|(s, m)| fixed_line(*s, *m))
        .count();
    assert_eq!(fixed, 2, "only the run line and the puck line");
}

/// The left-out counts add up to the games the verified source dropped.
#[test]
fn left_out_totals_its_three_checks() {
    use crate::calibration::LeftOut;
    let l = LeftOut {
        mismatch: 1,
        not_kept: 2,
        not_applicable: 4,
    };
    assert_eq!(l.total(), 7);
    assert_eq!(LeftOut::default().total(), 0);
}

/// Skill at forecast time: measured for every model but IMPLIED, against
/// the market of each game's own release; a game without that release is
/// counted in `left_out`, never priced from elsewhere.
#[test]
fn skill_at_forecast_reads_each_games_release_and_counts_the_games_without_one() {
    use crate::calibration::{ForecastPrices, Inputs, calibrate_graded_with};
    // Home wins the first two, loses the third; BLEND 0.8, 0.6, 0.3.
    let rows: Vec<SeasonRow> = [(1, true, 0.8), (2, true, 0.6), (3, false, 0.3)]
        .into_iter()
        .map(|(d, home_wins, p)| {
            let mut row = ml_game(&format!("2026-11-0{d}"), home_wins, p);
            row.game_id = format!("nba-2026110{d}-away-home").as_str().into();
            row
        })
        .collect();
    let graded = grade_rows(&rows, Sport::Nba, ML);
    // The first two games had a release at their forecast: market 0.5 and
    // 0.7; the third none.
    let mut at_forecast = ForecastPrices::new();
    at_forecast.insert(rows[0].game_id.clone(), 0.5);
    at_forecast.insert(rows[1].game_id.clone(), 0.7);
    let c = calibrate_graded_with(
        &rows,
        &graded,
        Sport::Nba,
        ML,
        CalibrationSource::All,
        Inputs {
            at_forecast: Some(&at_forecast),
            ..Inputs::default()
        },
    );
    let blend = entry(&c, ModelColumn::Blend).skill_at_forecast.unwrap();
    assert_eq!(blend.n, 2);
    assert_eq!(blend.left_out, 1);
    // BLEND: (0.2² + 0.4²) = 0.20; market: (0.5² + 0.3²) = 0.34;
    // 1 − 0.20 / 0.34 = 0.411765 → 0.4118.
    assert_eq!(blend.brier_skill, Some(0.4118));
    assert!(entry(&c, ModelColumn::Implied).skill_at_forecast.is_none());
    // Not measured at all without the releases' prices.
    let without = calibrate(&rows, Sport::Nba, ML, CalibrationSource::All);
    assert!(entry(&without, ModelColumn::Blend).skill_at_forecast.is_none());
}

/// A model closer to the outcome than the market by the same margin on
/// every game has the same skill on every resample, so each skill interval
/// is that one value.
#[test]
fn skill_intervals_of_a_constant_skill_are_that_skill() {
    // BLEND 0.6 where home wins and 0.4 where it loses: squared error 0.16
    // against the market's 0.25 on every game, so every resample's Brier
    // skill is 1 − 0.16 / 0.25 = 0.36; log loss −ln 0.6 against −ln 0.5:
    // 1 − 0.510826 / 0.693147 = 0.263034.
    let better: Vec<SeasonRow> = (1..=9)
        .map(|d| {
            let home_wins = d % 3 != 0;
            ml_game(&format!("2026-11-0{d}"), home_wins, if home_wins { 0.6 } else { 0.4 })
        })
        .collect();
    let c = calibrate(&better, Sport::Nba, ML, CalibrationSource::All);
    let blend = entry(&c, ModelColumn::Blend);
    let skill = blend.skill_vs_market.as_ref().unwrap();
    let brier = skill.brier_skill_ci.unwrap();
    assert!(
        (brier.low - 0.36).abs() < 1e-6 && (brier.high - 0.36).abs() < 1e-6,
        "{brier:?}"
    );
    let log = skill.log_loss_skill_ci.unwrap();
    assert!(
        (log.low - 0.263_034).abs() < 1e-6 && (log.high - 0.263_034).abs() < 1e-6,
        "{log:?}"
    );
}
