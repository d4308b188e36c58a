//! Typed settings from environment variables, with an optional
//! `linecast.toml` (path from `LINECAST_CONFIG`, default `./linecast.toml`).
//! Environment variables win over the file.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use linecast_core::services::access::DEFAULT_BURST;
use serde::Deserialize;

use crate::auth::client_address::{ProxyRange, parse_ranges};

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Human,
    Json,
}

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
    /// What one client may hold of the server: slow readers, large
    /// downloads, connections, and the threads that make large bodies.
    pub heavy: HeavyReads,
}

/// Limits on heavy reads and slow clients (docs/operations.md, "What one
/// customer can hold").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeavyReads {
    /// `LINECAST_MAX_DOWNLOADS_PER_CUSTOMER`: exports one customer may
    /// have in flight at once (default 2).
    pub max_downloads_per_customer: u32,
    /// `LINECAST_STALL_TIMEOUT_SECS`: a response whose bytes the client has
    /// not taken for this long is ended and logged (default 30; decimals
    /// allowed).
    pub stall_timeout: std::time::Duration,
    /// `LINECAST_BODY_TIMEOUT_SECS`: a request body not received whole
    /// this long after its head is answered 408 and its connection closed
    /// (default 10; decimals allowed).
    pub body_timeout: std::time::Duration,
    /// `LINECAST_HEAVY_THREADS`: threads that load, render and compress
    /// large bodies (exports, results pages), off the request threads
    /// (default: half the cores, at least 1).
    pub heavy_threads: usize,
    /// `LINECAST_MAX_CONNECTIONS`: open connections the server accepts at
    /// once, over all workers (default: the descriptor limit less 512 kept
    /// for the database, the store and logs, at least 64).
    pub max_connections: usize,
}

impl HeavyReads {
    /// Two downloads per customer, a 30 s stall bound, 10 s for a request
    /// body, half the cores, and connections from the descriptor limit.
    pub fn defaults() -> Self {
        Self {
            max_downloads_per_customer: 2,
            stall_timeout: std::time::Duration::from_secs(30),
            body_timeout: std::time::Duration::from_secs(10),
            heavy_threads: (std::thread::available_parallelism().map_or(2, std::num::NonZero::get) / 2).max(1),
            max_connections: connections_under_descriptor_limit(descriptor_limit()),
        }
    }
}

/// Seconds readiness fails after a stop signal before the server stops
/// accepting (`LINECAST_DRAIN_GRACE_SECS`): a few load-balancer health-check
/// rounds.
pub const DEFAULT_DRAIN_GRACE_SECS: f64 = 5.0;

/// The longest drain grace accepted.
const MAX_DRAIN_GRACE: std::time::Duration = std::time::Duration::from_hours(1);

/// After SIGTERM the process exits within the drain grace, the in-flight
/// allowance and this, whatever its dependencies do.
pub const STOP_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

/// The bound of one object-store call unless `LINECAST_STORE_TIMEOUT_SECS` says otherwise.
pub const DEFAULT_STORE_TIMEOUT: std::time::Duration = linecast_store::DEFAULT_TIMEOUT;
const MAX_STORE_TIMEOUT: std::time::Duration = std::time::Duration::from_mins(5);

/// How long a database outage is ridden out unless
/// `LINECAST_DB_OUTAGE_GRACE_SECS` says otherwise: a failover of a managed
/// PostgreSQL (Cloud SQL, RDS) usually completes within it.
pub const DEFAULT_DB_OUTAGE_GRACE: std::time::Duration = std::time::Duration::from_mins(1);
const MAX_DB_OUTAGE_GRACE: std::time::Duration = std::time::Duration::from_hours(1);

/// Descriptors kept for everything but client connections.
const RESERVED_DESCRIPTORS: u64 = 512;

/// The default connection cap under a descriptor limit of `limit`.
pub fn connections_under_descriptor_limit(limit: u64) -> usize {
    usize::try_from(limit.saturating_sub(RESERVED_DESCRIPTORS).clamp(64, 1_000_000)).unwrap_or(64)
}

/// This process's soft limit on open descriptors, from
/// `/proc/self/limits` (1024 where that cannot be read).
pub fn descriptor_limit() -> u64 {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| soft_descriptor_limit(&limits))
        .unwrap_or(1024)
}

/// The soft limit in the `Max open files` line of `/proc/self/limits`.
fn soft_descriptor_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.trim_start_matches("Max open files").split_whitespace().next()?;
    if soft == "unlimited" {
        return Some(u64::MAX);
    }
    soft.parse().ok()
}

/// Every `LINECAST_*` variable the server reads, each of which may also be
/// set in the config file under its name without `LINECAST_`, lower-cased
/// (`public_rate` is `LINECAST_PUBLIC_RATE`). `RUST_LOG` is `rust_log`
/// there; `PORT` and `LINECAST_CONFIG` are read from the environment only.
pub const FILE_SETTINGS: &[&str] = &[
    "LINECAST_BIND",
    "LINECAST_VAR_DIR",
    "LINECAST_DATABASE_URL",
    "LINECAST_MIGRATE",
    "LINECAST_STORE_URL",
    "LINECAST_REDIS_URL",
    "LINECAST_REDIS_CA_FILE",
    "LINECAST_REDIS_NAMESPACE",
    "LINECAST_SIGNING_KEY",
    "LINECAST_NOW",
    "LINECAST_LOG_FORMAT",
    "LINECAST_CACHE_BYTES",
    "LINECAST_DEMO",
    "LINECAST_PUBLIC_RATE",
    "LINECAST_CLIENT_IP_HEADER",
    "LINECAST_TRUSTED_PROXY_CIDRS",
    "LINECAST_TRUSTED_PROXIES",
    "LINECAST_RATE_BURST",
    "LINECAST_AUTH_FAILURE_RATE",
    "LINECAST_AUTH_FAILURE_BURST",
    "LINECAST_MAX_KEYS_PER_CUSTOMER",
    "LINECAST_WATCH_INTERVAL",
    "LINECAST_MAX_STREAMS_PER_CUSTOMER",
    "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER",
    "LINECAST_STALL_TIMEOUT_SECS",
    "LINECAST_BODY_TIMEOUT_SECS",
    "LINECAST_HEAVY_THREADS",
    "LINECAST_MAX_CONNECTIONS",
    "LINECAST_DATABASE_TIMEOUT_MS",
    "LINECAST_REDIS_LEASES",
    "LINECAST_REDIS_TIMEOUT_MS",
    "LINECAST_DB_OUTAGE_GRACE_SECS",
    "LINECAST_USAGE_STALE_AFTER_MS",
    "LINECAST_SHUTDOWN_TIMEOUT_SECS",
    "LINECAST_STORE_TIMEOUT_SECS",
    "LINECAST_RELEASE_RETENTION_DAYS",
    "LINECAST_REQUEST_LOG_DAYS",
    "LINECAST_DRAIN_GRACE_SECS",
    "LINECAST_METRICS_BIND",
    "LINECAST_PUBLIC_URL",
    "LINECAST_MARKETS",
    "LINECAST_KALSHI_BASE_URL",
    "LINECAST_STRIPE_WEBHOOK_SECRETS",
    "LINECAST_STRIPE_PLANS",
    "LINECAST_STRIPE_LIVEMODE",
    "LINECAST_STRIPE_API_KEY",
    "LINECAST_STRIPE_API_BASE",
    "LINECAST_AUTH_DISABLED",
    "RUST_LOG",
];

/// The key of `name` in the config file: the name without `LINECAST_`,
/// lower-cased.
pub fn file_key(name: &str) -> String {
    name.strip_prefix("LINECAST_").unwrap_or(name).to_ascii_lowercase()
}

/// The config file's settings by variable name, each value spelled as the
/// environment would spell it (a TOML number or boolean as its text, an
/// array of strings joined with commas), so both sources go through one
/// reading of every setting.
#[derive(Debug, Default)]
struct FileSettings {
    values: std::collections::HashMap<&'static str, String>,
    /// Where the values were read, for error messages.
    path: String,
}

impl FileSettings {
    /// `linecast.toml`, or the file `LINECAST_CONFIG` names; empty when
    /// there is none.
    fn load() -> Result<Self, SettingsError> {
        let path = std::env::var("LINECAST_CONFIG").unwrap_or_else(|_| "linecast.toml".to_owned());
        Self::read(Path::new(&path))
    }

    /// The settings of the file at `path`; empty when it does not exist.
    fn read(path: &Path) -> Result<Self, SettingsError> {
        if !path.exists() {
            return Ok(Self::default());
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| bad("LINECAST_CONFIG", format!("{}: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Reads the TOML text of the file at `path`. A key that names no
    /// setting, or a value that is a table (or an array holding one), is
    /// an error naming the key.
    fn parse(text: &str, path: &str) -> Result<Self, SettingsError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| bad("LINECAST_CONFIG", format!("{path}: {e}")))?;
        let mut values = std::collections::HashMap::new();
        for (key, value) in table {
            let Some(name) = FILE_SETTINGS.iter().copied().find(|name| file_key(name) == key) else {
                return Err(bad(
                    "LINECAST_CONFIG",
                    format!(
                        "{path}: unknown key '{key}'; a key is a setting's variable name without LINECAST_, in \
                         lower case (docs/configuration.md lists them)"
                    ),
                ));
            };
            let text = as_setting_text(&value).ok_or_else(|| {
                bad(
                    name,
                    format!(
                        "'{key}' in {path} is a {}; expected a string, number or boolean",
                        value.type_str()
                    ),
                )
            })?;
            values.insert(name, text);
        }
        Ok(Self {
            values,
            path: path.to_owned(),
        })
    }

    /// The file's value of the variable `name`.
    fn get(&self, name: &str) -> Option<String> {
        self.values.get(name).cloned()
    }
}

/// A TOML value as the environment would spell it: strings as they are,
/// numbers, booleans and date-times as their text, an array of those
/// joined with commas (`trusted_proxy_cidrs = ["10.0.0.0/8", "::1/128"]`).
fn as_setting_text(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Datetime(d) => Some(d.to_string()),
        toml::Value::Array(items) => items
            .iter()
            .map(|item| match item {
                toml::Value::Array(_) | toml::Value::Table(_) => None,
                other => as_setting_text(other),
            })
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.join(",")),
        toml::Value::Table(_) => None,
    }
}

/// The value of a setting: the environment's, else the file's. `PORT` is
/// the environment's only (a platform's, never the file's).
fn layered<'a>(
    file: &'a FileSettings,
    env: impl Fn(&str) -> Option<String> + 'a,
) -> impl Fn(&str) -> Option<String> + 'a {
    move |name: &str| {
        if name == "PORT" {
            env(name)
        } else {
            env(name).or_else(|| file.get(name))
        }
    }
}

/// How long the store trusts a seen object version and the pipeline a
/// request's resolution (see `responses::RESOLUTION_TTL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreshnessWindows {
    pub version_ttl: std::time::Duration,
    pub resolution_ttl: std::time::Duration,
    /// How long a prediction market's prices are reused (`CachedMarkets`).
    pub markets_ttl: std::time::Duration,
}

impl Default for FreshnessWindows {
    fn default() -> Self {
        Self {
            version_ttl: linecast_store::StoreOptions::default().version_ttl,
            resolution_ttl: crate::responses::RESOLUTION_TTL,
            markets_ttl: linecast_markets::CachedMarkets::DEFAULT_TTL,
        }
    }
}

/// A setting that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("invalid setting {name}: {reason}")]
pub struct SettingsError {
    pub name: &'static str,
    pub reason: String,
}

fn flag(name: &'static str, value: &str) -> Result<bool, SettingsError> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        other => Err(bad(name, format!("'{other}'; expected true or false"))),
    }
}

fn bad(name: &'static str, reason: impl std::fmt::Display) -> SettingsError {
    SettingsError {
        name,
        reason: reason.to_string(),
    }
}

/// The client IP header and the proxies it is read from. A header without
/// proxies is refused rather than read from every peer (any client reaching
/// the server directly would choose its own address).
fn client_ip_header(
    header: Option<String>,
    cidrs: Option<&str>,
) -> Result<(Option<String>, Vec<ProxyRange>), SettingsError> {
    let header = header.filter(|h| !h.trim().is_empty());
    let ranges = parse_ranges(cidrs.unwrap_or("")).map_err(|e| {
        bad(
            "LINECAST_TRUSTED_PROXY_CIDRS",
            format!("{e}; expected comma-separated CIDRs"),
        )
    })?;
    if header.is_some() && ranges.is_empty() {
        return Err(bad(
            "LINECAST_TRUSTED_PROXY_CIDRS",
            "required when LINECAST_CLIENT_IP_HEADER is set: the CIDRs of the proxies that set that header \
             (e.g. 10.0.0.0/8,::1/128); it is never read from other peers",
        ));
    }
    Ok((header, ranges))
}

/// The address the server listens on: `LINECAST_BIND` (environment, then
/// `bind` in the file); else `0.0.0.0:$PORT` when `PORT` is set (Cloud Run
/// and other platforms that name the port); else `127.0.0.1:8080`.
fn bind_address(env: impl Fn(&str) -> Option<String>) -> Result<SocketAddr, SettingsError> {
    if let Some(bind) = env("LINECAST_BIND") {
        return bind.parse().map_err(|e| bad("LINECAST_BIND", format!("'{bind}': {e}")));
    }
    match env("PORT").filter(|p| !p.is_empty()) {
        Some(port) => {
            let port: u16 = port
                .parse()
                .map_err(|e| bad("PORT", format!("'{port}': {e}; expected a TCP port")))?;
            Ok(SocketAddr::from(([0, 0, 0, 0], port)))
        }
        None => Ok(SocketAddr::from(([127, 0, 0, 1], 8080))),
    }
}

/// Demo mode when nobody asked either way (`LINECAST_DEMO` and `demo` in
/// the file unset): on while no storage is configured, but only on a
/// loopback address. Demo mode invents a customer and a key and serves
/// generated data; on any other address (the image's `0.0.0.0:8080`, or
/// `PORT`) that is refused unless asked for with `LINECAST_DEMO=true`, so an
/// instance deployed without its database and store URLs stops instead of
/// serving made-up data to the network.
fn demo_by_default(no_storage: bool, bind: SocketAddr) -> Result<bool, SettingsError> {
    if no_storage && !bind.ip().is_loopback() {
        return Err(bad(
            "LINECAST_DEMO",
            format!(
                "no LINECAST_DATABASE_URL or LINECAST_STORE_URL is configured, which means demo mode (generated \
                 data, a demo customer and key), and demo mode listens on {bind}, not a loopback address, only \
                 on request: set LINECAST_DEMO=true to serve the demo there, or configure the database and store \
                 URLs for production"
            ),
        ));
    }
    Ok(no_storage)
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
        bind_address(layered(&file, |k| std::env::var(k).ok()))
    }

    /// Every setting from the environment, then the file; an error about a
    /// value that came from the file says so.
    fn from_sources(file: &FileSettings, env: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        Self::read_settings(layered(file, &env)).map_err(|mut e| {
            if env(e.name).is_none() && file.values.contains_key(e.name) {
                e.reason = format!("{} (from '{}' in {})", e.reason, file_key(e.name), file.path);
            }
            e
        })
    }

    fn read_settings(env: impl Fn(&str) -> Option<String>) -> Result<Self, SettingsError> {
        let cwd = std::env::current_dir().map_err(|e| bad("LINECAST_VAR_DIR", e))?;
        let var_dir = env("LINECAST_VAR_DIR").map_or_else(|| cwd.join("var"), PathBuf::from);
        let var_dir = if var_dir.is_absolute() {
            var_dir
        } else {
            cwd.join(var_dir)
        };
        let bind = bind_address(&env)?;
        let configured_database = env("LINECAST_DATABASE_URL").filter(|s| !s.is_empty());
        let configured_store = env("LINECAST_STORE_URL").filter(|s| !s.is_empty());
        let demo = match env("LINECAST_DEMO") {
            Some(v) => flag("LINECAST_DEMO", &v)?,
            None => demo_by_default(configured_database.is_none() && configured_store.is_none(), bind)?,
        };
        let redis_url = env("LINECAST_REDIS_URL").filter(|s| !s.is_empty());
        let redis_ca_file = env("LINECAST_REDIS_CA_FILE")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        if redis_ca_file.is_some()
            && !redis_url
                .as_deref()
                .is_some_and(|url| url.get(..9).is_some_and(|s| s.eq_ignore_ascii_case("rediss://")))
        {
            return Err(bad(
                "LINECAST_REDIS_CA_FILE",
                "set, but LINECAST_REDIS_URL is not a rediss:// URL: the CA file is only used for TLS to Redis \
                 (rediss://host:port); a redis:// connection is not encrypted",
            ));
        }
        let migrate = match env("LINECAST_MIGRATE") {
            Some(v) => flag("LINECAST_MIGRATE", &v)?,
            None => false,
        };
        let database_url = configured_database
            .unwrap_or_else(|| format!("sqlite://{}?mode=rwc", var_dir.join("linecast.db").display()));
        let store_url = configured_store.unwrap_or_else(|| format!("file://{}", var_dir.join("store").display()));
        let number = |name: &'static str, default: u64| -> Result<u64, SettingsError> {
            match env(name) {
                Some(v) => v.parse().map_err(|e| bad(name, format!("'{v}': {e}"))),
                None => Ok(default),
            }
        };
        let small = |name: &'static str, default: u32| -> Result<u32, SettingsError> {
            u32::try_from(number(name, u64::from(default))?).map_err(|e| bad(name, e))
        };
        let public_rate_per_second = small("LINECAST_PUBLIC_RATE", 20)?;
        let at_least_one = |name: &'static str, value: u32| -> Result<u32, SettingsError> {
            if value == 0 {
                Err(bad(name, "must be at least 1"))
            } else {
                Ok(value)
            }
        };
        let trusted_proxies = at_least_one("LINECAST_TRUSTED_PROXIES", small("LINECAST_TRUSTED_PROXIES", 1)?)?;
        let (client_ip_header, trusted_proxy_cidrs) = client_ip_header(
            env("LINECAST_CLIENT_IP_HEADER"),
            env("LINECAST_TRUSTED_PROXY_CIDRS").as_deref(),
        )?;
        let rate_burst = at_least_one("LINECAST_RATE_BURST", small("LINECAST_RATE_BURST", DEFAULT_BURST)?)?;
        let auth_failure_rate = small("LINECAST_AUTH_FAILURE_RATE", 20)?;
        let auth_failure_burst =
            at_least_one("LINECAST_AUTH_FAILURE_BURST", small("LINECAST_AUTH_FAILURE_BURST", 40)?)?;
        let max_keys_per_customer = usize::try_from(number("LINECAST_MAX_KEYS_PER_CUSTOMER", 25)?)
            .map_err(|e| bad("LINECAST_MAX_KEYS_PER_CUSTOMER", e))?;
        let watch_interval = match env("LINECAST_WATCH_INTERVAL") {
            Some(v) => v
                .parse::<f64>()
                .map_err(|e| bad("LINECAST_WATCH_INTERVAL", format!("'{v}': {e}")))?,
            None => 5.0,
        };
        let watch_interval = std::time::Duration::try_from_secs_f64(watch_interval)
            .ok()
            .filter(|d| *d >= std::time::Duration::from_millis(10))
            .ok_or_else(|| bad("LINECAST_WATCH_INTERVAL", "seconds, at least 0.01"))?;
        let max_streams_per_customer = at_least_one(
            "LINECAST_MAX_STREAMS_PER_CUSTOMER",
            small("LINECAST_MAX_STREAMS_PER_CUSTOMER", 5)?,
        )?;
        let database_timeout = std::time::Duration::from_millis(number("LINECAST_DATABASE_TIMEOUT_MS", 2000)?);
        let redis_timeout = std::time::Duration::from_millis(number("LINECAST_REDIS_TIMEOUT_MS", 500)?);
        let db_outage_grace = match (
            env("LINECAST_DB_OUTAGE_GRACE_SECS"),
            env("LINECAST_USAGE_STALE_AFTER_MS"),
        ) {
            (Some(v), _) => std::time::Duration::try_from_secs_f64(
                v.parse::<f64>()
                    .map_err(|e| bad("LINECAST_DB_OUTAGE_GRACE_SECS", format!("'{v}': {e}")))?,
            )
            .ok()
            .filter(|d| !d.is_zero() && *d <= MAX_DB_OUTAGE_GRACE)
            .ok_or_else(|| bad("LINECAST_DB_OUTAGE_GRACE_SECS", "seconds, more than 0 and at most 3600"))?,
            (None, Some(_)) => std::time::Duration::from_millis(number("LINECAST_USAGE_STALE_AFTER_MS", 0)?)
                .max(std::time::Duration::from_millis(1))
                .min(MAX_DB_OUTAGE_GRACE),
            (None, None) => DEFAULT_DB_OUTAGE_GRACE,
        };
        let drain_grace = match env("LINECAST_DRAIN_GRACE_SECS") {
            Some(v) => v
                .parse::<f64>()
                .map_err(|e| bad("LINECAST_DRAIN_GRACE_SECS", format!("'{v}': {e}")))?,
            None => DEFAULT_DRAIN_GRACE_SECS,
        };
        let drain_grace = std::time::Duration::try_from_secs_f64(drain_grace)
            .ok()
            .filter(|d| *d <= MAX_DRAIN_GRACE)
            .ok_or_else(|| bad("LINECAST_DRAIN_GRACE_SECS", "seconds, from 0 to 3600"))?;
        let store_timeout = match env("LINECAST_STORE_TIMEOUT_SECS") {
            Some(v) => v
                .parse::<f64>()
                .map_err(|e| bad("LINECAST_STORE_TIMEOUT_SECS", format!("'{v}': {e}")))?,
            None => DEFAULT_STORE_TIMEOUT.as_secs_f64(),
        };
        let store_timeout = std::time::Duration::try_from_secs_f64(store_timeout)
            .ok()
            .filter(|d| !d.is_zero() && *d <= MAX_STORE_TIMEOUT)
            .ok_or_else(|| bad("LINECAST_STORE_TIMEOUT_SECS", "seconds, more than 0 and at most 300"))?;
        let shutdown_timeout = number("LINECAST_SHUTDOWN_TIMEOUT_SECS", crate::startup::SHUTDOWN_TIMEOUT_SECS)?;
        if shutdown_timeout > 3600 {
            return Err(bad("LINECAST_SHUTDOWN_TIMEOUT_SECS", "whole seconds, from 0 to 3600"));
        }
        let release_retention_days = number("LINECAST_RELEASE_RETENTION_DAYS", 0)?;
        if release_retention_days > 36_500 {
            return Err(bad(
                "LINECAST_RELEASE_RETENTION_DAYS",
                "whole days, from 0 (keep all) to 36500",
            ));
        }
        let release_retention_days = u32::try_from(release_retention_days).ok().filter(|d| *d > 0);
        let request_log_days = number(
            "LINECAST_REQUEST_LOG_DAYS",
            u64::from(linecast_core::services::request_log::DEFAULT_RETENTION_DAYS),
        )?;
        let request_log_days = u32::try_from(request_log_days)
            .ok()
            .filter(|d| (1..=90).contains(d))
            .ok_or_else(|| bad("LINECAST_REQUEST_LOG_DAYS", "whole days, from 1 to 90"))?;
        let metrics_bind = env("LINECAST_METRICS_BIND")
            .filter(|s| !s.is_empty())
            .map(|v| v.parse().map_err(|e| bad("LINECAST_METRICS_BIND", e)))
            .transpose()?;
        let now = env("LINECAST_NOW")
            .map(|v| DateTime::parse_from_rfc3339(&v).map(|t| t.with_timezone(&Utc)))
            .transpose()
            .map_err(|e| bad("LINECAST_NOW", format!("{e}; expected an RFC 3339 instant")))?;
        let log_format = match env("LINECAST_LOG_FORMAT").as_deref() {
            None | Some("human") => LogFormat::Human,
            Some("json") => LogFormat::Json,
            Some(other) => return Err(bad("LINECAST_LOG_FORMAT", format!("'{other}'; expected human or json"))),
        };
        let cache_bytes = match env("LINECAST_CACHE_BYTES") {
            Some(v) => v.parse().map_err(|e| bad("LINECAST_CACHE_BYTES", e))?,
            None => linecast_core::memory::Budget::DEFAULT_BYTES,
        };
        let auth_enabled = match env("LINECAST_AUTH_DISABLED") {
            Some(v) => !flag("LINECAST_AUTH_DISABLED", &v)?,
            None => true,
        };
        if !auth_enabled && !demo {
            return Err(bad(
                "LINECAST_AUTH_DISABLED",
                "honoured only in demo mode; unset it (production mode: a database or store URL is configured)",
            ));
        }
        let redis_leases = match env("LINECAST_REDIS_LEASES") {
            Some(v) => flag("LINECAST_REDIS_LEASES", &v)?,
            None => true,
        };
        let markets_source = env("LINECAST_MARKETS").unwrap_or_else(|| "file".to_owned());
        if !matches!(markets_source.as_str(), "file" | "kalshi") {
            return Err(bad(
                "LINECAST_MARKETS",
                format!("'{markets_source}'; expected file or kalshi"),
            ));
        }
        let defaults = HeavyReads::defaults();
        let timeout = |name: &'static str, default: std::time::Duration| match env(name) {
            Some(v) => {
                std::time::Duration::try_from_secs_f64(v.parse::<f64>().map_err(|e| bad(name, format!("'{v}': {e}")))?)
                    .ok()
                    .filter(|d| *d >= std::time::Duration::from_millis(100))
                    .ok_or_else(|| bad(name, "seconds, at least 0.1"))
            }
            None => Ok(default),
        };
        let stall_timeout = timeout("LINECAST_STALL_TIMEOUT_SECS", defaults.stall_timeout)?;
        let body_timeout = timeout("LINECAST_BODY_TIMEOUT_SECS", defaults.body_timeout)?;
        let heavy = HeavyReads {
            max_downloads_per_customer: at_least_one(
                "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER",
                small(
                    "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER",
                    defaults.max_downloads_per_customer,
                )?,
            )?,
            stall_timeout,
            body_timeout,
            heavy_threads: at_least_one(
                "LINECAST_HEAVY_THREADS",
                small(
                    "LINECAST_HEAVY_THREADS",
                    u32::try_from(defaults.heavy_threads).unwrap_or(1),
                )?,
            )? as usize,
            max_connections: at_least_one(
                "LINECAST_MAX_CONNECTIONS",
                small(
                    "LINECAST_MAX_CONNECTIONS",
                    u32::try_from(defaults.max_connections).unwrap_or(u32::MAX),
                )?,
            )? as usize,
        };
        let stripe_webhook_secrets = linecast_stripe::signature::WebhookSecrets::parse(
            &env("LINECAST_STRIPE_WEBHOOK_SECRETS").unwrap_or_default(),
        )
        .map_err(|e| bad("LINECAST_STRIPE_WEBHOOK_SECRETS", e))?;
        let stripe_plans =
            linecast_core::services::billing::PlanTable::parse(&env("LINECAST_STRIPE_PLANS").unwrap_or_default())
                .map_err(|e| bad("LINECAST_STRIPE_PLANS", e))?;
        let stripe_livemode = match env("LINECAST_STRIPE_LIVEMODE") {
            Some(v) => flag("LINECAST_STRIPE_LIVEMODE", &v)?,
            None => false,
        };
        let stripe_api_key = env("LINECAST_STRIPE_API_KEY")
            .filter(|k| !k.trim().is_empty())
            .map(|k| linecast_stripe::ApiKey::parse(&k))
            .transpose()
            .map_err(|e| bad("LINECAST_STRIPE_API_KEY", e))?;
        let public_url = env("LINECAST_PUBLIC_URL");
        let portal_origin = public_url
            .as_deref()
            .map(crate::auth::sign_in_origin::origin_of)
            .transpose()
            .map_err(|e| bad("LINECAST_PUBLIC_URL", e))?;
        Ok(Self {
            stripe_webhook_secrets,
            stripe_plans,
            stripe_livemode,
            stripe_api_key,
            stripe_api_base: env("LINECAST_STRIPE_API_BASE").filter(|b| !b.trim().is_empty()),
            heavy,
            freeze_rate_clock: false,
            redis_namespace: env("LINECAST_REDIS_NAMESPACE").unwrap_or_else(|| "linecast".to_owned()),
            public_url: public_url.unwrap_or_else(|| format!("http://{bind}")),
            portal_origin,
            markets_source,
            kalshi_base_url: env("LINECAST_KALSHI_BASE_URL"),
            auth_enabled,
            bind,
            database_url,
            migrate,
            store_url,
            redis_url,
            redis_ca_file,
            signing_key: env("LINECAST_SIGNING_KEY").filter(|s| !s.is_empty()),
            now,
            manual_clock: None,
            freshness_windows: FreshnessWindows::default(),
            log_format,
            log_filter: env("RUST_LOG").filter(|f| !f.trim().is_empty()),
            cache_bytes,
            demo,
            var_dir,
            public_rate_per_second,
            client_ip_header,
            trusted_proxy_cidrs,
            trusted_proxies,
            rate_burst,
            auth_failure_rate,
            auth_failure_burst,
            metrics_bind,
            max_keys_per_customer,
            watch_interval,
            max_streams_per_customer,
            database_timeout,
            redis_timeout,
            redis_leases,
            db_outage_grace,
            drain_grace,
            store_timeout,
            shutdown_timeout,
            release_retention_days,
            request_log_days,
            stop_bound: STOP_BOUND,
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
            now: Some(now),
            manual_clock: None,
            freshness_windows: FreshnessWindows::default(),
            log_format: LogFormat::Human,
            log_filter: None,
            cache_bytes: 64 * 1024 * 1024,
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
            shutdown_timeout: crate::startup::SHUTDOWN_TIMEOUT_SECS,
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
            heavy: HeavyReads {
                heavy_threads: 1,
                ..HeavyReads::defaults()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The settings of a config file holding `text`.
    fn file(text: &str) -> FileSettings {
        FileSettings::parse(text, "linecast.toml").unwrap()
    }

    /// The portal's sign-in origin is `LINECAST_PUBLIC_URL`'s when it is
    /// set (none when unset: the request's own host); a value that is not
    /// an http(s) URL stops the start, naming the setting.
    #[test]
    fn the_public_url_gives_the_portals_sign_in_origin() {
        let file = FileSettings::default();
        let with = |url: &'static str| {
            Settings::from_sources(&file, move |k| (k == "LINECAST_PUBLIC_URL").then(|| url.to_owned()))
        };
        let s = with("https://API.example.com/base/").unwrap();
        assert_eq!(s.portal_origin.as_deref(), Some("https://api.example.com"));
        assert_eq!(s.public_url, "https://API.example.com/base/");
        let unset = Settings::from_sources(&file, |_| None).unwrap();
        assert_eq!(unset.portal_origin, None);
        assert!(unset.public_url.starts_with("http://"));
        for bad in ["api.example.com", "ftp://example.com/"] {
            assert_eq!(with(bad).unwrap_err().name, "LINECAST_PUBLIC_URL", "{bad}");
        }
    }

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
    fn heavy_read_limits_are_read_from_the_environment_and_bad_values_name_the_setting() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |k| match k {
            "LINECAST_STALL_TIMEOUT_SECS" => Some("2.5".to_owned()),
            "LINECAST_BODY_TIMEOUT_SECS" => Some("1.5".to_owned()),
            "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER" => Some("3".to_owned()),
            "LINECAST_HEAVY_THREADS" => Some("4".to_owned()),
            "LINECAST_MAX_CONNECTIONS" => Some("900".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            s.heavy,
            HeavyReads {
                max_downloads_per_customer: 3,
                stall_timeout: std::time::Duration::from_millis(2500),
                body_timeout: std::time::Duration::from_millis(1500),
                heavy_threads: 4,
                max_connections: 900,
            }
        );
        let defaults = Settings::from_sources(&none, |_| None).unwrap().heavy;
        assert_eq!(defaults.stall_timeout, std::time::Duration::from_secs(30));
        assert_eq!(defaults.body_timeout, std::time::Duration::from_secs(10));
        assert_eq!(defaults.max_downloads_per_customer, 2);
        for (name, value) in [
            ("LINECAST_STALL_TIMEOUT_SECS", "0.01"),
            ("LINECAST_STALL_TIMEOUT_SECS", "soon"),
            ("LINECAST_BODY_TIMEOUT_SECS", "0"),
            ("LINECAST_BODY_TIMEOUT_SECS", "ten"),
            ("LINECAST_MAX_DOWNLOADS_PER_CUSTOMER", "0"),
            ("LINECAST_HEAVY_THREADS", "0"),
            ("LINECAST_MAX_CONNECTIONS", "-1"),
        ] {
            let err = Settings::from_sources(&none, |k| (k == name).then(|| value.to_owned())).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
    }

    #[test]
    fn the_database_outage_grace_is_sixty_seconds_by_default_bounded_and_read_from_its_older_name_too() {
        let none = FileSettings::default();
        let with = |pairs: &'static [(&'static str, &'static str)]| {
            Settings::from_sources(&none, move |k| {
                pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
            })
        };
        let secs = std::time::Duration::from_secs;
        assert_eq!(with(&[]).unwrap().db_outage_grace, secs(60));
        assert_eq!(
            with(&[("LINECAST_DB_OUTAGE_GRACE_SECS", "2.5")])
                .unwrap()
                .db_outage_grace,
            std::time::Duration::from_millis(2500)
        );
        // The older name, in milliseconds, when the new one is unset; the
        // new one wins when both are.
        assert_eq!(
            with(&[("LINECAST_USAGE_STALE_AFTER_MS", "20000")])
                .unwrap()
                .db_outage_grace,
            secs(20)
        );
        assert_eq!(
            with(&[
                ("LINECAST_USAGE_STALE_AFTER_MS", "20000"),
                ("LINECAST_DB_OUTAGE_GRACE_SECS", "90")
            ])
            .unwrap()
            .db_outage_grace,
            secs(90)
        );
        for bad in ["0", "-1", "3601", "a minute"] {
            let err = Settings::from_sources(&none, |k| {
                (k == "LINECAST_DB_OUTAGE_GRACE_SECS").then(|| bad.to_owned())
            })
            .unwrap_err();
            assert_eq!(err.name, "LINECAST_DB_OUTAGE_GRACE_SECS", "{bad}");
        }
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
    fn the_drain_grace_defaults_to_five_seconds_and_takes_decimals_and_zero() {
        let none = FileSettings::default();
        let grace = |value: &'static str| {
            Settings::from_sources(&none, move |k| {
                (k == "LINECAST_DRAIN_GRACE_SECS").then(|| value.to_owned())
            })
        };
        assert_eq!(
            Settings::from_sources(&none, |_| None).unwrap().drain_grace,
            std::time::Duration::from_secs(5)
        );
        assert_eq!(grace("0.5").unwrap().drain_grace, std::time::Duration::from_millis(500));
        assert_eq!(grace("0").unwrap().drain_grace, std::time::Duration::ZERO);
        let in_file = file("drain_grace_secs = 2.0");
        assert_eq!(
            Settings::from_sources(&in_file, |_| None).unwrap().drain_grace,
            std::time::Duration::from_secs(2)
        );
        for bad in ["-1", "soon", "86400"] {
            assert_eq!(grace(bad).unwrap_err().name, "LINECAST_DRAIN_GRACE_SECS", "{bad}");
        }
    }

    #[test]
    fn the_connection_cap_keeps_512_descriptors_and_reads_the_soft_limit() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max processes             95324                95324                processes\n\
                      Max open files            20000                524288               files\n";
        assert_eq!(soft_descriptor_limit(limits), Some(20_000));
        assert_eq!(
            soft_descriptor_limit("Max open files            unlimited            unlimited            files"),
            Some(u64::MAX)
        );
        assert_eq!(soft_descriptor_limit("Max processes 1 1 processes"), None);
        assert_eq!(connections_under_descriptor_limit(20_000), 19_488);
        assert_eq!(connections_under_descriptor_limit(1024), 512);
        assert_eq!(connections_under_descriptor_limit(256), 64);
        assert_eq!(connections_under_descriptor_limit(u64::MAX), 1_000_000);
    }

    #[test]
    fn demo_mode_is_the_default_only_while_no_storage_is_configured() {
        let none = FileSettings::default();
        assert!(Settings::from_sources(&none, |_| None).unwrap().demo);
        let db = |k: &str| (k == "LINECAST_DATABASE_URL").then(|| "postgres://db/x".to_owned());
        assert!(!Settings::from_sources(&none, db).unwrap().demo);
        let store = |k: &str| (k == "LINECAST_STORE_URL").then(|| "s3://bucket/p".to_owned());
        assert!(!Settings::from_sources(&none, store).unwrap().demo);
        let in_file = file("store_url = \"file:///srv/store\"");
        assert!(!Settings::from_sources(&in_file, |_| None).unwrap().demo);
        // Asked for explicitly, either way.
        let forced = |k: &str| match k {
            "LINECAST_DEMO" => Some("true".to_owned()),
            "LINECAST_STORE_URL" => Some("file:///srv/store".to_owned()),
            _ => None,
        };
        assert!(Settings::from_sources(&none, forced).unwrap().demo);
        let off = |k: &str| (k == "LINECAST_DEMO").then(|| "false".to_owned());
        assert!(!Settings::from_sources(&none, off).unwrap().demo);
        let err = Settings::from_sources(&none, |k| (k == "LINECAST_DEMO").then(|| "maybe".to_owned())).unwrap_err();
        assert_eq!(err.name, "LINECAST_DEMO");
    }

    /// An environment of the given variables only.
    fn env_of<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        |k| vars.iter().find(|(name, _)| *name == k).map(|(_, v)| (*v).to_owned())
    }

    /// `PORT` (Cloud Run's) is the port on every interface while
    /// `LINECAST_BIND` is set neither in the environment nor in the file.
    #[test]
    fn port_is_listened_on_every_interface_when_linecast_bind_is_not_set() {
        let none = FileSettings::default();
        let with = |vars: &[(&str, &str)]| Settings::from_sources(&none, env_of(vars));
        let db = ("LINECAST_DATABASE_URL", "postgres://db/x");
        assert_eq!(
            with(&[db, ("PORT", "9090")]).unwrap().bind,
            "0.0.0.0:9090".parse().unwrap()
        );
        assert_eq!(
            with(&[db, ("PORT", "9090"), ("LINECAST_BIND", "127.0.0.1:7000")])
                .unwrap()
                .bind,
            "127.0.0.1:7000".parse().unwrap()
        );
        // An empty PORT is unset; neither set: loopback, 8080.
        assert_eq!(
            with(&[db, ("PORT", "")]).unwrap().bind,
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            Settings::from_sources(&none, |_| None).unwrap().bind,
            "127.0.0.1:8080".parse().unwrap()
        );
        // `bind` in the file is LINECAST_BIND too.
        let in_file = file("bind = \"127.0.0.1:7001\"");
        let port = |k: &str| (k == "PORT").then(|| "9090".to_owned());
        assert_eq!(Settings::from_sources(&in_file, port).unwrap().bind.port(), 7001);
        assert_eq!(bind_address(port).unwrap(), "0.0.0.0:9090".parse().unwrap());
        for bad_port in ["http", "70000", "-1"] {
            let err = bind_address(|k| (k == "PORT").then(|| bad_port.to_owned())).unwrap_err();
            assert_eq!(err.name, "PORT", "{bad_port}");
            assert!(err.reason.contains(bad_port), "{err}");
        }
        let err = bind_address(|k| (k == "LINECAST_BIND").then(|| "localhost".to_owned())).unwrap_err();
        assert_eq!(err.name, "LINECAST_BIND");
    }

    /// Without storage and without `LINECAST_DEMO`, demo mode starts only on
    /// a loopback address; any other bind (the image's `0.0.0.0:8080`,
    /// `PORT`) stops the start naming `LINECAST_DEMO`, unless the demo is
    /// asked for or storage is configured.
    #[test]
    fn demo_mode_on_a_non_loopback_address_only_on_request() {
        let none = FileSettings::default();
        let env = |vars: Vec<(&'static str, &'static str)>| {
            move |k: &str| vars.iter().find(|(name, _)| *name == k).map(|(_, v)| (*v).to_owned())
        };
        for bind in ["0.0.0.0:8080", "[::]:8080", "10.1.2.3:8080"] {
            let err = Settings::from_sources(&none, env(vec![("LINECAST_BIND", bind)])).unwrap_err();
            assert_eq!(err.name, "LINECAST_DEMO", "{bind}");
            assert!(err.reason.contains("LINECAST_DEMO=true"), "{err}");
            let asked = Settings::from_sources(&none, env(vec![("LINECAST_BIND", bind), ("LINECAST_DEMO", "true")]));
            assert!(asked.unwrap().demo, "{bind}");
            let production = env(vec![("LINECAST_BIND", bind), ("LINECAST_STORE_URL", "s3://bucket/p")]);
            assert!(!Settings::from_sources(&none, production).unwrap().demo, "{bind}");
            let off = env(vec![("LINECAST_BIND", bind), ("LINECAST_DEMO", "false")]);
            assert!(!Settings::from_sources(&none, off).unwrap().demo, "{bind}");
        }
        let err = Settings::from_sources(&none, env(vec![("PORT", "8080")])).unwrap_err();
        assert_eq!(err.name, "LINECAST_DEMO");
        for bind in ["127.0.0.1:8080", "[::1]:8080", "127.0.0.2:0"] {
            assert!(
                Settings::from_sources(&none, env(vec![("LINECAST_BIND", bind)]))
                    .unwrap()
                    .demo,
                "{bind}"
            );
        }
        // `demo = true` in the file is a request too.
        let in_file = file("bind = \"0.0.0.0:8080\"\ndemo = true");
        assert!(Settings::from_sources(&in_file, |_| None).unwrap().demo);
    }

    /// A CA file is taken only for a `rediss://` URL, from the environment
    /// or the file.
    #[test]
    fn the_redis_ca_file_goes_with_a_rediss_url_only() {
        let none = FileSettings::default();
        let with = |vars: &'static [(&'static str, &'static str)]| Settings::from_sources(&none, env_of(vars));
        let s = with(&[
            ("LINECAST_REDIS_URL", "rediss://:pw@10.0.0.3:6378"),
            ("LINECAST_REDIS_CA_FILE", "/etc/linecast/redis-ca.pem"),
        ])
        .unwrap();
        assert_eq!(s.redis_ca_file, Some(PathBuf::from("/etc/linecast/redis-ca.pem")));
        assert_eq!(
            with(&[("LINECAST_REDIS_URL", "rediss://h:6378")])
                .unwrap()
                .redis_ca_file,
            None
        );
        for refused in [
            &[("LINECAST_REDIS_CA_FILE", "/ca.pem")][..],
            &[
                ("LINECAST_REDIS_URL", "redis://h:6379"),
                ("LINECAST_REDIS_CA_FILE", "/ca.pem"),
            ],
        ] {
            let err = Settings::from_sources(&none, env_of(refused)).unwrap_err();
            assert_eq!(err.name, "LINECAST_REDIS_CA_FILE");
            assert!(err.reason.contains("rediss://"), "{err}");
        }
        let in_file = file("redis_url = \"rediss://h:6378\"\nredis_ca_file = \"ca.pem\"");
        assert_eq!(
            Settings::from_sources(&in_file, |_| None).unwrap().redis_ca_file,
            Some(PathBuf::from("ca.pem"))
        );
    }

    /// A key is the variable's name without `LINECAST_`, lower-cased
    /// (`public_rate = 10`, which once stopped the server); the environment
    /// wins; a key naming no setting, or a table, stops the start naming it;
    /// a bad value from the file says where it came from.
    #[test]
    fn the_config_file_takes_every_setting_under_its_variable_name() {
        let s = Settings::from_sources(&file("public_rate = 10\nredis_leases = false"), |_| None).unwrap();
        assert_eq!((s.public_rate_per_second, s.redis_leases), (10, false));
        let env_wins = Settings::from_sources(&file("public_rate = 10"), |k| {
            (k == "LINECAST_PUBLIC_RATE").then(|| "3".to_owned())
        });
        assert_eq!(env_wins.unwrap().public_rate_per_second, 3);
        let listed = Settings::from_sources(
            &file("client_ip_header = \"X-Forwarded-For\"\ntrusted_proxy_cidrs = [\"10.0.0.0/8\", \"::1/128\"]"),
            |_| None,
        )
        .unwrap();
        assert_eq!(listed.trusted_proxy_cidrs, parse_ranges("10.0.0.0/8,::1/128").unwrap());
        for (text, named) in [
            ("public_rate_per_second = 10", "public_rate_per_second"),
            ("LINECAST_BIND = \"127.0.0.1:1\"", "LINECAST_BIND"),
            ("port = 8080", "port"),
            ("config = \"x.toml\"", "config"),
        ] {
            let err = FileSettings::parse(text, "linecast.toml").unwrap_err();
            assert_eq!(err.name, "LINECAST_CONFIG", "{text}");
            assert!(err.reason.contains(&format!("unknown key '{named}'")), "{err}");
        }
        let err = FileSettings::parse("[public_rate]\nx = 1", "linecast.toml").unwrap_err();
        assert_eq!(err.name, "LINECAST_PUBLIC_RATE");
        let err = Settings::from_sources(&file("public_rate = \"lots\""), |_| None).unwrap_err();
        assert_eq!(err.name, "LINECAST_PUBLIC_RATE");
        assert!(err.reason.contains("(from 'public_rate' in linecast.toml)"), "{err}");
        // PORT is never the file's, whatever it says.
        assert_eq!(file_key("LINECAST_PUBLIC_RATE"), "public_rate");
        assert_eq!(file_key("RUST_LOG"), "rust_log");
    }

    /// Production mode only checks the schema unless `LINECAST_MIGRATE`
    /// (or `migrate` in the file) asks for migrations at start.
    #[test]
    fn migrations_at_start_only_when_asked() {
        let none = FileSettings::default();
        assert!(!Settings::from_sources(&none, |_| None).unwrap().migrate);
        let asked =
            |v: &'static str| Settings::from_sources(&none, move |k| (k == "LINECAST_MIGRATE").then(|| v.to_owned()));
        assert!(asked("true").unwrap().migrate);
        assert!(!asked("false").unwrap().migrate);
        assert_eq!(asked("soon").unwrap_err().name, "LINECAST_MIGRATE");
        let in_file = file("migrate = true");
        assert!(Settings::from_sources(&in_file, |_| None).unwrap().migrate);
        let overridden = Settings::from_sources(&in_file, |k| (k == "LINECAST_MIGRATE").then(|| "false".to_owned()));
        assert!(!overridden.unwrap().migrate);
    }

    #[test]
    fn redis_limits_are_leased_unless_turned_off_and_the_budget_defaults_to_160_mib() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |_| None).unwrap();
        assert!(s.redis_leases);
        assert_eq!(s.cache_bytes, 160 * 1024 * 1024);
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

    #[test]
    fn the_client_ip_header_needs_trusted_proxy_cidrs_and_a_malformed_one_is_named() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |_| None).unwrap();
        assert_eq!((s.client_ip_header, s.trusted_proxy_cidrs), (None, Vec::new()));
        let s = Settings::from_sources(&none, |k| match k {
            "LINECAST_CLIENT_IP_HEADER" => Some("X-Forwarded-For".to_owned()),
            "LINECAST_TRUSTED_PROXY_CIDRS" => Some("10.0.0.0/8, 127.0.0.1,::1/128".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s.client_ip_header.as_deref(), Some("X-Forwarded-For"));
        assert_eq!(
            s.trusted_proxy_cidrs,
            parse_ranges("10.0.0.0/8,127.0.0.1/32,::1/128").unwrap()
        );
        // The header alone would be read from any peer: refused, naming both.
        let err = Settings::from_sources(&none, |k| {
            (k == "LINECAST_CLIENT_IP_HEADER").then(|| "X-Forwarded-For".to_owned())
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_TRUSTED_PROXY_CIDRS");
        assert!(err.to_string().contains("LINECAST_CLIENT_IP_HEADER"), "{err}");
        let err = Settings::from_sources(&none, |k| match k {
            "LINECAST_CLIENT_IP_HEADER" => Some("X-Forwarded-For".to_owned()),
            "LINECAST_TRUSTED_PROXY_CIDRS" => Some(" , ".to_owned()),
            _ => None,
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_TRUSTED_PROXY_CIDRS");
        let err = Settings::from_sources(&none, |k| match k {
            "LINECAST_CLIENT_IP_HEADER" => Some("X-Forwarded-For".to_owned()),
            "LINECAST_TRUSTED_PROXY_CIDRS" => Some("10.0.0.0/8,10.0.0.0/33".to_owned()),
            _ => None,
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_TRUSTED_PROXY_CIDRS");
        assert!(err.to_string().contains("'10.0.0.0/33'"), "{err}");
        // From the file too.
        let in_file = file("client_ip_header = \"X-Real-IP\"\ntrusted_proxy_cidrs = \"fd00::/8\"");
        let s = Settings::from_sources(&in_file, |_| None).unwrap();
        assert_eq!(s.trusted_proxy_cidrs, parse_ranges("fd00::/8").unwrap());
    }

    #[test]
    fn auth_disabled_is_refused_in_production_mode_and_honoured_only_in_demo_mode() {
        let none = FileSettings::default();
        let disabled_in_production = |k: &str| match k {
            "LINECAST_AUTH_DISABLED" => Some("true".to_owned()),
            "LINECAST_DATABASE_URL" => Some("postgres://db/x".to_owned()),
            _ => None,
        };
        let err = Settings::from_sources(&none, disabled_in_production).unwrap_err();
        assert_eq!(err.name, "LINECAST_AUTH_DISABLED");
        let demo = Settings::from_sources(&none, |k| (k == "LINECAST_AUTH_DISABLED").then(|| "1".to_owned())).unwrap();
        assert!(demo.demo && !demo.auth_enabled);
        let err = Settings::from_sources(&none, |k| (k == "LINECAST_AUTH_DISABLED").then(|| "perhaps".to_owned()))
            .unwrap_err();
        assert_eq!(err.name, "LINECAST_AUTH_DISABLED");
    }
}
