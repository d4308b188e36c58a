//! Route handlers, one module per area. Handlers parse, call a use case and
//! shape the response; they hold no rules of their own.

pub mod account;
pub mod analytics;
pub mod compat;
pub mod data_status;
pub mod datasets;
pub mod edge_picks;
pub mod health;
pub mod markets;
pub mod odds;
pub mod predictions;
pub mod public_picks;
pub mod results;
pub mod root;
pub mod security;
pub mod strategies;
