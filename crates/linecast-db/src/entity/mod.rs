//! sea-orm entities, one per table. Columns mirror the migrations; the
//! adapter converts them to the core's domain types.

pub mod api_keys;
pub mod customers;
pub mod entitlements;
pub mod kept_releases;
pub mod key_audit_log;
pub mod ledger_days;
pub mod ledger_entries;
pub mod portal_flashes;
pub mod portal_links;
pub mod portal_sessions;
pub mod refresh_ledger;
pub mod release_games;
pub mod stripe_events;
pub mod stripe_held;
pub mod stripe_links;
pub mod stripe_pending;
pub mod usage_counters;
pub mod usage_daily;
pub mod webhook_attempts;
pub mod webhook_deliveries;
pub mod webhook_endpoints;
pub mod webhook_messages;
