//! The JSON shapes the API serves: one module per area holding its response
//! types (serde + OpenAPI schema), their formats and the rounding of served
//! numbers. Handlers build these from what a use case returns; nothing here
//! reads a port or decides a rule.

pub mod history;
pub mod rounding;
pub mod strategies;
pub mod time;
