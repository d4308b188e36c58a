//! The server's usage flush round: core's `Usage::flush` persists buffered
//! counts (keeping the health the access decision reads) and `last_used_at`
//! of the keys used since the last round, then the request log's buffer goes
//! to its table in one batch once it has been held long enough or the
//! buffer is nearly full (core's `RequestLog::flush`, which also prunes
//! past the retention once an hour; a buffer filling to its mark wakes the
//! round);
//! this logs and exports the metrics. The timing rules are the limits
//! crate's `Flusher`. The last round before a stop is [`flush_all`].

use std::time::Duration;

use crate::state::AppState;

/// How often counted requests are persisted: the crash bound when healthy.
pub const FLUSH_EVERY: Duration = linecast_limits::DEFAULT_FLUSH_INTERVAL;

/// One round: persists buffered usage and `last_used_at` (core's
/// `Usage::flush`), logging what failed and exporting the lag, and writes
/// the request log's buffer if its hold has passed.
pub async fn flush_once(state: &AppState) {
    flush(state, false).await;
}

/// The last round before a stop: as [`flush_once`], and the request log's
/// buffer written whatever its age.
pub async fn flush_all(state: &AppState) {
    flush(state, true).await;
}

async fn flush(state: &AppState, everything: bool) {
    let used_keys = state
        .gate
        .access
        .as_ref()
        .map(|a| a.take_used_keys())
        .unwrap_or_default();
    let report = state.usage.flush(&used_keys, state.clock.now()).await;
    if let Err(e) = &report.counts {
        tracing::warn!(error = %e, "usage flush failed; increments stay buffered");
    }
    if let Err(e) = &report.last_used {
        tracing::warn!(error = %e, "last_used_at update failed");
    }
    crate::metrics::usage_flush(report.lag < FLUSH_EVERY * 2, report.lag.as_secs_f64());
    let now = state.clock.now();
    let logged = if everything {
        state.request_log.flush_all(now).await
    } else {
        state.request_log.flush(now).await
    };
    if let Err(e) = &logged {
        tracing::warn!(error = %e, "request log flush failed; its batch stays buffered");
    }
    crate::metrics::request_log_flush(logged.is_ok(), state.request_log.dropped());
}

/// The periodic flusher: the limits crate's (one round a second, delayed
/// by a slow database, stopped only between rounds), each round being
/// [`flush_once`]. A request log buffer filled to its write mark runs a
/// round at once (core's `RequestLog::filled`).
pub fn spawn_flusher(state: AppState) -> linecast_limits::Flusher {
    let log = state.request_log.clone();
    linecast_limits::Flusher::spawn_waking(
        FLUSH_EVERY,
        move || {
            let log = log.clone();
            async move { log.filled().await }
        },
        move || {
            let state = state.clone();
            async move { flush_once(&state).await }
        },
    )
}
