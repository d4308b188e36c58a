//! Result density: BLEND probability bins of width 0.05 by season (the
//! current season and the previous ten), each cell the number of graded
//! BLEND picks and how often they hit.

use linecast_domain::{ModelColumn, ModelType, SeasonLabel, SeasonRow, Sport};

use crate::grade::grade_rows;
use crate::model::Model;
use crate::tally::round_to;

/// Bin width of the BLEND axis.
pub const BIN_WIDTH: f64 = 0.05;
/// Number of bins covering [0, 1].
pub const BINS: usize = 20;
/// Seasons before the current one shown on the grid.
pub const PREVIOUS_SEASONS: i32 = 10;

/// One cell of the grid.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DensityCell {
    /// Graded BLEND picks whose probability falls in the bin.
    pub n: usize,
    /// Share of those picks that hit, 0 to 1 with 4 decimals; null when `n` is 0.
    pub hit_rate: Option<f64>,
}

/// The heatmap payload.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Density {
    /// Bin labels, `0.00-0.05` ... `0.95-1.00` (the last bin includes 1.0).
    pub x_labels: Vec<String>,
    /// Season labels, oldest first, only seasons with rows given.
    pub y_labels: Vec<SeasonLabel>,
    /// `cells[season][bin]`, aligned with the labels.
    pub cells: Vec<Vec<DensityCell>>,
}

/// The bin of a probability; lower edges are inclusive.
pub fn bin_of(p: f64) -> usize {
    equal_width_bin(p, BINS)
}

/// The bin of a probability among `bins` equal bins of [0, 1]: bin k holds
/// k/bins ≤ p < (k+1)/bins, 1 falls in the last bin, values outside [0, 1]
/// in the nearest end bin. The one home of the binning rule (density and
/// calibration's reliability bins).
pub fn equal_width_bin(p: f64, bins: usize) -> usize {
    // The epsilon keeps exact edges such as 0.15 in their upper bin despite
    // binary rounding (0.15 * 20 = 2.9999999999999996).
    ((p * bins as f64 + 1e-9).floor().max(0.0) as usize).min(bins.saturating_sub(1))
}

/// Whether `season` is a row of `current`'s grid: `current` itself or one
/// of the `PREVIOUS_SEASONS` before it (the one home of the window; callers
/// use it to load only these seasons).
pub fn on_grid(season: SeasonLabel, current: SeasonLabel) -> bool {
    (current.start_year() - PREVIOUS_SEASONS..=current.start_year()).contains(&season.start_year())
}

/// The grid for `current` and up to ten seasons before it, from the seasons
/// given (others are ignored).
pub fn density(
    current: SeasonLabel,
    seasons: &[(SeasonLabel, &[SeasonRow])],
    sport: Sport,
    model_type: ModelType,
) -> Density {
    let mut chosen: Vec<&(SeasonLabel, &[SeasonRow])> = seasons.iter().filter(|(l, _)| on_grid(*l, current)).collect();
    chosen.sort_by_key(|(l, _)| *l);
    chosen.dedup_by_key(|(l, _)| *l);

    let parts = chosen
        .iter()
        .map(|(label, rows)| (*label, season_cells(rows, sport, model_type)))
        .collect();
    from_seasons(parts)
}

/// One season's row of the grid: BLEND's hit rate in each probability bin.
pub fn season_cells(rows: &[SeasonRow], sport: Sport, model_type: ModelType) -> Vec<DensityCell> {
    let blend = Model::Column(ModelColumn::Blend);
    let mut counts = [(0usize, 0usize); BINS];
    for (row, g) in rows.iter().zip(grade_rows(rows, sport, model_type)) {
        let (Some(hit), Some(p)) = (g.hit(blend), row.models.get(ModelColumn::Blend)) else {
            continue;
        };
        let cell = &mut counts[bin_of(p)];
        cell.0 += 1;
        cell.1 += usize::from(hit);
    }
    counts
        .iter()
        .map(|&(n, hits)| DensityCell {
            n,
            hit_rate: (n > 0).then(|| round_to(hits as f64 / n as f64, 4)),
        })
        .collect()
}

/// The grid from each season's row ([`season_cells`]), oldest first: lets a
/// caller read one season at a time (the seasons must be on the grid of the
/// current season, sorted and distinct, as [`density`] picks them).
pub fn from_seasons(parts: Vec<(SeasonLabel, Vec<DensityCell>)>) -> Density {
    let (y_labels, cells) = parts.into_iter().unzip();
    Density {
        x_labels: (0..BINS)
            .map(|i| format!("{:.2}-{:.2}", i as f64 * BIN_WIDTH, (i + 1) as f64 * BIN_WIDTH))
            .collect(),
        y_labels,
        cells,
    }
}
