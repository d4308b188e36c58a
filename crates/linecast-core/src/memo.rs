//! Every per-thread and process-wide memo of the server, in one place.
//!
//! A memo here keeps the answer of a pure function that the hot path asks
//! again and again, outside the budgeted caches (`memory.rs`): each is
//! small, has a hard bound, says what it saves and what was measured, and
//! reports its size ([`sizes`], exported by the API as
//! `linecast_memo_entries{memo=...}`). Per-thread memos need no lock; a
//! thread's entries are counted into the size when it stores them.
//!
//! | memo | scope | bound | saves |
//! |---|---|---|---|
//! | `key_digests` | per thread | [`KEY_DIGESTS`] keys | SHA-256 and hex of each presented key |
//! | `clock_day` | per thread | 1 day | the calendar date of the Unix day |
//! | `et_minute` | per thread | 1 minute | the ET date of a UTC minute |
//! | `quota_month` | per thread | 1 month | the quota month's bounds and header value |
//! | `plan_headers` | process | [`PLAN_HEADERS`] plans | a plan's rate-limit header values |
//!
//! Not memos, and so not here: what is built once from constants at first
//! use, its size fixed by the code (the route table and its method sets,
//! the secret route templates, the Swagger UI files, the metrics' handles,
//! one per route template), and the resolution memo's per-thread key
//! buffer (a scratch `Vec` reused for each lookup, as long as the longest
//! key of typed parameters), and the request log's thread numbers (a
//! thread is numbered once, to pick its shard of the log's buffer:
//! `services::request_log`). The budgeted caches are in `memory.rs`.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use chrono::NaiveDate;

/// Keys whose digest each thread remembers; past it the thread starts over.
pub const KEY_DIGESTS: usize = 4096;

/// Plans (rate and monthly limit) whose header values are kept; past it
/// the memo starts over. Limits come from plans: a handful.
pub const PLAN_HEADERS: usize = 1024;

/// Entries held, per memo, summed over threads.
struct Size(AtomicU64);

impl Size {
    const fn new() -> Self {
        Self(AtomicU64::new(0))
    }
    fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    fn sub(&self, n: u64) {
        self.0.fetch_sub(n, Ordering::Relaxed);
    }
    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

static KEY_DIGESTS_SIZE: Size = Size::new();
static CLOCK_DAY_SIZE: Size = Size::new();
static ET_MINUTE_SIZE: Size = Size::new();
static QUOTA_MONTH_SIZE: Size = Size::new();
static PLAN_HEADERS_SIZE: Size = Size::new();

/// Each memo's name and the entries it holds now (summed over threads).
pub fn sizes() -> [(&'static str, u64); 5] {
    [
        ("key_digests", KEY_DIGESTS_SIZE.get()),
        ("clock_day", CLOCK_DAY_SIZE.get()),
        ("et_minute", ET_MINUTE_SIZE.get()),
        ("quota_month", QUOTA_MONTH_SIZE.get()),
        ("plan_headers", PLAN_HEADERS_SIZE.get()),
    ]
}

/// A per-thread map that gives its entries back to the size when its
/// thread ends.
struct Counted<T> {
    value: T,
    size: &'static Size,
    held: u64,
}

impl<T> Drop for Counted<T> {
    fn drop(&mut self) {
        self.size.sub(self.held);
    }
}

/// A quota month: its first second, its end and the caller's value.
type Month = (i64, i64, Box<dyn Any>);

thread_local! {
    static DIGESTS: RefCell<Counted<foldhash::HashMap<HeldKey, [u8; 64]>>> = RefCell::new(Counted {
        value: foldhash::HashMap::default(),
        size: &KEY_DIGESTS_SIZE,
        held: 0,
    });
    static CLOCK_DAY: Cell<Option<(u64, NaiveDate)>> = const { Cell::new(None) };
    static ET_MINUTE: Cell<Option<(i64, NaiveDate)>> = const { Cell::new(None) };
    static QUOTA_MONTH: RefCell<Option<Month>> = const { RefCell::new(None) };
}

/// `key_digests`: the hex SHA-256 digest of `key`, remembered per thread
/// when `remember` (only keys of a key's shape are). A key in use is hashed
/// once per thread, not on every request. Measured (`bench/RESULTS.md`,
/// "The cached hit path"): the SHA-256 of a key costs about 3,500
/// instructions under callgrind, paid once per key and thread; hashing the
/// map with foldhash instead of SipHash saved about 200 more. The map is keyed by the full key and compared
/// exactly (foldhash, seeded per process), so it never answers another
/// key's digest; it authorizes nothing by itself.
pub fn key_digest(key: &str, remember: bool, digest: impl FnOnce(&str) -> [u8; 64]) -> [u8; 64] {
    if let Some(hit) = key_digest_known(key) {
        return hit;
    }
    let out = digest(key);
    if remember && let Some(key) = HeldKey::of(key) {
        DIGESTS.with(|seen| {
            let mut seen = seen.borrow_mut();
            if seen.value.len() >= KEY_DIGESTS {
                seen.value.clear();
                KEY_DIGESTS_SIZE.sub(seen.held);
                seen.held = 0;
            }
            if seen.value.insert(key, out).is_none() {
                seen.held += 1;
                KEY_DIGESTS_SIZE.add(1);
            }
        });
    }
    out
}

/// Whether this thread remembers `key`'s digest.
pub fn key_digest_known(key: &str) -> Option<[u8; 64]> {
    let key = HeldKey::of(key)?;
    DIGESTS.with(|seen| seen.borrow().value.get(&key).copied())
}

/// The longest key `key_digests` holds, in bytes: the longest a key may
/// be, its prefix and its longest body. Key material checks at compile
/// time that its longest key is exactly this long, so the memo depends on
/// nothing of it.
pub const HELD_KEY_MAX: usize = 75;

/// A presented key as `key_digests` holds it: its bytes in the map's own
/// slot, zero-filled, with its length, so a hit compares where the probe
/// already is instead of following a `Box<str>` to another cache line.
/// The length keeps a key and the same key followed by NUL bytes apart.
#[derive(PartialEq, Eq)]
struct HeldKey {
    len: u8,
    bytes: [u8; HELD_KEY_MAX],
}

/// Only the key's own bytes are hashed (keys equal in length and bytes
/// hash alike, as `Eq` asks); the zeros after them would only cost time.
impl std::hash::Hash for HeldKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write(&self.bytes[..usize::from(self.len)]);
    }
}

impl HeldKey {
    /// `key`, when it is no longer than a key can be (a longer one is
    /// never remembered, and so never found).
    fn of(key: &str) -> Option<Self> {
        let len = key.len();
        let mut bytes = [0; HELD_KEY_MAX];
        bytes.get_mut(..len)?.copy_from_slice(key.as_bytes());
        Some(Self { len: len as u8, bytes })
    }
}

/// Marks a per-thread single-entry memo as filled on this thread (its size
/// counts threads holding an entry).
fn first_fill<T: Copy>(slot: &Cell<Option<T>>, size: &'static Size) {
    if slot.get().is_none() {
        size.add(1);
    }
}

/// `clock_day`: the calendar date of Unix day `day`, remembered per thread.
/// Every authenticated request reads the clock more than once, and
/// chrono's conversion of a timestamp to a calendar date costs more than
/// reading the clock; this memo leaves the time of day to add. Not
/// measured on its own (it is part of the access decision's 2,250
/// instructions in `bench/RESULTS.md`).
pub fn clock_day(day: u64, date_of: impl FnOnce(u64) -> Option<NaiveDate>) -> Option<NaiveDate> {
    CLOCK_DAY.with(|cached| match cached.get() {
        Some((at, date)) if at == day => Some(date),
        _ => {
            let date = date_of(day)?;
            first_fill(cached, &CLOCK_DAY_SIZE);
            cached.set(Some((day, date)));
            Some(date)
        }
    })
}

/// `et_minute`: the ET date of UTC minute `minute`, remembered per thread.
/// Exact: New York's offset from UTC is a whole number of hours, so its
/// dates change on a UTC minute boundary, never inside one. Saves the time
/// zone conversion of every read's key (not measured on its own; part of
/// the resolution memo's 500 instructions in `bench/RESULTS.md`).
pub fn et_minute(minute: i64, date_of: impl FnOnce() -> NaiveDate) -> NaiveDate {
    ET_MINUTE.with(|last| match last.get() {
        Some((at, date)) if at == minute => date,
        _ => {
            let date = date_of();
            first_fill(last, &ET_MINUTE_SIZE);
            last.set(Some((minute, date)));
            date
        }
    })
}

/// `quota_month`: the quota month holding the Unix second `at`, as `make`
/// describes it (its first second, its end and a value of the caller's: the
/// API's header value), remembered per thread, so the calendar is worked
/// out and the value written once per month and thread. Measured with the
/// gate reading the decision's instant instead of the clock again: about
/// 300 instructions a request (`bench/RESULTS.md`). A value of another
/// type than `V` (never, with one caller) is made again.
pub fn quota_month<V: Clone + 'static>(at: i64, make: impl FnOnce() -> (i64, i64, V)) -> (i64, V) {
    QUOTA_MONTH.with(|memo| {
        if let Some((start, end, value)) = memo.borrow().as_ref()
            && *start <= at
            && at < *end
            && let Some(value) = value.downcast_ref::<V>()
        {
            return (*end, value.clone());
        }
        let (start, end, value) = make();
        let mut memo = memo.borrow_mut();
        if memo.is_none() {
            QUOTA_MONTH_SIZE.add(1);
        }
        *memo = Some((start, end, Box::new(value.clone())));
        (end, value)
    })
}

type PlanMemo = RwLock<foldhash::HashMap<(u32, u32, u64), Arc<dyn Any + Send + Sync>>>;

/// `plan_headers`: what a plan (rate per second, burst, monthly limit)
/// writes in every response's rate-limit headers, made by `make` once per
/// plan and shared by every thread: a read lock and a clone instead of two
/// header values formatted and validated per request (their validation
/// alone is about 300 instructions, `bench/RESULTS.md`).
pub fn plan_headers<V: Clone + Send + Sync + 'static>(key: (u32, u32, u64), make: impl FnOnce() -> V) -> V {
    static MEMO: OnceLock<PlanMemo> = OnceLock::new();
    let memo = MEMO.get_or_init(PlanMemo::default);
    if let Some(hit) = memo
        .read()
        .ok()
        .and_then(|m| m.get(&key).and_then(|v| v.downcast_ref::<V>().cloned()))
    {
        return hit;
    }
    let value = make();
    if let Ok(mut m) = memo.write() {
        if m.len() >= PLAN_HEADERS {
            PLAN_HEADERS_SIZE.sub(m.len() as u64);
            m.clear();
        }
        if m.insert(key, Arc::new(value.clone())).is_none() {
            PLAN_HEADERS_SIZE.add(1);
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_memo_answers_what_it_was_given_and_counts_its_entries() {
        let before = sizes();
        let d = key_digest("lc_test_key", true, |_| [b'a'; 64]);
        assert_eq!(d, [b'a'; 64]);
        // Remembered: the digest is not asked again.
        assert_eq!(key_digest("lc_test_key", true, |_| unreachable!()), [b'a'; 64]);
        assert_eq!(key_digest("other", false, |_| [b'b'; 64]), [b'b'; 64]);
        assert_eq!(key_digest_known("other"), None);
        let date = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        assert_eq!(et_minute(7, || date), date);
        assert_eq!(et_minute(7, || unreachable!()), date);
        assert_eq!(quota_month(5, || (0, 10, "v")), (10, "v"));
        assert_eq!(quota_month::<&str>(9, || unreachable!()), (10, "v"));
        assert_eq!(quota_month(10, || (10, 20, "w")), (20, "w"));
        assert_eq!(plan_headers((1, 2, 3), || 7_u8), 7);
        assert_eq!(plan_headers::<u8>((1, 2, 3), || unreachable!()), 7);
        let after = sizes();
        for ((name, b), (_, a)) in before.iter().zip(after.iter()) {
            assert!(a >= b, "{name}");
        }
        assert!(after[0].1 > before[0].1 || before[0].1 > 0, "a digest is counted");
    }

    #[test]
    fn a_thread_holds_at_most_the_bound_and_counts_what_it_holds() {
        std::thread::spawn(|| {
            for i in 0..KEY_DIGESTS + 10 {
                key_digest(&format!("k-{i}"), true, |_| [0; 64]);
            }
            let held = DIGESTS.with(|seen| (seen.borrow().held, seen.borrow().value.len()));
            assert_eq!(held, (10, 10), "started over at the bound");
        })
        .join()
        .unwrap();
    }

    #[test]
    fn a_digest_is_found_only_for_the_very_key_it_was_remembered_for() {
        std::thread::spawn(|| {
            let longest = "k".repeat(HELD_KEY_MAX);
            for key in ["sk_service_abc", longest.as_str()] {
                let digest = [key.len() as u8; 64];
                assert_eq!(key_digest(key, true, |_| digest), digest);
                assert_eq!(key_digest_known(key), Some(digest), "{key}");
                // The same bytes and a NUL, or one byte fewer, are other keys.
                assert_eq!(key_digest_known(&format!("{key}\0")), None);
                assert_eq!(key_digest_known(&key[..key.len() - 1]), None);
                let mut first = key.as_bytes().to_vec();
                first[0] = b'S';
                assert_eq!(key_digest_known(std::str::from_utf8(&first).unwrap()), None);
            }
            // Longer than any key: computed each time, never remembered.
            let longer = format!("{longest}k");
            assert_eq!(key_digest(&longer, true, |_| [1; 64]), [1; 64]);
            assert_eq!(key_digest(&longer, true, |_| [2; 64]), [2; 64]);
            assert_eq!(key_digest_known(&longer), None);
            assert_eq!(DIGESTS.with(|seen| seen.borrow().held), 2);
        })
        .join()
        .unwrap();
    }
}
