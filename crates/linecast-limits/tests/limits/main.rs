//! Integration tests of both limiters against an in-memory usage meter; the
//! Redis suite runs when `LINECAST_TEST_REDIS_URL` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod in_process;
mod leased;
mod redis;
mod support;
