//! Route handlers, one module per area. Handlers parse, call a use case and
//! shape the response; they hold no rules of their own.

pub mod edge_picks;
pub mod health;
pub mod public_picks;
pub mod root;
