//! The change stream's framing: the per-customer stream slots and the
//! server-sent-event stream one client reads (the watcher task and the
//! broadcast it feeds are linecast-runtime's `EventHub`) (replay after `Last-Event-ID`, filters, `: ping` after
//! 2 s without a frame, a key re-check every key-cache lifetime, `resync`
//! and close for a consumer too slow to keep up, a clean end at shutdown).
//!
//! A stream holds one of its customer's slots until actix drops it, which
//! happens as soon as actix sees the connection end: at once for a close
//! that reaches the server (the dispatcher reads the EOF or reset while the
//! body is pending, and `h1_allow_half_closed(false)` ends the connection).
//! A close that never arrives (the client's FIN lost in a network blip) is
//! seen only when the server next writes and the client's host answers with
//! a reset; so a stream never stays silent for long (see [`PING_EVERY`]).

use std::collections::{HashSet, VecDeque};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use linecast_core::Clock;
use linecast_core::services::events::{Event, EventId, EventKind, Resume, StreamSlot, StreamSlots};
use linecast_core::services::slots::{SlotKind, SlotRegistry};
use linecast_domain::Sport;
use linecast_payloads::events::{PING, event_frame, resync_frame};
use linecast_runtime::EventHub;
use tokio::sync::{broadcast, watch};
use tokio::time::{Instant, Interval, MissedTickBehavior, interval_at};

use crate::error::ApiError;

/// Events a stream may fall behind by before it is told to resync and closed.
pub const BACKLOG: usize = 1024;
/// How long a stream sends nothing before it gets `: ping`. Each write
/// probes the connection: one whose client is gone without its close
/// reaching the server fails at the next write, and the slot comes back
/// within about this long (a reconnecting client is not refused for the
/// cap because of its own dead stream).
pub const PING_EVERY: Duration = Duration::from_secs(2);

/// The `Retry-After` of a refusal for the stream cap, in seconds (as
/// published; a slot held by a stream whose client is gone comes back
/// sooner, within [`PING_EVERY`]).
const CAP_RETRY_AFTER_SECS: u64 = 15;

/// A customer's stream slots on `registry` (this instance's, or every
/// instance's through Redis): at most `max_per_customer` streams, a
/// refusal naming the setting and saying when to retry.
pub fn stream_slots(max_per_customer: u32, registry: Arc<dyn SlotRegistry>) -> Arc<StreamSlots> {
    StreamSlots::new(
        crate::error::EVENT_STREAMS,
        SlotKind::Stream,
        max_per_customer,
        CAP_RETRY_AFTER_SECS,
        registry,
    )
}

/// Which events a stream wants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFilter {
    sports: Option<HashSet<Sport>>,
    kinds: Option<HashSet<EventKind>>,
}

impl EventFilter {
    /// `sport=nba,nfl` and `types=release,status`; an unknown value is a
    /// 400 naming its parameter.
    pub fn parse(sports: Option<&String>, types: Option<&String>) -> Result<Self, ApiError> {
        let sports = sports
            .map(|raw| {
                raw.split(',')
                    .map(|code| {
                        Sport::parse(code.trim()).map_err(|_| {
                            let allowed: Vec<&str> = Sport::ALL.iter().map(|s| s.code()).collect();
                            ApiError::invalid_param("sport", code, &allowed.join(", "))
                        })
                    })
                    .collect::<Result<HashSet<_>, _>>()
            })
            .transpose()?;
        let kinds = types
            .map(|raw| {
                raw.split(',')
                    .map(|code| {
                        EventKind::parse(code.trim())
                            .ok_or_else(|| ApiError::invalid_param("types", code, "release, status"))
                    })
                    .collect::<Result<HashSet<_>, _>>()
            })
            .transpose()?;
        Ok(Self { sports, kinds })
    }

    fn allows(&self, event: &Event) -> bool {
        self.sports.as_ref().is_none_or(|s| s.contains(&event.sport()))
            && self.kinds.as_ref().is_none_or(|k| k.contains(&event.kind()))
    }
}

/// Whether the stream's key may still read (re-checked every key-cache
/// lifetime).
pub type KeyCheck = Box<dyn Fn() -> Pin<Box<dyn Future<Output = bool> + Send>> + Send>;

/// The re-check of one key through the key cache: a revoked, expired or
/// deleted key ends its stream; a database that cannot answer does not (the
/// key was valid, an outage is not a revocation).
pub fn key_still_usable(keys: linecast_keycache::KeyCache, clock: Arc<dyn Clock>, key_hash: String) -> KeyCheck {
    Box::new(move || {
        let (keys, clock, hash) = (keys.clone(), clock.clone(), key_hash.clone());
        Box::pin(async move {
            match keys.lookup(&hash).await {
                Ok(Some(entry)) => entry.0.is_usable(clock.now()),
                Ok(None) => false,
                Err(_) => true,
            }
        })
    })
}

/// One client's stream.
struct Sse {
    queue: VecDeque<Bytes>,
    rx: broadcast::Receiver<Arc<Event>>,
    filter: EventFilter,
    /// The newest event already queued (replayed events are not sent twice).
    last: Option<EventId>,
    ping: Interval,
    recheck: Interval,
    key_check: KeyCheck,
    closing: watch::Receiver<bool>,
    ended: bool,
    _slot: StreamSlot,
}

/// The stream of one client: the replay after `last_event_id` (or a
/// `resync` when it cannot be replayed), then live events as they come.
pub fn open(
    hub: &EventHub,
    slot: StreamSlot,
    filter: EventFilter,
    last_event_id: Option<&str>,
    key_check: KeyCheck,
    recheck_every: Duration,
) -> impl Stream<Item = Result<Bytes, Infallible>> + use<> {
    // Subscribed before the replay is read, so nothing falls in between.
    let rx = hub.subscribe();
    let mut queue = VecDeque::new();
    let mut last = None;
    if let Some(raw) = last_event_id {
        match EventId::parse(raw).map(|id| hub.watcher.resume(&id)) {
            Some(Resume::After(events)) => {
                for event in events {
                    if filter.allows(&event) {
                        queue.push_back(event_frame(&event));
                    }
                    last = Some(event.id.clone());
                }
                if last.is_none() {
                    last = EventId::parse(raw);
                }
            }
            Some(Resume::Resync) | None => {
                let newest = hub.watcher.newest();
                queue.push_back(resync_frame(
                    newest.as_ref(),
                    "Last-Event-ID is unknown or older than the replay window; re-read what you need",
                ));
                last = newest;
            }
        }
    }
    let start = Instant::now();
    let mut ping = interval_at(start + PING_EVERY, PING_EVERY);
    ping.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let state = Sse {
        queue,
        rx,
        filter,
        last,
        ping,
        recheck: interval_at(start + recheck_every, recheck_every),
        key_check,
        closing: hub.closing(),
        ended: false,
        _slot: slot,
    };
    futures::stream::unfold(state, next)
}

async fn next(mut s: Sse) -> Option<(Result<Bytes, Infallible>, Sse)> {
    loop {
        if let Some(bytes) = s.queue.pop_front() {
            // A frame probes the connection as a ping does: the next ping
            // is due `PING_EVERY` after the last frame.
            s.ping.reset();
            return Some((Ok(bytes), s));
        }
        if s.ended || *s.closing.borrow() {
            return None;
        }
        tokio::select! {
            biased;
            _ = s.closing.changed() => s.ended = true,
            got = s.rx.recv() => match got {
                Ok(event) => {
                    if s.last.as_ref().is_none_or(|last| event.id > *last) {
                        if s.filter.allows(&event) {
                            s.queue.push_back(event_frame(&event));
                        }
                        s.last = Some(event.id.clone());
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    s.queue.push_back(resync_frame(
                        s.last.as_ref(),
                        "this stream fell too far behind; re-read what you need and reconnect",
                    ));
                    s.ended = true;
                }
                Err(broadcast::error::RecvError::Closed) => s.ended = true,
            },
            _ = s.recheck.tick() => {
                if !(s.key_check)().await {
                    s.ended = true;
                }
            }
            _ = s.ping.tick() => s.queue.push_back(Bytes::from_static(PING)),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use futures::StreamExt as _;
    use linecast_core::services::events::Watcher;
    use linecast_core::testing::MemoryStore;

    use super::*;

    fn hub(backlog: usize) -> EventHub {
        EventHub::new(
            Arc::new(Watcher::new(Arc::new(MemoryStore::new()))),
            stream_slots(5, Arc::new(linecast_core::services::slots::InProcessSlots::new())),
            backlog,
        )
    }

    fn allowed() -> KeyCheck {
        Box::new(|| Box::pin(async { true }))
    }

    /// A stream of customer 1 with no filter and no resume.
    async fn stream_of(
        hub: &EventHub,
        key_check: KeyCheck,
        recheck_every: Duration,
    ) -> impl Stream<Item = Result<Bytes, Infallible>> + use<> {
        let slot = hub.slots.open(1).await.unwrap();
        open(
            hub,
            slot,
            EventFilter::parse(None, None).unwrap(),
            None,
            key_check,
            recheck_every,
        )
    }

    fn release(n: i64) -> Arc<Event> {
        use linecast_core::services::events::{Artifact, EventData, ReleaseEvent};
        let at = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH + chrono::Duration::seconds(n);
        Arc::new(Event {
            id: EventId::parse(&format!("{:013}-r-{:016x}", n * 1000, n)).unwrap(),
            at,
            data: EventData::Release(ReleaseEvent {
                sport: Sport::Nba,
                model_type: None,
                artifact: Artifact::Odds,
                published_at: at,
                version: format!("v{n}"),
                kept: None,
            }),
        })
    }

    #[tokio::test]
    async fn a_consumer_too_slow_to_keep_up_gets_resync_and_its_stream_ends() {
        let hub = hub(4);
        let stream = stream_of(&hub, allowed(), PING_EVERY).await;
        // Ten events while the client reads nothing: more than the backlog.
        hub.publish((1..=10).map(release).collect());
        let frames: Vec<Bytes> = stream.map(Result::unwrap).collect().await;
        let last = String::from_utf8(frames.last().unwrap().to_vec()).unwrap();
        assert!(last.contains("event: resync"), "{last}");
        assert!(frames.len() <= 5, "at most the backlog, then resync: {}", frames.len());
        assert_eq!(hub.slots.held(1).await.unwrap(), 0, "the slot is freed with the stream");
        assert_eq!(hub.open_streams(), 0, "nothing is held for it");
    }

    #[tokio::test]
    async fn closing_the_hub_ends_every_stream() {
        let hub = hub(16);
        let stream = stream_of(&hub, allowed(), PING_EVERY).await;
        hub.publish(vec![release(1)]);
        hub.close();
        let frames: Vec<Bytes> = stream.map(Result::unwrap).collect().await;
        assert!(frames.len() <= 1);
    }

    #[tokio::test]
    async fn a_key_that_fails_its_recheck_ends_the_stream() {
        let hub = hub(16);
        let denied: KeyCheck = Box::new(|| Box::pin(async { false }));
        let stream = stream_of(&hub, denied, Duration::from_millis(20)).await;
        let frames: Vec<Bytes> = tokio::time::timeout(Duration::from_secs(30), stream.map(Result::unwrap).collect())
            .await
            .unwrap();
        assert!(frames.is_empty());
    }

    #[test]
    fn filters_name_the_parameter_they_refuse() {
        let bad = |s: Option<&str>, t: Option<&str>| {
            EventFilter::parse(s.map(str::to_owned).as_ref(), t.map(str::to_owned).as_ref())
                .unwrap_err()
                .to_string()
        };
        assert!(bad(Some("nba,xfl"), None).contains("sport"));
        assert!(bad(None, Some("release,odds")).contains("types"));
        let only_status = EventFilter::parse(None, Some(&"status".to_owned())).unwrap();
        assert!(!only_status.allows(&release(1)));
        let nfl = EventFilter::parse(Some(&"nfl".to_owned()), None).unwrap();
        assert!(!nfl.allows(&release(1)));
    }
}
