//! Rounding of served probabilities (4 places), percentages (2 places) and
//! the recomputed IMPLIED (6 places): the domain's one rule (half away from
//! zero, never −0), named here so every payload of the API rounds through
//! this crate.

pub use linecast_domain::round::{round2, round4};

/// IMPLIED as served everywhere (result rows, exports, predictions): 6 places.
pub fn implied(p: f64) -> f64 {
    linecast_domain::round::to_places(p, 6)
}
