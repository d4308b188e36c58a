//! Rounding of served probabilities and percentages, in one place.

/// Four decimals (probabilities).
pub(crate) fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Two decimals (EV percentages).
pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
