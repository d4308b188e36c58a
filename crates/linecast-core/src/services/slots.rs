//! Per-customer caps on long-lived responses: open change streams and
//! large downloads in flight. A customer holds at most `cap` slots of one
//! kind; a slot is taken before the request is counted (a refusal costs no
//! quota, `services::access`) and given back when the response ends, however
//! it ends (dropping the [`Slot`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

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

/// The slots each customer holds, at most `cap` each.
#[derive(Debug)]
pub struct Slots {
    what: &'static str,
    cap: u32,
    retry_after_secs: u64,
    open: Mutex<HashMap<i64, u32>>,
}

/// One slot held; dropping it gives the slot back.
#[derive(Debug)]
pub struct Slot {
    slots: Arc<Slots>,
    customer_id: i64,
}

impl Slots {
    /// Slots for `what` (plural, for the refusal's wording), `cap` per
    /// customer; a refusal suggests retrying after `retry_after_secs`.
    pub fn new(what: &'static str, cap: u32, retry_after_secs: u64) -> Arc<Self> {
        Arc::new(Self {
            what,
            cap,
            retry_after_secs: retry_after_secs.max(1),
            open: Mutex::new(HashMap::new()),
        })
    }

    /// The cap per customer.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// A slot for `customer_id`, unless it holds `cap` already.
    pub fn open(self: &Arc<Self>, customer_id: i64) -> Result<Slot, Full> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let held = open.entry(customer_id).or_insert(0);
        if *held >= self.cap {
            if *held == 0 {
                open.remove(&customer_id);
            }
            return Err(Full {
                what: self.what,
                cap: self.cap,
                retry_after_secs: self.retry_after_secs,
            });
        }
        *held += 1;
        Ok(Slot {
            slots: self.clone(),
            customer_id,
        })
    }

    /// Slots `customer_id` holds now.
    pub fn held(&self, customer_id: i64) -> u32 {
        self.open
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&customer_id)
            .copied()
            .unwrap_or(0)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = open.get_mut(&self.customer_id) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                open.remove(&self.customer_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_customer_holds_at_most_cap_and_a_dropped_slot_comes_back() {
        let slots = Slots::new("large downloads", 2, 5);
        let a = slots.open(1).unwrap();
        let _b = slots.open(1).unwrap();
        assert_eq!(
            slots.open(1).unwrap_err(),
            Full {
                what: "large downloads",
                cap: 2,
                retry_after_secs: 5
            }
        );
        let _other = slots.open(2).unwrap();
        drop(a);
        assert_eq!(slots.held(1), 1);
        assert!(slots.open(1).is_ok());
    }

    #[test]
    fn a_cap_of_zero_refuses_and_leaves_nothing_behind() {
        let slots = Slots::new("event streams", 0, 0);
        assert_eq!(slots.open(7).unwrap_err().retry_after_secs, 1);
        assert_eq!(slots.held(7), 0);
        assert!(slots.open.lock().unwrap().is_empty());
    }
}
