//! Rounding of served probabilities (4 places) and percentages (2 places):
//! the domain's one rule (half away from zero, never −0), named here so every
//! payload of the API rounds through the presentation layer.

pub use linecast_domain::round::{round2, round4};
