//! The lease protocol of the shared monthly quota: the one definition of how
//! instances borrow allowance from the shared ledger (a Redis hash, one per
//! customer-month) and serve it without a round trip per request.
//!
//! The ledger keeps, per instance, two cumulative counts: `granted`, the
//! allowance handed to it, and `served`, what it reported serving; plus
//! `closed`, the served count of instances that have released their lease.
//! The ledger's reservation is `closed + Σ granted`; a grant never lets it
//! pass the limit. An instance serves only while its own `served` is below
//! its `granted`, so across instances no more than the limit is ever served,
//! whatever the interleaving of calls, lost replies and crashes
//! ([`tests`] proves it by proptest).
//!
//! One call, [`Ledger::lease`], does everything, and is idempotent because
//! the counts are cumulative: it reports `served` (never moving backwards),
//! says how much unserved allowance the instance `keep`s (the rest comes
//! back to the customer), asks for `want` more, or closes the entry. A reply
//! that is lost does no harm: the next call reports the same totals and
//! gives back whatever the instance never learned it was granted.
//!
//! Grants shrink as the customer nears the limit: at most an eighth of what
//! is free, and at least one request while anything is.
//!
//! The Redis script in `leased.rs` is this function in Lua; an integration
//! test runs both on the same calls and compares every reply.
//!
//! A crashed instance's entry stays in the ledger: what it was granted and
//! never reported is forfeit for the month, since nobody can know how much
//! of it was served (at most one lease block per customer it served).

use std::collections::BTreeMap;

/// No grant is larger than `free / GRANT_SHARE` (but at least 1).
pub const GRANT_SHARE: u64 = 8;

/// One instance's cumulative counts in the ledger.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Entry {
    pub granted: u64,
    pub served: u64,
}

/// What one instance asks of the ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseCall {
    /// The instance's cumulative served count.
    pub served: u64,
    /// Unserved allowance the instance keeps; anything beyond goes back.
    pub keep: u64,
    /// More allowance asked for.
    pub want: u64,
    /// Close the entry: its served count moves to `closed`, the rest back.
    pub close: bool,
}

/// The ledger's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseReply {
    /// The instance's cumulative grant after the call.
    pub granted: u64,
    /// The instance's served count as the ledger now holds it.
    pub served: u64,
    /// Served over every instance, this one included.
    pub served_total: u64,
    /// `closed + Σ granted` after the call.
    pub reserved: u64,
}

/// The shared ledger of one customer-month.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    /// Served by entries that were closed (and the seed from the database).
    pub closed: u64,
    pub entries: BTreeMap<String, Entry>,
}

impl Ledger {
    /// A ledger starting from a count persisted elsewhere.
    pub fn seeded(served: u64) -> Self {
        Self {
            closed: served,
            entries: BTreeMap::new(),
        }
    }

    pub fn reserved(&self) -> u64 {
        self.entries
            .values()
            .fold(self.closed, |a, e| a.saturating_add(e.granted))
    }

    pub fn served(&self) -> u64 {
        self.entries
            .values()
            .fold(self.closed, |a, e| a.saturating_add(e.served))
    }

    /// One call of instance `id` under `limit`.
    pub fn lease(&mut self, id: &str, call: LeaseCall, limit: u64) -> LeaseReply {
        let mut entry = self.entries.remove(id).unwrap_or_default();
        let (others_reserved, others_served) = (self.reserved(), self.served());
        entry.served = entry.served.max(call.served);
        entry.granted = entry
            .granted
            .min(entry.served.saturating_add(call.keep))
            .max(entry.served);
        if call.close {
            self.closed = self.closed.saturating_add(entry.served);
            return LeaseReply {
                granted: entry.served,
                served: entry.served,
                served_total: others_served.saturating_add(entry.served),
                reserved: others_reserved.saturating_add(entry.served),
            };
        }
        let free = limit.saturating_sub(others_reserved.saturating_add(entry.granted));
        entry.granted += call.want.min(grant_cap(free));
        self.entries.insert(id.to_owned(), entry);
        LeaseReply {
            granted: entry.granted,
            served: entry.served,
            served_total: others_served.saturating_add(entry.served),
            reserved: others_reserved.saturating_add(entry.granted),
        }
    }
}

/// The largest grant out of `free` unreserved requests.
pub fn grant_cap(free: u64) -> u64 {
    if free == 0 { 0 } else { (free / GRANT_SHARE).max(1) }
}

/// The largest block an instance asks for at once.
pub const MAX_BLOCK: u64 = 1024;

/// One instance's side of a customer-month lease. Not synchronised: the
/// adapter holds it under a lock, and runs one ledger call at a time per
/// customer-month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holding {
    /// Cumulative grant as last acknowledged (or lowered by this side).
    pub granted: u64,
    /// Cumulative served by this instance.
    pub served: u64,
    /// Served by the other instances at the last reply.
    pub others_served: u64,
    /// Until when (the adapter's monotonic milliseconds) the grant may be
    /// used; `None` before the first reply.
    pub deadline: Option<u64>,
    /// The next block asked for when the grant runs dry.
    pub block: u64,
    /// Served since the last sync (an idle holding gives its grant back).
    pub served_since_sync: u64,
}

impl Default for Holding {
    fn default() -> Self {
        Self {
            granted: 0,
            served: 0,
            others_served: 0,
            deadline: None,
            block: 1,
            served_since_sync: 0,
        }
    }
}

/// Why a call is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The grant ran dry (or died) on a request.
    Refill,
    /// The periodic sync: report, renew, give back an idle grant.
    Sync,
    /// Graceful shutdown: report and give everything back.
    Close,
    /// Report this side's count and read the total, changing nothing else.
    Report,
}

impl Holding {
    fn alive(&self, now_ms: u64) -> bool {
        self.deadline.is_some_and(|d| now_ms < d)
    }

    /// Serves one request from the grant, if it is alive and not used up.
    pub fn try_serve(&mut self, now_ms: u64) -> bool {
        if self.served < self.granted && self.alive(now_ms) {
            self.served += 1;
            self.served_since_sync += 1;
            true
        } else {
            false
        }
    }

    /// The count `used` a served request reports: the ledger's total at the
    /// last reply plus what this instance served since.
    pub fn used(&self) -> u64 {
        self.others_served.saturating_add(self.served)
    }

    /// The call to make now. Lowers the local grant to what the call keeps
    /// before it is sent, so a lost reply can never leave this side using
    /// allowance the ledger took back.
    pub fn call(&mut self, purpose: Purpose, now_ms: u64) -> LeaseCall {
        let unserved = self.granted - self.served;
        let keep = match purpose {
            Purpose::Close => 0,
            _ if !self.alive(now_ms) => 0,
            Purpose::Sync if self.served_since_sync == 0 => 0,
            _ => unserved,
        };
        self.granted = self.served + keep;
        let want = match purpose {
            Purpose::Refill => {
                let want = self.block;
                self.block = (self.block * 2).min(MAX_BLOCK);
                want
            }
            Purpose::Sync | Purpose::Close | Purpose::Report => 0,
        };
        if purpose == Purpose::Sync {
            if self.served_since_sync == 0 {
                self.block = 1;
            }
            self.served_since_sync = 0;
        }
        LeaseCall {
            served: self.served,
            keep,
            want,
            close: purpose == Purpose::Close,
        }
    }

    /// Takes a reply to a call sent at `sent_ms`; the grant lives `ttl_ms`
    /// from the sending (the ledger applied it later, so this side's
    /// deadline is never later than the ledger's view).
    pub fn reply(&mut self, reply: LeaseReply, sent_ms: u64, ttl_ms: u64) {
        // Requests served while the call was out came out of the kept part,
        // which the reply's grant includes.
        self.granted = reply.granted.max(self.served);
        self.others_served = reply.served_total.saturating_sub(reply.served);
        self.deadline = Some(sent_ms.saturating_add(ttl_ms));
    }

    /// Whether a refill found nothing free: the month is used up as far as
    /// this instance can tell.
    pub fn exhausted(&self) -> bool {
        self.served >= self.granted
    }
}

#[cfg(test)]
mod tests;
