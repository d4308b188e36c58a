//! Prometheus metrics through the `metrics` facade, exposed on a separate
//! listener (`LINECAST_METRICS_BIND`) at `/metrics`, never on the public port.
//!
//! Requests are labelled by route template (`/api/v1/predictions/{sport}/
//! {model_type}`), never by raw path, and by a standard method or `OTHER`,
//! never the method as sent: no client input becomes a label, so a scan of
//! random paths or made-up methods cannot grow the series without bound.

pub mod process;

use std::collections::HashMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{App, HttpResponse, HttpServer, web};
use anyhow::Context;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

/// Latency buckets in seconds: sub-millisecond cache hits up to slow pages.
const LATENCY_BUCKETS: [f64; 14] = [
    0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process-wide recorder (installed on first use; one per process, so
/// several in-process apps in a test binary share it).
pub fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            PrometheusBuilder::new()
                .set_buckets(&LATENCY_BUCKETS)
                .ok()?
                .install_recorder()
                .map_err(|e| tracing::warn!(error = %e, "metrics recorder not installed"))
                .ok()
        })
        .as_ref()
}

/// Whether a recorder is installed (metrics are on).
pub fn installed() -> bool {
    HANDLE.get().is_some_and(Option::is_some)
}

/// The `method` label: one of HTTP's standard methods, else `OTHER` (the
/// request log's own naming, so a metric and a logged request agree).
pub fn method_label(method: &str) -> &'static str {
    linecast_core::ports::request_log::Method::of(method).as_str()
}

/// One served request.
pub fn request(route: &str, method: &str, status: u16, elapsed: Duration) {
    let series = route_series(route);
    series.duration.record(elapsed.as_secs_f64());
    series.count(route, method_label(method), status).increment(1);
}

/// One route template's series, registered at its first request: the
/// macros built the labels (three allocations) and looked both series up
/// in the registry on every request: a hit took 62.2k instructions with
/// metrics on before these handles, 58.1k after (`bench/instructions.sh`).
struct RouteSeries {
    duration: metrics::Histogram,
    /// By (method label, status): a handful per route.
    counts: RwLock<Vec<((&'static str, u16), metrics::Counter)>>,
}

impl RouteSeries {
    fn count(&self, route: &str, method: &'static str, status: u16) -> metrics::Counter {
        let read = self.counts.read().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, c)) = read.iter().find(|(k, _)| *k == (method, status)) {
            return c.clone();
        }
        drop(read);
        let mut write = self.counts.write().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, c)) = write.iter().find(|(k, _)| *k == (method, status)) {
            return c.clone();
        }
        let c = metrics::counter!("linecast_http_requests_total", "route" => route.to_owned(), "method" => method, "status" => status.to_string());
        write.push(((method, status), c.clone()));
        c
    }
}

/// Route templates (a fixed set, plus `(unmatched)`) to their series.
static ROUTES: OnceLock<RwLock<HashMap<String, Arc<RouteSeries>>>> = OnceLock::new();

fn route_series(route: &str) -> Arc<RouteSeries> {
    let routes = ROUTES.get_or_init(RwLock::default);
    if let Some(s) = routes.read().unwrap_or_else(PoisonError::into_inner).get(route) {
        return Arc::clone(s);
    }
    let mut write = routes.write().unwrap_or_else(PoisonError::into_inner);
    Arc::clone(write.entry(route.to_owned()).or_insert_with(|| {
        Arc::new(RouteSeries {
            duration: metrics::histogram!("linecast_http_request_duration_seconds", "route" => route.to_owned()),
            counts: RwLock::default(),
        })
    }))
}

/// A key-cache lookup: `hit` or `miss`.
pub fn key_cache(result: &'static str) {
    let Some(hot) = hot() else { return };
    match HIT_MISS.iter().position(|r| *r == result) {
        Some(i) => hot.key_cache[i].increment(1),
        None => metrics::counter!("linecast_key_cache_total", "result" => result).increment(1),
    }
}

/// A connection ended because its client took no response bytes for the
/// stall timeout (`crate::stall`).
pub fn stalled_connection() {
    metrics::counter!("linecast_stalled_connections_total").increment(1);
}

/// A billing event refused because it would move a customer's Stripe link.
pub fn billing_conflict() {
    metrics::counter!("linecast_billing_conflicts_total").increment(1);
}

/// A large response body ended before its last byte: `cause` is `stop`
/// (the in-flight allowance of a stop ran out) or `connection` (the
/// client went away or stopped reading).
pub fn response_cut(cause: &'static str) {
    metrics::counter!("linecast_responses_cut_total", "cause" => cause).increment(1);
}

/// A request answered 408 because its body did not arrive within the body
/// timeout (`crate::stall::BodyDeadline`).
pub fn body_timeout() {
    metrics::counter!("linecast_body_timeouts_total").increment(1);
}

/// Keys read again ahead of their expiry, in one refresh round.
pub fn key_refresh(read: usize) {
    metrics::counter!("linecast_key_refresh_total").increment(read as u64);
}

/// One round of the key relay: keys asked for and answers stored (an
/// instance whose database reads fail), keys read and answered for another
/// instance (`asked`, `stored`, `answered`).
pub fn key_relay(round: linecast_keycache::RelayRound) {
    let linecast_keycache::RelayRound::Ran {
        asked,
        stored,
        answered,
    } = round
    else {
        return;
    };
    for (step, n) in [("asked", asked), ("stored", stored), ("answered", answered)] {
        metrics::counter!("linecast_key_relay_total", "step" => step).increment(n as u64);
    }
}

/// A response-cache lookup: `hit` or `miss`.
pub fn response_cache(result: &'static str) {
    let Some(hot) = hot() else { return };
    match HIT_MISS.iter().position(|r| *r == result) {
        Some(i) => hot.response_cache[i].increment(1),
        None => metrics::counter!("linecast_response_cache_total", "result" => result).increment(1),
    }
}

/// A limiter decision: limiter `second` or `month` (decision `allowed`,
/// `refused` or `error`), `address` or `auth_failure` (`refused`).
pub fn limiter_decision(limiter: &'static str, decision: &'static str) {
    let Some(hot) = hot() else { return };
    match LIMITER_DECISIONS.iter().position(|p| *p == (limiter, decision)) {
        Some(i) => hot.limiter[i].increment(1),
        None => metrics::counter!("linecast_limiter_decisions_total", "limiter" => limiter, "decision" => decision)
            .increment(1),
    }
}

const HIT_MISS: [&str; 2] = ["hit", "miss"];

/// Every (limiter, decision) the service reports.
const LIMITER_DECISIONS: [(&str, &str); 8] = [
    ("second", "allowed"),
    ("second", "refused"),
    ("second", "error"),
    ("month", "allowed"),
    ("month", "refused"),
    ("month", "error"),
    ("address", "refused"),
    ("auth_failure", "refused"),
];

/// The counters every request touches, registered once. Through the macro
/// each call built its labels and looked the series up in the registry
/// (about 500 instructions, with an allocation); a held handle is one
/// atomic add. Other label values still go through the macro.
struct Hot {
    key_cache: [metrics::Counter; 2],
    response_cache: [metrics::Counter; 2],
    limiter: [metrics::Counter; 8],
}

static HOT: OnceLock<Hot> = OnceLock::new();

/// The per-request counters, or `None` when metrics are off (nothing to
/// count). Registered only once the recorder is installed, so a handle is
/// never one of the no-op recorder's.
fn hot() -> Option<&'static Hot> {
    if !installed() {
        return None;
    }
    Some(HOT.get_or_init(|| {
        Hot {
            key_cache: HIT_MISS.map(|r| metrics::counter!("linecast_key_cache_total", "result" => r)),
            response_cache: HIT_MISS.map(|r| metrics::counter!("linecast_response_cache_total", "result" => r)),
            limiter: LIMITER_DECISIONS
                .map(|(l, d)| metrics::counter!("linecast_limiter_decisions_total", "limiter" => l, "decision" => d)),
        }
    }))
}

/// One usage flush: its outcome and how long since the last good one.
pub fn usage_flush(ok: bool, seconds_since_last_success: f64) {
    let result = if ok { "ok" } else { "error" };
    metrics::counter!("linecast_usage_flushes_total", "result" => result).increment(1);
    metrics::gauge!("linecast_usage_flush_lag_seconds").set(seconds_since_last_success);
}

/// One request-log flush, and the requests the log's buffer dropped since
/// start (full between two flushes).
pub fn request_log_flush(ok: bool, dropped: u64) {
    let result = if ok { "ok" } else { "error" };
    metrics::counter!("linecast_request_log_flushes_total", "result" => result).increment(1);
    metrics::counter!("linecast_request_log_dropped_total").absolute(dropped);
}

/// A dependency's last health probe (1 up, 0 down).
pub fn dependency_up(dependency: &str, up: bool) {
    metrics::gauge!("linecast_dependency_up", "dependency" => dependency.to_owned()).set(if up { 1.0 } else { 0.0 });
}

/// The entries each memo holds (core's `memo`: `key_digests`,
/// `clock_day`, `et_minute`, `quota_month`, `plan_headers`), copied when
/// metrics are scraped.
pub fn memos(sizes: &[(&'static str, u64)]) {
    for (memo, entries) in sizes {
        metrics::gauge!("linecast_memo_entries", "memo" => *memo).set(*entries as f64);
    }
}

/// Copies the artifact store's cache counters (the store counts them itself)
/// into the exposition when metrics are scraped.
pub fn artifact_cache((hits, misses): (u64, u64)) {
    metrics::gauge!("linecast_artifact_cache_hits").set(hits as f64);
    metrics::gauge!("linecast_artifact_cache_misses").set(misses as f64);
}

/// Each cache's share of the memory budget, what it holds and how many
/// entries it evicted (`cache`: `artifacts`, `seasons`, `bodies`, `rows`),
/// copied when metrics are scraped.
pub fn caches(stats: &[(&'static str, linecast_core::memory::CacheStats)]) {
    for (cache, s) in stats {
        metrics::gauge!("linecast_cache_budget_bytes", "cache" => *cache).set(s.budget as f64);
        metrics::gauge!("linecast_cache_bytes", "cache" => *cache).set(s.bytes as f64);
        metrics::gauge!("linecast_cache_entries", "cache" => *cache).set(s.entries as f64);
        metrics::gauge!("linecast_cache_evictions", "cache" => *cache).set(s.evictions as f64);
    }
}

/// Starts the metrics listener on `bind`; returns its port and server.
/// `scrape` runs before each exposition (it copies gauges kept elsewhere).
pub fn serve(bind: SocketAddr, scrape: impl Fn() + Clone + Send + 'static) -> anyhow::Result<(u16, Server)> {
    let listener = TcpListener::bind(bind).with_context(|| format!("binding the metrics listener {bind}"))?;
    let port = listener.local_addr()?.port();
    let server = HttpServer::new(move || {
        let scrape = scrape.clone();
        App::new().route(
            "/metrics",
            web::get().to(move || {
                scrape();
                async move {
                    match handle() {
                        Some(h) => HttpResponse::Ok()
                            .content_type("text/plain; version=0.0.4")
                            .body(h.render()),
                        None => HttpResponse::ServiceUnavailable().body("metrics recorder unavailable"),
                    }
                }
            }),
        )
    })
    .workers(1)
    .listen(listener)?
    .disable_signals()
    .run();
    Ok((port, server))
}
