//! Grading rules shared by results, summary, model tracking, team form,
//! rolling curves, density grids and strategies.
//!
//! Pure: no async runtime, no I/O, no web types; time is an argument.

pub mod market;

pub use market::{Decision, decide, implied, line_posted, push, side_prices};
