//! Properties of calibration over random forecasts and random seasons.

use linecast_domain::{ModelColumn, SeasonRow};
use proptest::prelude::*;

use super::props::{context, row};
use crate::calibration::{BINS, ClvUnit, Forecast, Scores, brier, log_loss, pick_clv, skill, wilson};
use crate::{CalibrationSource, calibrate, grade_row};

/// A probability in [0, 1], the ends and 0.5 included now and then.
fn probability() -> impl Strategy<Value = f64> {
    prop_oneof![8 => 0.0f64..=1.0, 1 => Just(0.0), 1 => Just(0.5), 1 => Just(1.0)]
}

fn forecasts() -> impl Strategy<Value = Vec<Forecast>> {
    prop::collection::vec(
        (probability(), any::<bool>()).prop_map(|(p, y)| Forecast { p, y }),
        0..200,
    )
}

fn source() -> impl Strategy<Value = CalibrationSource> {
    prop::sample::select(CalibrationSource::ALL.to_vec())
}

prop_compose! {
    /// A random grading row (see `props::row`) with random openers (the
    /// placeholder 0 included) and a random `model_probability_source`.
    fn calibration_row()(
        r in row(),
        open_ml in prop::option::of(prop::sample::select(vec![0.0, -130.0, -110.0, 100.0, 120.0, 150.0])),
        open_spread in prop::option::of(prop::sample::select(vec![0.0, -2.5, -1.0, 1.5, 3.0])),
        open_total in prop::option::of(prop::sample::select(vec![0.0, 4.5, 5.0, 6.5])),
        source in prop::option::of(prop::sample::select(vec!["live", "walk_forward", "reconstructed_oos", "other"])),
    ) -> SeasonRow {
        let mut r = r;
        r.lines.open_home_money_line = open_ml;
        r.lines.open_home_point_spread = open_spread;
        r.lines.open_over_under = open_total;
        r.provenance.model_probability_source = source.map(Into::into);
        r
    }
}

fn calibration_season() -> impl Strategy<Value = Vec<SeasonRow>> {
    prop::collection::vec(calibration_row(), 0..40)
}

/// Whether `row` carries one of `source`'s provenance values, read straight
/// off the row.
fn kept(row: &SeasonRow, source: CalibrationSource) -> bool {
    let value = row.provenance.model_probability_source.as_deref();
    match source {
        CalibrationSource::All => true,
        CalibrationSource::Live => value == Some("live"),
        CalibrationSource::Reconstructed => matches!(value, Some("walk_forward" | "reconstructed_oos")),
        // Only the archive's marks, which these rows do not have, admit a row.
        CalibrationSource::Verified => false,
    }
}

proptest! {
    /// The reliability bins partition each model's population: every
    /// forecast falls in exactly one of the ten bins, so the bins' counts
    /// sum to the model's n. That n is the number of kept, graded rows where
    /// the model has a probability, and `games` the number of kept, graded rows.
    #[test]
    fn the_bins_partition_each_models_population(
        rows in calibration_season(), (sport, mt) in context(), source in source()
    ) {
        let c = calibrate(&rows, sport, mt, source);
        let graded: Vec<_> = rows
            .iter()
            .filter(|r| kept(r, source))
            .map(|r| (r, grade_row(r, sport, mt)))
            .filter(|(_, g)| g.graded)
            .collect();
        prop_assert_eq!(c.games, graded.len());
        prop_assert_eq!(c.bins, BINS);
        for m in &c.models {
            prop_assert_eq!(m.reliability_bins.len(), BINS);
            prop_assert_eq!(m.reliability_bins.iter().map(|b| b.n).sum::<usize>(), m.n);
            let expected = graded
                .iter()
                .filter(|(r, g)| match m.model {
                    ModelColumn::Implied => g.implied.is_some(),
                    column => r.models.get(column).is_some(),
                })
                .count();
            prop_assert_eq!(m.n, expected, "{}", m.model.code());
            prop_assert!(m.n > 0);
            // Every model has both score intervals, over its own n, ordered.
            for ci in [m.brier_ci, m.log_loss_ci] {
                let ci = ci.unwrap();
                prop_assert_eq!(ci.n, m.n);
                prop_assert!(ci.low <= ci.high);
            }
            if let Some(skill) = m.skill_vs_market {
                prop_assert_eq!(skill.brier_skill_ci.is_some(), skill.brier_skill.is_some());
                prop_assert_eq!(skill.log_loss_skill_ci.is_some(), skill.log_loss_skill.is_some());
            }
        }
    }

    /// When every forecast inside a bin is the same number, the Brier score
    /// decomposes exactly (Murphy): brier = reliability − resolution +
    /// uncertainty, up to float error.
    #[test]
    fn brier_is_reliability_minus_resolution_plus_uncertainty_with_one_forecast_per_bin(
        offsets in prop::array::uniform10(0.0f64..0.99),
        games in prop::collection::vec((0usize..BINS, any::<bool>()), 1..300),
    ) {
        let forecasts: Vec<Forecast> = games
            .iter()
            .map(|&(k, y)| Forecast { p: (k as f64 + offsets[k]) / 10.0, y })
            .collect();
        let s = Scores::of(&forecasts).unwrap();
        let decomposed = s.reliability - s.resolution + s.uncertainty;
        prop_assert!((s.brier - decomposed).abs() < 1e-9, "{} vs {}", s.brier, decomposed);
    }

    /// IMPLIED against itself has no skill: scoring the market's forecasts
    /// against the same forecasts, through the function that gives every
    /// model its skill_vs_market, yields exactly 0 for Brier and log loss
    /// (null only with no games). The served IMPLIED entry has no skill field.
    #[test]
    fn implied_against_itself_has_zero_skill(rows in calibration_season(), (sport, mt) in context()) {
        let market: Vec<Forecast> = rows
            .iter()
            .map(|r| grade_row(r, sport, mt))
            .filter(|g| g.graded)
            .filter_map(|g| Some(Forecast { p: g.implied?, y: g.outcome? == 1 }))
            .collect();
        let s = skill(&market, &market);
        let zero = (!market.is_empty()).then_some(0.0);
        prop_assert_eq!(s.n, market.len());
        prop_assert_eq!(s.brier_skill, zero);
        prop_assert_eq!(s.log_loss_skill, zero);
        let c = calibrate(&rows, sport, mt, CalibrationSource::All);
        for m in &c.models {
            prop_assert_eq!(m.skill_vs_market.is_none(), m.model == ModelColumn::Implied);
        }
    }

    /// For probabilities in [0, 1], log loss is never negative and the
    /// Brier score lies in [0, 1], in full precision and as served.
    #[test]
    fn log_loss_is_non_negative_and_brier_lies_in_the_unit_interval(
        fs in forecasts(), rows in calibration_season(), (sport, mt) in context()
    ) {
        if let (Some(b), Some(l)) = (brier(&fs), log_loss(&fs)) {
            prop_assert!((0.0..=1.0).contains(&b), "brier {b}");
            prop_assert!(l >= 0.0, "log loss {l}");
        } else {
            prop_assert!(fs.is_empty());
        }
        for m in calibrate(&rows, sport, mt, CalibrationSource::All).models {
            prop_assert!((0.0..=1.0).contains(&m.brier));
            prop_assert!(m.log_loss >= 0.0);
        }
    }

    /// Wilson's interval contains the observed rate and lies within [0, 1],
    /// in full precision and in every served bin (rounding keeps the order).
    #[test]
    fn the_wilson_interval_contains_the_observed_rate_within_the_unit_interval(
        n in 1usize..5_000, share in 0.0f64..=1.0, rows in calibration_season(), (sport, mt) in context()
    ) {
        let hits = ((n as f64 * share).round() as usize).min(n);
        let rate = hits as f64 / n as f64;
        let (low, high) = wilson(hits, n).unwrap();
        prop_assert!(0.0 <= low && low <= rate && rate <= high && high <= 1.0, "{low} {rate} {high}");
        for m in calibrate(&rows, sport, mt, CalibrationSource::All).models {
            for b in &m.reliability_bins {
                if let (Some(lo), Some(o), Some(hi)) = (b.ci_low, b.observed_rate, b.ci_high) {
                    prop_assert!(0.0 <= lo && lo <= o && o <= hi && hi <= 1.0);
                } else {
                    prop_assert_eq!(b.n, 0);
                }
            }
        }
    }

    /// Flipping a forecast (p → 1 − p) flips its pick, so it negates its
    /// CLV; a forecast of 0.5 or a game without a move has none either way.
    /// Over a season with every model column flipped, each model keeps its
    /// CLV n and its mean CLV changes sign; IMPLIED (the prices) is untouched.
    #[test]
    fn flipping_the_pick_flips_the_sign_of_clv(
        k in 0u32..=1000,
        line_move in prop::option::of(-20.0f64..20.0),
        moneyline in any::<bool>(),
        rows in calibration_season(),
        (sport, mt) in context(),
    ) {
        let p = f64::from(k) / 1000.0;
        let unit = if moneyline { ClvUnit::ProbabilityPoints } else { ClvUnit::Points };
        prop_assert_eq!(pick_clv(1.0 - p, line_move, unit), pick_clv(p, line_move, unit).map(|v| -v));

        let flipped: Vec<SeasonRow> = rows
            .iter()
            .cloned()
            .map(|mut r| {
                for c in ModelColumn::ALL {
                    let p = r.models.get(*c).map(|p| 1.0 - p);
                    r.models.set(*c, p);
                }
                r
            })
            .collect();
        let (a, b) = (
            calibrate(&rows, sport, mt, CalibrationSource::All),
            calibrate(&flipped, sport, mt, CalibrationSource::All),
        );
        prop_assert_eq!(a.models.len(), b.models.len());
        for (x, y) in a.models.iter().zip(&b.models) {
            prop_assert_eq!(x.model, y.model);
            if x.model == ModelColumn::Implied {
                prop_assert_eq!(x.clv, y.clv);
            } else {
                prop_assert_eq!(x.clv.n, y.clv.n);
                prop_assert_eq!(x.clv.mean, y.clv.mean.map(|v| -v));
            }
        }
    }
}
