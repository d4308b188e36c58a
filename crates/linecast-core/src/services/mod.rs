//! Use cases: they join the pure crates to the ports. No HTTP here.

pub mod freshness;
pub mod history;
pub mod slate;
pub mod strategies;
