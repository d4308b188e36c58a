//! Shared application state: the use-case services the handlers call, and
//! the HTTP-only pieces, each owned by its module (the serving path's
//! `responses::Responses`, the access gate's `auth::middleware::Gate`, the
//! health cache); this struct only composes them. No raw port is here: a handler reaches
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
    /// Each customer's own requests: buffered by the gate, written by the
    /// flush round, read by the portal's Requests page.
    pub request_log: Arc<linecast_core::services::request_log::RequestLog>,
    /// Predictions, odds, the public feed and the legacy picks listings.
    pub slate: Arc<Slate>,
    /// Kept releases: `as_of` reads and a game's history.
    pub releases: Arc<linecast_core::services::releases::Releases>,
    /// The public ledger of kept releases: sealed days and their roots.
    pub ledger: Arc<linecast_core::services::ledger::Ledger>,
    /// Live result rows checked against the kept releases.
    pub archive_checks: Arc<linecast_core::services::archive_check::ArchiveChecks>,
    /// The public scorecards, made from the archive checks.
    pub scorecards: Arc<linecast_core::services::scorecard::Scorecards>,
    /// Model vs sportsbook vs prediction market.
    pub markets: Arc<Markets>,
    /// The book the single-book odds are served as (settings).
    pub primary_book: linecast_core::services::books::PrimaryBook,
    /// Dataset status, refresh (signed links) and downloads.
    pub datasets: Arc<Datasets>,
    /// Data status.
    pub freshness: Arc<Freshness>,
    /// The change stream: watcher, broadcast and stream slots.
    pub events: Arc<linecast_runtime::EventHub>,
    /// What the access gate consults (keys, limits, slots).
    pub gate: Arc<crate::auth::gate::Gate>,
    /// Health probe results, cached for a second.
    pub health: Arc<crate::probes::HealthCache>,
    /// API keys: issue, list, rename, revoke (the key cap lives here).
    pub api_keys: Arc<linecast_core::services::keys::Keys>,
    /// The serving path's state: memo, bodies, rows, heavy-work threads.
    pub responses: Arc<crate::responses::Responses>,
    /// Subscriptions from Stripe's webhook.
    pub billing: Arc<linecast_core::services::billing::Billing>,
    /// How Stripe's events are read: plans, subscribe references, mode.
    pub stripe: Arc<linecast_stripe::Reader>,
    /// The portal Billing page's Stripe actions; `None` without
    /// `LINECAST_STRIPE_API_KEY`.
    pub storefront: Option<Arc<crate::storefront::Storefront>>,
    /// Webhook endpoints: the account routes' use case (and the store).
    pub webhooks: Arc<linecast_core::services::webhooks::Endpoints>,
    /// This instance's webhook delivery worker (run by the startup's task).
    pub deliverer: Arc<linecast_core::services::webhooks::Deliverer>,
    /// `LINECAST_PUBLIC_URL` without a trailing `/`: the address the
    /// portal's pages print in examples (the Data page's `curl`).
    pub public_url: String,
    /// Where the portal's handlers send and link a customer.
    pub portal_links: PortalLinks,
}

/// The portal's own pages, each its row's path in the route table (made by
/// `routes::table::portal_links`): a portal handler redirects and links to
/// these, never to a path it spells itself.
#[derive(Debug, Clone, Copy)]
pub struct PortalLinks {
    /// The portal's front door (the sign-in page, or the overview).
    pub home: &'static str,
    /// The overview, where a sign-in lands.
    pub overview: &'static str,
    /// A sign-in link (`{token}` in its path), shown and used.
    pub sign_in_link: &'static str,
    /// The Keys page.
    pub keys: &'static str,
    /// The page confirming a key's revocation (`?key_id=`).
    pub confirm_revoke: &'static str,
    /// The Data page.
    pub data: &'static str,
    /// The Model quality page's reliability diagram (the page's choice as
    /// its query).
    pub quality_diagram: &'static str,
    /// The Webhooks page.
    pub webhooks: &'static str,
    /// The request log as CSV (the Requests page's filter as its query).
    pub requests_csv: &'static str,
}
