//! linecast HTTP shell. Only this crate knows HTTP: it maps requests to use
//! cases, domain errors to the spec's error shape, and documents every route
//! in OpenAPI. Rules live in the domain crates, never here.

pub mod accounting;
pub mod auth;
pub mod demo;
pub mod endpoint;
pub mod error;
pub mod events;
pub mod metrics;
pub mod migrations;
pub mod openapi;
pub mod params;
pub mod portal;
pub mod presentation;
pub mod probes;
pub mod responses;
pub mod routes;
pub mod settings;
pub mod stall;
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
