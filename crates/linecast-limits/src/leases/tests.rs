#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

const TTL: u64 = 10_000;

/// What happens to a call on its way to the ledger and back.
#[derive(Debug, Clone, Copy)]
enum Fate {
    Answered,
    ReplyLost,
    RequestLost,
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Serve(usize),
    Send(usize, Purpose),
    Deliver(usize, Fate),
    Advance(u64),
    Crash(usize),
}

fn op(instances: usize) -> impl Strategy<Value = Op> {
    let i = 0..instances;
    prop_oneof![
        6 => i.clone().prop_map(Op::Serve),
        2 => (i.clone(), prop_oneof![Just(Purpose::Refill), Just(Purpose::Sync), Just(Purpose::Close)])
            .prop_map(|(i, p)| Op::Send(i, p)),
        3 => (i.clone(), prop_oneof![
            4 => Just(Fate::Answered),
            1 => Just(Fate::ReplyLost),
            1 => Just(Fate::RequestLost),
        ]).prop_map(|(i, f)| Op::Deliver(i, f)),
        1 => (0u64..15_000).prop_map(Op::Advance),
        1 => i.prop_map(Op::Crash),
    ]
}

/// Instances, the ledger and what was really served, run op by op.
struct World {
    limit: u64,
    ledger: Ledger,
    now: u64,
    holdings: Vec<Option<Holding>>,
    in_flight: Vec<Option<(LeaseCall, u64)>>,
    /// Served per instance, as its clients saw it.
    actual: Vec<u64>,
    /// No instance vanished without its close reaching the ledger.
    clean: bool,
}

impl World {
    fn new(instances: usize, limit: u64, seed: u64) -> Self {
        Self {
            limit,
            ledger: Ledger::seeded(seed),
            now: 0,
            holdings: vec![Some(Holding::default()); instances],
            in_flight: vec![None; instances],
            actual: vec![0; instances],
            clean: true,
        }
    }

    fn id(i: usize) -> String {
        format!("instance-{i}")
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Serve(i) => {
                if let Some(h) = self.holdings[i].as_mut()
                    && h.try_serve(self.now)
                {
                    self.actual[i] += 1;
                }
            }
            Op::Send(i, purpose) => {
                if self.in_flight[i].is_none()
                    && let Some(h) = self.holdings[i].as_mut()
                {
                    self.in_flight[i] = Some((h.call(purpose, self.now), self.now));
                }
            }
            Op::Deliver(i, fate) => {
                let Some((call, sent)) = self.in_flight[i].take() else {
                    return;
                };
                let reply = match fate {
                    Fate::RequestLost => None,
                    Fate::Answered | Fate::ReplyLost => Some(self.ledger.lease(&Self::id(i), call, self.limit)),
                };
                if call.close {
                    // The instance is gone whether or not its close arrived.
                    self.clean &= reply.is_some();
                    self.holdings[i] = None;
                } else if let (Fate::Answered, Some(reply), Some(h)) = (fate, reply, self.holdings[i].as_mut()) {
                    h.reply(reply, sent, TTL);
                }
            }
            Op::Advance(ms) => self.now += ms,
            Op::Crash(i) => {
                if self.holdings[i].take().is_some() {
                    self.clean = false;
                }
                self.in_flight[i] = None;
            }
        }
    }

    fn served(&self) -> u64 {
        self.actual.iter().sum()
    }

    fn check(&self, seed: u64) -> Result<(), TestCaseError> {
        prop_assert!(
            seed + self.served() <= self.limit.max(seed),
            "served {} past the limit {} (seed {seed})",
            self.served(),
            self.limit
        );
        prop_assert!(self.ledger.reserved() <= self.limit.max(seed));
        prop_assert!(
            self.ledger.served() <= seed + self.served(),
            "the ledger never counts more than was served"
        );
        for (i, h) in self.holdings.iter().enumerate() {
            if let Some(h) = h {
                prop_assert_eq!(h.served, self.actual[i]);
                prop_assert!(h.served <= h.granted);
                if let Some(e) = self.ledger.entries.get(&Self::id(i)) {
                    prop_assert!(
                        h.granted <= e.granted || self.in_flight[i].is_some(),
                        "a side never holds more than the ledger granted it"
                    );
                }
            }
        }
        for e in self.ledger.entries.values() {
            prop_assert!(e.served <= e.granted);
        }
        Ok(())
    }

    /// Every live instance closes cleanly.
    fn close_all(&mut self) {
        for i in 0..self.holdings.len() {
            self.in_flight[i] = None;
            if let Some(h) = self.holdings[i].as_mut() {
                let call = h.call(Purpose::Close, self.now);
                self.ledger.lease(&Self::id(i), call, self.limit);
                self.holdings[i] = None;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    /// Whatever the interleaving of requests, calls, lost messages, expiry
    /// and crashes: no more than the limit is ever served, the ledger never
    /// counts a request that was not served, and a side never serves beyond
    /// what the ledger granted it. When no instance vanished, closing them
    /// all leaves the ledger's count equal to what was served, with nothing
    /// reserved beyond it.
    #[test]
    fn a_lease_never_lets_a_customer_exceed_its_quota(
        instances in 1usize..5,
        limit in 0u64..300,
        seed in 0u64..50,
        ops in proptest::collection::vec(op(4), 0..400),
    ) {
        let mut world = World::new(instances, limit, seed);
        for op in ops {
            let op = match op {
                Op::Serve(i) => Op::Serve(i % instances),
                Op::Send(i, p) => Op::Send(i % instances, p),
                Op::Deliver(i, f) => Op::Deliver(i % instances, f),
                Op::Crash(i) => Op::Crash(i % instances),
                Op::Advance(ms) => Op::Advance(ms),
            };
            world.apply(op);
            world.check(seed)?;
        }
        let clean = world.clean;
        world.close_all();
        world.check(seed)?;
        if clean {
            prop_assert_eq!(world.ledger.served(), seed + world.served());
            prop_assert_eq!(world.ledger.reserved(), world.ledger.served());
            prop_assert!(world.ledger.entries.is_empty());
        }
    }

    /// Requests that keep coming are all served up to the limit exactly:
    /// instances refilling and syncing in turn never strand allowance.
    #[test]
    fn busy_instances_serve_the_quota_exactly(
        instances in 1usize..5,
        limit in 0u64..500,
        order in proptest::collection::vec(0usize..4, 1..64),
    ) {
        let mut world = World::new(instances, limit, 0);
        let mut idle_rounds = 0;
        let mut turn = 0;
        while idle_rounds < 2 * instances + 2 {
            let i = order[turn % order.len()] % instances;
            turn += 1;
            let before = world.served();
            world.apply(Op::Serve(i));
            if world.served() == before {
                // Dry: sync every instance (idle ones give back), then refill.
                for j in 0..instances {
                    world.apply(Op::Send(j, Purpose::Sync));
                    world.apply(Op::Deliver(j, Fate::Answered));
                }
                world.apply(Op::Send(i, Purpose::Refill));
                world.apply(Op::Deliver(i, Fate::Answered));
                world.apply(Op::Serve(i));
            }
            if world.served() == before { idle_rounds += 1 } else { idle_rounds = 0 }
            world.check(0)?;
        }
        prop_assert_eq!(world.served(), limit);
    }
}

#[test]
fn grants_shrink_to_an_eighth_of_what_is_free_and_never_below_one() {
    assert_eq!(grant_cap(0), 0);
    assert_eq!(grant_cap(1), 1);
    assert_eq!(grant_cap(15), 1);
    assert_eq!(grant_cap(16), 2);
    assert_eq!(grant_cap(8_000), 1_000);
    let mut ledger = Ledger::default();
    let want = |n| LeaseCall {
        served: 0,
        keep: 0,
        want: n,
        close: false,
    };
    assert_eq!(ledger.lease("a", want(1_000), 800).granted, 100);
    // 700 free: the next grant of b is 87.
    assert_eq!(ledger.lease("b", want(1_000), 800).granted, 87);
}

#[test]
fn a_lost_reply_is_given_back_on_the_next_call() {
    let mut ledger = Ledger::default();
    let mut h = Holding::default();
    let call = h.call(Purpose::Refill, 0);
    let first = ledger.lease("a", call, 100);
    h.reply(first, 0, TTL);
    assert_eq!(h.granted, 1);
    assert!(h.try_serve(1));
    // A refill whose reply never arrives: the ledger granted 2 more.
    let lost = h.call(Purpose::Refill, 2);
    assert_eq!(ledger.lease("a", lost, 100).granted, 3);
    assert_eq!(h.granted, 1, "this side does not use what it never heard of");
    // The next sync gives the unknown grant back.
    let sync = h.call(Purpose::Sync, 3);
    let reply = ledger.lease("a", sync, 100);
    assert_eq!((reply.granted, reply.served, ledger.reserved()), (1, 1, 1));
}

#[test]
fn an_idle_holding_gives_its_grant_back_at_the_sync() {
    let mut ledger = Ledger::default();
    let mut h = Holding {
        block: 8,
        ..Holding::default()
    };
    let call = h.call(Purpose::Refill, 0);
    h.reply(ledger.lease("a", call, 1_000), 0, TTL);
    assert!(h.try_serve(1));
    // Busy since the last sync: the grant is kept and renewed.
    let call = h.call(Purpose::Sync, 1_000);
    h.reply(ledger.lease("a", call, 1_000), 1_000, TTL);
    assert_eq!((h.granted, ledger.reserved()), (8, 8));
    // Idle for a whole sync period: given back.
    let call = h.call(Purpose::Sync, 2_000);
    h.reply(ledger.lease("a", call, 1_000), 2_000, TTL);
    assert_eq!((h.granted, ledger.reserved(), ledger.served()), (1, 1, 1));
}

#[test]
fn a_grant_dies_at_its_deadline_and_is_then_given_back() {
    let mut ledger = Ledger::default();
    let mut h = Holding {
        block: 4,
        ..Holding::default()
    };
    let call = h.call(Purpose::Refill, 0);
    h.reply(ledger.lease("a", call, 100), 0, TTL);
    assert!(h.try_serve(TTL - 1));
    assert!(!h.try_serve(TTL), "the grant dies with its deadline");
    let call = h.call(Purpose::Refill, TTL);
    assert_eq!(call.keep, 0);
    let reply = ledger.lease("a", call, 100);
    assert_eq!(
        reply.granted,
        1 + 8,
        "the dead three came back; a fresh block of 8 was granted"
    );
}
