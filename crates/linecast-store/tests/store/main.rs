//! Integration tests of linecast-store: parsers, errors, caching,
//! validation, the S3 path against moto, the GCS path against
//! fake-gcs-server, and the generated fixtures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Counts heap bytes, so a test can weigh what a parsed table holds.
#[global_allocator]
static HEAP: linecast_heap::Counting = linecast_heap::Counting;

mod buckets;
mod caching;
mod errors;
mod fixtures;
mod gcs;
mod helpers;
mod parsers;
mod s3;
mod validation;
