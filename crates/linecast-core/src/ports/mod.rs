//! Port traits, one module per external dependency.

pub mod accounts;
pub mod billing;
pub mod billing_pages;
pub mod key_directory;
pub mod key_relay;
pub mod ledger;
pub mod limits;
pub mod markets;
pub mod probe;
pub mod releases;
pub mod request_log;
pub mod sessions;
pub mod signer;
pub mod slots;
pub mod store;
pub mod webhooks;
