//! Odds math: American prices, decimal prices, implied probabilities, the
//! two-sided no-vig probability and expected value in percent.

/// A price that is not a valid American price.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("invalid American odds {0}: must be finite with |odds| >= 100")]
pub struct InvalidOdds(pub f64);

/// A validated American price: `+150` or `-110`, never between -100 and +100.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct AmericanOdds(f64);

impl AmericanOdds {
    /// Validates an American price. Zero (a placeholder in some feeds) and
    /// anything strictly between -100 and +100 is invalid.
    pub fn new(value: f64) -> Result<Self, InvalidOdds> {
        if value.is_finite() && value.abs() >= 100.0 {
            Ok(Self(value))
        } else {
            Err(InvalidOdds(value))
        }
    }

    /// The raw American value.
    pub const fn value(self) -> f64 {
        self.0
    }

    /// Decimal price (stake included): +150 is 2.5, -200 is 1.5.
    pub fn to_decimal(self) -> f64 {
        if self.0 > 0.0 {
            1.0 + self.0 / 100.0
        } else {
            1.0 + 100.0 / -self.0
        }
    }

    /// The American price for a decimal price above 1.
    pub fn from_decimal(decimal: f64) -> Result<Self, InvalidOdds> {
        if !(decimal.is_finite() && decimal > 1.0) {
            return Err(InvalidOdds(decimal));
        }
        let american = if decimal >= 2.0 {
            (decimal - 1.0) * 100.0
        } else {
            -100.0 / (decimal - 1.0)
        };
        Self::new(american)
    }

    /// Implied probability including the vig: 1 / decimal.
    pub fn implied_probability(self) -> f64 {
        1.0 / self.to_decimal()
    }

    /// Profit in units of a one-unit stake when the bet wins.
    pub fn win_profit(self) -> f64 {
        self.to_decimal() - 1.0
    }
}

/// Two-sided no-vig probabilities `(p_a, p_b)` from both prices; they sum to 1.
pub fn no_vig(a: AmericanOdds, b: AmericanOdds) -> (f64, f64) {
    let ia = a.implied_probability();
    let ib = b.implied_probability();
    let total = ia + ib;
    (ia / total, ib / total)
}

/// No-vig probability of side `a` from raw optional prices; `None` when
/// either side is missing or invalid (one-sided prices give no probability).
pub fn no_vig_from_raw(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    let a = AmericanOdds::new(a?).ok()?;
    let b = AmericanOdds::new(b?).ok()?;
    Some(no_vig(a, b).0)
}

/// Expected value in percent of a one-unit bet at `price` with win
/// probability `p`: (p × decimal − 1) × 100.
pub fn ev_percent(p: f64, price: AmericanOdds) -> f64 {
    (p * price.to_decimal() - 1.0) * 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn decimal_conversion_matches_worked_examples() {
        assert!(close(AmericanOdds::new(150.0).unwrap().to_decimal(), 2.5));
        assert!(close(AmericanOdds::new(-200.0).unwrap().to_decimal(), 1.5));
        assert!(close(
            AmericanOdds::new(-110.0).unwrap().to_decimal(),
            1.0 + 100.0 / 110.0
        ));
        assert!(close(AmericanOdds::new(100.0).unwrap().to_decimal(), 2.0));
        assert!(close(AmericanOdds::new(-100.0).unwrap().to_decimal(), 2.0));
    }

    #[test]
    fn placeholder_and_sub_hundred_prices_are_invalid() {
        assert!(AmericanOdds::new(0.0).is_err());
        assert!(AmericanOdds::new(99.0).is_err());
        assert!(AmericanOdds::new(-99.5).is_err());
        assert!(AmericanOdds::new(f64::NAN).is_err());
        assert!(AmericanOdds::from_decimal(1.0).is_err());
        // A decimal price at or under 1 pays nothing or less than the stake:
        // no American price, however finite.
        assert!(AmericanOdds::from_decimal(0.5).is_err());
        assert!(AmericanOdds::from_decimal(-3.0).is_err());
        assert!(AmericanOdds::from_decimal(f64::INFINITY).is_err());
    }

    #[test]
    fn a_winning_bet_pays_the_price_minus_the_stake() {
        // +150 wins 1.5 units on one staked; -200 wins 0.5; -110 wins 100/110.
        assert!(close(AmericanOdds::new(150.0).unwrap().win_profit(), 1.5));
        assert!(close(AmericanOdds::new(-200.0).unwrap().win_profit(), 0.5));
        assert!(close(AmericanOdds::new(-110.0).unwrap().win_profit(), 100.0 / 110.0));
    }

    #[test]
    fn minus_110_both_sides_is_a_coin_flip_and_breaks_even_at_52_4_percent() {
        let p = AmericanOdds::new(-110.0).unwrap();
        let (a, b) = no_vig(p, p);
        assert!(close(a, 0.5) && close(b, 0.5));
        assert!((p.implied_probability() * 100.0 - 52.38).abs() < 0.01);
    }

    #[test]
    fn no_vig_removes_the_overround() {
        let home = AmericanOdds::new(-150.0).unwrap();
        let away = AmericanOdds::new(130.0).unwrap();
        let (h, a) = no_vig(home, away);
        assert!(close(h, 0.6 / (0.6 + 100.0 / 230.0)));
        assert!(close(h + a, 1.0));
        // Both prices raw: the first side's no-vig probability, 0.6 / (0.6 + 100/230).
        let raw = no_vig_from_raw(Some(-150.0), Some(130.0)).unwrap();
        assert!(close(raw, 0.6 / (0.6 + 100.0 / 230.0)));
        assert_eq!(no_vig_from_raw(Some(-150.0), None), None);
        assert_eq!(no_vig_from_raw(Some(-150.0), Some(0.0)), None);
    }

    #[test]
    fn ev_is_in_percent() {
        let p = AmericanOdds::new(100.0).unwrap();
        assert!(close(ev_percent(0.55, p), 10.0));
        assert!(close(
            ev_percent(0.5, AmericanOdds::new(-110.0).unwrap()),
            (0.5 * (1.0 + 100.0 / 110.0) - 1.0) * 100.0
        ));
    }

    fn american() -> impl Strategy<Value = f64> {
        prop_oneof![(100.0f64..5000.0), (-5000.0f64..=-100.0)]
    }

    proptest! {
        /// The two no-vig probabilities of a two-sided market sum to 1 and each lies in (0, 1).
        #[test]
        fn no_vig_pair_sums_to_one(a in american(), b in american()) {
            let (pa, pb) = no_vig(AmericanOdds::new(a).unwrap(), AmericanOdds::new(b).unwrap());
            prop_assert!((pa + pb - 1.0).abs() < 1e-12);
            prop_assert!(pa > 0.0 && pa < 1.0);
        }

        /// American -> decimal -> American returns the original price.
        #[test]
        fn decimal_american_round_trip(a in american()) {
            let odds = AmericanOdds::new(a).unwrap();
            let back = AmericanOdds::from_decimal(odds.to_decimal()).unwrap();
            prop_assert!((back.value() - a).abs() < 1e-6 || (a.abs() - 100.0).abs() < 1e-9 && (back.value().abs() - 100.0).abs() < 1e-6);
        }

        /// A decimal price is always above 1 and implied probability in (0, 1).
        #[test]
        fn decimal_is_above_one(a in american()) {
            let odds = AmericanOdds::new(a).unwrap();
            prop_assert!(odds.to_decimal() > 1.0);
            let p = odds.implied_probability();
            prop_assert!(p > 0.0 && p < 1.0);
        }
    }
}
