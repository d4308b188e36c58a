//! The request log's store: the per-day cap under concurrent batches,
//! filters, per-day counts and pruning.

use chrono::{DateTime, TimeDelta, Utc};
use linecast_core::Accounts;
use linecast_core::ports::request_log::{LoggedRequest, RequestFilter, RequestId, RequestLogStore};
use linecast_core::quota_calendar::day_of;
use linecast_db::SeaAccounts;

use crate::accounts::{new_customer, t0};

fn request(customer_id: i64, key_id: i64, at: DateTime<Utc>, route: &'static str, status: u16) -> LoggedRequest {
    LoggedRequest {
        customer_id,
        key_id,
        at,
        method: "GET",
        route,
        status,
        duration_us: 1234,
        request_id: RequestId::new(&format!("req-{}", at.timestamp_micros())),
    }
}

async fn two_customers(url: &str) -> (SeaAccounts, i64, i64) {
    let db = SeaAccounts::connect(url).await.unwrap();
    let a = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let b = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    (db, a.customer_id, b.customer_id)
}

/// 8 concurrent batches of 20 requests each for one customer-day, under a
/// cap of 50: exactly 50 rows are stored and all 160 counted; another
/// customer's day has its own cap.
pub async fn concurrent_batches_share_the_days_cap_exactly(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    let tasks: Vec<_> = (0..8)
        .map(|t| {
            let db = db.clone();
            tokio::spawn(async move {
                let batch: Vec<LoggedRequest> = (0..20)
                    .map(|i| {
                        request(
                            ada,
                            1,
                            t0() + TimeDelta::milliseconds(t * 100 + i),
                            "/api/v1/games/{sport}",
                            200,
                        )
                    })
                    .collect();
                db.append_requests(&batch, 50).await.unwrap();
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    db.append_requests(&[request(bob, 2, t0(), "/api/v1/games/{sport}", 200)], 50)
        .await
        .unwrap();
    let since = t0() - TimeDelta::days(1);
    let all = RequestFilter::default();
    assert_eq!(db.count_requests(ada, since, &all).await.unwrap(), 50);
    assert_eq!(db.count_requests(bob, since, &all).await.unwrap(), 1);
    let offered = db.requests_offered(ada, day_of(since)).await.unwrap();
    assert_eq!(offered, vec![(day_of(t0()), 160)]);
    // The next day starts a new cap.
    let tomorrow = t0() + TimeDelta::days(1);
    db.append_requests(&[request(ada, 1, tomorrow, "/api/v1/games/{sport}", 200)], 50)
        .await
        .unwrap();
    assert_eq!(db.count_requests(ada, since, &all).await.unwrap(), 51);
}

/// Rows come back newest first, narrowed by key, status class and route,
/// with per-day counts by key and by route; pruning deletes rows and day
/// totals older than its instant and nothing newer.
pub async fn requests_are_filtered_counted_per_day_and_pruned(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    let yesterday = t0() - TimeDelta::days(1);
    let batch = vec![
        request(ada, 1, yesterday, "/api/v1/games/{sport}", 200),
        request(ada, 1, t0(), "/api/v1/games/{sport}", 404),
        request(ada, 2, t0() + TimeDelta::seconds(1), "/api/v1/odds/{sport}", 200),
        request(ada, 2, t0() + TimeDelta::seconds(2), "/api/v1/odds/{sport}", 503),
        request(bob, 3, t0(), "/api/v1/games/{sport}", 200),
    ];
    db.append_requests(&batch, 10_000).await.unwrap();
    let since = t0() - TimeDelta::days(7);
    let rows = db.requests(ada, since, &RequestFilter::default(), 100).await.unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].status, 503);
    assert_eq!(rows[0].at, t0() + TimeDelta::seconds(2));
    assert_eq!(rows[0].request_id, format!("req-{}", rows[0].at.timestamp_micros()));
    assert_eq!(rows[0].duration_us, 1234);
    assert_eq!(rows[3].at, yesterday);
    let only = |key_id, status_class, route: Option<&str>| RequestFilter {
        key_id,
        status_class,
        route: route.map(str::to_owned),
    };
    assert_eq!(
        db.count_requests(ada, since, &only(Some(2), None, None)).await.unwrap(),
        2
    );
    assert_eq!(
        db.count_requests(ada, since, &only(None, Some(2), None)).await.unwrap(),
        2
    );
    assert_eq!(
        db.count_requests(ada, since, &only(None, Some(5), None)).await.unwrap(),
        1
    );
    let games = only(None, Some(4), Some("/api/v1/games/{sport}"));
    let rows = db.requests(ada, since, &games, 100).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, 404);
    assert_eq!(
        db.requests(ada, since, &RequestFilter::default(), 2)
            .await
            .unwrap()
            .len(),
        2
    );

    let (per_key, per_route) = db.requests_per_day(ada, day_of(since)).await.unwrap();
    let keys: Vec<_> = per_key.iter().map(|c| (c.day, c.by, c.requests)).collect();
    assert_eq!(
        keys,
        vec![(day_of(yesterday), 1, 1), (day_of(t0()), 1, 1), (day_of(t0()), 2, 2)]
    );
    let routes: Vec<_> = per_route.iter().map(|c| (c.day, c.by.as_str(), c.requests)).collect();
    assert_eq!(
        routes,
        vec![
            (day_of(yesterday), "/api/v1/games/{sport}", 1),
            (day_of(t0()), "/api/v1/games/{sport}", 1),
            (day_of(t0()), "/api/v1/odds/{sport}", 2),
        ]
    );

    assert_eq!(db.prune_requests(t0() - TimeDelta::hours(1)).await.unwrap(), 1);
    assert_eq!(
        db.count_requests(ada, since, &RequestFilter::default()).await.unwrap(),
        3
    );
    assert_eq!(
        db.count_requests(bob, since, &RequestFilter::default()).await.unwrap(),
        1
    );
    let offered = db.requests_offered(ada, day_of(since)).await.unwrap();
    assert_eq!(offered, vec![(day_of(t0()), 3)]);
}
