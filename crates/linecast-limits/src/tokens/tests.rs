#![allow(clippy::unwrap_used)]

use proptest::prelude::*;

use super::*;

const SPEC: Rate = Rate {
    per_second: 50,
    burst: 100,
};

/// The key's bucket as Redis holds it: what `TOKENS_SCRIPT` in `leased.rs`
/// does, step by step (give back, then take what fits).
struct Bucket {
    gcra: Gcra,
    tat: Option<i64>,
    calls: u32,
    largest_take: u32,
}

impl Bucket {
    fn new(rate: Rate) -> Self {
        Self {
            gcra: Gcra::new(rate),
            tat: None,
            calls: 0,
            largest_take: 0,
        }
    }

    /// Returns the tokens taken and the decision for the first of them.
    fn call(&mut self, now_ms: u64, want: u32, give_back: u32) -> (u32, RateDecision) {
        self.calls += 1;
        let now = i64::try_from(now_ms).unwrap() * 1_000;
        let (interval, tolerance) = (self.gcra.interval_us(), self.gcra.tolerance_us());
        let tat = (self.tat.unwrap_or(now) - i64::from(give_back) * interval).max(now);
        let room = (tolerance - (tat - now)) / interval;
        let n = i64::from(want).min(room);
        if n < 1 {
            self.tat = Some(tat);
            return (0, self.gcra.refused(tat + interval - now - tolerance));
        }
        let tat = tat + n * interval;
        self.tat = Some(tat);
        let n = u32::try_from(n).unwrap();
        self.largest_take = self.largest_take.max(n);
        (n, self.gcra.admitted(tat - now))
    }
}

/// One request on one instance at `now_ms`: whether it was admitted.
fn request(tokens: &mut Tokens, bucket: &mut Bucket, rate: Rate, now_ms: u64) -> bool {
    if tokens.use_one(now_ms).is_some() {
        return true;
    }
    let call = tokens.next_call(rate);
    let (n, first) = bucket.call(now_ms, call.want, call.give_back);
    matches!(tokens.took(call, rate, now_ms, n, first), RateDecision::Allowed { .. })
}

#[test]
fn at_the_spec_rate_tokens_live_just_under_half_a_second_and_a_take_is_at_most_twelve() {
    // 250 calls per 3 s window; a tenth is 25 calls of 20 ms: 500 ms, less
    // one millisecond.
    assert_eq!(token_ttl_ms(SPEC), 499);
    assert_eq!(take_cap(SPEC), 12);
    // 1/s, burst 1: a window admits 4; a tenth is under one call, so a
    // token lives under one interval.
    let tiny = Rate {
        per_second: 1,
        burst: 1,
    };
    assert_eq!(token_ttl_ms(tiny), 999);
    assert_eq!(take_cap(tiny), 1);
    // 1/s with a burst of 500 would hold tokens for 50 s: capped.
    let slow = Rate {
        per_second: 1,
        burst: 500,
    };
    assert_eq!(token_ttl_ms(slow), MAX_TTL_MS);
}

#[test]
fn a_key_used_ten_times_a_second_makes_one_redis_call_per_four_requests_or_fewer() {
    let mut tokens = Tokens::default();
    let mut bucket = Bucket::new(SPEC);
    let requests = 600u32;
    for i in 0..requests {
        assert!(request(&mut tokens, &mut bucket, SPEC, u64::from(i) * 100));
    }
    assert!(
        bucket.calls * 4 <= requests,
        "{} calls for {requests} requests",
        bucket.calls
    );
}

#[test]
fn a_burst_at_one_instant_gets_exactly_the_burst_in_takes_of_at_most_twelve() {
    let mut tokens = Tokens::default();
    let mut bucket = Bucket::new(SPEC);
    let admitted = (0..130).filter(|_| request(&mut tokens, &mut bucket, SPEC, 5)).count();
    assert_eq!(admitted, 100);
    assert_eq!(bucket.largest_take, 12);
}

#[test]
fn dead_tokens_go_back_with_the_next_take_and_the_bucket_counts_only_the_used_ones() {
    // 1/s with a burst of 100: a token takes a whole second to come back,
    // and tokens live 2 s (the cap).
    let slow = Rate {
        per_second: 1,
        burst: 100,
    };
    let mut tokens = Tokens::default();
    let mut bucket = Bucket::new(slow);
    // Takes of 1, 2 and 4; one of the 4 used.
    for t in [0, 1, 2, 3] {
        assert!(request(&mut tokens, &mut bucket, slow, t));
    }
    assert_eq!(bucket.tat, Some(7_000_000));
    // At 2.5 s the three left are dead: the next request gives them back
    // and takes what was used of the last take (one).
    assert!(tokens.use_one(2_500).is_none());
    let call = tokens.next_call(slow);
    assert_eq!(call, TakeCall { want: 1, give_back: 3 });
    let (n, first) = bucket.call(2_500, call.want, call.give_back);
    tokens.took(call, slow, 2_500, n, first);
    assert_eq!(tokens.give_back, 0);
    // Five requests were served: the bucket is five seconds ahead of 0.
    assert_eq!(bucket.tat, Some(5_000_000));
}

#[test]
fn the_sync_round_leaves_a_key_that_just_went_dead_and_frees_one_quiet_for_a_whole_ttl() {
    let mut tokens = Tokens::default();
    let mut bucket = Bucket::new(SPEC);
    for t in [0, 1, 2, 3] {
        assert!(request(&mut tokens, &mut bucket, SPEC, t));
    }
    // Dead at 499 (taken at 3: until 502), but recently: not yet.
    assert_eq!(tokens.quiet(600), None);
    assert_eq!(tokens.left, 3);
    // Quiet since 502 for a whole ttl (499 ms): three go back.
    assert_eq!(tokens.quiet(1_001), Some((3, Some(SPEC))));
}

#[test]
fn three_instances_holding_full_takes_when_a_flood_starts_stay_within_a_tenth_of_the_bound() {
    // The worst case of the bound: each instance holds a fresh take of 12
    // (taken from a full bucket) when a 3 s flood starts, just before the
    // tokens die, so the window gets them on top of the bucket's own.
    let mut held = vec![Tokens::default(); 3];
    let mut bucket = Bucket::new(SPEC);
    for (i, tokens) in held.iter_mut().enumerate() {
        // Ramp to takes of 12 used up in time (the bucket is full again a
        // second later).
        let t = 1_000 * u64::try_from(i).unwrap();
        for _ in 0..39 {
            assert!(request(tokens, &mut bucket, SPEC, t));
        }
    }
    for tokens in &mut held {
        assert!(request(tokens, &mut bucket, SPEC, 3_000));
        assert_eq!(tokens.left, 11);
    }
    let start = 3_000 + token_ttl_ms(SPEC) - 1;
    let mut admitted = 0u32;
    // A burst at the window's first instant uses the held tokens, then a
    // call every 5 ms on each instance.
    for tokens in &mut held {
        for _ in 0..11 {
            admitted += u32::from(request(tokens, &mut bucket, SPEC, start));
        }
    }
    assert_eq!(admitted, 33);
    for now in (start..=start + 3_000).step_by(5) {
        for tokens in &mut held {
            admitted += u32::from(request(tokens, &mut bucket, SPEC, now));
        }
    }
    // 100 + 3 × 50 = 250, and a tenth over: 275.
    assert!((250..=275).contains(&admitted), "{admitted} admitted in 3 s");
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// `count` requests at one instant to instance `i`, `gap` ms after the
    /// previous event.
    Requests { i: usize, gap: u64, count: u32 },
    /// Instance `i`'s sync round.
    Sync { i: usize, gap: u64 },
}

fn event(instances: usize) -> impl Strategy<Value = Event> {
    prop_oneof![
        // A steady client.
        8 => (0..instances, 0u64..120).prop_map(|(i, gap)| Event::Requests { i, gap, count: 1 }),
        // Bursts after a pause: ramps takes up, then lets the bucket fill
        // while tokens are held (the worst case of the bound).
        3 => (0..instances, 0u64..2_500, 1u32..40).prop_map(|(i, gap, count)| Event::Requests { i, gap, count }),
        1 => (0..instances, 0u64..1_000).prop_map(|(i, gap)| Event::Sync { i, gap }),
    ]
}

fn scenario() -> impl Strategy<Value = (Rate, usize, Vec<Event>)> {
    (1u32..120, 1u32..200, 1usize..5).prop_flat_map(|(per_second, burst, instances)| {
        (
            Just(Rate { per_second, burst }),
            Just(instances),
            proptest::collection::vec(event(instances), 1..400),
        )
    })
}

proptest! {
    /// However requests spread over instances, and whenever sync rounds run,
    /// no 3 s window admits more than a tenth over `burst + 3 × rate`.
    #[test]
    fn no_three_second_window_admits_more_than_ten_percent_over_the_bucket_bound(
        (rate, instances, events) in scenario(),
    ) {
        let mut bucket = Bucket::new(rate);
        let mut held = vec![Tokens::default(); instances];
        let mut now = 0u64;
        let mut admitted = Vec::new();
        for e in events {
            match e {
                Event::Requests { i, gap, count } => {
                    now += gap;
                    for _ in 0..count {
                        if request(&mut held[i], &mut bucket, rate, now) {
                            admitted.push(now);
                        }
                    }
                }
                Event::Sync { i, gap } => {
                    now += gap;
                    if let Some((give_back, _)) = held[i].quiet(now) {
                        bucket.call(now, 0, give_back);
                        held[i] = Tokens::default();
                    }
                }
            }
        }
        let bound = u64::from(rate.burst) + 3 * u64::from(rate.per_second);
        let most = bound + bound / 10;
        for (k, &start) in admitted.iter().enumerate() {
            let n = admitted[k..].iter().take_while(|&&t| t <= start + 3_000).count() as u64;
            prop_assert!(n <= most, "{n} admitted in [{start}, {start} + 3000] ms; bound {bound}, at most {most}");
        }
    }
}
