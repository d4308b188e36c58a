//! The JSON shapes the API serves: one module per area holding its response
//! types (serde + OpenAPI schema), their formats and the rounding of served
//! numbers. Handlers build these from what a use case returns; nothing here
//! reads a port or decides a rule.

pub mod account;
pub mod billing;
pub mod calibration;
pub mod compat;
pub mod datasets;
pub mod events;
pub mod export;
pub mod freshness;
pub mod games;
pub mod health;
pub mod history;
pub mod history_export;
pub mod markets;
pub mod result_rows;
pub mod rounding;
pub mod shapes;
pub mod slate;
pub mod strategies;
pub mod time;
