//! `measured` under the counting allocator: what a computation keeps is
//! counted to the byte, its scratch nets out, and other threads' work is
//! not seen.

#![allow(clippy::unwrap_used)]

use linecast_heap::{Counting, is_active, measured};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn a_kept_vector_weighs_its_capacity_and_scratch_weighs_nothing() {
    let (kept, bytes) = measured(|| {
        let scratch: Vec<u64> = (0..10_000).collect();
        let mut kept = Vec::with_capacity(1_000);
        kept.extend(scratch.iter().take(1_000).map(|n| *n as u8));
        kept
    });
    assert!(is_active());
    assert_eq!(kept.len(), 1_000);
    assert_eq!(bytes, Some(1_000));
    let ((), freed) = measured(|| drop(kept));
    assert_eq!(freed, Some(0), "freeing is never a negative weight");
}

#[test]
fn strings_grown_by_reallocation_weigh_their_final_capacity() {
    let (s, bytes) = measured(|| {
        let mut s = String::new();
        for _ in 0..100 {
            s.push_str("linecast");
        }
        s
    });
    assert_eq!(bytes, Some(s.capacity() as u64));
}

#[test]
fn another_thread_s_allocations_are_not_seen() {
    let (handle, bytes) = measured(|| std::thread::spawn(|| vec![0_u8; 1 << 20]));
    let big = handle.join().unwrap();
    assert_eq!(big.len(), 1 << 20);
    assert!(bytes.unwrap() < 1 << 16, "{bytes:?}");
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn the_allocator_is_tuned_unless_the_environment_tunes_it() {
    let expected: Vec<&str> = [
        ("MALLOC_ARENA_MAX", "arena_max"),
        ("MALLOC_MMAP_THRESHOLD_", "mmap_threshold"),
    ]
    .into_iter()
    .filter(|(var, _)| std::env::var_os(var).is_none())
    .map(|(_, applied)| applied)
    .collect();
    assert_eq!(linecast_heap::tune_allocator(), expected);
}
