//! The change stream's watcher task and the broadcast to the open streams:
//! one watcher per instance (core's `Watcher`, every
//! `LINECAST_WATCH_INTERVAL`) finds new events, keeps every predictions and
//! odds version seen as a release, puts the round's events in the webhooks'
//! outbox and publishes them to every stream of this instance.

use std::sync::Arc;
use std::time::Duration;

use linecast_core::Clock;
use linecast_core::services::events::{Event, StreamSlots, Watcher};
use linecast_core::services::releases::Releases;
use tokio::sync::{broadcast, watch};

/// What every stream of this instance shares.
pub struct EventHub {
    pub watcher: Arc<Watcher>,
    pub slots: Arc<StreamSlots>,
    sender: broadcast::Sender<Arc<Event>>,
    closing: watch::Sender<bool>,
}

impl EventHub {
    /// The hub of `watcher`'s events for streams holding `slots` (a
    /// customer's open streams, counted on this instance or every
    /// instance's through Redis); a stream may fall `backlog` events
    /// behind.
    pub fn new(watcher: Arc<Watcher>, slots: Arc<StreamSlots>, backlog: usize) -> Self {
        Self {
            watcher,
            slots,
            sender: broadcast::channel(backlog).0,
            closing: watch::channel(false).0,
        }
    }

    /// A new stream's receiver of the events published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.sender.subscribe()
    }

    /// Whether the instance is closing (at shutdown every stream ends).
    pub fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Sends new events to every open stream.
    pub fn publish(&self, events: Vec<Arc<Event>>) {
        for event in events {
            // No stream open is not an error.
            let _ = self.sender.send(event);
        }
    }

    /// Ends every stream (at shutdown).
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Streams open on this instance.
    pub fn open_streams(&self) -> usize {
        self.sender.receiver_count()
    }
}

/// The watcher task; dropping the handle's `stop` ends it.
pub struct WatcherTask {
    stop: watch::Sender<bool>,
    handle: tokio::task::JoinHandle<()>,
}

impl WatcherTask {
    pub async fn stop(self) {
        self.stop.send_replace(true);
        let _ = self.handle.await;
    }
}

/// How often kept releases past their retention are forgotten.
const PRUNE_EVERY: chrono::Duration = chrono::Duration::hours(1);

/// Runs one watcher round now, then every `every`, publishing what it
/// finds; `changed` runs first whenever a round found something (the
/// caller forgets what it resolved against the old versions). After each
/// round, every predictions and odds version seen is kept (`releases`),
/// and once an hour the releases past their retention are forgotten.
pub fn spawn_watcher(
    hub: Arc<EventHub>,
    releases: Arc<Releases>,
    webhooks: Arc<dyn linecast_core::ports::webhooks::WebhookStore>,
    clock: Arc<dyn Clock>,
    every: Duration,
    changed: impl Fn() + Send + Sync + 'static,
) -> WatcherTask {
    let (stop, mut stopped) = watch::channel(false);
    let handle = tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut pruned_at: Option<chrono::DateTime<chrono::Utc>> = None;
        loop {
            tokio::select! {
                _ = stopped.changed() => break,
                _ = tick.tick() => {
                    // A stop cancels a round in progress: a store call that
                    // hangs must not hold up the process's exit.
                    let events = tokio::select! {
                        events = watch_round(&hub, &releases, webhooks.as_ref(), clock.now(), &changed) => events,
                        _ = stopped.changed() => break,
                    };
                    hub.publish(events);
                    let now = clock.now();
                    if pruned_at.is_none_or(|at| now - at >= PRUNE_EVERY) {
                        pruned_at = Some(now);
                        tokio::select! {
                            pruned = releases.prune(now) => match pruned {
                                Ok(0) => {}
                                Ok(n) => {
                                    tracing::info!(releases = n, "kept releases past their retention forgotten");
                                    changed();
                                }
                                Err(e) => tracing::warn!(error = %e, "kept releases: retention not applied"),
                            },
                            _ = stopped.changed() => break,
                        }
                    }
                }
            }
        }
    });
    WatcherTask { stop, handle }
}

/// One watcher round: the store compared with what was seen (`changed`
/// runs when something changed, so what was resolved against the old
/// versions is forgotten), then every predictions and odds version seen is
/// kept (`changed` runs again when a release was recorded: the reads of
/// kept releases moved); each release event is told its kept release
/// (digest, exact instant, changed games) and the round's events are put
/// in the webhooks' outbox (`webhooks::announce`). Returns the round's events, for the
/// streams.
pub async fn watch_round(
    hub: &EventHub,
    releases: &Releases,
    webhooks: &dyn linecast_core::ports::webhooks::WebhookStore,
    now: chrono::DateTime<chrono::Utc>,
    changed: &impl Fn(),
) -> Vec<Arc<Event>> {
    let events = hub.watcher.poll(now).await;
    if !events.is_empty() {
        tracing::info!(events = events.len(), "change stream: new events");
        changed();
    }
    let met = releases.keep_round(&hub.watcher.versions()).await;
    if met.iter().any(|(_, new)| *new) {
        changed();
    }
    let kept: Vec<_> = met.into_iter().map(|(release, _)| release).collect();
    let facts = linecast_core::services::events::release_facts(releases, &events, &kept).await;
    let events = hub.watcher.attach(&events, &facts);
    crate::webhooks::announce(webhooks, &events).await;
    events
}
