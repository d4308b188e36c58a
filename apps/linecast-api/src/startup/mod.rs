//! Builds the application from `Settings`. `main.rs` and the integration
//! tests both go through `Application::build`, so tests exercise the same
//! wiring, middleware and error handlers as production.

use std::path::PathBuf;

use actix_web::dev::Server;

use crate::settings::Settings;
use crate::state::AppState;
use crate::telemetry;

mod adapters;
mod caretakers;
mod server;
mod wiring;

pub use crate::accounting::FLUSH_EVERY;
/// How long requests in flight may take to finish once the server stops
/// accepting (the default of `LINECAST_SHUTDOWN_TIMEOUT_SECS`).
pub use crate::settings::SHUTDOWN_TIMEOUT_SECS;
pub use adapters::Adapters;
use adapters::{build_key_relay, build_limiter, build_slots, open_accounts, open_store, prepare, warn_of_settings};
use caretakers::{Caretakers, shutdown_signal, start_demo, start_indexer, start_watcher};
use server::listen;
pub use server::{DOWNLOAD_RETRY_AFTER_SECS, HSTS, KEEP_ALIVE, MAX_BODY_BYTES, REQUEST_HEAD_TIMEOUT};
use wiring::Wiring;

/// A built, bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
    pub state: AppState,
    pub adapters: Adapters,
    flusher: linecast_limits::Flusher,
    /// The change stream's watcher (one per instance).
    watcher: linecast_runtime::WatcherTask,
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
        let deliverer = linecast_runtime::webhooks::spawn_deliverer(
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
