//! Removing the bookmaker's margin from a two-way market: the overround and
//! three de-vig methods, each turning both American prices into two
//! probabilities that sum to 1.
//!
//! Owns the de-vig arithmetic only; prices come validated as
//! [`AmericanOdds`] (whose conversion rules live in `linecast-domain`).

use linecast_domain::odds::{AmericanOdds, no_vig};

/// How a book's two prices become no-vig probabilities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Each implied probability divided by their sum (the required method,
    /// and the consensus's default).
    Multiplicative,
    /// Each implied probability raised to the one power `k` that makes them
    /// sum to 1: more of the margin comes off the longshot.
    Power,
    /// Shin's model of insider trading; for two outcomes its probabilities
    /// equal the additive method's, `π − (β − 1) / 2` (see [`shin_z`]).
    Shin,
}

/// A de-vig method name that is not one of [`Method::code`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown de-vig method {0:?}: expected multiplicative, power or shin")]
pub struct UnknownMethod(pub String);

impl Method {
    /// Every method, in the order the docs list them.
    pub const ALL: [Self; 3] = [Self::Multiplicative, Self::Power, Self::Shin];

    /// The method's name on the wire: `multiplicative`, `power`, `shin`.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Multiplicative => "multiplicative",
            Self::Power => "power",
            Self::Shin => "shin",
        }
    }

    /// The method a [`code`](Self::code) names (exactly, lowercase).
    pub fn parse(code: &str) -> Result<Self, UnknownMethod> {
        Self::ALL
            .into_iter()
            .find(|method| method.code() == code)
            .ok_or_else(|| UnknownMethod(code.to_owned()))
    }

    /// The no-vig probabilities `(p_a, p_b)` of prices `a` and `b` by this method.
    pub fn devig(self, a: AmericanOdds, b: AmericanOdds) -> (f64, f64) {
        match self {
            Self::Multiplicative => multiplicative(a, b),
            Self::Power => power(a, b),
            Self::Shin => shin(a, b),
        }
    }
}

/// The overround (the book's margin): the two implied probabilities' sum
/// minus 1. -110/-110 is 0.047619…; negative when the prices pay more than
/// a fair book (an arbitrage).
pub fn overround(a: AmericanOdds, b: AmericanOdds) -> f64 {
    a.implied_probability() + b.implied_probability() - 1.0
}

/// Multiplicative (proportional) de-vig: `π_a / (π_a + π_b)` and
/// `π_b / (π_a + π_b)`, `linecast-domain`'s [`no_vig`].
pub fn multiplicative(a: AmericanOdds, b: AmericanOdds) -> (f64, f64) {
    no_vig(a, b)
}

/// Newton steps of [`power`]: from `k = 1` the iteration converges
/// monotonically (the function is convex and decreasing in `k`) and
/// quadratically; a fixed count with no tolerance test, far more than the
/// handful double precision needs for any valid pair of prices.
const POWER_STEPS: usize = 64;

/// Power de-vig: `(π_a^k, π_b^k)` with the `k` for which they sum to 1
/// (above 1 when the overround is positive), found by Newton's method on
/// `π_a^k + π_b^k − 1` from `k = 1`, to double precision (the pair sums to
/// 1 within 1e-12).
pub fn power(a: AmericanOdds, b: AmericanOdds) -> (f64, f64) {
    let k = power_exponent(a, b);
    (a.implied_probability().powf(k), b.implied_probability().powf(k))
}

/// The exponent `k` of [`power`]: `π_a^k + π_b^k = 1`.
pub fn power_exponent(a: AmericanOdds, b: AmericanOdds) -> f64 {
    let (ia, ib) = (a.implied_probability(), b.implied_probability());
    let (la, lb) = (ia.ln(), ib.ln());
    let mut k = 1.0;
    for _ in 0..POWER_STEPS {
        let (fa, fb) = (ia.powf(k), ib.powf(k));
        let value = fa + fb - 1.0;
        let slope = fa * la + fb * lb;
        k -= value / slope;
    }
    k
}

/// Shin's `z` (the share of insider money) for two outcomes, in closed
/// form. With implied probabilities `π_a`, `π_b`, `β = π_a + π_b` and
/// `Δ = π_a − π_b`, Shin's probabilities
/// `p_i = (√(z² + 4(1 − z) π_i² / β) − z) / (2(1 − z))` sum to 1 exactly
/// at `z = (β − 1)(Δ² − β) / (β(Δ² − 1))`. Derivation: squared, Shin's
/// formula reads `(1 − z) p_i² + z p_i = π_i² / β`; subtracting side b's
/// equation from side a's with `p_a + p_b = 1` gives `p_a − p_b = Δ`, so
/// `p_i = π_i − (β − 1) / 2`, and either equation, linear in `z`, gives `z`.
/// -110/-110 gives `z = β − 1 = 0.047619…`.
pub fn shin_z(a: AmericanOdds, b: AmericanOdds) -> f64 {
    let (ia, ib) = (a.implied_probability(), b.implied_probability());
    let beta = ia + ib;
    let delta = ia - ib;
    let d2 = delta * delta;
    (beta - 1.0) * (d2 - beta) / (beta * (d2 - 1.0))
}

/// Shin de-vig for two outcomes: each `p_i` from Shin's formula at
/// [`shin_z`]. For two outcomes this equals the additive method,
/// `π_i − (β − 1) / 2`.
pub fn shin(a: AmericanOdds, b: AmericanOdds) -> (f64, f64) {
    let (ia, ib) = (a.implied_probability(), b.implied_probability());
    let beta = ia + ib;
    let z = shin_z(a, b);
    let p = |pi: f64| ((z * z + 4.0 * (1.0 - z) * pi * pi / beta).sqrt() - z) / (2.0 * (1.0 - z));
    (p(ia), p(ib))
}
