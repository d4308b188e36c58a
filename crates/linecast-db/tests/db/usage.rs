//! Usage counters and the refresh ledger under concurrency.

use std::collections::BTreeSet;

use chrono::{Datelike, NaiveDate};
use linecast_core::{Accounts, Day, UsageMeter};
use linecast_db::SeaAccounts;

use crate::accounts::{new_customer, t0};

const MARCH: (i32, u32) = (2026, 3);
const APRIL: (i32, u32) = (2026, 4);

fn march(day: u32) -> Day {
    NaiveDate::from_ymd_opt(2026, 3, day).unwrap()
}

fn april(day: u32) -> Day {
    NaiveDate::from_ymd_opt(2026, 4, day).unwrap()
}

async fn setup(url: &str) -> (SeaAccounts, i64) {
    let db = SeaAccounts::connect(url).await.unwrap();
    let id = db
        .create_customer(new_customer("ada@example.com"), t0())
        .await
        .unwrap()
        .customer_id;
    (db, id)
}

/// [`setup`] and a second customer, Bob.
async fn two_customers(url: &str) -> (SeaAccounts, i64, i64) {
    let (db, ada) = setup(url).await;
    let bob = db
        .create_customer(new_customer("bob@example.com"), t0())
        .await
        .unwrap()
        .customer_id;
    (db, ada, bob)
}

/// 64 tasks x 40 increments: the final count is exact, and every returned
/// running total is distinct, so no two upserts read the same old value.
pub async fn concurrent_usage_increments_are_never_lost_or_doubled(url: String) {
    let (db, id) = setup(&url).await;
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move {
                let mut totals = Vec::with_capacity(40);
                for _ in 0..40 {
                    totals.push(db.add_usage(id, MARCH, 1).await.unwrap());
                }
                totals
            })
        })
        .collect();
    let mut seen = BTreeSet::new();
    for task in tasks {
        for total in task.await.unwrap() {
            assert!(seen.insert(total), "total {total} returned twice");
        }
    }
    assert_eq!(seen, (1..=2560).collect());
    assert_eq!(db.get_usage(id, MARCH).await.unwrap(), 2560);
    assert_eq!(db.get_usage(id, APRIL).await.unwrap(), 0);
}

pub async fn a_usage_batch_merges_increments_and_keeps_months_apart(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    db.add_usage(ada, MARCH, 5).await.unwrap();
    db.add_usage_batch(&[
        (ada, march(2), 2),
        (bob, march(2), 1),
        (ada, april(1), 7),
        (ada, march(31), 3),
        (bob, april(1), 0),
    ])
    .await
    .unwrap();
    db.add_usage_batch(&[]).await.unwrap();
    assert_eq!(db.get_usage(ada, MARCH).await.unwrap(), 10);
    assert_eq!(db.get_usage(ada, APRIL).await.unwrap(), 7);
    assert_eq!(db.get_usage(bob, MARCH).await.unwrap(), 1);
    assert_eq!(db.get_usage(bob, APRIL).await.unwrap(), 0);
}

/// One batch adds to the month and to the day together; the days of a
/// month sum to what the batches added to it, and ranges are inclusive.
pub async fn a_usage_batch_writes_monthly_and_daily_counts_together(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    db.add_usage_batch(&[
        (ada, march(1), 2),
        (ada, march(15), 5),
        (bob, march(15), 4),
        (ada, march(15), 1),
        (ada, march(31), 3),
        (ada, april(1), 7),
    ])
    .await
    .unwrap();
    db.add_usage_batch(&[(ada, march(15), 10), (ada, march(2), 0)])
        .await
        .unwrap();
    let days = db.daily_usage(ada, march(1), march(31)).await.unwrap();
    assert_eq!(days, vec![(march(1), 2), (march(15), 16), (march(31), 3)]);
    assert_eq!(
        days.iter().map(|d| d.1).sum::<u64>(),
        db.get_usage(ada, MARCH).await.unwrap(),
        "the days sum to the month"
    );
    assert_eq!(db.get_usage(ada, MARCH).await.unwrap(), 21);
    assert_eq!(
        db.daily_usage(ada, march(15), april(1)).await.unwrap(),
        vec![(march(15), 16), (march(31), 3), (april(1), 7)]
    );
    assert_eq!(
        db.daily_usage(bob, march(1), april(30)).await.unwrap(),
        vec![(march(15), 4)]
    );
    assert_eq!(db.daily_usage(ada, april(2), april(30)).await.unwrap(), vec![]);
    assert_eq!(
        db.monthly_usage(ada, (2025, 12), APRIL).await.unwrap(),
        vec![(MARCH, 21), (APRIL, 7)]
    );
    assert_eq!(db.monthly_usage(ada, APRIL, APRIL).await.unwrap(), vec![(APRIL, 7)]);
}

/// Concurrent batches over the same days lose nothing: the month and each
/// day end exact, and the days still sum to the month.
pub async fn concurrent_usage_batches_keep_days_and_months_exact(url: String) {
    let (db, id) = setup(&url).await;
    let tasks: Vec<_> = (0..16)
        .map(|t| {
            let db = db.clone();
            tokio::spawn(async move {
                for i in 0..10u32 {
                    let batch = [(id, march(1 + (t + i) % 3), 1), (id, march(10), 2)];
                    db.add_usage_batch(&batch).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let days = db.daily_usage(id, march(1), march(31)).await.unwrap();
    assert_eq!(days.iter().find(|d| d.0 == march(10)).map(|d| d.1), Some(320));
    assert_eq!(days.iter().map(|d| d.1).sum::<u64>(), 480);
    assert_eq!(db.get_usage(id, MARCH).await.unwrap(), 480);
}

/// Batches of more counters than one statement writes (two customers,
/// 700 days each, over two years), four at once: every day and every
/// month ends exact, the days sum to their months, and no batch fails for
/// another's locks.
pub async fn usage_batches_of_many_counters_keep_every_count(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    let first = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
    let days: Vec<Day> = (0..700).map(|i| first + chrono::Days::new(i)).collect();
    let batch: Vec<(i64, Day, u64)> = days
        .iter()
        .enumerate()
        .flat_map(|(i, &day)| [(ada, day, 1 + i as u64 % 5), (bob, day, 2)])
        .collect();
    let tasks: Vec<_> = (0..4)
        .map(|t| {
            let (db, mut batch) = (db.clone(), batch.clone());
            if t % 2 == 1 {
                batch.reverse();
            }
            tokio::spawn(async move { db.add_usage_batch(&batch).await.unwrap() })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let last = days[699];
    let ada_days = db.daily_usage(ada, first, last).await.unwrap();
    let expected: Vec<(Day, u64)> = days
        .iter()
        .enumerate()
        .map(|(i, &d)| (d, 4 * (1 + i as u64 % 5)))
        .collect();
    assert_eq!(ada_days, expected);
    let bob_days = db.daily_usage(bob, first, last).await.unwrap();
    assert_eq!(bob_days.len(), 700);
    assert!(bob_days.iter().all(|&(_, n)| n == 8), "{bob_days:?}");
    for (customer, per_day) in [(ada, ada_days), (bob, bob_days)] {
        let months = db.monthly_usage(customer, (2026, 1), (2027, 12)).await.unwrap();
        assert_eq!(months.len(), 24, "{months:?}");
        for (month, n) in months {
            let of_month: u64 = per_day
                .iter()
                .filter(|(d, _)| (d.year(), d.month()) == month)
                .map(|d| d.1)
                .sum();
            assert_eq!(n, of_month, "{month:?}");
        }
    }
}

pub async fn usage_counts_survive_a_reconnect(url: String) {
    let (db, id) = setup(&url).await;
    assert_eq!(db.add_usage(id, MARCH, 41).await.unwrap(), 41);
    db.connection().clone().close().await.unwrap();
    let again = SeaAccounts::connect(&url).await.unwrap();
    assert_eq!(again.add_usage(id, MARCH, 1).await.unwrap(), 42);
}

/// 20 concurrent attempts against a limit of 8: exactly 8 succeed and they
/// report the counts 1 to 8, each once.
pub async fn concurrent_refreshes_never_take_more_than_the_limit(url: String) {
    let (db, id) = setup(&url).await;
    let tasks: Vec<_> = (0..20)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move { db.try_consume_refresh(id, MARCH, 8, t0()).await.unwrap() })
        })
        .collect();
    let mut taken = Vec::new();
    for task in tasks {
        if let Some(used) = task.await.unwrap() {
            taken.push(used);
        }
    }
    taken.sort_unstable();
    assert_eq!(taken, (1..=8).collect::<Vec<u32>>());
    assert_eq!(db.refreshes_used(id, MARCH).await.unwrap(), 8);
    assert_eq!(db.try_consume_refresh(id, MARCH, 8, t0()).await.unwrap(), None);
    assert_eq!(db.try_consume_refresh(id, APRIL, 8, t0()).await.unwrap(), Some(1));
}

pub async fn a_refresh_limit_of_zero_takes_nothing(url: String) {
    let (db, id) = setup(&url).await;
    assert_eq!(db.try_consume_refresh(id, MARCH, 0, t0()).await.unwrap(), None);
    assert_eq!(db.refreshes_used(id, MARCH).await.unwrap(), 0);
}
