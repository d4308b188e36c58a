//! Port traits, one module per external dependency.

pub mod accounts;
pub mod store;
