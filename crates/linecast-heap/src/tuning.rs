//! Tuning of the C library's allocator (glibc), which [`crate::Counting`]
//! forwards to. glibc by default gives every busy thread its own arena and
//! serves large blocks from the arenas too, so freed memory stays resident
//! and scattered: a full-profile sweep at a 256 MiB budget peaked at 563 MB
//! resident with 227 MiB held in the caches. Two settings bring it to the
//! budget plus the running server:
//!
//! - at most two arenas (`M_ARENA_MAX`), so freed memory is reused across
//!   threads rather than kept per thread;
//! - blocks of 64 KiB and more straight from `mmap` (`M_MMAP_THRESHOLD`), so
//!   a large transient buffer (a body being built, a parse) goes back to the
//!   system when freed instead of fragmenting an arena.
//!
//! `MALLOC_ARENA_MAX` or `MALLOC_MMAP_THRESHOLD_` in the environment win:
//! an operator's own tuning is left alone.

#![allow(unsafe_code)]

/// `M_ARENA_MAX` of glibc's `malloc.h`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_ARENA_MAX: std::ffi::c_int = -8;
/// `M_MMAP_THRESHOLD` of glibc's `malloc.h`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const M_MMAP_THRESHOLD: std::ffi::c_int = -3;

/// The arena limit set by [`tune_allocator`].
pub const ARENA_MAX: i32 = 2;
/// The `mmap` threshold set by [`tune_allocator`], in bytes.
pub const MMAP_THRESHOLD: i32 = 64 * 1024;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    fn malloc_trim(pad: usize) -> std::ffi::c_int;
}

/// Gives the free memory inside the allocator's arenas back to the system
/// (glibc's `malloc_trim`): what a burst of small allocations (a season
/// parsed for a cross-season aggregate, then dropped) leaves behind would
/// otherwise stay resident. Takes a few milliseconds on a large heap; the
/// server calls it once a second from a blocking thread. Returns whether
/// anything was released; elsewhere than glibc, nothing.
pub fn release_free_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `malloc_trim` only returns free pages to the system; glibc
        // locks each arena while it walks it.
        unsafe { malloc_trim(0) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// Applies the settings above (once, early in `main`, before threads
/// start); returns which were applied. Elsewhere than glibc, nothing.
pub fn tune_allocator() -> Vec<&'static str> {
    let mut applied = Vec::new();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        if std::env::var_os("MALLOC_ARENA_MAX").is_none()
            // SAFETY: `mallopt` takes two integers and only changes the
            // allocator's parameters; glibc documents both settings.
            && unsafe { mallopt(M_ARENA_MAX, ARENA_MAX) } == 1
        {
            applied.push("arena_max");
        }
        if std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_none()
            // SAFETY: as above.
            && unsafe { mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) } == 1
        {
            applied.push("mmap_threshold");
        }
    }
    applied
}
