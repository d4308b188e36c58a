//! The request log's store: the per-day cap under concurrent batches, rows
//! read back as recorded, pruning, and the rows of the release before
//! segments folded in.

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use linecast_core::Accounts;
use linecast_core::ports::request_log::{LoggedRequest, Method, RequestId, RequestLogStore, RequestRow, RouteTemplate};
use linecast_core::quota_calendar::day_of;
use linecast_db::SeaAccounts;
use sea_orm::ConnectionTrait;

use crate::accounts::{new_customer, t0};

const GAMES: &str = "/api/v1/games/{sport}";
const ODDS: &str = "/api/v1/odds/{sport}";

fn request(
    customer_id: i64,
    key_id: i64,
    at: DateTime<Utc>,
    route: &'static &'static str,
    status: u16,
) -> LoggedRequest {
    LoggedRequest {
        customer_id,
        key_id,
        at_ms: at.timestamp_millis(),
        method: Method::Get,
        route: RouteTemplate::new(route),
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

fn week_ago() -> DateTime<Utc> {
    t0() - TimeDelta::days(7)
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
                    .map(|i| request(ada, 1, t0() + TimeDelta::milliseconds(t * 100 + i), &GAMES, 200))
                    .collect();
                db.append_requests(Arc::new(batch.clone()), 50).await.unwrap();
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    db.append_requests(Arc::new(vec![request(bob, 2, t0(), &GAMES, 200)]), 50)
        .await
        .unwrap();
    let stored = |customer| {
        let db = &db;
        async move { db.requests_since(customer, week_ago()).await.unwrap().len() }
    };
    assert_eq!(stored(ada).await, 50);
    assert_eq!(stored(bob).await, 1);
    let offered = db.requests_offered(ada, day_of(week_ago())).await.unwrap();
    assert_eq!(offered, vec![(day_of(t0()), 160)]);
    // The next day starts a new cap.
    let tomorrow = t0() + TimeDelta::days(1);
    db.append_requests(Arc::new(vec![request(ada, 1, tomorrow, &GAMES, 200)]), 50)
        .await
        .unwrap();
    assert_eq!(stored(ada).await, 51);
}

/// One batch, its customers and days interleaved as requests arrive, under
/// a cap of 3 a day: each customer-day keeps its own first requests (as
/// many as its day has room for, counting what an earlier batch stored),
/// in the order recorded, and counts every one.
pub async fn each_customer_day_of_a_batch_keeps_its_own_first_requests(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    let tomorrow = t0() + TimeDelta::days(1);
    db.append_requests(Arc::new(vec![request(ada, 1, t0(), &GAMES, 200)]), 3)
        .await
        .unwrap();
    let ms = TimeDelta::milliseconds;
    // (customer, instant, status): the status numbers each request.
    let arrivals = [
        (bob, t0() + ms(10), 201),
        (ada, t0() + ms(11), 202),
        (ada, tomorrow + ms(12), 203),
        (bob, t0() + ms(13), 204),
        (ada, t0() + ms(14), 205),
        (bob, t0() + ms(15), 206),
        (ada, t0() + ms(16), 207),
        (bob, t0() + ms(17), 208),
        (ada, tomorrow + ms(18), 209),
        (ada, t0() + ms(19), 210),
    ];
    let batch: Vec<LoggedRequest> = arrivals
        .iter()
        .map(|&(customer, at, status)| request(customer, 1, at, &GAMES, status))
        .collect();
    db.append_requests(Arc::new(batch), 3).await.unwrap();
    let statuses = |customer| {
        let db = &db;
        async move {
            let rows = db.requests_since(customer, week_ago()).await.unwrap();
            rows.iter().map(|r| r.status).collect::<Vec<u16>>()
        }
    };
    // Ada's day had one stored: room for two more (202 and 205); her next
    // day has room for both of hers.
    assert_eq!(statuses(ada).await, vec![200, 202, 205, 203, 209]);
    assert_eq!(statuses(bob).await, vec![201, 204, 206]);
    let offered = |customer| {
        let db = &db;
        async move { db.requests_offered(customer, day_of(week_ago())).await.unwrap() }
    };
    assert_eq!(offered(ada).await, vec![(day_of(t0()), 5), (day_of(tomorrow), 2)]);
    assert_eq!(offered(bob).await, vec![(day_of(t0()), 4)]);
}

/// One batch of many customers and days: each customer reads back exactly
/// its own rows, every field as recorded, in the order recorded, from the
/// instant asked; pruning deletes what is older than its instant (and the
/// day totals of days before its day), and nothing newer.
pub async fn rows_read_back_as_recorded_and_are_pruned(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    let yesterday = t0() - TimeDelta::days(1);
    let mut slow = request(ada, 2, t0() + TimeDelta::seconds(2), &ODDS, 503);
    slow.method = Method::Post;
    slow.duration_us = 987_654;
    slow.request_id = RequestId::new("client-\"id\"-1");
    let batch = vec![
        request(ada, 1, yesterday, &GAMES, 200),
        request(ada, 1, t0(), &GAMES, 404),
        request(bob, 3, t0(), &GAMES, 200),
        request(ada, 2, t0() + TimeDelta::seconds(1), &ODDS, 200),
        slow,
    ];
    db.append_requests(Arc::new(batch.clone()), 10_000).await.unwrap();
    db.append_requests(
        Arc::new(vec![request(ada, 1, t0() + TimeDelta::seconds(3), &GAMES, 200)]),
        10_000,
    )
    .await
    .unwrap();
    let rows = db.requests_since(ada, week_ago()).await.unwrap();
    let seen: Vec<(i64, &str, &str, u16, DateTime<Utc>)> = rows
        .iter()
        .map(|r| (r.key_id, r.method.as_str(), r.route.as_str(), r.status, r.at))
        .collect();
    assert_eq!(
        seen,
        vec![
            (1, "GET", GAMES, 200, yesterday),
            (1, "GET", GAMES, 404, t0()),
            (2, "GET", ODDS, 200, t0() + TimeDelta::seconds(1)),
            (2, "POST", ODDS, 503, t0() + TimeDelta::seconds(2)),
            (1, "GET", GAMES, 200, t0() + TimeDelta::seconds(3)),
        ]
    );
    assert_eq!(rows[3].duration_us, 987_654);
    assert_eq!(rows[3].request_id, "client-\"id\"-1");
    assert_eq!(rows[0].request_id, format!("req-{}", yesterday.timestamp_micros()));
    let bobs = db.requests_since(bob, week_ago()).await.unwrap();
    assert_eq!(bobs.len(), 1);
    assert_eq!(bobs[0].key_id, 3);
    // From an instant: only what is at or after it.
    let recent = db.requests_since(ada, t0() + TimeDelta::seconds(1)).await.unwrap();
    assert_eq!(recent.len(), 3);

    assert_eq!(db.prune_requests(t0() - TimeDelta::hours(1)).await.unwrap(), 1);
    assert_eq!(db.requests_since(ada, week_ago()).await.unwrap().len(), 4);
    assert_eq!(db.requests_since(bob, week_ago()).await.unwrap().len(), 1);
    let offered = db.requests_offered(ada, day_of(week_ago())).await.unwrap();
    assert_eq!(offered, vec![(day_of(t0()), 4)]);
}

/// Rows the release before segments wrote to `request_log` (during a
/// rollout, or before the upgrade) show once the prune round has run:
/// every field kept, in the order written, past the retention deleted, and
/// a second round moves nothing twice.
pub async fn rows_of_the_release_before_fold_into_segments(url: String) {
    let (db, ada, bob) = two_customers(&url).await;
    let legacy = [
        (ada, 1, week_ago() - TimeDelta::hours(2), GAMES, 200, "old"),
        (ada, 1, t0(), GAMES, 200, "a1"),
        (bob, 3, t0(), ODDS, 429, "b1"),
        (ada, 2, t0() + TimeDelta::seconds(1), ODDS, 500, "a2"),
        (ada, 1, t0() - TimeDelta::days(1), GAMES, 301, "a0"),
    ];
    for (customer, key, at, route, status, id) in legacy {
        db.connection()
            .execute_unprepared(&format!(
                "INSERT INTO request_log (customer_id, key_id, at_ms, day, method, route, status, duration_us, request_id) \
                 VALUES ({customer}, {key}, {}, '{}', 'GET', '{route}', {status}, 77, '{id}')",
                at.timestamp_millis(),
                day_of(at).format("%Y-%m-%d"),
            ))
            .await
            .unwrap();
    }
    // A segment written meanwhile by this release.
    db.append_requests(
        Arc::new(vec![request(ada, 1, t0() + TimeDelta::seconds(5), &GAMES, 200)]),
        10_000,
    )
    .await
    .unwrap();
    assert_eq!(db.requests_since(ada, week_ago()).await.unwrap().len(), 1);

    assert_eq!(db.prune_requests(week_ago()).await.unwrap(), 1);
    let ids = |rows: Vec<RequestRow>| rows.into_iter().map(|r| r.request_id).collect::<Vec<_>>();
    let mut adas = ids(db.requests_since(ada, week_ago()).await.unwrap());
    adas.sort();
    assert_eq!(
        adas,
        vec![
            "a0",
            "a1",
            "a2",
            format!("req-{}", (t0() + TimeDelta::seconds(5)).timestamp_micros()).as_str()
        ]
    );
    let bobs = db.requests_since(bob, week_ago()).await.unwrap();
    assert_eq!(bobs.len(), 1);
    let b = &bobs[0];
    assert_eq!(
        (
            b.key_id,
            b.method.as_str(),
            b.route.as_str(),
            b.status,
            b.duration_us,
            b.at
        ),
        (3, "GET", ODDS, 429, 77, t0())
    );
    // Within one customer-day the legacy rows keep the order written.
    let today: Vec<String> = db
        .requests_since(ada, t0())
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.request_id)
        .filter(|id| id.starts_with('a'))
        .collect();
    assert_eq!(today, vec!["a1", "a2"]);

    assert_eq!(db.prune_requests(week_ago()).await.unwrap(), 0);
    assert_eq!(db.requests_since(ada, week_ago()).await.unwrap().len(), 4);
    assert_eq!(db.requests_since(bob, week_ago()).await.unwrap().len(), 1);
}

/// A segment of format 2 (JSON in `body`, written by the release before
/// packed rows) reads beside the packed ones written now, each in the
/// order written; a packed segment's `body` names its format, for that
/// release, and its rows are bytes in `packed`, a fraction of the JSON.
pub async fn segments_of_the_json_format_read_beside_packed_ones(url: String) {
    let (db, ada, _) = two_customers(&url).await;
    let at = t0().timestamp_millis();
    let day = day_of(t0()).format("%Y-%m-%d");
    db.connection()
        .execute_unprepared(&format!(
            "INSERT INTO request_log_segments (customer_id, day, first_ms, last_ms, requests, body) VALUES \
             ({ada}, '{day}', {at}, {}, 2, \
             '{{\"v\":2,\"t0\":{at},\"rows\":[[0,4,0,200,77,\"v2-a\"],[9,4,0,404,78,\"v2-b\"]],\"routes\":[[\"GET\",\"{ODDS}\"]]}}')",
            at + 9,
        ))
        .await
        .unwrap();
    let packed: Vec<LoggedRequest> = (0..3)
        .map(|i| LoggedRequest {
            request_id: RequestId::new(&format!("{:032x}", 0xabc0 + i)),
            ..request(ada, 1, t0() + TimeDelta::seconds(1 + i), &GAMES, 200)
        })
        .collect();
    db.append_requests(Arc::new(packed), 10_000).await.unwrap();
    let rows = db.requests_since(ada, week_ago()).await.unwrap();
    let seen: Vec<(i64, &str, u16, &str)> = rows
        .iter()
        .map(|r| (r.key_id, r.route.as_str(), r.status, r.request_id.as_str()))
        .collect();
    assert_eq!(
        seen,
        vec![
            (4, ODDS, 200, "v2-a"),
            (4, ODDS, 404, "v2-b"),
            (1, GAMES, 200, "0000000000000000000000000000abc0"),
            (1, GAMES, 200, "0000000000000000000000000000abc1"),
            (1, GAMES, 200, "0000000000000000000000000000abc2"),
        ]
    );
    assert_eq!(rows[1].at, t0() + TimeDelta::milliseconds(9));
    assert_eq!(rows[4].at, t0() + TimeDelta::seconds(3));
    let stored = db
        .connection()
        .query_one_raw(sea_orm::Statement::from_string(
            db.connection().get_database_backend(),
            "SELECT body, packed FROM request_log_segments WHERE packed IS NOT NULL",
        ))
        .await
        .unwrap()
        .unwrap();
    let body: String = stored.try_get("", "body").unwrap();
    let bytes: Vec<u8> = stored.try_get("", "packed").unwrap();
    assert_eq!(body, r#"{"v":3,"t0":0,"rows":[],"routes":[]}"#);
    assert_eq!(bytes[0], 3, "the format byte");
    // Three rows of the server's own ids, the route defined once.
    assert!(bytes.len() < 3 * 26 + GAMES.len() + 16, "{} bytes", bytes.len());
}
