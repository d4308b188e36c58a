//! Rolling curves: per season, each model's win % over the trailing 28 days
//! at every date with a graded game, and each model's pooled average across
//! the seasons given.

use chrono::NaiveDate;
use linecast_domain::{ModelType, SeasonLabel, SeasonRow, Sport};

use crate::daily::{DailyTallies, PerModel};
use crate::grade::grade_rows;
use crate::model::{MODEL_COUNT, Model};
use crate::tally::{WinLoss, percent};
use crate::window::Window;

/// One point of a rolling curve.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RollingPoint {
    pub date: NaiveDate,
    /// Percent 0-100, one decimal.
    pub win_pct: f64,
    /// Graded picks in the 28 days ending on `date`.
    pub n: usize,
}

/// One season's curves.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RollingSeason {
    pub season: SeasonLabel,
    /// Per model, points oldest first; dates where the model had no graded
    /// pick in the window are skipped.
    pub models: PerModel<Vec<RollingPoint>>,
}

/// Every season's curves plus the historical average.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Rolling {
    /// In input order.
    pub seasons: Vec<RollingSeason>,
    /// Per model: total wins / total graded picks over every season given,
    /// percent with one decimal (pooled, so a long season weighs more).
    pub historical_average: PerModel<f64>,
}

/// One season's rolling curves and its season-long tallies.
pub fn rolling_season(
    season: SeasonLabel,
    rows: &[SeasonRow],
    sport: Sport,
    model_type: ModelType,
) -> (RollingSeason, [WinLoss; MODEL_COUNT]) {
    let graded = grade_rows(rows, sport, model_type);
    let daily = DailyTallies::new(rows, &graded);
    let mut curves: [Vec<RollingPoint>; MODEL_COUNT] = Default::default();
    for &date in daily.dates() {
        let sums = daily.sum(Window::four_weeks(date));
        for (curve, t) in curves.iter_mut().zip(&sums) {
            if let Some(win_pct) = percent(t.wins, t.n()) {
                curve.push(RollingPoint {
                    date,
                    win_pct,
                    n: t.n(),
                });
            }
        }
    }
    let totals = daily.sum(Window {
        start: NaiveDate::MIN,
        end: NaiveDate::MAX,
    });
    let models = Model::ALL
        .into_iter()
        .zip(curves)
        .filter(|(_, c)| !c.is_empty())
        .collect();
    (
        RollingSeason {
            season,
            models: PerModel(models),
        },
        totals,
    )
}

/// Rolling curves of every season given.
pub fn rolling(seasons: &[(SeasonLabel, &[SeasonRow])], sport: Sport, model_type: ModelType) -> Rolling {
    pooled(
        seasons
            .iter()
            .map(|(label, rows)| rolling_season(*label, rows, sport, model_type)),
    )
}

/// The rolling curves from each season's part ([`rolling_season`]), in the
/// order given, with the historical average pooled over all of them: lets a
/// caller read one season at a time and keep only its part.
pub fn pooled(parts: impl IntoIterator<Item = (RollingSeason, [WinLoss; MODEL_COUNT])>) -> Rolling {
    let mut pooled = [WinLoss::default(); MODEL_COUNT];
    let seasons = parts
        .into_iter()
        .map(|(curves, totals)| {
            for (p, t) in pooled.iter_mut().zip(totals) {
                p.wins += t.wins;
                p.losses += t.losses;
            }
            curves
        })
        .collect();
    let historical_average = PerModel(
        Model::ALL
            .into_iter()
            .zip(pooled)
            .filter_map(|(m, t)| t.win_pct().map(|p| (m, p)))
            .collect(),
    );
    Rolling {
        seasons,
        historical_average,
    }
}
