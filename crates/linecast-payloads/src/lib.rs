//! The JSON shapes the API serves: one module per area holding its response
//! types (serde + OpenAPI schema), their formats and the rounding of served
//! numbers. The HTTP shell builds these from what a use case returns;
//! nothing here reads a port, decides a rule or knows the web framework.
//! `schema` holds the OpenAPI-only types (the allowed values of parameters,
//! the grading rules object, the model probabilities map) and `shapes` the
//! schemas of the nested shapes the pure crates serialize.

pub mod account;
pub mod billing;
pub mod books;
pub mod calibration;
pub mod compat;
pub mod datasets;
pub mod events;
pub mod freshness;
pub mod games;
pub mod health;
pub mod history;
pub mod ledger;
pub mod markets;
pub mod result_rows;
pub mod rounding;
pub mod schema;
pub mod scorecard;
pub mod shapes;
pub mod slate;
pub mod strategies;
pub mod time;
pub mod webhooks;
