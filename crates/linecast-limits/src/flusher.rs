//! The periodic write-behind flush task.

use std::sync::Arc;
use std::time::Duration;

use linecast_core::ports::limits::Limiter;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

/// How often the flusher persists buffered increments by default: the crash
/// bound of the write-behind.
pub const DEFAULT_FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// Spawns a tokio task that calls `flush` every `every` until aborted. A
/// failed flush is logged and retried on the next tick (the increments stay
/// buffered). On shutdown, abort the task and call `flush` once more.
pub fn spawn_flusher(limiter: Arc<dyn Limiter>, every: Duration) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        // A slow database must not cause a burst of back-to-back flushes.
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        // The first tick completes at once; there is nothing to flush yet.
        ticks.tick().await;
        loop {
            ticks.tick().await;
            if let Err(e) = limiter.flush().await {
                tracing::warn!(error = %e, "usage flush failed; increments stay buffered");
            }
        }
    })
}
