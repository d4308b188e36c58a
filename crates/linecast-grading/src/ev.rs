//! The EV system behind `ev roi` and `bt *`: one unit on the side with the
//! higher expected value at its recorded price.

use linecast_domain::{AmericanOdds, ModelType, SeasonRow, Side};

use crate::market::{Decision, side_prices};

/// Backtest threshold: bet only when the chosen side's EV is at least +10%.
pub const BT_MIN_EV: f64 = 0.10;

/// One EV bet on a decided game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvBet {
    pub side: Side,
    /// EV of the chosen side as a fraction (0.1 is +10%): p × decimal − 1.
    pub ev: f64,
    /// Return of the one-unit stake: decimal − 1 on a win, −1 on a loss, 0 on a push.
    pub units: f64,
}

/// The EV bet for probability `p` of the positive side, when both recorded
/// prices are valid. Ties go to the positive side.
pub fn ev_bet(row: &SeasonRow, model_type: ModelType, p: f64, decision: Decision) -> Option<EvBet> {
    let (pos, neg) = side_prices(row, model_type);
    let pos = AmericanOdds::new(pos?).ok()?.to_decimal();
    let neg = AmericanOdds::new(neg?).ok()?.to_decimal();
    let ev_pos = p * pos - 1.0;
    let ev_neg = (1.0 - p) * neg - 1.0;
    let (side, ev, decimal) = if ev_pos >= ev_neg {
        (Side::Positive, ev_pos, pos)
    } else {
        (Side::Negative, ev_neg, neg)
    };
    let units = match decision {
        Decision::Push => 0.0,
        Decision::Won(w) if w == side => decimal - 1.0,
        Decision::Won(_) => -1.0,
    };
    Some(EvBet { side, ev, units })
}
