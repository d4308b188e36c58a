//! The slot-registry port: per-customer caps on long-lived responses (open
//! change streams, large downloads in flight), counted wherever the
//! registry counts them: in this process (the default), or across every
//! instance sharing one Redis.
//!
//! A slot is taken under a cap in one atomic step (two callers never both
//! take the last one, whichever instances they are on) and given back when
//! its response ends. Giving back never blocks: it runs from `Drop`, so an
//! adapter that must reach a remote store queues or spawns the call. A
//! shared registry keeps its slots alive by renewing a lease; the slots of
//! an instance that dies without giving them back lapse when their lease
//! runs out (the adapter's bound), never later.
//!
//! `services::slots` holds the rules on top (the cap and the refusal's
//! wording and `Retry-After`); a registry only counts.

use async_trait::async_trait;

use super::limits::LimitsError;

/// What a slot is for: each kind is capped separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlotKind {
    /// An open change stream (`GET /api/v1/events`).
    Stream,
    /// A large download in flight (an export sent in slices).
    Download,
}

impl SlotKind {
    /// A short stable name (the kind's part of a shared registry's keys).
    pub fn as_str(self) -> &'static str {
        match self {
            SlotKind::Stream => "streams",
            SlotKind::Download => "downloads",
        }
    }
}

/// One slot a registry handed out, unique within that registry; given back
/// with the kind and customer it was taken for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SlotId(pub u64);

/// Counts the slots each customer holds, per kind.
#[async_trait]
pub trait SlotRegistry: Send + Sync {
    /// Takes a slot of `kind` for `customer_id` if it holds fewer than
    /// `cap`; `Ok(None)` when it holds `cap` already (nothing taken). Check
    /// and take are one atomic step for every caller of the same registry
    /// (of every instance, for a shared one). A registry that cannot decide
    /// answers `Unavailable`, never a slot by default.
    async fn take(&self, kind: SlotKind, customer_id: i64, cap: u32) -> Result<Option<SlotId>, LimitsError>;

    /// Gives a slot back. Never blocks (it is called from `Drop`): a shared
    /// registry sends the give-back in the background, and a give-back that
    /// fails leaves the slot to lapse with its lease.
    fn give_back(&self, kind: SlotKind, customer_id: i64, slot: SlotId);

    /// Slots of `kind` `customer_id` holds now (for every instance, for a
    /// shared registry).
    async fn held(&self, kind: SlotKind, customer_id: i64) -> Result<u32, LimitsError>;

    /// Gives back every slot this instance still holds or is still giving
    /// back, on graceful shutdown once the responses have ended. A registry
    /// in process has nothing to do.
    async fn release(&self) -> Result<(), LimitsError> {
        Ok(())
    }
}
