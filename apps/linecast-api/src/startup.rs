//! Builds the application from `Settings`. `main.rs` and the integration
//! tests both go through `Application::build`, so tests exercise the same
//! wiring, middleware and error handlers as production.

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

use actix_http::{HttpService, Protocol};
use actix_service::{IntoServiceFactory, ServiceFactoryExt, fn_service, map_config};
use actix_web::body::MessageBody;
use actix_web::dev::Server;
use actix_web::dev::{AppConfig, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{App, web};

use crate::stall::StallGuard;
use anyhow::Context;
use linecast_core::memory::CacheStats;
use linecast_core::ports::key_relay::KeyRelay;
use linecast_core::ports::limits::Limiter;
use linecast_core::ports::markets::PredictionMarkets;
use linecast_core::ports::signer::UrlSigner;
use linecast_core::services::datasets::Datasets;
use linecast_core::services::freshness::Freshness;
use linecast_core::services::history::History;
use linecast_core::services::markets::Markets;
use linecast_core::services::slate::Slate;
use linecast_core::services::slots::{InProcessSlots, SlotKind, SlotRegistry};
use linecast_core::services::strategies::Strategies;
use linecast_core::{Accounts, ArtifactStore, Clock, FixedClock, SystemClock, UsageMeter};
use linecast_db::{PinnedAccounts, SeaAccounts};
use linecast_domain::time::et_date;
use linecast_limits::{
    InProcessLimiter, LeasedRedisLimiter, RedisEndpoint, RedisKeyRelay, RedisLimiter, RedisSlots, SlotLeases,
};
use linecast_markets::{CachedMarkets, FileSnapshotMarkets, KalshiConfig, KalshiMarkets};
use linecast_signer::HmacSigner;
use linecast_store::{ObjectArtifactStore, StoreOptions};

use crate::auth::client_address::ClientAddresses;
use crate::error::ApiError;
use crate::probes::{CacheProbe, DatabaseProbe, HealthCache, Probe, RedisProbe, StoreProbe};
use crate::routes;
use crate::settings::Settings;
use crate::state::AppState;
use crate::{openapi, telemetry};
use linecast_core::services::access::Access;
use linecast_core::services::customers::Customers;
use linecast_core::services::usage::{Usage, UsageHealth};
use linecast_keycache::KeyCache;

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The raw adapters behind the services. Handlers never see these (they
/// get `AppState`); the integration tests use them to seed and inspect the
/// database, the limiter's buffer and download tokens.
#[derive(Clone)]
pub struct Adapters {
    pub accounts: Arc<dyn Accounts>,
    pub usage: Arc<dyn UsageMeter>,
    pub limiter: Arc<dyn Limiter>,
    /// Counts each customer's open streams and large downloads: in process,
    /// or across the instances through Redis.
    pub slots: Arc<dyn SlotRegistry>,
    /// The embedded store's download-token signer.
    pub signer: Arc<HmacSigner>,
    /// The portal's sessions.
    pub sessions: Arc<dyn linecast_core::ports::sessions::PortalSessions>,
    /// Key records passed between the instances through Redis, for one cut
    /// off from the database (none without Redis).
    pub key_relay: Option<Arc<dyn KeyRelay>>,
}

/// A built, bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
    pub state: AppState,
    pub adapters: Adapters,
    flusher: linecast_limits::Flusher,
    /// The change stream's watcher (one per instance).
    watcher: crate::events::WatcherTask,
    /// The webhooks' delivery worker (one per instance).
    deliverer: linecast_limits::Flusher,
    /// Gives freed heap back to the system once a second (`linecast-heap`).
    trimmer: linecast_limits::Flusher,
    refresher: linecast_limits::Flusher,
    relayer: linecast_limits::Flusher,
    prober: linecast_limits::Flusher,
    /// Renews the leases of the slots this instance holds in Redis (none
    /// when the slots are counted in process).
    slot_heartbeat: Option<linecast_limits::Flusher>,
    /// The metrics listener, when `LINECAST_METRICS_BIND` is set.
    metrics: Option<(u16, Server)>,
    var_dir: PathBuf,
    /// How long readiness fails before the server stops accepting, after a
    /// stop signal (`LINECAST_DRAIN_GRACE_SECS`).
    drain_grace: std::time::Duration,
    /// How long the stop may take after the server has drained.
    stop_bound: std::time::Duration,
    /// How long requests in flight may take once the listener has closed.
    shutdown_timeout: std::time::Duration,
}

pub use crate::accounting::FLUSH_EVERY;

/// The server's program: reads settings, starts telemetry, runs until
/// SIGTERM/SIGINT (draining in-flight requests on either signal).
pub fn main() -> anyhow::Result<()> {
    // Before any thread starts: the allocator's arenas are made per thread.
    let tuned = linecast_heap::tune_allocator();
    actix_web::rt::System::new().block_on(serve(tuned))
}

async fn serve(tuned: Vec<&'static str>) -> anyhow::Result<()> {
    let settings = Settings::load()?;
    telemetry::init(settings.log_format, settings.log_filter.as_deref());
    tracing::debug!(?tuned, "allocator tuned");
    let app = Application::build(settings.clone()).await?;
    tracing::info!(bind = %settings.bind, port = app.port(), store = %settings.store_url, "linecast listening");
    app.run_until_stopped().await?;
    tracing::info!("linecast stopped");
    Ok(())
}

/// `LINECAST_REDIS_URL` with the CA of `LINECAST_REDIS_CA_FILE`, if any.
fn redis_endpoint(settings: &Settings) -> anyhow::Result<Option<RedisEndpoint>> {
    let Some(url) = &settings.redis_url else {
        return Ok(None);
    };
    let endpoint = RedisEndpoint::new(url.as_str());
    Ok(Some(match &settings.redis_ca_file {
        Some(path) => endpoint
            .with_ca_file(path)
            .map_err(|e| anyhow::anyhow!("invalid setting LINECAST_REDIS_CA_FILE: {e}"))?,
        None => endpoint,
    }))
}

/// A failed Redis connection, with what to do about an untrusted certificate.
fn redis_error(what: &str, e: &linecast_core::ports::limits::LimitsError) -> anyhow::Error {
    let text = e.to_string();
    if text.contains("TLS certificate is not trusted") {
        anyhow::anyhow!(
            "{what}: {text}; set LINECAST_REDIS_CA_FILE to the CA certificate (PEM) that signed the server's certificate"
        )
    } else {
        anyhow::anyhow!("{what}: {text}")
    }
}

async fn build_limiter(settings: &Settings, usage: Arc<dyn UsageMeter>) -> anyhow::Result<Arc<dyn Limiter>> {
    Ok(match redis_endpoint(settings)? {
        Some(redis) if settings.redis_leases => Arc::new(
            LeasedRedisLimiter::connect(redis, usage, settings.redis_namespace.clone(), settings.redis_timeout)
                .await
                .map_err(|e| redis_error("connecting to Redis", &e))?,
        ),
        Some(redis) => Arc::new(
            RedisLimiter::connect_with_timeout(redis, usage, settings.redis_namespace.clone(), settings.redis_timeout)
                .await
                .map_err(|e| redis_error("connecting to Redis", &e))?,
        ),
        None => Arc::new(InProcessLimiter::new(usage)),
    })
}

/// The registry of stream and download slots: shared through Redis when
/// Redis is configured (with the heartbeat that renews this instance's
/// leases), else this instance's own.
async fn build_slots(settings: &Settings) -> anyhow::Result<(Arc<dyn SlotRegistry>, Option<linecast_limits::Flusher>)> {
    Ok(match redis_endpoint(settings)? {
        Some(redis) => {
            let slots = Arc::new(
                RedisSlots::connect(
                    redis,
                    settings.redis_namespace.clone(),
                    settings.redis_timeout,
                    SlotLeases::DEFAULT,
                )
                .await
                .map_err(|e| redis_error("connecting to Redis for the stream and download slots", &e))?,
            );
            let heartbeat = slots.spawn_heartbeat();
            (slots, Some(heartbeat))
        }
        None => (Arc::new(InProcessSlots::new()), None),
    })
}

/// The key relay between the instances: through Redis when Redis is
/// configured, else none (one instance has no other to hear from).
async fn build_key_relay(settings: &Settings) -> anyhow::Result<Option<Arc<dyn KeyRelay>>> {
    let Some(redis) = redis_endpoint(settings)? else {
        return Ok(None);
    };
    let relay = RedisKeyRelay::connect(redis, settings.redis_namespace.clone(), settings.redis_timeout)
        .await
        .map_err(|e| redis_error("connecting to Redis for the key relay", &e))?;
    Ok(Some(Arc::new(relay)))
}

impl Application {
    /// A start, step by step: the var folder, the clock and the demo
    /// data; the artifact store; the accounts database; the limits (Redis,
    /// when configured); the services, the gate and the caches; the demo
    /// customer; the usage flusher and the change stream's watcher; the
    /// server; the metrics listener and the caretaking tasks.
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        let clock = prepare(&settings).await?;
        let store = open_store(&settings)?;
        let db = open_accounts(&settings).await?;
        let limiter = build_limiter(&settings, db.clone()).await?;
        let (slots, slot_heartbeat) = build_slots(&settings).await?;
        let key_relay = build_key_relay(&settings).await?;
        let adapters = Adapters::new(&settings, &db, limiter, slots, key_relay);
        warn_of_settings(&settings);
        let state = Wiring {
            settings: &settings,
            adapters: &adapters,
            db: &db,
            store: &store,
            clock,
        }
        .state()?;
        if settings.demo {
            start_demo(&settings, &state, &adapters).await?;
        }
        let flusher = crate::accounting::spawn_flusher(state.clone());
        let watcher = start_watcher(&state, settings.watch_interval);
        let deliverer = crate::webhooks::spawn_deliverer(
            state.deliverer.clone(),
            state.webhooks.store().clone(),
            state.gate.quota_notices.clone(),
            settings.webhooks.interval,
            settings.webhooks.attempt_days,
        );
        start_indexer(&state);
        let (port, server) = listen(&settings, &state)?;
        let caretakers = Caretakers::spawn(&settings, &state, store)?;
        Ok(Self {
            port,
            server,
            state,
            adapters,
            flusher,
            watcher,
            deliverer,
            trimmer: caretakers.trimmer,
            refresher: caretakers.refresher,
            relayer: caretakers.relayer,
            prober: caretakers.prober,
            slot_heartbeat,
            metrics: caretakers.metrics,
            var_dir: settings.var_dir.clone(),
            drain_grace: settings.drain_grace,
            stop_bound: settings.stop_bound,
            shutdown_timeout: std::time::Duration::from_secs(settings.shutdown_timeout),
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder of the SQLite file and the demo key.
    pub fn state_var_dir(&self) -> &std::path::Path {
        &self.var_dir
    }

    /// Port of the metrics listener, when one is configured.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics.as_ref().map(|(port, _)| *port)
    }

    /// Serves until SIGTERM/SIGINT (or the handle stops it), then persists
    /// every pending usage increment before returning.
    ///
    /// A stop signal first makes readiness fail while everything else is
    /// still served, for the drain grace (a second signal cuts it short), so
    /// a load balancer polling readiness stops sending new requests here;
    /// then the event streams end, the listener closes, idle keep-alive
    /// connections are closed and requests in flight finish (up to
    /// `SHUTDOWN_TIMEOUT_SECS`).
    pub async fn run_until_stopped(mut self) -> std::io::Result<()> {
        let metrics = self.metrics.take().map(|(_, server)| {
            let handle = server.handle();
            (tokio::spawn(server), handle)
        });
        let closer = self.spawn_closer();
        let served = self.server.await;
        closer.abort();
        // Large bodies the allowance cut (each logged once, here or where
        // its worker dropped it).
        self.state.responses.in_flight.report_cut();
        let bound = self.stop_bound;
        let deadline = tokio::time::Instant::now() + bound;
        let state = self.state.clone();
        // Everything but the final flush gets half the bound; the flush
        // gets the rest, so it is attempted whatever hangs before it.
        let winding_down = async move {
            self.state.events.close();
            self.watcher.stop().await;
            // A delivery cut here is not lost: its claim lapses and it is
            // sent again, with the same webhook-id.
            self.deliverer.stop().await;
            self.trimmer.stop().await;
            self.refresher.stop().await;
            self.relayer.stop().await;
            self.prober.stop().await;
            if let Some((task, handle)) = metrics {
                handle.stop(true).await;
                let _ = task.await;
            }
            // The streams and downloads have ended: their slots go back now
            // rather than when their leases lapse.
            if let Some(heartbeat) = self.slot_heartbeat {
                heartbeat.stop().await;
            }
            if let Err(e) = self.adapters.slots.release().await {
                tracing::warn!(error = %e, "giving back stream and download slots failed; they lapse with their leases");
            }
            self.flusher.stop().await;
            // Leased allowance goes back before the last flush reports it.
            if let Err(e) = self.adapters.limiter.release().await {
                tracing::warn!(error = %e, "giving back leased limits failed; they stay reserved for the month");
            }
        };
        if tokio::time::timeout(bound / 2, winding_down).await.is_err() {
            tracing::warn!(
                bound_ms = (bound / 2).as_millis() as u64,
                "stopping: background tasks or slot and lease releases did not finish in time; moving on to the final flush"
            );
        }
        if tokio::time::timeout_at(deadline, crate::accounting::flush_all(&state))
            .await
            .is_err()
        {
            tracing::error!("stopping: the final usage flush did not finish in time; the usage it held is lost");
        }
        served
    }

    /// The task that answers a stop signal: readiness fails for the drain
    /// grace (a second signal cuts it short), then the event streams end,
    /// the in-flight allowance starts and the server stops accepting.
    fn spawn_closer(&self) -> tokio::task::JoinHandle<()> {
        let (events, health, server, grace) = (
            self.state.events.clone(),
            self.state.health.clone(),
            self.server.handle(),
            self.drain_grace,
        );
        let (in_flight, allowance) = (self.state.responses.in_flight.clone(), self.shutdown_timeout);
        tokio::spawn(async move {
            shutdown_signal().await;
            health.start_draining();
            tracing::info!(
                grace_secs = grace.as_secs_f64(),
                "stop signal: readiness fails from now on; the server stops accepting after the drain grace"
            );
            tokio::select! {
                () = tokio::time::sleep(grace) => {}
                () = shutdown_signal() => tracing::info!("second stop signal: the drain grace is cut short"),
            }
            // The event streams end first, so the graceful shutdown does
            // not wait on connections that never finish.
            events.close();
            // Past the grace, one more signal ends the process at once,
            // whatever is still in flight or being given back.
            tokio::spawn(async {
                shutdown_signal().await;
                tracing::warn!("another stop signal while stopping: exiting now, without the final usage flush");
                std::process::exit(1);
            });
            in_flight.stop_accepting(allowance);
            server.stop(true).await;
        })
    }

    /// A handle that can stop the server gracefully (tests use it).
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }
}

/// The first step: the var folder, the clock, the mode said in the log,
/// and in demo mode the demo data generated into an empty local store.
async fn prepare(settings: &Settings) -> anyhow::Result<Arc<dyn Clock>> {
    std::fs::create_dir_all(&settings.var_dir).with_context(|| format!("creating {}", settings.var_dir.display()))?;
    let clock: Arc<dyn Clock> = match (&settings.manual_clock, settings.now) {
        (Some(manual), _) => manual.clone(),
        (None, Some(now)) => Arc::new(FixedClock(now)),
        (None, None) => Arc::new(SystemClock),
    };
    if settings.demo {
        tracing::info!(
            "demo mode: demo data and a demo customer are created when absent (configure a database or store URL for production)"
        );
    } else {
        tracing::info!("production mode: nothing is generated; an empty store is reported down");
    }
    if settings.demo
        && let Some(dir) = local_store_dir(&settings.store_url)
    {
        let now = clock.now();
        let today = et_date(now);
        let dir_for_task = dir.clone();
        let generated = tokio::task::spawn_blocking(move || linecast_demo::ensure_demo_store(&dir_for_task, now))
            .await
            .context("demo data task")?
            .with_context(|| format!("generating demo data into {}", dir.display()))?;
        if generated {
            tracing::info!(dir = %dir.display(), %today, "first run: generated the demo data store");
            crate::demo::note_generation(&settings.var_dir, now)?;
        }
    }
    Ok(clock)
}

/// The artifact store, its parsed artifacts cached in their share of the
/// memory budget.
fn open_store(settings: &Settings) -> anyhow::Result<Arc<ObjectArtifactStore>> {
    Ok(Arc::new(
        ObjectArtifactStore::from_url(
            &settings.store_url,
            StoreOptions {
                cache_bytes: linecast_core::memory::Budget::new(settings.cache_bytes).artifacts(),
                version_ttl: settings.freshness_windows.version_ttl,
                timeout: settings.store_timeout,
                ..StoreOptions::default()
            },
        )
        .with_context(|| format!("opening store {}", settings.store_url))?,
    ))
}

/// The accounts database: the folder of a SQLite file made, connected,
/// its schema checked (or migrated, in demo mode or when asked).
async fn open_accounts(settings: &Settings) -> anyhow::Result<Arc<PinnedAccounts>> {
    if let Some(path) = settings.database_url.strip_prefix("sqlite://")
        && let Some(parent) = std::path::Path::new(path.split('?').next().unwrap_or(path)).parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    let pool = SeaAccounts::open_with_timeout(&settings.database_url, settings.database_timeout)
        .await
        .map_err(|e| anyhow::anyhow!("connecting to the accounts database: {e}"))?;
    crate::migrations::prepare(pool.connection(), settings.demo || settings.migrate).await?;
    Ok(Arc::new(
        PinnedAccounts::new(pool, tokio::runtime::Handle::current()).with_timeout(settings.database_timeout),
    ))
}

impl Adapters {
    /// The database as its ports, the limiter and slot registry, and the
    /// download-token signer (`LINECAST_SIGNING_KEY`, else a random key).
    fn new(
        settings: &Settings,
        db: &Arc<PinnedAccounts>,
        limiter: Arc<dyn Limiter>,
        slots: Arc<dyn SlotRegistry>,
        key_relay: Option<Arc<dyn KeyRelay>>,
    ) -> Self {
        Self {
            accounts: db.clone(),
            usage: db.clone(),
            limiter,
            slots,
            key_relay,
            signer: Arc::new(match &settings.signing_key {
                Some(secret) => HmacSigner::new(secret.as_bytes(), settings.public_url.clone()),
                None => HmacSigner::with_random_secret(settings.public_url.clone()),
            }),
            sessions: db.clone(),
        }
    }
}

/// Warnings about settings that work but are likely mistakes, written
/// once logging has started (settings are read before).
fn warn_of_settings(settings: &Settings) {
    if settings.redis_url.is_some() && settings.signing_key.is_none() {
        // Redis means several instances; each would sign download links
        // with its own random key, which the others refuse.
        tracing::warn!(
            "LINECAST_REDIS_URL is set without LINECAST_SIGNING_KEY: each instance signs download links with its own random key, so a link signed by one is refused by the others; set one LINECAST_SIGNING_KEY for all instances"
        );
    }
    if !settings.auth_enabled {
        tracing::warn!("LINECAST_AUTH_DISABLED is set (demo mode only): every endpoint is open and unlimited");
    }
}

/// What the application state is wired from: the settings, the adapters,
/// the database as its other ports (sessions, the billing ledger, the
/// request log, releases), the store and the clock.
struct Wiring<'a> {
    settings: &'a Settings,
    adapters: &'a Adapters,
    db: &'a Arc<PinnedAccounts>,
    store: &'a Arc<ObjectArtifactStore>,
    clock: Arc<dyn Clock>,
}

impl Wiring<'_> {
    /// The use cases, the gate in front of them and the serving path's
    /// caches, each cache in its share of the one memory budget (core's
    /// `memory`).
    fn state(&self) -> anyhow::Result<AppState> {
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
        let events = Arc::new(crate::events::EventHub::new(
            Arc::new(linecast_core::services::events::Watcher::new(artifacts.clone())),
            settings.max_streams_per_customer,
            crate::events::BACKLOG,
            adapters.slots.clone(),
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
    fn rate_clock(&self) -> Arc<dyn Clock> {
        if self.settings.freeze_rate_clock {
            self.clock.clone()
        } else {
            Arc::new(SystemClock)
        }
    }

    /// The access decision, `None` when keys are not checked at all
    /// (`LINECAST_AUTH_DISABLED`).
    fn access(&self, keys: &KeyCache, usage_health: &Arc<UsageHealth>) -> Option<Arc<Access>> {
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
    fn probes(&self) -> Vec<Arc<dyn Probe>> {
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
    fn markets(&self, artifacts: &Arc<dyn ArtifactStore>) -> anyhow::Result<Arc<dyn PredictionMarkets>> {
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
    fn datasets(&self, artifacts: &Arc<dyn ArtifactStore>) -> Arc<Datasets> {
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
    fn releases(
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
    fn gate(
        &self,
        access: Option<Arc<Access>>,
        keys: KeyCache,
        request_log: Arc<linecast_core::services::request_log::RequestLog>,
        events: &crate::events::EventHub,
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
    fn portal(&self, access: Arc<Access>) -> crate::auth::session::SessionGate {
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
    fn stripe(&self) -> Arc<linecast_stripe::Reader> {
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
    fn billing(&self, keys: &KeyCache) -> Arc<linecast_core::services::billing::Billing> {
        Arc::new(linecast_core::services::billing::Billing::new(
            self.db.clone(),
            self.adapters.accounts.clone(),
            Some(Arc::new(keys.clone())),
            Arc::new(SystemClock),
        ))
    }

    /// The serving path's state: the resolution memo, the response and
    /// row caches in their shares of the budget, the heavy-work threads.
    fn responses(&self, budget: linecast_core::memory::Budget) -> anyhow::Result<Arc<crate::responses::Responses>> {
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

/// Demo mode: the demo customer and its key, and the releases of the
/// demo store.
async fn start_demo(settings: &Settings, state: &AppState, adapters: &Adapters) -> anyhow::Result<()> {
    let customers = Customers::new(adapters.accounts.clone(), adapters.usage.clone());
    crate::demo::ensure_demo_customer(&customers, state, &settings.var_dir).await?;
    if let Some(generated_at) = crate::demo::generation(&settings.var_dir) {
        crate::demo::spawn_demo_releases(state, generated_at);
    }
    Ok(())
}

/// Indexes, in the background, the games of the releases kept before the
/// index of games existed (readiness does not wait: until a series is
/// indexed, a game's history of it reads the archive). A failed round is
/// tried again a minute later, up to ten times; `linecast-admin releases
/// index` does the same on demand.
fn start_indexer(state: &AppState) {
    let releases = state.releases.clone();
    tokio::spawn(async move {
        for _ in 0..10 {
            match releases.index_all().await {
                Ok(0) => return,
                Ok(indexed) => {
                    tracing::info!(releases = indexed, "kept releases indexed");
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "indexing kept releases failed; tried again in a minute");
                    tokio::time::sleep(std::time::Duration::from_mins(1)).await;
                }
            }
        }
    });
}

/// The change stream's watcher, every `every`; a change clears the
/// resolution memo.
fn start_watcher(state: &AppState, every: std::time::Duration) -> crate::events::WatcherTask {
    let resolutions = state.responses.memo.clone();
    crate::events::spawn_watcher(
        state.events.clone(),
        state.releases.clone(),
        state.webhooks.store().clone(),
        state.clock.clone(),
        every,
        move || resolutions.clear(),
    )
}

/// The server, bound to `LINECAST_BIND` (not yet running), and its port.
fn listen(settings: &Settings, state: &AppState) -> anyhow::Result<(u16, Server)> {
    let doc = openapi::served(&settings.public_url);
    let listener = TcpListener::bind(settings.bind).with_context(|| format!("binding {}", settings.bind))?;
    let port = listener.local_addr()?.port();
    let hsts = settings.public_url.starts_with("https://");
    let server = run(
        listener,
        state.clone(),
        &doc,
        settings.heavy,
        settings.shutdown_timeout,
        hsts,
    )?;
    Ok((port, server))
}

/// What each share of the cache budget holds now: the one list the
/// metrics and the trimmer read.
type CacheShares = Arc<dyn Fn() -> Vec<(&'static str, CacheStats)> + Send + Sync>;

fn cache_shares(state: &AppState, store: Arc<ObjectArtifactStore>) -> CacheShares {
    let history = state.history.clone();
    let (responses, rows) = (state.responses.bodies.clone(), state.responses.rows.clone());
    Arc::new(move || {
        vec![
            ("artifacts", store.cache_stats()),
            ("seasons", history.cache_stats()),
            ("bodies", responses.stats()),
            ("rows", rows.stats()),
        ]
    })
}

/// The tasks that keep a running instance in shape: the metrics listener
/// (when `LINECAST_METRICS_BIND` is set), the key refresher and relay, the
/// prober and the trimmer.
struct Caretakers {
    metrics: Option<(u16, Server)>,
    refresher: linecast_limits::Flusher,
    relayer: linecast_limits::Flusher,
    prober: linecast_limits::Flusher,
    trimmer: linecast_limits::Flusher,
}

impl Caretakers {
    fn spawn(settings: &Settings, state: &AppState, store: Arc<ObjectArtifactStore>) -> anyhow::Result<Self> {
        let shares = cache_shares(state, store.clone());
        let metrics = match settings.metrics_bind {
            Some(bind) => {
                crate::metrics::handle();
                let shares = shares.clone();
                let max_fds = crate::settings::descriptor_limit();
                Some(crate::metrics::serve(bind, move || {
                    crate::metrics::artifact_cache(store.cache_counts());
                    crate::metrics::caches(&shares());
                    crate::metrics::memos(&linecast_core::memo::sizes());
                    crate::metrics::process::scrape(max_fds);
                })?)
            }
            None => None,
        };
        Ok(Self {
            metrics,
            refresher: spawn_key_refresher(state.gate.keys.clone()),
            relayer: spawn_key_relay(state.gate.keys.clone()),
            prober: spawn_prober(state.health.clone(), state.probes.clone()),
            trimmer: spawn_trimmer(move || shares().into_iter().map(|(_, stats)| stats).collect()),
        })
    }
}

/// Once a second, the key directory reads again, in one batch, the keys in
/// use that are about to expire (`KeyCache::refresh_due`).
fn spawn_key_refresher(keys: KeyCache) -> linecast_limits::Flusher {
    linecast_limits::Flusher::spawn(std::time::Duration::from_secs(1), move || {
        let keys = keys.clone();
        async move {
            match keys.refresh_due(linecast_keycache::REFRESH_AHEAD).await {
                Ok(read) => crate::metrics::key_refresh(read),
                Err(e) => tracing::warn!(error = %e, "refreshing API keys failed; they are read on their next request"),
            }
        }
    })
}

/// Every `RELAY_ROUND`, one round of the key relay
/// (`KeyCache::relay_round`), apart from the refresher: through this
/// instance's own database outage the refresher waits on the database each
/// round, the relay must not.
fn spawn_key_relay(keys: KeyCache) -> linecast_limits::Flusher {
    linecast_limits::Flusher::spawn(linecast_keycache::RELAY_ROUND, move || {
        let keys = keys.clone();
        async move {
            match keys.relay_round().await {
                Ok(round) => crate::metrics::key_relay(round),
                Err(e) => tracing::warn!(error = %e, "a round of the key relay failed; the next one retries"),
            }
        }
    })
}

/// Every `BACKGROUND_ROUND`, one round of every probe, so the dependency
/// gauges (and what readiness knows has answered since start) stay current
/// when nobody calls health.
fn spawn_prober(health: Arc<HealthCache>, probes: Vec<Arc<dyn Probe>>) -> linecast_limits::Flusher {
    let probes = Arc::new(probes);
    linecast_limits::Flusher::spawn(crate::probes::BACKGROUND_ROUND, move || {
        let (health, probes) = (health.clone(), probes.clone());
        async move {
            health.current(&probes).await;
        }
    })
}

/// Once a second, after the caches let go of memory (an eviction, fewer
/// bytes held: `memory::released`), the allocator gives the free memory in
/// its arenas back to the system (on a blocking thread), so what a burst
/// left behind does not stay resident. `malloc_trim` locks each arena
/// while it walks it, so a round with nothing released does not trim: on
/// a steady hit path it would only stall requests.
fn spawn_trimmer(caches: impl Fn() -> Vec<CacheStats> + Send + Sync + 'static) -> linecast_limits::Flusher {
    let caches = Arc::new(caches);
    let last: Arc<std::sync::Mutex<Option<Vec<CacheStats>>>> = Arc::default();
    linecast_limits::Flusher::spawn(std::time::Duration::from_secs(1), move || {
        let (caches, last) = (caches.clone(), last.clone());
        async move {
            let now = caches();
            let released = {
                let mut last = last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let released = linecast_core::memory::released(last.as_deref(), &now);
                *last = Some(now);
                released
            };
            if released {
                let _ = tokio::task::spawn_blocking(linecast_heap::release_free_memory).await;
            }
        }
    })
}

/// SIGINT or SIGTERM (what actix itself stops on).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        let Ok(mut term) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

fn local_store_dir(store_url: &str) -> Option<PathBuf> {
    store_url.strip_prefix("file://").map(PathBuf::from)
}

/// The server's worker threads: one per core.
fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

fn run(
    listener: TcpListener,
    state: AppState,
    doc: &utoipa::openapi::OpenApi,
    heavy: crate::settings::HeavyReads,
    shutdown_timeout_secs: u64,
    hsts: bool,
) -> anyhow::Result<Server> {
    // The document is served as rendered bytes (ETag, gzip and brotli
    // made once), like every other body.
    let document = Arc::new(
        crate::responses::Rendered::new(doc).map_err(|e| anyhow::anyhow!("rendering the OpenAPI document: {e}"))?,
    );
    // What the log and the dispatcher's refusals mask in a path, from the
    // route table's templates: made once, shared by the workers.
    let redaction = web::Data::new(routes::table::redaction());
    let app = move || {
        app(
            state.clone(),
            document.clone(),
            redaction.clone(),
            heavy.body_timeout,
            hsts,
        )
    };
    let addr = listener.local_addr()?;
    let workers = workers();
    // The cap is over all workers; each accepts its share.
    let per_worker = heavy.max_connections.div_ceil(workers).max(1);
    let stall = heavy.stall_timeout;
    // What `HttpServer` assembles, with one difference: each accepted
    // socket is wrapped in a `StallGuard`, so a response the client stops
    // reading is ended after the stall timeout (`crate::stall`). Stop
    // signals are `Application::run_until_stopped`'s (readiness fails for
    // the drain grace first), not actix's.
    let builder = actix_server::Server::build()
        .workers(workers)
        .max_concurrent_connections(per_worker)
        .shutdown_timeout(shutdown_timeout_secs)
        .disable_signals();
    // A graceful stop also closes idle keep-alive connections (and ends
    // keep-alive on busy ones after their request), as `HttpServer` does,
    // so the drain does not wait out the keep-alive timeout.
    let stopping = builder.graceful_shutdown_signal();
    let server = builder
        .listen("linecast", listener, move || {
            let stopping = stopping.clone();
            let http = HttpService::build()
                .graceful_shutdown_signal(move || {
                    let stopping = stopping.clone();
                    async move { stopping.notified().await }
                })
                // Idle keep-alive connections outlive a load balancer's idle
                // timeout (60 s on the common ones), so the proxy, not the
                // server, closes them: a server closing first races the
                // proxy's next request on that connection. A request head
                // may take 30 s (actix's 5 s refused slow but honest clients
                // on a loaded host with 408s; docs/decisions.md, "Connection cap and timeouts").
                .keep_alive(KEEP_ALIVE)
                .client_request_timeout(REQUEST_HEAD_TIMEOUT)
                // A client that closes its side is gone: its response (an
                // event stream, a download) ends now and gives back its slot,
                // instead of when a write next fails.
                .h1_allow_half_closed(false)
                .local_addr(addr)
                .finish(map_config(
                    app()
                        .into_factory()
                        .map_err(|err: actix_web::Error| err.error_response()),
                    move |()| AppConfig::__priv_test_new(false, addr.to_string(), addr),
                ));
            fn_service(move |io: actix_rt::net::TcpStream| {
                let peer = io.peer_addr().ok();
                std::future::ready(Ok::<_, actix_http::error::DispatchError>((
                    StallGuard::new(io, stall, peer),
                    Protocol::Http1,
                    peer,
                )))
            })
            .and_then(http)
        })?
        .run();
    Ok(server)
}

/// The application each worker serves: the OpenAPI document, the state,
/// what the route table hands down (the rows the portal's pages speak of,
/// the log's redaction of paths), the extractors' error handlers and the
/// body limit, every request going to the route table's dispatcher, under
/// telemetry and, served over https, HSTS.
fn app(
    state: AppState,
    document: Arc<crate::responses::Rendered>,
    redaction: web::Data<telemetry::Redaction>,
    body_timeout: std::time::Duration,
    hsts: bool,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let gate = state.gate.clone();
    App::new()
        .app_data(web::Data::new(routes::docs::OpenApiDocument(document)))
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(routes::table::portal_rows()))
        .app_data(redaction.clone())
        .app_data(json_config())
        .app_data(query_config())
        .app_data(path_config())
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        // Every request is answered by the route table's dispatcher, inside
        // its context. Served over https (the public URL says so):
        // browsers keep to https for a year. Not for subdomains, which are
        // the operator's.
        .wrap(telemetry::RequestContext {
            hsts: hsts.then(|| actix_web::http::header::HeaderValue::from_static(HSTS)),
            answers: routes::dispatch::Dispatcher::new(gate, body_timeout, redaction.clone()),
            redaction,
        })
}

/// The `Retry-After` of a refusal for the download cap: a download in
/// flight either finishes or is cut by the stall timeout; a few seconds is
/// a fair first wait.
pub const DOWNLOAD_RETRY_AFTER_SECS: u64 = 5;

/// `Strict-Transport-Security` when `LINECAST_PUBLIC_URL` is https.
pub const HSTS: &str = "max-age=31536000";

/// How long requests in flight may take to finish once the server stops
/// accepting (the default of `LINECAST_SHUTDOWN_TIMEOUT_SECS`).
pub use crate::settings::SHUTDOWN_TIMEOUT_SECS;

/// How long an idle connection is kept open.
pub const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(75);

/// How long a client may take to send a request's head.
pub const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_BODY_BYTES)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError;
            let api = match &err {
                JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                    ApiError::PayloadTooLarge(format!("Request body exceeds {MAX_BODY_BYTES} bytes"))
                }
                JsonPayloadError::ContentType => {
                    ApiError::BadRequest("Request body must be JSON (Content-Type: application/json)".into())
                }
                other => ApiError::BadRequest(format!("Invalid JSON body: {other}")),
            };
            api.into()
        })
}

fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|err, _req| ApiError::BadRequest(format!("Invalid query string: {err}")).into())
}

fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|err, _req| ApiError::BadRequest(format!("Invalid path parameter: {err}")).into())
}
