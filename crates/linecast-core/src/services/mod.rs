//! Use cases: they join the pure crates to the ports. No HTTP here.

pub mod slate;
