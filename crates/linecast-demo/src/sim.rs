//! Per-game simulation: true expectations from team strengths, final scores
//! drawn around them, the market's view of them turned into vigged
//! two-sided prices, and model probabilities correlated with the truth (the
//! run of these through the releases is `market.rs`).

use linecast_domain::{Lines, ModelColumn, ModelProbs, ModelType, Sport};

use crate::rng::Rng;

/// Scoring scale of a league.
#[derive(Debug, Clone, Copy)]
pub(crate) struct League {
    /// Standard deviation of the final margin around its expectation.
    pub margin_sd: f64,
    pub total_sd: f64,
    pub base_total: f64,
    pub home_edge: f64,
    /// Points of margin per unit of rating difference.
    pub rating_scale: f64,
    /// Points of total per unit of combined offense.
    pub total_scale: f64,
    /// Run/puck line leagues quote a fixed ±1.5 spread.
    pub fixed_spread: bool,
}

pub(crate) const fn league(sport: Sport) -> League {
    match sport {
        Sport::Mlb => League {
            margin_sd: 4.3,
            total_sd: 4.4,
            base_total: 8.8,
            home_edge: 0.2,
            rating_scale: 0.6,
            total_scale: 0.6,
            fixed_spread: true,
        },
        Sport::Nba => League {
            margin_sd: 13.0,
            total_sd: 18.0,
            base_total: 226.0,
            home_edge: 2.0,
            rating_scale: 5.0,
            total_scale: 5.0,
            fixed_spread: false,
        },
        Sport::Nfl => League {
            margin_sd: 13.5,
            total_sd: 13.5,
            base_total: 44.0,
            home_edge: 1.5,
            rating_scale: 4.5,
            total_scale: 3.0,
            fixed_spread: false,
        },
        Sport::Nhl => League {
            margin_sd: 2.5,
            total_sd: 2.4,
            base_total: 6.1,
            home_edge: 0.2,
            rating_scale: 0.4,
            total_scale: 0.35,
            fixed_spread: true,
        },
        Sport::Ncaaf => League {
            margin_sd: 17.0,
            total_sd: 17.0,
            base_total: 54.0,
            home_edge: 3.0,
            rating_scale: 10.0,
            total_scale: 6.0,
            fixed_spread: false,
        },
        Sport::Ncaab => League {
            margin_sd: 11.0,
            total_sd: 15.0,
            base_total: 143.0,
            home_edge: 3.0,
            rating_scale: 7.0,
            total_scale: 6.0,
            fixed_spread: false,
        },
    }
}

/// Standard normal CDF (Abramowitz-Stegun 7.1.26; error below 2e-7).
pub(crate) fn phi(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 { 0.5 * (1.0 + erf) } else { 0.5 * (1.0 - erf) }
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Probabilities are published with 4 decimals (the domain's rounding).
pub(crate) use linecast_domain::round::round4;

pub(crate) fn round_half(x: f64) -> f64 {
    let r = (x * 2.0).round() / 2.0;
    if r == 0.0 { 0.0 } else { r }
}

/// The overround books build into a two-sided market.
const OVERROUND: f64 = 0.045;

/// American price of a side the book rates at `q` (vig included).
pub(crate) fn american(q: f64) -> f64 {
    let q = q.clamp(0.02, 0.98);
    let price = if q >= 0.5 {
        -100.0 * q / (1.0 - q)
    } else {
        100.0 * (1.0 - q) / q
    };
    price.round()
}

/// Two-sided prices `(side, other side)` for a fair probability `p` of the
/// side, at `overround` (the implied probabilities sum to about 1 + it).
pub(crate) fn vig_pair_at(p: f64, overround: f64) -> (f64, f64) {
    let p = p.clamp(0.04, 0.94);
    (american(p * (1.0 + overround)), american((1.0 - p) * (1.0 + overround)))
}

/// Final scores `(home, away)` around an expected margin and total.
pub(crate) fn scores(sport: Sport, margin: f64, total: f64, rng: &mut Rng) -> (u32, u32) {
    let lg = league(sport);
    let home_mean = f64::midpoint(total, margin).max(total * 0.15);
    let away_mean = ((total - margin) / 2.0).max(total * 0.15);
    let (mut h, mut a) = match sport {
        Sport::Mlb | Sport::Nhl => (rng.poisson(home_mean), rng.poisson(away_mean)),
        Sport::Nba | Sport::Ncaab => {
            let sd = lg.margin_sd / std::f64::consts::SQRT_2;
            let draw = |mean: f64, rng: &mut Rng| (mean + sd * rng.normal()).round().max(40.0) as u32;
            (draw(home_mean, rng), draw(away_mean, rng))
        }
        Sport::Nfl | Sport::Ncaaf => (football(home_mean, rng), football(away_mean, rng)),
    };
    if h == a {
        // Extra innings, overtime or a shootout; the NFL alone keeps a rare tie.
        if sport == Sport::Nfl && rng.chance(0.08) {
            return (h, a);
        }
        let home_wins = rng.chance(phi(margin / lg.margin_sd));
        let extra = match sport {
            Sport::Nba | Sport::Ncaab => {
                let both = 6 + rng.below(6) as u32;
                h += both;
                a += both;
                1 + rng.below(6) as u32
            }
            Sport::Nfl => *rng.pick(&[3, 3, 6]),
            Sport::Ncaaf => *rng.pick(&[7, 7, 8, 3]),
            Sport::Mlb | Sport::Nhl => 1,
        };
        if home_wins { h += extra } else { a += extra }
    }
    (h, a)
}

/// Football points built from touchdowns and field goals, so the key numbers
/// (3, 7, 10, 14, 17, ...) come out as often as they do on real scoreboards.
fn football(mean: f64, rng: &mut Rng) -> u32 {
    let tds = rng.poisson(mean * 0.7 / 6.96);
    let fgs = rng.poisson(mean * 0.3 / 3.0);
    let mut points = 3 * fgs;
    for _ in 0..tds {
        points += *rng.pick(&[7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 6, 8]);
    }
    if rng.chance(0.02) {
        points += 2;
    }
    points
}

/// The current lines of a market that rates the home margin at `margin` and
/// the total at `total` (no openers: those are the game's first release).
/// Spreads and totals sit on half points; in run/puck-line leagues the
/// spread stays at ±1.5 (-1.5 on the money-line favourite) and only its
/// prices move. Every price carries the book's overround.
pub(crate) fn market_lines(sport: Sport, margin: f64, total: f64) -> Lines {
    market_lines_at(sport, margin, total, OVERROUND)
}

/// [`market_lines`] with every price at `overround` (a named book's margin).
pub(crate) fn market_lines_at(sport: Sport, margin: f64, total: f64, overround: f64) -> Lines {
    let lg = league(sport);
    let mut l = Lines::default();
    let (home_ml, away_ml) = vig_pair_at(phi(margin / lg.margin_sd), overround);
    l.home_money_line = Some(home_ml);
    l.away_money_line = Some(away_ml);
    let (spread, cover) = if lg.fixed_spread {
        let spread = if margin >= 0.0 { -1.5 } else { 1.5 };
        (spread, phi((margin + spread) / lg.margin_sd).clamp(0.3, 0.7))
    } else {
        let spread = round_half(-margin);
        (spread, phi((margin + spread) / lg.margin_sd).clamp(0.45, 0.55))
    };
    let (home_price, away_price) = vig_pair_at(cover, overround);
    l.home_point_spread = Some(spread);
    l.away_point_spread = Some(round_half(-spread));
    l.home_point_spread_line = Some(home_price);
    l.away_point_spread_line = Some(away_price);
    let ou = round_half(total).max(1.0);
    let over_q = phi((total - ou) / lg.total_sd).clamp(0.42, 0.58);
    let (over, under) = vig_pair_at(over_q, overround);
    l.over_under = Some(ou);
    l.over_line = Some(over);
    l.under_line = Some(under);
    l
}

/// The probability of the positive side of `model_type`, given an expected
/// margin and total, against the posted line (or a fair line when none is posted).
pub(crate) fn side_probability(
    sport: Sport,
    model_type: ModelType,
    lines: &Lines,
    margin: f64,
    total: f64,
    reference: (f64, f64),
) -> f64 {
    let lg = league(sport);
    match model_type {
        ModelType::WonOnPoints => phi(margin / lg.margin_sd),
        ModelType::WonOnSpread => phi((margin + lines.home_point_spread.unwrap_or(reference.0)) / lg.margin_sd),
        ModelType::OverUnder => phi((total - lines.over_under.unwrap_or(reference.1)) / lg.total_sd),
    }
}

/// The individual model columns with each model's bias and noise (in logit).
pub(crate) const MODEL_BIAS: [(ModelColumn, f64, f64); 6] = [
    (ModelColumn::Catb, 0.0, 0.13),
    (ModelColumn::Rf, -0.02, 0.15),
    (ModelColumn::Lgb, 0.015, 0.14),
    (ModelColumn::Logr, 0.0, 0.09),
    (ModelColumn::Xgb, 0.01, 0.13),
    (ModelColumn::Xt, -0.01, 0.16),
];

/// The latent logit of one game and market: a read of the truth pulled
/// toward the market.
pub(crate) fn latent_logit(p_true: f64, p_market: f64) -> f64 {
    0.45 * logit(p_market) + 0.75 * logit(p_true)
}

/// The AI model's logit (it leans less on the market).
pub(crate) fn ai_logit(p_true: f64, p_market: f64) -> f64 {
    0.3 * logit(p_market) + 0.9 * logit(p_true)
}

/// Model columns at one release: each individual model is the latent logit
/// plus its own offset (`offsets[j]` for `MODEL_BIAS[j]`, the AI's at
/// `offsets[6]` on `ai` when the game has one), BLEND the mean of the
/// published components.
pub(crate) fn model_probs(latent: f64, ai: Option<f64>, offsets: &[f64; 7]) -> ModelProbs {
    let mut probs = ModelProbs::default();
    let mut sum = 0.0;
    let mut n = 0.0;
    for (j, (column, _, _)) in MODEL_BIAS.iter().enumerate() {
        let p = round4(sigmoid(latent + offsets[j]).clamp(0.01, 0.99));
        probs.set(*column, Some(p));
        sum += p;
        n += 1.0;
    }
    if let Some(ai) = ai {
        let p = round4(sigmoid(ai + offsets[6]).clamp(0.01, 0.99));
        probs.set(ModelColumn::Ai, Some(p));
        sum += p;
        n += 1.0;
    }
    probs.set(ModelColumn::Blend, Some(round4(sum / n)));
    probs
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::rng::Rng;
    use linecast_domain::odds::no_vig_from_raw;
    use proptest::prelude::*;

    #[test]
    fn phi_matches_known_values() {
        assert!((phi(0.0) - 0.5).abs() < 1e-7);
        assert!((phi(1.0) - 0.841_344_7).abs() < 1e-6);
        assert!((phi(-1.96) - 0.025).abs() < 1e-4);
    }

    #[test]
    fn a_coin_flip_is_priced_near_minus_110_on_both_sides() {
        let (a, b) = vig_pair_at(0.5, OVERROUND);
        assert_eq!((a, b), (-109.0, -109.0));
    }

    #[test]
    fn football_scores_land_on_key_numbers_often() {
        let mut rng = Rng::new(5);
        let margins: Vec<i64> = (0..4000)
            .map(|_| {
                let (h, a) = scores(Sport::Nfl, 0.0, 44.0, &mut rng);
                (i64::from(h) - i64::from(a)).abs()
            })
            .collect();
        let count = |m: i64| margins.iter().filter(|x| **x == m).count();
        assert!(
            count(3) > count(2) && count(3) > count(4),
            "3: {} 2: {} 4: {}",
            count(3),
            count(2),
            count(4)
        );
        assert!(
            count(7) > count(5) && count(7) > count(9),
            "7: {} 5: {} 9: {}",
            count(7),
            count(5),
            count(9)
        );
    }

    proptest! {
        /// Every vigged pair is a valid two-sided market whose implied
        /// probabilities add up to roughly the 4.5% overround.
        #[test]
        fn vigged_pairs_carry_about_four_and_a_half_percent_overround(p in 0.1f64..0.9) {
            let (a, b) = vig_pair_at(p, OVERROUND);
            prop_assert!(a.abs() >= 100.0 && b.abs() >= 100.0);
            let imp = |x: f64| if x > 0.0 { 100.0 / (x + 100.0) } else { -x / (-x + 100.0) };
            let over = imp(a) + imp(b) - 1.0;
            prop_assert!((0.035..0.055).contains(&over), "overround {over}");
            let fair = no_vig_from_raw(Some(a), Some(b)).unwrap();
            prop_assert!((fair - p).abs() < 0.02);
        }

        /// Model probabilities are in (0, 1) with 4 decimals, and BLEND is
        /// within the components' range.
        #[test]
        fn model_probabilities_are_bounded_and_blend_is_within_the_components(latent in -3.0f64..3.0, seed in 0u64..1000) {
            let mut rng = Rng::new(seed);
            let offsets: [f64; 7] = std::array::from_fn(|_| 0.2 * rng.normal());
            let probs = model_probs(latent, (seed % 2 == 0).then_some(latent), &offsets);
            let individual: Vec<f64> = ModelColumn::INDIVIDUAL.iter().map(|c| probs.get(*c).unwrap()).collect();
            for p in &individual {
                prop_assert!(*p > 0.0 && *p < 1.0);
                prop_assert!((round4(*p) - p).abs() < 1e-12);
            }
            let blend = probs.get(ModelColumn::Blend).unwrap();
            let lo = individual.iter().copied().fold(1.0, f64::min).min(probs.get(ModelColumn::Ai).unwrap_or(1.0));
            let hi = individual.iter().copied().fold(0.0, f64::max).max(probs.get(ModelColumn::Ai).unwrap_or(0.0));
            prop_assert!(lo <= blend && blend <= hi, "{lo} {blend} {hi}");
        }
    }
}
