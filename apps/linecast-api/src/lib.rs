//! linecast HTTP shell: the route table and its handlers, the access gate,
//! the portal, OpenAPI and the wiring of a running instance. The HTTP
//! machinery it serves with (errors, parameters, the endpoint rows' type,
//! the response pipeline, metrics) is `linecast_http`, re-exported here
//! under its old paths. Rules live in the domain crates, never here.

pub use linecast_http::{endpoint, error, metrics, params, responses, stall};
pub use linecast_settings as settings;

pub mod accounting;
pub mod auth;
pub mod demo;
pub mod events;
pub mod migrations;
pub mod openapi;
pub mod portal;
pub mod presentation;
pub mod probes;
pub mod routes;
pub mod startup;
pub mod state;
pub mod storefront;
pub mod telemetry;
pub mod webhooks;

/// Every program linking the server (the binary, its tests and benches)
/// counts heap per thread, so caches weigh what they hold by measurement
/// (`linecast-heap`; core's `memory` has the budget).
#[global_allocator]
static ALLOCATOR: linecast_heap::Counting = linecast_heap::Counting;
