//! In-process tests of the HTTP shell. One binary; one module per area.
//! Each test builds the real application (same wiring as `main`) on a free
//! port over a copy of the committed fixture store, with a frozen clock.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod account;
mod archive_check;
mod billing;
mod body_deadline;
mod books;
mod calibration;
mod calibration_quality;
mod clv;
mod concurrency;
mod config_file;
mod consistency;
mod contract;
mod cors;
mod data_status;
mod datasets;
mod declared;
mod drain;
mod errors;
mod events;
mod export;
mod fail_closed;
mod faults;
mod game_ids;
mod helpers;
mod instants;
mod ledger;
mod limits;
mod log_secrets;
mod markets;
mod memory;
mod migrations;
mod odds;
mod openapi;
mod partition;
mod portal;
mod portal_billing;
mod portal_requests;
mod predictions;
mod public_picks;
mod redis_tls;
mod releases;
mod render_once;
mod rerender;
mod results;
mod scorecard;
mod service;
mod strategies;
mod webhooks;
