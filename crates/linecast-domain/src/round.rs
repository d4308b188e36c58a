//! The rounding of every published number: half away from zero to a fixed
//! number of places, and never −0 (a tiny negative edge or ROI would
//! otherwise serialize as `-0.0`). Grading, strategies, the demo data and the
//! API's presentation all round through here.

/// A whole number as an integer, for payloads that write `-110` rather than
/// `-110.0`: `Some` when `x` has no fraction and is below 2^53 in magnitude
/// (every such f64 is an exact integer). The one home of that rule: result
/// rows and strategy replays both write numbers through it.
pub fn as_whole(x: f64) -> Option<i64> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    (x.fract() == 0.0 && x.abs() < EXACT).then_some(x as i64)
}

/// Rounds half away from zero to `decimals` places; a result of −0 is 0.
pub fn to_places(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale + 0.0
}

/// Four places: probabilities, edges, units.
pub fn round4(value: f64) -> f64 {
    to_places(value, 4)
}

/// Two places: percentages such as EV and ROI.
pub fn round2(value: f64) -> f64 {
    to_places(value, 2)
}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "exact values are the point of these tests")]
mod tests {
    use super::*;

    #[test]
    fn halves_round_away_from_zero() {
        assert_eq!(to_places(0.125, 2), 0.13);
        assert_eq!(to_places(-0.125, 2), -0.13);
        assert_eq!(round4(0.123_45), 0.1235);
        assert_eq!(round2(12.345_6), 12.35);
        assert_eq!(to_places(66.666_666, 1), 66.7);
    }

    #[test]
    fn a_tiny_negative_value_rounds_to_a_zero_without_a_sign() {
        for x in [round4(-0.000_01), round2(-0.001), to_places(-0.04, 1)] {
            assert_eq!(x, 0.0);
            assert!(x.is_sign_positive(), "{x:?} kept its sign");
        }
        assert_eq!(round4(-0.123_46), -0.1235);
    }

    #[test]
    fn whole_numbers_below_two_to_the_53_are_integers_and_nothing_else_is() {
        assert_eq!(as_whole(-110.0), Some(-110));
        assert_eq!(as_whole(8.0), Some(8));
        assert_eq!(as_whole(-0.0), Some(0));
        assert_eq!(as_whole(8.5), None);
        assert_eq!(as_whole(9_007_199_254_740_991.0), Some(9_007_199_254_740_991));
        assert_eq!(as_whole(9_007_199_254_740_992.0), None);
        assert_eq!(as_whole(f64::INFINITY), None);
        assert_eq!(as_whole(f64::NAN), None);
    }
}
