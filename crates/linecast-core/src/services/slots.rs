//! Per-customer caps on long-lived responses: open change streams and
//! large downloads in flight. A customer holds at most `cap` slots of one
//! kind; a slot is taken before the request is counted (a refusal costs no
//! quota, `services::access`) and given back when the response ends, however
//! it ends (dropping the [`Slot`]).
//!
//! The slots are counted by a registry (`ports::slots`): [`InProcessSlots`]
//! counts this instance's (the default), a shared registry (Redis,
//! `linecast-limits`) counts every instance's, so the cap holds across
//! them. A registry that cannot decide refuses (`Unavailable`, a 503),
//! never admits by default.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;

use crate::ports::limits::LimitsError;
pub use crate::ports::slots::{SlotId, SlotKind, SlotRegistry};

/// A customer already holds `cap` slots of this kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("at most {cap} concurrent {what} per customer")]
pub struct Full {
    /// What the slots are for, plural (`event streams`, `large downloads`).
    pub what: &'static str,
    pub cap: u32,
    /// When a retry may succeed, in seconds (how soon a slot of this kind
    /// is given back once its response has ended).
    pub retry_after_secs: u64,
}

/// Why no slot was taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoSlot {
    /// The customer holds the cap already: 429, not counted.
    #[error(transparent)]
    Full(Full),
    /// The registry could not decide (Redis down or slow): 503.
    #[error(transparent)]
    Unavailable(LimitsError),
}

/// The slots of one kind, at most `cap` per customer, counted by a registry.
pub struct Slots {
    what: &'static str,
    kind: SlotKind,
    cap: u32,
    retry_after_secs: u64,
    registry: Arc<dyn SlotRegistry>,
}

impl std::fmt::Debug for Slots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slots")
            .field("what", &self.what)
            .field("kind", &self.kind)
            .field("cap", &self.cap)
            .finish_non_exhaustive()
    }
}

/// One slot held; dropping it gives the slot back (without blocking).
pub struct Slot {
    registry: Arc<dyn SlotRegistry>,
    kind: SlotKind,
    customer_id: i64,
    id: SlotId,
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slot")
            .field("kind", &self.kind)
            .field("customer_id", &self.customer_id)
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Slots {
    /// Slots of `kind` for `what` (plural, for the refusal's wording),
    /// `cap` per customer, counted by `registry`; a refusal suggests
    /// retrying after `retry_after_secs`.
    pub fn new(
        what: &'static str,
        kind: SlotKind,
        cap: u32,
        retry_after_secs: u64,
        registry: Arc<dyn SlotRegistry>,
    ) -> Arc<Self> {
        Arc::new(Self {
            what,
            kind,
            cap,
            retry_after_secs: retry_after_secs.max(1),
            registry,
        })
    }

    /// [`Slots::new`] counted by a registry of their own in this process.
    pub fn in_process(what: &'static str, kind: SlotKind, cap: u32, retry_after_secs: u64) -> Arc<Self> {
        Self::new(what, kind, cap, retry_after_secs, Arc::new(InProcessSlots::new()))
    }

    /// The cap per customer.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// A slot for `customer_id`, unless it holds `cap` already or the
    /// registry cannot tell.
    pub async fn open(&self, customer_id: i64) -> Result<Slot, NoSlot> {
        match self.registry.take(self.kind, customer_id, self.cap).await {
            Ok(Some(id)) => Ok(Slot {
                registry: Arc::clone(&self.registry),
                kind: self.kind,
                customer_id,
                id,
            }),
            Ok(None) => Err(NoSlot::Full(Full {
                what: self.what,
                cap: self.cap,
                retry_after_secs: self.retry_after_secs,
            })),
            Err(e) => Err(NoSlot::Unavailable(e)),
        }
    }

    /// Slots `customer_id` holds now (on every instance, for a shared
    /// registry).
    pub async fn held(&self, customer_id: i64) -> Result<u32, LimitsError> {
        self.registry.held(self.kind, customer_id).await
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.registry.give_back(self.kind, self.customer_id, self.id);
    }
}

/// The registry of one instance: a count per (kind, customer) in memory.
/// The default when no Redis is configured; with several instances, each
/// counts only its own.
#[derive(Debug, Default)]
pub struct InProcessSlots {
    open: Mutex<HashMap<(SlotKind, i64), u32>>,
    next: AtomicU64,
}

impl InProcessSlots {
    pub fn new() -> Self {
        Self::default()
    }

    fn count(&self, kind: SlotKind, customer_id: i64) -> u32 {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(kind, customer_id))
            .copied()
            .unwrap_or(0)
    }

    /// (Kind, customer) pairs with a count kept (none at zero).
    #[cfg(test)]
    fn entries(&self) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[async_trait]
impl SlotRegistry for InProcessSlots {
    async fn take(&self, kind: SlotKind, customer_id: i64, cap: u32) -> Result<Option<SlotId>, LimitsError> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.get(&(kind, customer_id)).copied().unwrap_or(0);
        if held >= cap {
            return Ok(None);
        }
        open.insert((kind, customer_id), held + 1);
        Ok(Some(SlotId(self.next.fetch_add(1, Ordering::Relaxed))))
    }

    fn give_back(&self, kind: SlotKind, customer_id: i64, _slot: SlotId) {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = open.get_mut(&(kind, customer_id)) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                open.remove(&(kind, customer_id));
            }
        }
    }

    async fn held(&self, kind: SlotKind, customer_id: i64) -> Result<u32, LimitsError> {
        Ok(self.count(kind, customer_id))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn a_customer_holds_at_most_cap_and_a_dropped_slot_comes_back() {
        let slots = Slots::in_process("large downloads", SlotKind::Download, 2, 5);
        let a = slots.open(1).await.unwrap();
        let _b = slots.open(1).await.unwrap();
        assert_eq!(
            slots.open(1).await.unwrap_err(),
            NoSlot::Full(Full {
                what: "large downloads",
                cap: 2,
                retry_after_secs: 5
            })
        );
        let _other = slots.open(2).await.unwrap();
        drop(a);
        assert_eq!(slots.held(1).await.unwrap(), 1);
        assert!(slots.open(1).await.is_ok());
    }

    #[tokio::test]
    async fn a_cap_of_zero_refuses_and_leaves_nothing_behind() {
        let registry = Arc::new(InProcessSlots::new());
        let slots = Slots::new("event streams", SlotKind::Stream, 0, 0, registry.clone());
        match slots.open(7).await.unwrap_err() {
            NoSlot::Full(full) => assert_eq!(full.retry_after_secs, 1),
            NoSlot::Unavailable(e) => panic!("{e}"),
        }
        assert_eq!(slots.held(7).await.unwrap(), 0);
        assert_eq!(registry.entries(), 0);
    }

    /// One registry, two kinds: each is capped on its own.
    #[tokio::test]
    async fn kinds_sharing_a_registry_are_counted_apart() {
        let registry: Arc<dyn SlotRegistry> = Arc::new(InProcessSlots::new());
        let streams = Slots::new("event streams", SlotKind::Stream, 1, 15, registry.clone());
        let downloads = Slots::new("large downloads", SlotKind::Download, 1, 5, registry);
        let _stream = streams.open(3).await.unwrap();
        let download = downloads.open(3).await.unwrap();
        assert!(matches!(streams.open(3).await, Err(NoSlot::Full(_))));
        drop(download);
        assert_eq!(streams.held(3).await.unwrap(), 1);
        assert_eq!(downloads.held(3).await.unwrap(), 0);
    }

    /// A registry that cannot decide refuses as unavailable, never admits.
    #[tokio::test]
    async fn a_failing_registry_refuses_as_unavailable() {
        struct Down;
        #[async_trait]
        impl SlotRegistry for Down {
            async fn take(&self, _: SlotKind, _: i64, _: u32) -> Result<Option<SlotId>, LimitsError> {
                Err(LimitsError::Unavailable("redis: refused".to_owned()))
            }
            fn give_back(&self, _: SlotKind, _: i64, _: SlotId) {
                panic!("nothing was taken");
            }
            async fn held(&self, _: SlotKind, _: i64) -> Result<u32, LimitsError> {
                Ok(0)
            }
        }
        let slots = Slots::new("event streams", SlotKind::Stream, 5, 15, Arc::new(Down));
        assert!(matches!(slots.open(1).await, Err(NoSlot::Unavailable(_))));
    }
}
