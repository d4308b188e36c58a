//! Per-market primitives: is a line posted, did the game push, which side
//! won, and the no-vig IMPLIED probability from both recorded prices.

use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::{ModelType, SeasonRow, Side};

/// How a decided game settled in its market.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// The positive side (home, or over) won.
    Won(Side),
    /// The final landed exactly on the line.
    Push,
}

/// A line the market posted: moneyline needs a home or away price, spread
/// needs `home_point_spread`, totals need `over_under`.
pub fn line_posted(row: &SeasonRow, model_type: ModelType) -> bool {
    let l = &row.lines;
    match model_type {
        ModelType::WonOnPoints => l.home_money_line.is_some() || l.away_money_line.is_some(),
        ModelType::WonOnSpread => l.home_point_spread.is_some(),
        ModelType::OverUnder => l.over_under.is_some(),
    }
}

/// How the game settled, or `None` without a final score or a posted line.
pub fn decide(row: &SeasonRow, model_type: ModelType) -> Option<Decision> {
    let (away, home) = (row.away_score?, row.home_score?);
    if !line_posted(row, model_type) {
        return None;
    }
    // Margin toward the positive side; zero is a push. A margin closer to
    // zero than 1e-9 is float noise of fractional lines and pushes too; a
    // margin of 1e-9 or more either way is decided.
    let margin = match model_type {
        ModelType::WonOnPoints => home - away,
        ModelType::WonOnSpread => home + row.lines.home_point_spread? - away,
        ModelType::OverUnder => home + away - row.lines.over_under?,
    };
    Some(if margin.abs() < 1e-9 {
        Decision::Push
    } else if margin > 0.0 {
        Decision::Won(Side::Positive)
    } else {
        Decision::Won(Side::Negative)
    })
}

/// `push` as served on result rows: true on the line, false when decided,
/// `None` without a final or a line.
pub fn push(row: &SeasonRow, model_type: ModelType) -> Option<bool> {
    decide(row, model_type).map(|d| d == Decision::Push)
}

/// The recorded prices of (positive side, negative side) for the market.
pub fn side_prices(row: &SeasonRow, model_type: ModelType) -> (Option<f64>, Option<f64>) {
    row.lines.side_prices(model_type)
}

/// IMPLIED: the no-vig probability of the positive side from both recorded
/// prices, whatever their quote source. One-sided or invalid prices give `None`.
pub fn implied(row: &SeasonRow, model_type: ModelType) -> Option<f64> {
    let (pos, neg) = side_prices(row, model_type);
    no_vig_from_raw(pos, neg)
}
