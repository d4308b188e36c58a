//! Charts drawn on the server as SVG, from plain figures: the caller (the
//! API's presentation and portal) converts its data into these input
//! types and gets the SVG text back.
//!
//! - [`reliability`]: the calibration reliability diagram (a standalone
//!   SVG document, drawn with plotters' SVG backend).
//! - [`bars`]: the portal's bar charts of request counts (inline `<svg>`
//!   elements, written by hand, presentation attributes only).
//! - [`numbers`]: counts as people read them (`199,578`), for the charts
//!   and the portal's pages.

pub mod bars;
pub mod numbers;
pub mod reliability;

pub use bars::{Bar, bar_chart};
pub use reliability::{Bin, Curve, DrawError, Reliability, reliability_svg};
