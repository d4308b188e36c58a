//! Typed settings from environment variables, with an optional
//! `linecast.toml` (path from `LINECAST_CONFIG`, default `./linecast.toml`).
//! Environment variables win over the file.
//!
//! Each area reads its own variables (`server`, `storage`, `database`,
//! `auth`, `limits`, `heavy`, `events`, `markets`, `billing`, `portal`,
//! `telemetry`, `caches`), through the readings of one value in `value`;
//! `file` is the config file. [`Settings`] is every area's settings in one
//! flat struct.

mod auth;
mod billing;
mod caches;
mod database;
mod events;
mod file;
mod heavy;
mod limits;
mod markets;
mod portal;
mod server;
mod storage;
mod telemetry;
mod value;
mod webhooks;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use linecast_core::services::access::DEFAULT_BURST;

use linecast_http::client_address::ProxyRange;

pub use caches::FreshnessWindows;
pub use database::DEFAULT_DB_OUTAGE_GRACE;
pub use file::{FILE_SETTINGS, file_key};
pub use heavy::{HeavyReads, connections_under_descriptor_limit, descriptor_limit};
pub use server::SHUTDOWN_TIMEOUT_SECS;
pub use server::{DEFAULT_DRAIN_GRACE_SECS, STOP_BOUND};
pub use storage::DEFAULT_STORE_TIMEOUT;
pub use telemetry::LogFormat;

use file::{FileSettings, layered};
pub use webhooks::Webhooks;

/// Every setting of the server.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `LINECAST_BIND`, else `0.0.0.0:$PORT` when `PORT` is set, else
    /// `127.0.0.1:8080`. Port 0 picks a free port.
    pub bind: SocketAddr,
    /// `LINECAST_DATABASE_URL`, default a SQLite file under `var/`.
    pub database_url: String,
    /// `LINECAST_MIGRATE`: apply pending migrations at start (default
    /// false: the server checks the schema and refuses to start while a
    /// migration it needs is pending; `linecast-admin migrate` owns the
    /// schema). Demo mode always migrates its own database.
    pub migrate: bool,
    /// `LINECAST_STORE_URL`, default `file://<cwd>/var/store`.
    pub store_url: String,
    /// `LINECAST_REDIS_URL`, optional (`redis://`, or `rediss://` for TLS).
    pub redis_url: Option<String>,
    /// `LINECAST_REDIS_CA_FILE`: the CA certificates (PEM) a `rediss://`
    /// server's certificate is checked against instead of the system's
    /// roots. Only with a `rediss://` URL.
    pub redis_ca_file: Option<PathBuf>,
    /// `LINECAST_REDIS_NAMESPACE`: prefix of every Redis key (default
    /// `linecast`); give each deployment sharing a Redis its own.
    pub redis_namespace: String,
    /// `LINECAST_REDIS_TIMEOUT_MS`: longest wait for one Redis connection
    /// attempt or reply (default 500); past it the request is a 503.
    pub redis_timeout: std::time::Duration,
    /// `LINECAST_REDIS_LEASES`: with Redis, borrow quota and rate tokens in
    /// blocks rather than asking Redis on every request (default true;
    /// `false` makes every decision one Redis round trip, exact to the call).
    pub redis_leases: bool,
    /// `LINECAST_SIGNING_KEY`; a random per-process key when absent.
    pub signing_key: Option<String>,
    /// `LINECAST_STRIPE_WEBHOOK_SECRETS`: the billing webhook's endpoint
    /// secrets (`whsec_...`, comma-separated; two during a rotation). None
    /// configured: `POST /billing/stripe/webhook` is off (404).
    pub stripe_webhook_secrets: linecast_stripe::signature::WebhookSecrets,
    /// `LINECAST_STRIPE_PLANS`: `price=plan[:limit]` pairs, comma-separated:
    /// the plan (and monthly quota) each Stripe price grants.
    pub stripe_plans: linecast_core::services::billing::PlanTable,
    /// `LINECAST_STRIPE_LIVEMODE`: the only `livemode` of Stripe events
    /// acted on (default false: test mode); an event of the other mode is
    /// acknowledged and ignored.
    pub stripe_livemode: bool,
    /// `LINECAST_STRIPE_API_KEY`: the Stripe secret key the portal's Billing
    /// page opens Checkout and Customer Portal sessions with. Unset: the page
    /// shows no Subscribe or Manage billing button.
    pub stripe_api_key: Option<linecast_stripe::ApiKey>,
    /// `LINECAST_STRIPE_API_BASE`: Stripe's API root (default
    /// `https://api.stripe.com`; a test points it to a stub).
    pub stripe_api_base: Option<String>,
    /// `LINECAST_STRIPE_PRICE_TEXT`: what the price on sale costs, as the
    /// portal's Billing page states it (`USD 49.00 a month`); unset, the
    /// page says Stripe's checkout shows it.
    pub stripe_price_text: Option<String>,
    /// `LINECAST_NOW`: a frozen clock (RFC 3339).
    pub now: Option<DateTime<Utc>>,
    /// Tests only: a clock the test moves while the app runs (wins over
    /// `now`). Never read from the environment.
    pub manual_clock: Option<std::sync::Arc<linecast_core::ManualClock>>,
    /// Tests only: how long a seen object version is trusted (2 s) and how
    /// long a request's resolution is memoized (1 s); zero turns each off.
    /// Never read from the environment.
    pub freshness_windows: FreshnessWindows,
    /// `LINECAST_LOG_FORMAT`: `human` (default) or `json`.
    pub log_format: LogFormat,
    /// `RUST_LOG` (`rust_log` in the file): the log filter, `info` when
    /// unset.
    pub log_filter: Option<String>,
    /// `LINECAST_CACHE_BYTES`: the one memory budget of everything cached,
    /// default `linecast_core::memory::Budget::DEFAULT_BYTES` (160 MiB).
    pub cache_bytes: u64,
    /// `LINECAST_SPOOL_BYTES`: the disk budget, in bytes, of the files too
    /// large to hold in memory (history exports, `responses::spooled`),
    /// written under `var_dir`; default 1 GiB.
    pub spool_bytes: u64,
    /// Demo mode: on when neither a database URL nor a store URL is
    /// configured (environment or file), or with `LINECAST_DEMO=true`. It
    /// generates the demo store into an empty `file://` store and creates the
    /// demo customer and key. Off (production) as soon as storage is
    /// configured: nothing is invented. `LINECAST_DEMO=false` forces it off.
    /// By default only on a loopback address: without storage and without
    /// `LINECAST_DEMO`, any other bind stops the start (`demo_by_default`).
    pub demo: bool,
    /// `LINECAST_PUBLIC_RATE`: requests per second per client address on the
    /// public data routes (default 20; 0 turns the limit off).
    pub public_rate_per_second: u32,
    /// `LINECAST_CLIENT_IP_HEADER`: a header set by trusted proxies (e.g.
    /// `X-Forwarded-For`) naming the client. Unset: the TCP peer.
    pub client_ip_header: Option<String>,
    /// `LINECAST_TRUSTED_PROXY_CIDRS`: the proxies whose header is read
    /// (comma-separated CIDRs; a bare address is a /32 or /128). From any
    /// other peer the client is the peer. Required with the header.
    pub trusted_proxy_cidrs: Vec<ProxyRange>,
    /// `LINECAST_TRUSTED_PROXIES`: how many proxies in front of the server
    /// append to that header (default 1): the client is the entry that many
    /// places from the right (see `auth::client_address`).
    pub trusted_proxies: u32,
    /// `LINECAST_RATE_BURST`: calls one key may make at once (default 100;
    /// the sustained rate stays 50 per second).
    pub rate_burst: u32,
    /// `LINECAST_AUTH_FAILURE_RATE` and `LINECAST_AUTH_FAILURE_BURST`: failed
    /// key checks allowed per client address, per second sustained and at
    /// once (defaults 20 and 40; a rate of 0 turns the limit off).
    pub auth_failure_rate: u32,
    pub auth_failure_burst: u32,
    /// `LINECAST_METRICS_BIND`: where Prometheus metrics are served at
    /// `/metrics` (off when unset).
    pub metrics_bind: Option<SocketAddr>,
    /// `LINECAST_MAX_KEYS_PER_CUSTOMER`: most active keys per customer (25).
    pub max_keys_per_customer: usize,
    /// `LINECAST_WATCH_INTERVAL`: seconds between the change-stream
    /// watcher's rounds (decimals allowed), default 5.
    pub watch_interval: std::time::Duration,
    /// `LINECAST_MAX_STREAMS_PER_CUSTOMER`: concurrent event streams a
    /// customer may hold, default 5.
    pub max_streams_per_customer: u32,
    /// `LINECAST_DATABASE_TIMEOUT_MS`: longest wait for a pooled connection
    /// and for one accounts statement (default 2000); past it the request is
    /// a 503.
    pub database_timeout: std::time::Duration,
    /// `LINECAST_DB_OUTAGE_GRACE_SECS`: how long a database outage is
    /// ridden out (default 60; decimals allowed; more than 0, at most
    /// 3600). Keys this instance read from the database within this span
    /// before the outage keep serving for it, their usage buffered; once
    /// counted usage has not reached the database for this long,
    /// authenticated requests get a fast 503 until a flush succeeds (the
    /// most counting a crash during an outage can lose). The older
    /// `LINECAST_USAGE_STALE_AFTER_MS` (milliseconds) is read when this one
    /// is unset.
    pub db_outage_grace: std::time::Duration,
    /// `LINECAST_DRAIN_GRACE_SECS`: after SIGTERM or SIGINT, how long the
    /// instance keeps serving with readiness failing (so load balancers
    /// take it out) before it stops accepting and drains (default 5;
    /// decimals allowed; 0 stops at once).
    pub drain_grace: std::time::Duration,
    /// `LINECAST_STORE_TIMEOUT_SECS`: the most one object-store call (a
    /// HEAD, a GET with its body, a listing, retries included) may take
    /// before it fails as unavailable (default 5; decimals allowed; more
    /// than 0, at most 300). A store that accepts connections and never
    /// answers is then a fast 503 and never holds up a stop.
    pub store_timeout: std::time::Duration,
    /// `LINECAST_SHUTDOWN_TIMEOUT_SECS`: once the listener has closed after
    /// a stop, how long requests in flight (a large export to a slow
    /// client) may take to finish before they are cut (default 10; whole
    /// seconds, 0 to 3600).
    pub shutdown_timeout: u64,
    /// `LINECAST_RELEASE_RETENTION_DAYS`: how many days a kept release of
    /// predictions or odds (its record and archived bytes) is kept; unset
    /// or 0 keeps every release (whole days, at most 36500).
    pub release_retention_days: Option<u32>,
    /// `LINECAST_REQUEST_LOG_DAYS`: how many days the request log (the
    /// portal's Requests page) keeps each request (default 7; whole days,
    /// 1 to 90).
    pub request_log_days: u32,
    /// How long the stop may take once the server has drained: giving back
    /// slots and leases, then the final usage flush, each cut off when it
    /// hangs ([`STOP_BOUND`]; not a setting, tests raise it).
    pub stop_bound: std::time::Duration,
    /// `LINECAST_VAR_DIR`: where the SQLite file, demo key and default store live.
    pub var_dir: PathBuf,
    /// False only with `LINECAST_AUTH_DISABLED=true`: no keys, no limits.
    /// For benchmarks that measure what auth costs; honoured only in demo
    /// mode (in production mode the setting is refused).
    pub auth_enabled: bool,
    /// Per-second limit windows follow the frozen clock too (tests only:
    /// makes "51 requests in one second" deterministic).
    pub freeze_rate_clock: bool,
    /// `LINECAST_PUBLIC_URL`: base of signed download links (default `http://<bind>`).
    pub public_url: String,
    /// The origin of `LINECAST_PUBLIC_URL` when it is set
    /// (`https://api.example.com`): the only origin the portal's sign-in
    /// forms are accepted from (`portal::origin`). `None` when it is unset:
    /// a sign-in's `Origin` must then be the request's own host.
    pub portal_origin: Option<String>,
    /// `LINECAST_MARKETS`: `file` (default, the store's snapshots) or `kalshi`.
    pub markets_source: String,
    /// `LINECAST_KALSHI_BASE_URL`: Kalshi's public market-data API.
    pub kalshi_base_url: Option<String>,
    /// `LINECAST_PRIMARY_BOOK` and `LINECAST_PRIMARY_BOOK_TITLE`: the book
    /// the single-book odds are served as where no named books are published.
    pub primary_book: linecast_core::services::books::PrimaryBook,
    /// What one client may hold of the server: slow readers, large
    /// downloads, connections, and the threads that make large bodies.
    pub heavy: HeavyReads,
    /// Signed webhooks: reachable receivers, the attempts' log, the worker.
    pub webhooks: Webhooks,
    /// Tests only: the resolver webhook deliveries look receivers up with
    /// (a table a test changes); `None`, the system's. Never read from the
    /// environment.
    pub webhook_lookup: Option<std::sync::Arc<dyn linecast_webhook_http::Lookup>>,
}

/// A setting that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("invalid setting {name}: {reason}")]
pub struct SettingsError {
    pub name: &'static str,
    pub reason: String,
}

impl Settings {
    /// Reads `linecast.toml` (if present) and the environment.
    pub fn load() -> Result<Self, SettingsError> {
        Self::from_sources(&FileSettings::load()?, |k| std::env::var(k).ok())
    }

    /// The settings of the config file at `config` (none when it does not
    /// exist) under the environment `env`: what [`Settings::load`] does
    /// with `LINECAST_CONFIG` (or `./linecast.toml`) and the process's
    /// environment.
    pub fn load_from(config: &Path, env: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        Self::from_sources(&FileSettings::read(config)?, env)
    }

    /// Only the address the server listens on, from the same sources as
    /// [`Settings::load`] (for `linecast-api healthcheck`, which must not
    /// fail on a setting that only the server needs).
    pub fn load_bind() -> Result<SocketAddr, SettingsError> {
        let file = FileSettings::load()?;
        server::bind_address(layered(&file, |k| std::env::var(k).ok()))
    }

    /// Every setting from the environment, then the file; an error about a
    /// value that came from the file says so.
    fn from_sources(file: &FileSettings, env: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        Self::read_settings(&layered(file, &env)).map_err(|mut e| {
            if env(e.name).is_none() && file.values.contains_key(e.name) {
                e.reason = format!("{} (from '{}' in {})", e.reason, file_key(e.name), file.path);
            }
            e
        })
    }

    /// Every area's settings, read from `env`. Storage comes first: where
    /// the database and the store are (or that neither is configured)
    /// decides demo mode, and demo mode whether keys may be turned off.
    fn read_settings(env: &impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        let storage = storage::read(env)?;
        let database = database::read(env, &storage.var_dir)?;
        let server = server::read(env, !storage.configured && !database.configured)?;
        let auth = auth::read(env, server.demo)?;
        let limits = limits::read(env)?;
        let events = events::read(env)?;
        let markets = markets::read(env)?;
        let billing = billing::read(env)?;
        let portal = portal::read(env, server.bind)?;
        let telemetry = telemetry::read(env)?;
        Ok(Self {
            bind: server.bind,
            demo: server.demo,
            now: server.now,
            drain_grace: server.drain_grace,
            shutdown_timeout: server.shutdown_timeout,
            stop_bound: STOP_BOUND,
            var_dir: storage.var_dir,
            store_url: storage.store_url,
            store_timeout: storage.store_timeout,
            release_retention_days: storage.release_retention_days,
            database_url: database.url,
            migrate: database.migrate,
            database_timeout: database.timeout,
            db_outage_grace: database.db_outage_grace,
            auth_enabled: auth.enabled,
            signing_key: auth.signing_key,
            client_ip_header: auth.client_ip_header,
            trusted_proxy_cidrs: auth.trusted_proxy_cidrs,
            trusted_proxies: auth.trusted_proxies,
            auth_failure_rate: auth.failure_rate,
            auth_failure_burst: auth.failure_burst,
            max_keys_per_customer: auth.max_keys_per_customer,
            public_rate_per_second: limits.public_rate_per_second,
            rate_burst: limits.rate_burst,
            redis_url: limits.redis_url,
            redis_ca_file: limits.redis_ca_file,
            redis_namespace: limits.redis_namespace,
            redis_timeout: limits.redis_timeout,
            redis_leases: limits.redis_leases,
            heavy: heavy::read(env)?,
            webhooks: webhooks::read(env)?,
            webhook_lookup: None,
            watch_interval: events.watch_interval,
            max_streams_per_customer: events.max_streams_per_customer,
            markets_source: markets.markets_source,
            kalshi_base_url: markets.kalshi_base_url,
            primary_book: markets.primary_book,
            stripe_webhook_secrets: billing.webhook_secrets,
            stripe_plans: billing.plans,
            stripe_livemode: billing.livemode,
            stripe_api_key: billing.api_key,
            stripe_api_base: billing.api_base,
            stripe_price_text: billing.price_text,
            public_url: portal.public_url,
            portal_origin: portal.origin,
            request_log_days: portal.request_log_days,
            log_format: telemetry.log_format,
            log_filter: telemetry.log_filter,
            metrics_bind: telemetry.metrics_bind,
            cache_bytes: caches::cache_bytes(env)?,
            spool_bytes: caches::spool_bytes(env)?,
            freshness_windows: FreshnessWindows::default(),
            manual_clock: None,
            freeze_rate_clock: false,
        })
    }

    /// Settings for in-process tests: a free port, the given store, a frozen clock.
    pub fn for_tests(store_url: &str, var_dir: &Path, now: DateTime<Utc>) -> Self {
        Self {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            database_url: format!("sqlite://{}?mode=rwc", var_dir.join("linecast.db").display()),
            // As in production: only demo mode (on here) migrates; a test
            // in production mode migrates its fresh database itself.
            migrate: false,
            store_url: store_url.to_owned(),
            redis_url: None,
            redis_ca_file: None,
            signing_key: Some("test-signing-key".to_owned()),
            stripe_webhook_secrets: linecast_stripe::signature::WebhookSecrets::default(),
            stripe_plans: linecast_core::services::billing::PlanTable::default(),
            stripe_livemode: false,
            stripe_api_key: None,
            stripe_api_base: None,
            stripe_price_text: None,
            now: Some(now),
            manual_clock: None,
            freshness_windows: FreshnessWindows::default(),
            log_format: LogFormat::Human,
            log_filter: None,
            cache_bytes: 64 * 1024 * 1024,
            spool_bytes: caches::SPOOL_BYTES,
            // The in-process suites start from the demo customer (its key is
            // the tests' default caller); production-mode tests turn it off.
            demo: true,
            var_dir: var_dir.to_path_buf(),
            public_rate_per_second: 0,
            client_ip_header: None,
            trusted_proxy_cidrs: Vec::new(),
            trusted_proxies: 1,
            rate_burst: DEFAULT_BURST,
            // Off: the suites present many made-up keys from one address;
            // the tests of this limit turn it on.
            auth_failure_rate: 0,
            auth_failure_burst: 40,
            metrics_bind: None,
            max_keys_per_customer: 25,
            watch_interval: std::time::Duration::from_secs(5),
            max_streams_per_customer: 5,
            database_timeout: std::time::Duration::from_secs(2),
            redis_timeout: linecast_limits::DEFAULT_REDIS_TIMEOUT,
            redis_leases: true,
            db_outage_grace: DEFAULT_DB_OUTAGE_GRACE,
            drain_grace: std::time::Duration::ZERO,
            store_timeout: DEFAULT_STORE_TIMEOUT,
            shutdown_timeout: server::SHUTDOWN_TIMEOUT_SECS,
            release_retention_days: None,
            request_log_days: linecast_core::services::request_log::DEFAULT_RETENTION_DAYS,
            stop_bound: std::time::Duration::from_mins(1),
            auth_enabled: true,
            freeze_rate_clock: true,
            redis_namespace: "linecast".to_owned(),
            public_url: "http://127.0.0.1".to_owned(),
            portal_origin: None,
            markets_source: "file".to_owned(),
            kalshi_base_url: None,
            primary_book: linecast_core::services::books::PrimaryBook::default(),
            heavy: HeavyReads {
                heavy_threads: 1,
                ..HeavyReads::defaults()
            },
            webhooks: Webhooks::default(),
            webhook_lookup: None,
        }
    }
}

/// An environment of the given variables only.
#[cfg(test)]
fn env_of<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    |k| vars.iter().find(|(name, _)| *name == k).map(|(_, v)| (*v).to_owned())
}

/// The settings of a config file holding `text`.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
fn file(text: &str) -> FileSettings {
    FileSettings::parse(text, "linecast.toml").unwrap()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn environment_overrides_the_file_and_bad_values_name_the_setting() {
        let file = file("bind = \"0.0.0.0:9000\"\ndemo = true");
        let s = Settings::from_sources(&file, |k| {
            (k == "LINECAST_NOW").then(|| "2026-11-21T15:00:00Z".to_owned())
        })
        .unwrap();
        assert_eq!(s.bind.port(), 9000);
        assert_eq!(s.now.unwrap().to_rfc3339(), "2026-11-21T15:00:00+00:00");
        assert!(s.store_url.starts_with("file://") && s.store_url.ends_with("var/store"));
        let err = Settings::from_sources(&file, |k| (k == "LINECAST_NOW").then(|| "yesterday".to_owned())).unwrap_err();
        assert_eq!(err.name, "LINECAST_NOW");
    }

    #[test]
    fn the_store_timeout_and_the_in_flight_allowance_default_to_five_and_ten_seconds_and_are_bounded() {
        let none = FileSettings::default();
        let with = |name: &'static str, value: &'static str| {
            Settings::from_sources(&none, move |k| (k == name).then(|| value.to_owned()))
        };
        let defaults = Settings::from_sources(&none, |_| None).unwrap();
        assert_eq!(defaults.store_timeout, std::time::Duration::from_secs(5));
        assert_eq!(defaults.shutdown_timeout, 10);
        assert_eq!(
            with("LINECAST_STORE_TIMEOUT_SECS", "0.25").unwrap().store_timeout,
            std::time::Duration::from_millis(250)
        );
        assert_eq!(with("LINECAST_SHUTDOWN_TIMEOUT_SECS", "7").unwrap().shutdown_timeout, 7);
        assert_eq!(with("LINECAST_SHUTDOWN_TIMEOUT_SECS", "0").unwrap().shutdown_timeout, 0);
        let in_file = file("store_timeout_secs = 1.5\nshutdown_timeout_secs = 3");
        let read = Settings::from_sources(&in_file, |_| None).unwrap();
        assert_eq!(read.store_timeout, std::time::Duration::from_millis(1500));
        assert_eq!(read.shutdown_timeout, 3);
        for bad in ["0", "-1", "soon", "301"] {
            let err = with("LINECAST_STORE_TIMEOUT_SECS", bad).unwrap_err();
            assert_eq!(err.name, "LINECAST_STORE_TIMEOUT_SECS", "{bad}");
        }
        for bad in ["-1", "1.5", "3601"] {
            let err = with("LINECAST_SHUTDOWN_TIMEOUT_SECS", bad).unwrap_err();
            assert_eq!(err.name, "LINECAST_SHUTDOWN_TIMEOUT_SECS", "{bad}");
        }
    }

    #[test]
    fn redis_limits_are_leased_unless_turned_off_and_the_budget_defaults_to_160_mib() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |_| None).unwrap();
        assert!(s.redis_leases);
        assert_eq!(s.cache_bytes, 160 * 1024 * 1024);
        assert_eq!(s.spool_bytes, 1024 * 1024 * 1024);
        let off = |k: &str| (k == "LINECAST_REDIS_LEASES").then(|| "false".to_owned());
        assert!(!Settings::from_sources(&none, off).unwrap().redis_leases);
        let err = Settings::from_sources(&none, |k| {
            (k == "LINECAST_REDIS_LEASES").then(|| "sometimes".to_owned())
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_REDIS_LEASES");
    }

    #[test]
    fn limits_and_the_metrics_listener_are_read_and_bad_values_name_the_setting() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |_| None).unwrap();
        assert_eq!((s.public_rate_per_second, s.max_keys_per_customer), (20, 25));
        assert_eq!(s.metrics_bind, None);
        assert_eq!(s.database_timeout, std::time::Duration::from_secs(2));
        assert_eq!(s.redis_timeout, std::time::Duration::from_millis(500));
        assert_eq!((s.rate_burst, s.trusted_proxies), (100, 1));
        assert_eq!((s.auth_failure_rate, s.auth_failure_burst), (20, 40));
        let s = Settings::from_sources(&none, |k| match k {
            "LINECAST_PUBLIC_RATE" => Some("5".to_owned()),
            "LINECAST_REDIS_TIMEOUT_MS" => Some("1500".to_owned()),
            "LINECAST_MAX_KEYS_PER_CUSTOMER" => Some("3".to_owned()),
            "LINECAST_METRICS_BIND" => Some("127.0.0.1:9100".to_owned()),
            "LINECAST_RATE_BURST" => Some("7".to_owned()),
            "LINECAST_TRUSTED_PROXIES" => Some("2".to_owned()),
            "LINECAST_AUTH_FAILURE_RATE" => Some("0".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!((s.rate_burst, s.trusted_proxies, s.auth_failure_rate), (7, 2, 0));
        for name in [
            "LINECAST_RATE_BURST",
            "LINECAST_TRUSTED_PROXIES",
            "LINECAST_AUTH_FAILURE_BURST",
        ] {
            let err = Settings::from_sources(&none, |k| (k == name).then(|| "0".to_owned())).unwrap_err();
            assert_eq!(err.name, name);
        }
        assert_eq!((s.public_rate_per_second, s.max_keys_per_customer), (5, 3));
        assert_eq!(s.metrics_bind.map(|a| a.port()), Some(9100));
        assert_eq!(s.redis_timeout, std::time::Duration::from_millis(1500));
        let err =
            Settings::from_sources(&none, |k| (k == "LINECAST_PUBLIC_RATE").then(|| "lots".to_owned())).unwrap_err();
        assert_eq!(err.name, "LINECAST_PUBLIC_RATE");
    }
}
