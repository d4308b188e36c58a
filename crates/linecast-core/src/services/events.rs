//! The change stream's use case: what changed in the store (a new version
//! of a predictions, odds, season store or release manifest object) and how
//! each sport's data status moved, as events whose ids are derived from the
//! store, so every instance names an event the same way and a client can
//! resume on any of them.
//!
//! Owns the watcher's comparison ([`Watcher::poll`]), the event ids, the
//! instant of a status transition and the replay window. Must not know HTTP,
//! SSE or how events reach a client (the API's stream does).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Duration, DurationRound, NaiveTime, Utc};
use linecast_domain::artifacts::ArtifactRef;
use linecast_domain::time::et_date;
use linecast_domain::{ModelType, Sport};
use linecast_freshness::{DegradationReason, FreshnessInputs, Status, evaluate};
use sha2::{Digest, Sha256};

use crate::services::freshness::data_status_inputs;
use crate::{ArtifactStore, ObjectVersion};

/// How far back a reconnecting client can resume: events of at least the
/// last hour are kept.
pub const REPLAY_WINDOW: Duration = Duration::hours(1);
/// At most this many events are kept for replay, whatever their age.
pub const REPLAY_CAP: usize = 20_000;

/// What kind of object a release event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Artifact {
    Predictions,
    Odds,
    /// A season store (graded history).
    Results,
    /// A day's release manifest.
    Release,
}

impl Artifact {
    pub const fn code(self) -> &'static str {
        match self {
            Self::Predictions => "predictions",
            Self::Odds => "odds",
            Self::Results => "results",
            Self::Release => "release",
        }
    }

    /// The artifact and model type (none for odds and manifests) a watched
    /// key names; `None` for any other key.
    fn of(key: &str) -> Option<(Sport, Self, Option<ModelType>)> {
        Some(match ArtifactRef::parse(key)? {
            ArtifactRef::Predictions(sport, model_type) => (sport, Self::Predictions, Some(model_type)),
            ArtifactRef::Odds(sport) => (sport, Self::Odds, None),
            ArtifactRef::Season(sport, model_type, _) => (sport, Self::Results, Some(model_type)),
            ArtifactRef::Release(sport, _) => (sport, Self::Release, None),
            _ => return None,
        })
    }
}

/// The two kinds of event a client can ask for (`resync` is the stream's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    Release,
    Status,
}

impl EventKind {
    pub const ALL: [Self; 2] = [Self::Release, Self::Status];

    pub const fn code(self) -> &'static str {
        match self {
            Self::Release => "release",
            Self::Status => "status",
        }
    }

    pub fn parse(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// A new version of a watched object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseEvent {
    pub sport: Sport,
    pub model_type: Option<ModelType>,
    pub artifact: Artifact,
    /// The object's last-modified time.
    pub published_at: DateTime<Utc>,
    /// The object's version (its e_tag, or last-modified and size).
    pub version: String,
    /// What the release log holds of this version, when it is a
    /// predictions or odds release kept in the round that saw it.
    pub kept: Option<KeptFacts>,
}

/// A kept release as its event tells it: the digest, the instant the log
/// keeps (to the microsecond) and the games whose row changed since the
/// series' previous release (`Releases::changed_games`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptFacts {
    pub digest: String,
    pub published_at: DateTime<Utc>,
    pub game_ids_changed: Vec<String>,
}

/// A change of a sport's data-status evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusEvent {
    pub sport: Sport,
    pub from: Status,
    pub to: Status,
    pub operational: bool,
    pub degradation_reason: Option<DegradationReason>,
    pub refresh_pending: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventData {
    Release(ReleaseEvent),
    Status(StatusEvent),
}

/// One event: its id, the instant it names and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub id: EventId,
    pub at: DateTime<Utc>,
    pub data: EventData,
}

impl Event {
    pub fn sport(&self) -> Sport {
        match &self.data {
            EventData::Release(r) => r.sport,
            EventData::Status(s) => s.sport,
        }
    }

    pub fn kind(&self) -> EventKind {
        match self.data {
            EventData::Release(_) => EventKind::Release,
            EventData::Status(_) => EventKind::Status,
        }
    }

    fn release(version: &ObjectVersion) -> Option<Self> {
        let (sport, artifact, model_type) = Artifact::of(&version.key)?;
        let at = version.last_modified;
        Some(Self {
            id: EventId::new(at, EventKind::Release, &[&version.key, &version.version]),
            at,
            data: EventData::Release(ReleaseEvent {
                sport,
                model_type,
                artifact,
                published_at: at,
                version: version.version.clone(),
                kept: None,
            }),
        })
    }
}

/// An event id: `<unix ms, 13 digits>-<r|s>-<16 hex>`, the instant the
/// event names and a hash of what it is (the object key and version; the
/// sport, transition and instant). Derived from the store alone, so two
/// instances give one event one id; ordered by instant, so a client resumes
/// "after" an id on any instance.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(String);

impl EventId {
    fn new(at: DateTime<Utc>, kind: EventKind, identity: &[&str]) -> Self {
        let mut h = Sha256::new();
        for part in identity {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        let tag = match kind {
            EventKind::Release => 'r',
            EventKind::Status => 's',
        };
        let digest = h.finalize();
        Self(format!(
            "{:013}-{tag}-{}",
            at.timestamp_millis().max(0),
            hex::encode(&digest[..8])
        ))
    }

    /// A well-formed id (what a client echoes in `Last-Event-ID`).
    pub fn parse(raw: &str) -> Option<Self> {
        let (millis, rest) = raw.split_once('-')?;
        let (tag, hash) = rest.split_once('-')?;
        let well_formed = millis.len() == 13
            && millis.bytes().all(|b| b.is_ascii_digit())
            && matches!(tag, "r" | "s")
            && hash.len() == 16
            && hash.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        well_formed.then(|| Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a reconnecting client gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// The events after its id, oldest first.
    After(Vec<Arc<Event>>),
    /// Its id is not in the replay window (unknown, or older than it): it
    /// must re-read what it needs.
    Resync,
}

/// What the watcher knows of one sport.
#[derive(Debug, Default)]
struct SportState {
    /// Watched object key to the version last seen.
    versions: HashMap<String, ObjectVersion>,
    /// The status last evaluated and when.
    status: Option<(Status, DateTime<Utc>)>,
}

/// One watcher per instance: compares the store with what it saw last,
/// names the changes as events and keeps them for replay.
pub struct Watcher {
    store: Arc<dyn ArtifactStore>,
    sports: Vec<Sport>,
    state: Mutex<HashMap<Sport, SportState>>,
    window: Mutex<VecDeque<Arc<Event>>>,
}

impl fmt::Debug for Watcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watcher")
            .field("sports", &self.sports)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// A watcher of every sport.
    pub fn new(store: Arc<dyn ArtifactStore>) -> Self {
        Self::of_sports(store, Sport::ALL.to_vec())
    }

    /// A watcher of `sports` only.
    pub fn of_sports(store: Arc<dyn ArtifactStore>, sports: Vec<Sport>) -> Self {
        Self {
            store,
            sports,
            state: Mutex::new(HashMap::new()),
            window: Mutex::new(VecDeque::new()),
        }
    }

    /// One round at `now`: the new events, oldest first (also kept for
    /// replay). The first round of a sport only learns the store: it emits
    /// nothing, but keeps for replay the release events of objects published
    /// within the window, so a client resumes here after a restart or from
    /// another instance. A sport whose listing fails is skipped this round
    /// (a failure is not a deletion); its status is still evaluated (an
    /// outage makes it `unknown`).
    pub async fn poll(&self, now: DateTime<Utc>) -> Vec<Arc<Event>> {
        let mut fresh: Vec<Event> = Vec::new();
        let mut seeded: Vec<Event> = Vec::new();
        for sport in self.sports.clone() {
            let listed = self.store.watched(sport).await;
            let inputs = data_status_inputs(self.store.as_ref(), sport, now).await;
            let report = evaluate(&inputs, now);
            let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
            let known = state.entry(sport).or_default();
            let first = known.status.is_none();
            let mut newest_release: Option<DateTime<Utc>> = None;
            if let Ok(versions) = listed {
                let seen = std::mem::take(&mut known.versions);
                for version in versions {
                    let changed = seen
                        .get(&version.key)
                        .is_none_or(|before| before.version != version.version);
                    if changed && let Some(event) = Event::release(&version) {
                        if first {
                            if event.at >= now - REPLAY_WINDOW {
                                seeded.push(event);
                            }
                        } else {
                            newest_release = newest_release.max(Some(event.at));
                            fresh.push(event);
                        }
                    }
                    known.versions.insert(version.key.clone(), version);
                }
            }
            if let Some((from, checked_at)) = known.status
                && from != report.status
            {
                let lower = checked_at.max(newest_release.unwrap_or(checked_at));
                let at = transition_instant(&inputs, report.status, lower, now);
                fresh.push(Event {
                    id: EventId::new(
                        at,
                        EventKind::Status,
                        &[sport.code(), from.as_str(), report.status.as_str(), &at.to_rfc3339()],
                    ),
                    at,
                    data: EventData::Status(StatusEvent {
                        sport,
                        from,
                        to: report.status,
                        operational: report.operational,
                        degradation_reason: report.degradation_reason,
                        refresh_pending: report.refresh_pending,
                    }),
                });
            }
            known.status = Some((report.status, now));
        }
        fresh.sort_by(|a, b| a.id.cmp(&b.id));
        let fresh: Vec<Arc<Event>> = fresh.into_iter().map(Arc::new).collect();
        self.keep(seeded.into_iter().map(Arc::new).chain(fresh.iter().cloned()), now);
        fresh
    }

    /// `events` with the facts of their kept releases attached (as
    /// `facts` gives them by event id), also in the replay window, so a
    /// client resuming later reads them too. Events without facts are
    /// returned as they were.
    pub fn attach(&self, events: &[Arc<Event>], facts: &HashMap<EventId, KeptFacts>) -> Vec<Arc<Event>> {
        let told: Vec<Arc<Event>> = events
            .iter()
            .map(|event| match (&event.data, facts.get(&event.id)) {
                (EventData::Release(r), Some(kept)) => Arc::new(Event {
                    data: EventData::Release(ReleaseEvent {
                        kept: Some(kept.clone()),
                        ..r.clone()
                    }),
                    ..(**event).clone()
                }),
                _ => event.clone(),
            })
            .collect();
        let mut window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        for event in told.iter().filter(|e| facts.contains_key(&e.id)) {
            if let Some(held) = window.iter_mut().find(|e| e.id == event.id) {
                *held = event.clone();
            }
        }
        told
    }

    /// Every watched object's version as last listed (what the release
    /// keeper reads after a round).
    pub fn versions(&self) -> Vec<ObjectVersion> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut versions: Vec<ObjectVersion> = state.values().flat_map(|s| s.versions.values().cloned()).collect();
        versions.sort_by(|a, b| a.key.cmp(&b.key));
        versions
    }

    /// What a client resuming after `last` gets.
    pub fn resume(&self, last: &EventId) -> Resume {
        let window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        match window.iter().position(|e| &e.id == last) {
            Some(i) => Resume::After(window.iter().skip(i + 1).cloned().collect()),
            None => Resume::Resync,
        }
    }

    /// The newest event held for replay (where a resynced client resumes).
    pub fn newest(&self) -> Option<EventId> {
        self.window
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .back()
            .map(|e| e.id.clone())
    }

    /// Events held for replay now.
    pub fn window_len(&self) -> usize {
        self.window.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    fn keep(&self, events: impl Iterator<Item = Arc<Event>>, now: DateTime<Utc>) {
        let mut window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        for event in events {
            if !window.iter().any(|e| e.id == event.id) {
                let at = window.partition_point(|e| e.id < event.id);
                window.insert(at, event);
            }
        }
        // Every event of the last hour stays; older ones go, and the cap
        // bounds memory whatever the rate.
        let horizon = now - REPLAY_WINDOW;
        while window.front().is_some_and(|e| e.at < horizon) || window.len() > REPLAY_CAP {
            window.pop_front();
        }
    }
}

/// The facts of the round's release events whose version the round kept
/// (or found kept by another instance): matched by series and by the
/// instant to the microsecond the log keeps. A release whose changed games
/// cannot be read gets none (logged).
pub async fn release_facts(
    releases: &crate::services::releases::Releases,
    events: &[Arc<Event>],
    kept: &[crate::ports::releases::KeptRelease],
) -> HashMap<EventId, KeptFacts> {
    use crate::ports::releases::Series;
    let mut facts = HashMap::new();
    for event in events {
        let EventData::Release(r) = &event.data else {
            continue;
        };
        let at = r
            .published_at
            .duration_trunc(Duration::microseconds(1))
            .unwrap_or(r.published_at);
        let Some(release) = kept.iter().find(|k| {
            k.published_at == at
                && match k.series {
                    Series::Predictions(sport, model_type) => {
                        r.artifact == Artifact::Predictions && r.sport == sport && r.model_type == Some(model_type)
                    }
                    Series::Odds(sport) => r.artifact == Artifact::Odds && r.sport == sport,
                    Series::Books(_) => false,
                }
        }) else {
            continue;
        };
        match releases.changed_games(release).await {
            Ok(game_ids_changed) => {
                facts.insert(
                    event.id.clone(),
                    KeptFacts {
                        digest: release.digest.clone(),
                        published_at: release.published_at,
                        game_ids_changed,
                    },
                );
            }
            Err(e) => {
                tracing::warn!(error = %e, digest = %release.digest, "a release's changed games could not be read");
            }
        }
    }
    facts
}

/// The change stream's per-customer cap is the generic slot cap: a
/// customer holds at most `cap` open streams.
pub use super::slots::{Full as TooManyStreams, Slot as StreamSlot, Slots as StreamSlots};

/// The whole second at which `inputs` first evaluate to `to`, searched in
/// `[lower, now]` (never before the ET day of `now` began, whose slate the
/// inputs describe). Evaluation is pure, so every instance that saw the
/// same transition finds the same instant, whenever its rounds run.
fn transition_instant(inputs: &FreshnessInputs, to: Status, lower: DateTime<Utc>, now: DateTime<Utc>) -> DateTime<Utc> {
    let day_start = linecast_domain::time::et_instant(et_date(now), NaiveTime::MIN).unwrap_or(lower);
    let second = Duration::seconds(1);
    let hi = now.duration_trunc(second).unwrap_or(now);
    let lower = lower.max(day_start);
    let mut lo = match lower.duration_trunc(second) {
        Ok(t) if t < lower => t + second,
        Ok(t) => t,
        Err(_) => lower,
    };
    if lo >= hi {
        return hi;
    }
    let mut hi = hi;
    // Invariant: the status at `hi` is `to`.
    while lo < hi {
        let mid = lo + Duration::seconds((hi - lo).num_seconds() / 2);
        if evaluate(inputs, mid).status == to {
            hi = mid;
        } else {
            lo = mid + second;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use linecast_domain::artifacts::PredictionTable;

    use super::*;
    use crate::testing::MemoryStore;

    const NBA: Sport = Sport::Nba;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn predictions(store: &MemoryStore, published: &str) -> ObjectVersion {
        store.set_last_modified(at(published));
        store.put_predictions(
            NBA,
            ModelType::WonOnPoints,
            PredictionTable {
                sport: NBA,
                model_type: ModelType::WonOnPoints,
                models_present: Vec::new(),
                rows: Vec::new(),
            },
        )
    }

    fn watcher(store: &Arc<MemoryStore>) -> Watcher {
        Watcher::of_sports(store.clone(), vec![NBA])
    }

    fn releases(events: &[Arc<Event>]) -> Vec<&ReleaseEvent> {
        events
            .iter()
            .filter_map(|e| match &e.data {
                EventData::Release(r) => Some(r),
                EventData::Status(_) => None,
            })
            .collect()
    }

    #[tokio::test]
    async fn a_new_predictions_version_is_one_release_event_named_by_its_object() {
        let store = Arc::new(MemoryStore::new());
        predictions(&store, "2026-11-22T13:30:00Z");
        let watcher = watcher(&store);
        assert!(
            watcher.poll(at("2026-11-22T14:00:00Z")).await.is_empty(),
            "the first round learns"
        );

        let republished = predictions(&store, "2026-11-22T14:00:02Z");
        let events = watcher.poll(at("2026-11-22T14:00:05Z")).await;

        assert_eq!(
            releases(&events),
            vec![&ReleaseEvent {
                sport: NBA,
                model_type: Some(ModelType::WonOnPoints),
                artifact: Artifact::Predictions,
                published_at: at("2026-11-22T14:00:02Z"),
                version: republished.version.clone(),
                kept: None,
            }]
        );
        let id = events[0].id.as_str();
        assert!(
            id.starts_with(&format!("{:013}-r-", at("2026-11-22T14:00:02Z").timestamp_millis())),
            "{id}"
        );
        assert_eq!(EventId::parse(id), Some(events[0].id.clone()));
        assert!(
            watcher.poll(at("2026-11-22T14:00:10Z")).await.is_empty(),
            "nothing new, nothing sent"
        );
    }

    #[tokio::test]
    async fn the_deadline_passing_without_a_release_is_a_status_event_at_the_deadline_itself() {
        let store = Arc::new(MemoryStore::new());
        let watcher = watcher(&store);
        // 10:15 ET on 2026-11-22 is 15:15 UTC.
        assert!(watcher.poll(at("2026-11-22T15:14:57Z")).await.is_empty());
        let events = watcher.poll(at("2026-11-22T15:15:02.500Z")).await;
        assert_eq!(events.len(), 1, "{events:?}");
        let EventData::Status(status) = &events[0].data else {
            panic!("{events:?}")
        };
        assert_eq!(status.from, Status::Pending);
        assert_ne!(status.to, Status::Pending);
        assert_eq!(
            events[0].at,
            at("2026-11-22T15:15:00Z"),
            "the instant the clock alone changed it"
        );
        assert!(events[0].id.as_str().contains("-s-"));
    }

    #[tokio::test]
    async fn two_watchers_polling_at_other_instants_name_the_same_events_the_same_way() {
        let store = Arc::new(MemoryStore::new());
        predictions(&store, "2026-11-22T15:00:00Z");
        let (a, b) = (watcher(&store), watcher(&store));
        a.poll(at("2026-11-22T15:10:00Z")).await;
        b.poll(at("2026-11-22T15:12:30Z")).await;
        predictions(&store, "2026-11-22T15:14:00Z");
        let mut seen_a = a.poll(at("2026-11-22T15:14:10Z")).await;
        seen_a.extend(a.poll(at("2026-11-22T15:16:20Z")).await);
        let seen_b = b.poll(at("2026-11-22T15:15:40Z")).await;
        let ids = |events: &[Arc<Event>]| events.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        assert_eq!(seen_a.len(), 2, "a release, then the deadline: {seen_a:?}");
        assert_eq!(ids(&seen_a), ids(&seen_b));
    }

    #[tokio::test]
    async fn a_client_resumes_after_its_last_id_and_an_unknown_id_must_resync() {
        let store = Arc::new(MemoryStore::new());
        predictions(&store, "2026-11-22T13:00:00Z");
        let watcher = watcher(&store);
        watcher.poll(at("2026-11-22T13:00:05Z")).await;
        let mut sent = Vec::new();
        for (i, published) in ["13:01:00", "13:02:00", "13:03:00"].iter().enumerate() {
            predictions(&store, &format!("2026-11-22T{published}Z"));
            sent.extend(watcher.poll(at(&format!("2026-11-22T13:0{}:30Z", i + 1))).await);
        }
        assert_eq!(sent.len(), 3);
        assert_eq!(watcher.resume(&sent[0].id), Resume::After(sent[1..].to_vec()));
        assert_eq!(watcher.resume(&sent[2].id), Resume::After(Vec::new()));
        let unknown = EventId::parse("0000000000001-r-0123456789abcdef").unwrap();
        assert_eq!(watcher.resume(&unknown), Resume::Resync);
    }

    #[tokio::test]
    async fn another_instance_started_later_resumes_a_release_of_the_last_hour_but_not_older() {
        let store = Arc::new(MemoryStore::new());
        let first = watcher(&store);
        first.poll(at("2026-11-22T12:00:00Z")).await;
        predictions(&store, "2026-11-22T12:00:10Z");
        let sent = first.poll(at("2026-11-22T12:00:15Z")).await;
        assert_eq!(sent.len(), 1);

        let later = watcher(&store);
        later.poll(at("2026-11-22T12:30:00Z")).await;
        assert_eq!(later.resume(&sent[0].id), Resume::After(Vec::new()));
        let much_later = watcher(&store);
        much_later.poll(at("2026-11-22T13:30:00Z")).await;
        assert_eq!(much_later.resume(&sent[0].id), Resume::Resync);
    }

    #[tokio::test]
    async fn the_window_keeps_an_hour_of_events() {
        let store = Arc::new(MemoryStore::new());
        let watcher = watcher(&store);
        watcher.poll(at("2026-11-22T12:00:00Z")).await;
        predictions(&store, "2026-11-22T12:00:10Z");
        let old = watcher.poll(at("2026-11-22T12:00:15Z")).await;
        predictions(&store, "2026-11-22T12:50:00Z");
        let recent = watcher.poll(at("2026-11-22T12:50:05Z")).await;
        assert_eq!(watcher.resume(&old[0].id), Resume::After(recent.clone()));
        watcher.poll(at("2026-11-22T13:10:00Z")).await;
        assert_eq!(watcher.resume(&old[0].id), Resume::Resync, "more than an hour old");
        assert_eq!(watcher.resume(&recent[0].id), Resume::After(Vec::new()));
    }

    #[test]
    fn only_well_formed_ids_parse() {
        for bad in [
            "",
            "1-r-0123456789abcdef",
            "0000000000001-x-0123456789abcdef",
            "0000000000001-r-XYZ",
        ] {
            assert_eq!(EventId::parse(bad), None, "{bad}");
        }
    }
}
