//! 95% intervals of the calibration's skill figures (Brier, log loss and
//! skill against the market): a percentile bootstrap over games, seeded so
//! that the same games always give the same bounds.
//!
//! It owns the resampling (its generator, seed and number of resamples)
//! and the percentile rule, and nothing else: what a figure is comes from
//! its caller ([`crate::calibration`]). No clock, no I/O.
//!
//! The method, written down once:
//! - Each figure's games are resampled with replacement, [`RESAMPLES`]
//!   times, each resample as many games as the figure's `n`.
//! - The indices come from SplitMix64 seeded with [`SEED`]: each 64-bit
//!   output `x` gives the index `⌊x · n / 2⁶⁴⌋`. The stream restarts at the
//!   seed for every figure, so a figure's interval depends only on its own
//!   games and their order (the order `/results` serves them in: date,
//!   time, teams).
//! - Brier and log loss of one model are read from the same resamples; a
//!   skill figure resamples the paired games (the model and the market on
//!   the same game together).
//! - The bounds are the 2.5% and 97.5% quantiles of the resampled figures,
//!   interpolated linearly between order statistics (`h = (m − 1) q`, `m`
//!   the resamples that have a figure). A resample without a figure (a
//!   market score of 0) is left out of `m`.

/// The generator's seed: "linecast" in ASCII, as a big-endian u64.
pub const SEED: u64 = 0x6c69_6e65_6361_7374;
/// [`SEED`] as the payload states it.
pub const SEED_HEX: &str = "0x6c696e6563617374";
/// Resamples per figure.
pub const RESAMPLES: usize = 1000;
/// Two-sided coverage of the intervals.
pub const LEVEL: f64 = 0.95;
/// The method's public name.
pub const METHOD: &str = "bootstrap_percentile";

/// A 95% interval of one figure and the games it was computed over.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Interval {
    /// Games resampled: the figure's own `n`.
    pub n: usize,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// The interval rounded to `places` decimals.
    #[must_use]
    pub fn rounded(self, places: i32) -> Self {
        Self {
            n: self.n,
            low: crate::tally::round_to(self.low, places),
            high: crate::tally::round_to(self.high, places),
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014).
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An index below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

/// The `q` quantile of `sorted` (ascending, not empty), interpolated
/// linearly between order statistics.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let below = h.floor();
    let lower = sorted[below as usize];
    let upper = sorted[h.ceil() as usize];
    lower + (h - below) * (upper - lower)
}

/// The intervals of `K` figures of `n` games, each read by `figures` from
/// one resample (the indices of the games drawn). A figure is `None` where
/// the resample does not define it. `None` for a figure no resample
/// defines, and for all of them when `n` is 0.
pub fn bootstrap<const K: usize>(
    n: usize,
    mut figures: impl FnMut(&[usize]) -> [Option<f64>; K],
) -> [Option<Interval>; K] {
    if n == 0 {
        return [None; K];
    }
    let mut rng = SplitMix64(SEED);
    let mut drawn = vec![0; n];
    let mut samples: [Vec<f64>; K] = std::array::from_fn(|_| Vec::with_capacity(RESAMPLES));
    for _ in 0..RESAMPLES {
        for slot in &mut drawn {
            *slot = rng.below(n);
        }
        for (sample, figure) in samples.iter_mut().zip(figures(&drawn)) {
            if let Some(value) = figure.filter(|v| v.is_finite()) {
                sample.push(value);
            }
        }
    }
    let tail = (1.0 - LEVEL) / 2.0;
    samples.map(|mut sample| {
        if sample.is_empty() {
            return None;
        }
        sample.sort_by(f64::total_cmp);
        Some(Interval {
            n,
            low: quantile(&sample, tail),
            high: quantile(&sample, 1.0 - tail),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64's first outputs from seed 0 are the published reference
    /// values.
    #[test]
    fn the_generator_is_splitmix64() {
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn the_stated_seed_is_the_seed() {
        assert_eq!(format!("{SEED:#018x}"), SEED_HEX);
        assert_eq!(SEED.to_be_bytes(), *b"linecast");
    }

    #[test]
    fn a_constant_figure_has_a_point_interval_and_no_games_no_interval() {
        let [ci] = bootstrap(5, |_| [Some(0.25)]);
        assert_eq!(
            ci,
            Some(Interval {
                n: 5,
                low: 0.25,
                high: 0.25
            })
        );
        let [none] = bootstrap(0, |_| [Some(0.25)]);
        assert_eq!(none, None);
        let [undefined] = bootstrap(3, |_| [None]);
        assert_eq!(undefined, None);
    }

    #[test]
    fn the_same_games_give_the_same_bounds_and_the_mean_lies_within() {
        let values = [0.1, 0.4, 0.35, 0.8, 0.05, 0.6, 0.2, 0.9, 0.3, 0.45];
        let mean = |drawn: &[usize]| [Some(drawn.iter().map(|i| values[*i]).sum::<f64>() / drawn.len() as f64)];
        let [a] = bootstrap(values.len(), mean);
        let [b] = bootstrap(values.len(), mean);
        assert_eq!(a, b);
        let ci = a.unwrap_or_else(|| panic!("an interval"));
        let point = values.iter().sum::<f64>() / values.len() as f64;
        assert!(ci.low < point && point < ci.high, "{ci:?} {point}");
    }

    #[test]
    fn quantiles_interpolate_between_order_statistics() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert!((quantile(&sorted, 0.025) - 1.1).abs() < 1e-12);
        assert!((quantile(&sorted, 0.975) - 4.9).abs() < 1e-12);
    }

    /// The bounds are the 2.5% and 97.5% quantiles of the resampled
    /// figures, interpolated: with the figures 0, 1, ..., 999 (one per
    /// resample, whatever was drawn) they are 999 × 0.025 = 24.975 and
    /// 999 × 0.975 = 974.025.
    #[test]
    fn the_bounds_are_the_two_and_a_half_percent_tails() {
        let mut k = 0.0;
        let [ci] = bootstrap(3, |_| {
            let figure = k;
            k += 1.0;
            [Some(figure)]
        });
        let ci = ci.unwrap();
        assert_eq!(ci.n, 3);
        assert!((ci.low - 24.975).abs() < 1e-9, "{ci:?}");
        assert!((ci.high - 974.025).abs() < 1e-9, "{ci:?}");
    }
}
