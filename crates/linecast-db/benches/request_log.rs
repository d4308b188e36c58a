//! One flush round of the request log at its bound: a batch of
//! `BUFFER_BOUND` requests (262,144) spread over 1,000 customers, each under
//! its daily cap, written to an SQLite file the way the server's flush round
//! writes it (one transaction: the day totals, then a segment per
//! customer-day). Each iteration writes a new day, so no customer reaches
//! the cap and every request is stored. The same round at half the bound
//! (131,072, the bound before) runs beside it, on a database of its own:
//! per request (criterion's elements), the two say what a segment twice as
//! full saves a stored row.
//!
//! `cargo bench --profile dist -p linecast-db --bench request_log`: the
//! `release` profile builds linecast-db, sqlx and the ORM unoptimised
//! (`Cargo.toml`), so only `dist` measures the server's code. Its figures
//! and what they mean for the hit path are in `bench/RESULTS.md` ("The
//! request log on the hit path").

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use linecast_core::ports::accounts::{Accounts, NewCustomer, SubscriptionStatus};
use linecast_core::ports::request_log::{LoggedRequest, Method, RequestId, RequestLogStore, RouteTemplate};
use linecast_core::services::request_log::{BUFFER_BOUND, DAILY_CAP};
use linecast_db::SeaAccounts;

const CUSTOMERS: i64 = 1_000;
const ROUTE: &str = "/api/v1/predictions/{sport}/{model_type}";

/// A batch of `size` requests starting at `start`: customers in turn, ids
/// as the server makes them (32 hex digits).
fn batch(customers: &[i64], start: DateTime<Utc>, size: usize) -> Vec<LoggedRequest> {
    (0..size)
        .map(|i| {
            let customer_id = customers[i * 7919 % customers.len()];
            LoggedRequest {
                customer_id,
                key_id: customer_id * 4 + (i % 4) as i64,
                at_ms: (start + TimeDelta::microseconds((i * 30) as i64)).timestamp_millis(),
                method: Method::Get,
                route: RouteTemplate::new(&ROUTE),
                status: 200,
                duration_us: 180 + (i % 50) as u32,
                request_id: RequestId::new(&format!(
                    "{:032x}",
                    (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                )),
            }
        })
        .collect()
}

fn flush_round(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let t0 = Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap();
    let mut group = c.benchmark_group("request_log_flush_1000_customers");
    for size in [BUFFER_BOUND / 2, BUFFER_BOUND] {
        // A database of its own for each size: the table grows with every
        // iteration, and neither size should write into the other's.
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}/bench.db?mode=rwc", dir.path().display());
        let (db, customers) = rt.block_on(async {
            let db = SeaAccounts::connect(&url).await.unwrap();
            let mut customers = Vec::new();
            for n in 0..CUSTOMERS {
                let customer = NewCustomer {
                    email: format!("bench{n}@example.com"),
                    name: "Bench".to_owned(),
                    tier: "ai".to_owned(),
                    api_plan: Some("ai".to_owned()),
                    subscription_status: SubscriptionStatus::Active,
                    monthly_limit: 1_000_000_000,
                };
                customers.push(db.create_customer(customer, t0).await.unwrap().customer_id);
            }
            (db, customers)
        });
        let mut day = 0;
        group.throughput(Throughput::Elements(size as u64));
        group.bench_function(format!("{size}_rows"), |b| {
            b.iter_batched(
                || {
                    day += 1;
                    Arc::new(batch(&customers, t0 + TimeDelta::days(day), size))
                },
                |batch| rt.block_on(db.append_requests(batch, DAILY_CAP)).unwrap(),
                BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = flush_round
}
criterion_main!(benches);
