//! Integration tests of both limiters against an in-memory usage meter, and
//! of the Redis slot registry; the Redis suites run when
//! `LINECAST_TEST_REDIS_URL` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod in_process;
mod key_relay;
mod leased;
mod redis;
mod slots;
mod support;
