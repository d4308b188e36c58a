//! Port traits, one module per external dependency.

pub mod signer;
pub mod store;
