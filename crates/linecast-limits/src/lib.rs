//! linecast limits: the per-key rate limit (a GCRA token bucket, [`Gcra`])
//! and the per-customer monthly quota behind the core `Limiter` port.
//!
//! Two adapters:
//! - [`InProcessLimiter`]: counters in this process's memory, for a single
//!   instance (the embedded default).
//! - [`RedisLimiter`]: state in Redis shared by every instance, each
//!   decision one Lua script so check and update cannot race.
//! - [`LeasedRedisLimiter`]: the same shared state, borrowed in blocks so a
//!   request does not wait for Redis ([`leases`] is its quota protocol).
//!
//! Both persist counted requests write-behind to the `UsageMeter` (the
//! database): increments are buffered and [`Limiter::flush`] moves them in one
//! batch. A failed flush keeps them buffered. A crash loses at most the
//! increments counted since the last successful flush (one flush interval,
//! [`DEFAULT_FLUSH_INTERVAL`], while the database is reachable); call `flush`
//! on graceful shutdown to lose none.
//!
//! Redis is reached over plain TCP (`redis://`) or TLS (`rediss://`, with
//! the system's roots or a CA file: [`RedisEndpoint`]).
//!
//! The per-customer slot caps (event streams, large downloads) have their
//! shared registry here too: [`RedisSlots`], leased slots in a Redis sorted
//! set per customer, renewed by each instance's heartbeat (`slots.rs`).
//!
//! And the key relay ([`RedisKeyRelay`], core's `KeyRelay` port): key
//! records read from the accounts database by the instances that reach it,
//! for an instance cut off from it (`key_relay.rs`).
//!
//! And the in-process limits by a caller's key ([`KeyedLimiter`]: by client
//! address, by portal session) and the once-a-second log of refusals
//! ([`OncePerSecond`]), in `keyed.rs`.

mod buckets;
mod endpoint;
mod flusher;
mod gcra;
mod in_process;
mod key_relay;
mod keyed;
mod leased;
pub mod leases;
mod probe;
mod redis_limiter;
mod slots;
pub mod tokens;
mod write_behind;

pub use endpoint::RedisEndpoint;
pub use flusher::{DEFAULT_FLUSH_INTERVAL, Flusher, spawn_flusher};
pub use gcra::{Gcra, Step};
pub use in_process::InProcessLimiter;
pub use key_relay::{ASK_WINDOW, RedisKeyRelay};
pub use keyed::{KeyedDecision, KeyedLimiter, OncePerSecond};
pub use leased::{LEASE_SCRIPT, LEASE_TTL, LeasedRedisLimiter};
pub use linecast_core::ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
pub use probe::RedisProbe;
pub use redis_limiter::{DEFAULT_REDIS_TIMEOUT, RedisLimiter};
pub use slots::{RedisSlots, SlotLeases};
