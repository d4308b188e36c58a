//! Tests of the grading rules and the aggregates built on them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod aggregates;
mod calibration;
mod calibration_props;
mod fixtures;
mod issue12;
#[cfg(feature = "serde")]
mod json;
mod props;
mod rules;
mod scorecard;
mod settlement;
mod signal;
mod summary;
