//! The wiring: the services and the app state built over the adapters.

use std::sync::Arc;

use anyhow::Context;
use linecast_core::ports::markets::PredictionMarkets;
use linecast_core::ports::signer::UrlSigner;
use linecast_core::services::datasets::Datasets;
use linecast_core::services::freshness::Freshness;
use linecast_core::services::history::History;
use linecast_core::services::markets::Markets;
use linecast_core::services::slate::Slate;
use linecast_core::services::slots::SlotKind;
use linecast_core::services::strategies::Strategies;
use linecast_core::{ArtifactStore, Clock, SystemClock};
use linecast_db::PinnedAccounts;
use linecast_markets::{CachedMarkets, FileSnapshotMarkets, KalshiConfig, KalshiMarkets};
use linecast_store::ObjectArtifactStore;

use super::adapters::Adapters;
use super::server::{DOWNLOAD_RETRY_AFTER_SECS, workers};
use crate::auth::client_address::ClientAddresses;
use crate::probes::{HealthCache, Probe};
use crate::settings::Settings;
use crate::state::AppState;
use linecast_core::services::access::Access;
use linecast_core::services::usage::{Usage, UsageHealth};
use linecast_db::DatabaseProbe;
use linecast_keycache::KeyCache;
use linecast_limits::RedisProbe;
use linecast_store::{CacheProbe, StoreProbe};

/// What the application state is wired from: the settings, the adapters,
/// the database as its other ports (sessions, the billing ledger, the
/// request log, releases), the store and the clock.
pub(super) struct Wiring<'a> {
    pub(super) settings: &'a Settings,
    pub(super) adapters: &'a Adapters,
    pub(super) db: &'a Arc<PinnedAccounts>,
    pub(super) store: &'a Arc<ObjectArtifactStore>,
    pub(super) clock: Arc<dyn Clock>,
}

impl Wiring<'_> {
    /// The use cases, the gate in front of them and the serving path's
    /// caches, each cache in its share of the one memory budget (core's
    /// `memory`).
    pub(super) fn state(&self) -> anyhow::Result<AppState> {
        let (settings, adapters) = (self.settings, self.adapters);
        let artifacts: Arc<dyn ArtifactStore> = self.store.clone();
        let mut keys = KeyCache::new(adapters.accounts.clone(), settings.db_outage_grace)
            .counting(|lookup| crate::metrics::key_cache(lookup.label()));
        if let Some(relay) = &adapters.key_relay {
            keys = keys.relaying(relay.clone());
        }
        let usage_health = Arc::new(UsageHealth::new(settings.db_outage_grace));
        let access = self.access(&keys, &usage_health);
        let budget = linecast_core::memory::Budget::new(settings.cache_bytes);
        let history = Arc::new(History::with_budget(self.store.clone(), budget.seasons()));
        let markets = self.markets(&artifacts)?;
        let api_keys = Arc::new(
            linecast_core::services::keys::Keys::new(adapters.accounts.clone(), settings.max_keys_per_customer)
                .with_directory(Arc::new(keys.clone())),
        );
        let events = Arc::new(linecast_runtime::EventHub::new(
            Arc::new(linecast_core::services::events::Watcher::new(artifacts.clone())),
            crate::events::stream_slots(settings.max_streams_per_customer, adapters.slots.clone()),
            crate::events::BACKLOG,
        ));
        // One shard of the log's buffer per worker: each pushes into its own.
        let request_log = Arc::new(
            linecast_core::services::request_log::RequestLog::new(self.db.clone(), settings.request_log_days)
                .with_shards(workers()),
        );
        let gate = self.gate(access, keys, request_log.clone(), &events);
        let storefront = crate::storefront::storefront(settings)?;
        let ledger = Arc::new(linecast_core::services::ledger::Ledger::new(self.db.clone()));
        let releases = self.releases(&artifacts, &ledger);
        let archive_checks = Arc::new(linecast_core::services::archive_check::ArchiveChecks::new(
            releases.clone(),
            self.store.clone(),
        ));
        let (webhooks, deliverer) = crate::webhooks::build(settings, self.db.clone())?;
        Ok(AppState {
            webhooks,
            deliverer,
            billing: self.billing(&gate.keys),
            stripe: self.stripe(),
            storefront,
            public_url: settings.public_url.trim_end_matches('/').to_owned(),
            portal_links: crate::routes::table::portal_links(),
            strategies: Arc::new(Strategies::new(history.clone())),
            history,
            usage: Arc::new(Usage::new(
                adapters.limiter.clone(),
                adapters.usage.clone(),
                adapters.accounts.clone(),
                usage_health,
            )),
            request_log,
            clock: self.clock.clone(),
            probes: self.probes(),
            slate: Arc::new(Slate::new(artifacts.clone())),
            releases,
            ledger,
            scorecards: Arc::new(linecast_core::services::scorecard::Scorecards::new(
                archive_checks.clone(),
            )),
            archive_checks,
            markets: Arc::new(Markets::new(artifacts.clone(), markets)),
            primary_book: settings.primary_book.clone(),
            datasets: self.datasets(&artifacts),
            freshness: Arc::new(Freshness::new(artifacts)),
            events,
            gate,
            // Start-up connected to both (and checked the schema): they
            // have answered since start.
            health: Arc::new(HealthCache::answered(&["database", "redis"])),
            api_keys,
            responses: self.responses(budget)?,
        })
    }

    /// The clock of the per-second limit windows: the system's, unless
    /// the tests freeze it with the rest.
    pub(super) fn rate_clock(&self) -> Arc<dyn Clock> {
        if self.settings.freeze_rate_clock {
            self.clock.clone()
        } else {
            Arc::new(SystemClock)
        }
    }

    /// The access decision, `None` when keys are not checked at all
    /// (`LINECAST_AUTH_DISABLED`).
    pub(super) fn access(&self, keys: &KeyCache, usage_health: &Arc<UsageHealth>) -> Option<Arc<Access>> {
        self.settings.auth_enabled.then(|| {
            Arc::new(Access::new(
                Arc::new(keys.clone()),
                self.adapters.limiter.clone(),
                linecast_core::services::access::key_rate(self.settings.rate_burst),
                self.clock.clone(),
                self.rate_clock(),
                usage_health.clone(),
                Arc::new(crate::metrics::limiter_decision),
            ))
        })
    }

    /// The dependency probes: the database, the store, the artifact
    /// cache, and Redis when configured.
    pub(super) fn probes(&self) -> Vec<Arc<dyn Probe>> {
        let (settings, store) = (self.settings, self.store);
        let mut probes: Vec<Arc<dyn Probe>> = vec![
            Arc::new(DatabaseProbe(
                self.adapters.accounts.clone(),
                DatabaseProbe::reach_of(&settings.database_url),
            )),
            Arc::new(StoreProbe(store.clone(), StoreProbe::reach_of(&settings.store_url))),
            Arc::new(CacheProbe(store.clone())),
        ];
        if settings.redis_url.is_some() {
            probes.push(Arc::new(RedisProbe(self.adapters.limiter.clone())));
        }
        probes
    }

    /// The prediction markets (the store's snapshots or Kalshi), their
    /// prices reused for a short while.
    pub(super) fn markets(&self, artifacts: &Arc<dyn ArtifactStore>) -> anyhow::Result<Arc<dyn PredictionMarkets>> {
        let settings = self.settings;
        let source: Arc<dyn PredictionMarkets> = if settings.markets_source == "kalshi" {
            let mut config = KalshiConfig::default();
            if let Some(base) = &settings.kalshi_base_url {
                config.base_url.clone_from(base);
            }
            Arc::new(
                KalshiMarkets::new(config, artifacts.clone())
                    .map_err(|e| anyhow::anyhow!("Kalshi adapter: {e}"))?
                    .with_clock(self.clock.clone()),
            )
        } else {
            Arc::new(FileSnapshotMarkets::new(artifacts.clone()))
        };
        Ok(Arc::new(CachedMarkets::new(
            source,
            settings.freshness_windows.markets_ttl,
        )))
    }

    /// Dataset status, refresh and downloads, links signed by the signer.
    pub(super) fn datasets(&self, artifacts: &Arc<dyn ArtifactStore>) -> Arc<Datasets> {
        let adapters = self.adapters;
        let signer: Arc<dyn UrlSigner> = adapters.signer.clone();
        Arc::new(Datasets::new(
            adapters.accounts.clone(),
            adapters.usage.clone(),
            artifacts.clone(),
            signer,
            adapters.signer.clone(),
        ))
    }

    /// Kept releases of predictions and odds, for `LINECAST_RELEASE_RETENTION_DAYS`;
    /// each retention round seals the ledger's due days first.
    pub(super) fn releases(
        &self,
        artifacts: &Arc<dyn ArtifactStore>,
        ledger: &Arc<linecast_core::services::ledger::Ledger>,
    ) -> Arc<linecast_core::services::releases::Releases> {
        Arc::new(
            linecast_core::services::releases::Releases::new(
                self.db.clone(),
                self.store.clone(),
                artifacts.clone(),
                self.settings
                    .release_retention_days
                    .map(|days| chrono::Duration::days(i64::from(days))),
            )
            .with_ledger(ledger.clone()),
        )
    }
}

impl Wiring<'_> {
    /// The gate: the access decision, the key cache, who a request comes
    /// from, the per-address limits, the stream and download slots, the
    /// billing webhook's secrets and the portal's sessions.
    pub(super) fn gate(
        &self,
        access: Option<Arc<Access>>,
        keys: KeyCache,
        request_log: Arc<linecast_core::services::request_log::RequestLog>,
        events: &linecast_runtime::EventHub,
    ) -> Arc<crate::auth::gate::Gate> {
        let settings = self.settings;
        let portal = access.clone().map(|access| self.portal(access));
        Arc::new(crate::auth::gate::Gate {
            access,
            request_log,
            keys,
            clients: ClientAddresses::new(
                settings.client_ip_header.clone(),
                settings.trusted_proxies,
                settings.trusted_proxy_cidrs.clone(),
            ),
            addresses: Arc::new(crate::auth::address_limiter::by_address(
                settings.public_rate_per_second,
                settings.public_rate_per_second,
            )),
            auth_failures: Arc::new(crate::auth::address_limiter::by_address(
                settings.auth_failure_rate,
                settings.auth_failure_burst,
            )),
            streams: events.slots.clone(),
            downloads: linecast_core::services::slots::Slots::new(
                crate::error::LARGE_DOWNLOADS,
                SlotKind::Download,
                settings.heavy.max_downloads_per_customer,
                DOWNLOAD_RETRY_AFTER_SECS,
                self.adapters.slots.clone(),
            ),
            clock: self.clock.clone(),
            webhook: crate::auth::stripe_signature::Webhook::new(settings.stripe_webhook_secrets.clone()),
            portal,
            quota_notices: Arc::new(linecast_core::services::webhooks::QuotaNotices::new()),
        })
    }

    /// The portal's session access, over the same access decision; its
    /// refusals are shown by the portal's pages.
    pub(super) fn portal(&self, access: Arc<Access>) -> crate::auth::session::SessionGate {
        let settings = self.settings;
        let portal = Arc::new(linecast_core::services::portal::Portal::new(
            access,
            self.db.clone(),
            self.adapters.accounts.clone(),
            self.rate_clock(),
        ));
        crate::auth::session::SessionGate {
            pages: Arc::new(crate::portal::refusals::PortalPages { portal: portal.clone() }),
            portal,
            // Production is served over HTTPS (behind a terminating proxy);
            // demo mode runs on plain loopback HTTP.
            cookie: crate::auth::session_cookie::CookiePolicy { secure: !settings.demo },
            origin: crate::auth::sign_in_origin::SignInOrigin::new(settings.portal_origin.clone()),
            views: crate::portal::throttle::views(),
        }
    }

    /// The reader of Stripe's events. A signed subscribe reference
    /// verifies only under a configured key (a per-process random key
    /// could not verify another instance's).
    pub(super) fn stripe(&self) -> Arc<linecast_stripe::Reader> {
        let settings = self.settings;
        Arc::new(linecast_stripe::Reader::new(
            settings.stripe_plans.clone(),
            settings
                .signing_key
                .as_ref()
                .map(|k| linecast_stripe::ReferenceKey::new(k.as_bytes())),
            settings.stripe_livemode,
        ))
    }

    /// Billing: Stripe's events applied to the accounts.
    pub(super) fn billing(&self, keys: &KeyCache) -> Arc<linecast_core::services::billing::Billing> {
        Arc::new(linecast_core::services::billing::Billing::new(
            self.db.clone(),
            self.adapters.accounts.clone(),
            Some(Arc::new(keys.clone())),
            Arc::new(SystemClock),
        ))
    }

    /// The serving path's state: the resolution memo, the response and
    /// row caches in their shares of the budget, the heavy-work threads.
    pub(super) fn responses(
        &self,
        budget: linecast_core::memory::Budget,
    ) -> anyhow::Result<Arc<crate::responses::Responses>> {
        let settings = self.settings;
        Ok(Arc::new(crate::responses::Responses {
            clock: self.clock.clone(),
            memo: Arc::new(crate::responses::Resolutions::new(
                settings.freshness_windows.resolution_ttl,
            )),
            bodies: Arc::new(crate::responses::ResponseCache::new(budget.bodies())),
            rows: Arc::new(crate::responses::rows::RowCache::new(budget.rows())),
            heavy: Arc::new(
                crate::responses::HeavyWork::new(settings.heavy.heavy_threads)
                    .context("starting the heavy-work threads")?,
            ),
            in_flight: Arc::default(),
            files: Arc::new(crate::responses::spooled::SpoolCache::new(
                crate::responses::spooled::SpoolDir::new(&settings.var_dir)
                    .with_context(|| format!("making the spool directory under {}", settings.var_dir.display()))?,
                settings.spool_bytes,
            )),
        }))
    }
}
