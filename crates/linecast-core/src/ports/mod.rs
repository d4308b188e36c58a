//! Port traits, one module per external dependency.

pub mod store;
