//! The server's usage flush round: persist buffered counts (keeping core's
//! `UsageHealth` up to date, which the access decision reads), export the
//! flush metrics, and write `last_used_at` of the keys used since the last
//! round. The timing rules are the limits crate's `Flusher`.

use std::time::Duration;

use crate::state::AppState;

/// How often counted requests are persisted: the crash bound when healthy.
pub const FLUSH_EVERY: Duration = linecast_limits::DEFAULT_FLUSH_INTERVAL;

/// Persists buffered usage and `last_used_at` once.
pub async fn flush_once(state: &AppState) {
    match state.limiter.flush().await {
        Ok(()) => state.usage_health.succeeded(),
        Err(e) => tracing::warn!(error = %e, "usage flush failed; increments stay buffered"),
    }
    let lag = state.usage_health.lag();
    crate::metrics::usage_flush(lag < FLUSH_EVERY * 2, lag.as_secs_f64());
    if let Some(access) = &state.access {
        let keys = access.take_used_keys();
        if !keys.is_empty()
            && let Err(e) = state.accounts.touch_last_used(&keys, state.clock.now()).await
        {
            tracing::warn!(error = %e, "last_used_at update failed");
        }
    }
}

/// The periodic flusher: the limits crate's (one round a second, delayed
/// by a slow database, stopped only between rounds), each round being
/// [`flush_once`].
pub fn spawn_flusher(state: AppState) -> linecast_limits::Flusher {
    linecast_limits::Flusher::spawn(FLUSH_EVERY, move || {
        let state = state.clone();
        async move { flush_once(&state).await }
    })
}
