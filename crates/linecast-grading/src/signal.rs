//! The Line Move signal: how a market moved from its opener to the recorded
//! line, positive toward the home or over side.
//!
//! Its one home: the strategies' line-move rules fire on it and calibration
//! signs it by each model's pick to measure closing-line value. It knows
//! nothing about bets, rules or picks.

use linecast_domain::row::real_opener;
use linecast_domain::{AmericanOdds, ModelType, SeasonRow};

fn single_price_implied(price: Option<f64>) -> Option<f64> {
    AmericanOdds::new(price?).ok().map(AmericanOdds::implied_probability)
}

/// How the line moved from the opener to the recorded line.
/// - moneyline: implied(home_money_line) − implied(open_home_money_line),
///   each the single-price implied probability (vig included);
/// - spread: open_home_point_spread − home_point_spread (the home side got
///   more expensive when its spread shrank);
/// - totals: over_under − open_over_under.
///
/// `None` when an input is missing or a price is invalid; an opener of
/// exactly zero is no opener ([`real_opener`]).
pub fn line_move(row: &SeasonRow, model_type: ModelType) -> Option<f64> {
    let l = &row.lines;
    match model_type {
        ModelType::WonOnPoints => {
            let open = single_price_implied(real_opener(l.open_home_money_line))?;
            Some(single_price_implied(l.home_money_line)? - open)
        }
        ModelType::WonOnSpread => Some(real_opener(l.open_home_point_spread)? - l.home_point_spread?),
        ModelType::OverUnder => Some(l.over_under? - real_opener(l.open_over_under)?),
    }
}
