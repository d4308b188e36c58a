//! Shared application state: the use-case services the handlers call, and
//! the HTTP-only pieces (response cache, resolution memo, health cache,
//! per-address limiter, key cache). No raw port is here: a handler reaches
//! the accounts database, the limiter, the store or the signer only through
//! a service (the adapters themselves stay in `startup::Adapters`).

use std::sync::Arc;

use linecast_core::Clock;
use linecast_core::services::datasets::Datasets;
use linecast_core::services::freshness::Freshness;
use linecast_core::services::history::History;
use linecast_core::services::markets::Markets;
use linecast_core::services::slate::Slate;
use linecast_core::services::strategies::Strategies;
use linecast_core::services::usage::Usage;

use crate::auth::address_limiter::AddressLimiter;
use crate::auth::cache::KeyCache;
use crate::auth::client_address::ClientAddresses;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// Graded seasons, computed once per generation.
    pub history: Arc<History>,
    /// Strategy leaderboards and replays over `history`.
    pub strategies: Arc<Strategies>,
    pub clock: Arc<dyn Clock>,
    pub probes: Vec<Arc<dyn crate::probes::Probe>>,
    /// Month counts for the account routes, and the flush round.
    pub usage: Arc<Usage>,
    /// Key hash to key and customer, so the gate skips the database.
    pub keys: KeyCache,
    /// Predictions, odds, the public feed and the legacy picks listings.
    pub slate: Arc<Slate>,
    /// Model vs sportsbook vs prediction market.
    pub markets: Arc<Markets>,
    /// Dataset status, refresh (signed links) and downloads.
    pub datasets: Arc<Datasets>,
    /// Data status.
    pub freshness: Arc<Freshness>,
    /// The change stream: watcher, broadcast and stream slots.
    pub events: Arc<crate::events::EventHub>,
    /// `None` when auth and limits are disabled (benchmarks only).
    pub access: Option<Arc<linecast_core::services::access::Access>>,
    /// Who a request comes from (the TCP peer or what trusted proxies say).
    pub clients: ClientAddresses,
    /// The per-address limit of the public data routes.
    pub addresses: Arc<AddressLimiter>,
    /// The per-address limit on failed key checks.
    pub auth_failures: Arc<AddressLimiter>,
    /// Health probe results, cached for a second.
    pub health: Arc<crate::probes::HealthCache>,
    /// API keys: issue, list, rename, revoke (the key cap lives here).
    pub api_keys: Arc<linecast_core::services::keys::Keys>,
    /// Rendered bodies of the read endpoints (render once, serve bytes).
    pub responses: Arc<crate::responses::ResponseCache>,
    /// Each season generation's rows rendered once (results pages are cut
    /// from them).
    pub rows: Arc<crate::responses::rows::RowCache>,
    /// Request parameters (and ET date) to the body they resolved to, for a
    /// second: the hot path's shortcut past the store lookups.
    pub resolutions: Arc<crate::responses::Resolutions>,
    /// The threads large bodies are made on, off the request threads.
    pub heavy: Arc<crate::responses::HeavyWork>,
    /// Exports each customer has in flight (a large download holds one
    /// slot until its last byte is sent).
    pub downloads: Arc<linecast_core::services::slots::Slots>,
}
