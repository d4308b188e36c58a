//! Use cases: they join the pure crates to the ports. No HTTP here.

pub mod access;
pub mod archive_check;
pub mod billing;
pub mod book_scan;
pub mod books;
pub mod clv;
pub mod customers;
pub mod datasets;
pub mod events;
pub mod freshness;
pub mod game_index;
pub mod history;
pub mod keys;
pub mod ledger;
pub mod markets;
pub mod portal;
pub mod releases;
pub mod request_log;
pub mod scorecard;
pub mod slate;
pub mod slots;
pub mod strategies;
pub mod usage;
pub mod webhooks;
