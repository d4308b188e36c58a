//! Measured heap sizes. Caches weigh what they hold by what building it
//! really left allocated, not by an estimate from the object's size:
//!
//! - [`Counting`] is a global allocator that forwards to the system
//!   allocator and keeps, per thread, the net bytes allocated minus freed.
//!   A binary opts in with `#[global_allocator]` (the API server does).
//! - [`measured`] runs a synchronous computation and returns what it left
//!   allocated on this thread: the heap its result holds (scratch freed
//!   before returning nets out). Without the counting allocator it returns
//!   `None`, and callers fall back to an estimate.
//!
//! Requested sizes are counted, not the allocator's rounding or its own
//! bookkeeping: the process's resident memory is the budget plus that
//! overhead (measured in `bench/sweep.sh`), which [`tune_allocator`] keeps
//! small.

mod counting;
mod tuning;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

pub use counting::Counting;
pub use tuning::{ARENA_MAX, MMAP_THRESHOLD, release_free_memory, tune_allocator};

thread_local! {
    /// Net bytes allocated minus freed by this thread. Const-initialised
    /// with no destructor, so the allocator may touch it at any time.
    static NET: Cell<i64> = const { Cell::new(0) };
}

/// Set once the counting allocator has served an allocation.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Called by [`Counting`] on every change of this thread's heap.
fn record(delta: i64) {
    // During thread teardown the slot may be gone: nothing to measure then.
    let _ = NET.try_with(|net| net.set(net.get().wrapping_add(delta)));
}

fn activate() {
    if !ACTIVE.load(Ordering::Relaxed) {
        ACTIVE.store(true, Ordering::Relaxed);
    }
}

/// Whether the counting allocator is this program's global allocator.
pub fn is_active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Net heap bytes this thread has allocated minus freed so far.
pub fn thread_net() -> i64 {
    NET.try_with(Cell::get).unwrap_or(0)
}

/// Runs `f` and returns its result with the heap bytes it left allocated on
/// this thread (never negative), or `None` without the counting allocator.
/// `f` must not await or move work to other threads: what they allocate is
/// not seen.
pub fn measured<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    let before = thread_net();
    let out = f();
    let after = thread_net();
    let bytes = is_active().then(|| u64::try_from(after.saturating_sub(before)).unwrap_or(0));
    (out, bytes)
}
