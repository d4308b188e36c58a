//! The request path's push into the request log (`RequestLog::record`)
//! from two threads at once, as two workers push: into one shard (one
//! lock and one buffer end, handed between the cores on every push) and
//! into a shard each (`RequestLog::with_shards`, what the server does with
//! one shard per worker). One thread alone is the floor. Each iteration
//! pushes `PER_THREAD` requests from each thread, then the log is written
//! to a store in memory (not timed), so pushes land in memory already
//! grown, as in the server.
//!
//! `cargo bench --profile dist -p linecast-core --features testing --bench
//! request_log`: criterion's time is per request pushed, each thread's
//! pushes running beside the other's. It means what it says only with a
//! core per thread. Figures in `bench/RESULTS.md` ("One shard per
//! worker").

#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use chrono::{TimeDelta, TimeZone, Utc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use linecast_core::ports::request_log::{LoggedRequest, Method, RequestId, RouteTemplate};
use linecast_core::services::request_log::RequestLog;
use linecast_core::testing::MemoryRequestLog;

/// Requests each thread pushes an iteration: two threads' fill less than
/// the write mark of either layout, so none is dropped.
const PER_THREAD: usize = 50_000;

const ROUTE: &str = "/api/v1/predictions/{sport}/{model_type}";

fn request(i: usize) -> LoggedRequest {
    let at = Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap();
    LoggedRequest {
        customer_id: (i % 1_000) as i64,
        key_id: (i % 4_000) as i64,
        at_ms: at.timestamp_millis() + (i / 30) as i64,
        method: Method::Get,
        route: RouteTemplate::new(&ROUTE),
        status: 200,
        duration_us: 180,
        request_id: RequestId::new("0123456789abcdef0123456789abcdef"),
    }
}

/// `threads` threads each pushing `PER_THREAD` requests at once, started
/// together; the time until the last is done.
fn push(log: &Arc<RequestLog>, threads: usize) -> Duration {
    let start = Arc::new(Barrier::new(threads + 1));
    let pushers: Vec<_> = (0..threads)
        .map(|t| {
            let (log, start) = (Arc::clone(log), Arc::clone(&start));
            std::thread::spawn(move || {
                let requests: Vec<LoggedRequest> = (0..PER_THREAD).map(|i| request(i * threads + t)).collect();
                start.wait();
                for r in requests {
                    assert!(log.record(r));
                }
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for p in pushers {
        p.join().unwrap();
    }
    began.elapsed()
}

fn record(c: &mut Criterion) {
    let mut group = c.benchmark_group("request_log_record");
    for (name, threads, shards) in [
        ("one_thread", 1, 1),
        ("two_threads_one_shard", 2, 1),
        ("two_threads_two_shards", 2, 2),
    ] {
        let log = Arc::new(
            RequestLog::new(Arc::new(MemoryRequestLog::default()), 7)
                .holding_for(Duration::ZERO)
                .with_shards(shards),
        );
        let now = Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap();
        group.throughput(Throughput::Elements((threads * PER_THREAD) as u64));
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    spent += push(&log, threads);
                    futures::executor::block_on(async {
                        log.flush_all(now).await.unwrap();
                        // The store in memory keeps nothing between iterations.
                        log.prune(now + TimeDelta::days(30)).await.unwrap();
                    });
                }
                spent
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = record
}
criterion_main!(benches);
