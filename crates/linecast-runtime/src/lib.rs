//! linecast's background work, one of each per instance, off the request
//! path:
//! - [`events`]: the change stream's watcher task (core's `Watcher`, every
//!   `LINECAST_WATCH_INTERVAL`), keeping each predictions and odds version
//!   as a release, and the broadcast to the open streams ([`EventHub`]);
//!   the server-sent-event framing of one stream stays in the app;
//! - [`webhooks`]: the events put in the webhooks' outbox (releases, status
//!   changes, quota thresholds, expiring keys, disabled endpoints) and the
//!   delivery worker's rounds. The rules are core's
//!   `services::webhooks`; the payloads' shapes `linecast_payloads::webhooks`.

pub mod events;
pub mod webhooks;

pub use events::{EventHub, WatcherTask, spawn_watcher, watch_round};
