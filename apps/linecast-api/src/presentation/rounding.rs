//! Rounding of served probabilities and percentages, in one place.

/// Four decimals (probabilities, edges). Adding `+0.0` turns a rounded −0
/// into 0, so a tiny negative edge never serializes as `-0.0`.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0 + 0.0
}

/// Two decimals (EV percentages), never −0.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0 + 0.0
}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "exact values are the point of these tests")]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_negative_value_rounds_to_a_zero_that_serializes_without_a_sign() {
        for x in [round4(-0.000_01), round2(-0.001)] {
            assert_eq!(x, 0.0);
            assert_eq!(serde_json::to_string(&x).unwrap_or_default(), "0.0");
        }
        assert_eq!(round4(-0.123_46), -0.1235);
        assert_eq!(round2(12.345_6), 12.35);
    }
}
