//! Per-date win/loss tallies of every model, so trailing-window series
//! (tracking weekly, rolling curves) sum a few dates instead of rescanning
//! the season for every point.

use chrono::NaiveDate;
use linecast_domain::SeasonRow;

use crate::grade::{GradedRow, Pick};
use crate::model::{MODEL_COUNT, Model};
use crate::tally::WinLoss;
use crate::window::Window;

/// Win/loss of one model, as `{win_pct, n}` in payloads.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WinPct {
    /// Percent 0-100 with one decimal; null when `n` is 0 (or below the
    /// payload's minimum sample, where one applies).
    pub win_pct: Option<f64>,
    /// Graded picks (wins + losses).
    pub n: usize,
}

impl WinPct {
    pub fn of(t: &WinLoss) -> Self {
        Self {
            win_pct: t.win_pct(),
            n: t.n(),
        }
    }

    /// Like [`WinPct::of`], with a null rate below `min_sample`.
    pub fn with_min_sample(t: &WinLoss, min_sample: usize) -> Self {
        Self {
            win_pct: if t.n() >= min_sample { t.win_pct() } else { None },
            n: t.n(),
        }
    }
}

/// Per-model values in [`Model::ALL`] order; serialized as a JSON object
/// keyed by model name.
#[derive(Debug, Clone, PartialEq)]
pub struct PerModel<T>(pub Vec<(Model, T)>);

impl<T> PerModel<T> {
    pub fn get(&self, model: Model) -> Option<&T> {
        self.0.iter().find(|(m, _)| *m == model).map(|(_, v)| v)
    }
}

#[cfg(feature = "serde")]
impl<T: serde::Serialize> serde::Serialize for PerModel<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (m, v) in &self.0 {
            map.serialize_entry(m.name(), v)?;
        }
        map.end()
    }
}

/// Tallies of graded picks per game date, dates ascending.
#[derive(Debug, Clone, Default)]
pub struct DailyTallies {
    dates: Vec<NaiveDate>,
    tallies: Vec<[WinLoss; MODEL_COUNT]>,
}

impl DailyTallies {
    /// Collects every graded pick of every model by the game's date.
    pub fn new(rows: &[SeasonRow], graded: &[GradedRow]) -> Self {
        let mut picks: Vec<(NaiveDate, &GradedRow)> = rows
            .iter()
            .zip(graded)
            .filter(|(_, g)| g.graded)
            .map(|(r, g)| (r.key.date, g))
            .collect();
        picks.sort_by_key(|(d, _)| *d);
        let mut out = Self::default();
        for (date, g) in picks {
            if out.dates.last() != Some(&date) {
                out.dates.push(date);
                out.tallies.push([WinLoss::default(); MODEL_COUNT]);
            }
            let Some(day) = out.tallies.last_mut() else { continue };
            for (t, model) in day.iter_mut().zip(Model::ALL) {
                if let (Some(Pick::Side(side)), Some(hit)) = (g.pick(model), g.hit(model)) {
                    t.record(side, hit);
                }
            }
        }
        out
    }

    /// Dates with at least one graded game, ascending.
    pub fn dates(&self) -> &[NaiveDate] {
        &self.dates
    }

    /// Every model's tally over the window.
    pub fn sum(&self, window: Window) -> [WinLoss; MODEL_COUNT] {
        let lo = self.dates.partition_point(|d| *d < window.start);
        let hi = self.dates.partition_point(|d| *d <= window.end);
        let mut total = [WinLoss::default(); MODEL_COUNT];
        for day in &self.tallies[lo..hi] {
            for (t, d) in total.iter_mut().zip(day) {
                t.wins += d.wins;
                t.losses += d.losses;
                t.pos_wins += d.pos_wins;
                t.pos_n += d.pos_n;
                t.neg_wins += d.neg_wins;
                t.neg_n += d.neg_n;
            }
        }
        total
    }
}

/// `{MODEL: {win_pct, n}}` for models with `n > 0`.
pub fn per_model(tallies: &[WinLoss; MODEL_COUNT], min_sample: usize) -> PerModel<WinPct> {
    PerModel(
        Model::ALL
            .iter()
            .zip(tallies)
            .filter(|(_, t)| t.n() > 0)
            .map(|(m, t)| (*m, WinPct::with_min_sample(t, min_sample)))
            .collect(),
    )
}
