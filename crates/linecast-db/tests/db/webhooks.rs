//! The webhooks' storage: a message fans out to the endpoints subscribed
//! to it, once per dedupe key; an account has at most ten endpoints;
//! claims keep each endpoint's order per order key, never hand one
//! delivery to two workers, and an expired claim is claimed again with the
//! same message; resend and recovery keep the message id; old attempts are
//! pruned; a rotated secret is kept until its instant.

use std::collections::HashSet;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use linecast_core::Accounts;
use linecast_core::ports::webhooks::{
    DeliveryStatus, ENDPOINT_ID_PREFIX, EndpointCreated, EndpointUpdate, MESSAGE_ID_PREFIX, NewAttempt, NewEndpoint,
    NewMessage, WebhookStore, new_id,
};
use linecast_db::SeaAccounts;
use linecast_webhooks::events::{EventType, MAX_ENDPOINTS_PER_ACCOUNT};

use crate::accounts::{new_customer, t0};

const LEASE: Duration = Duration::from_mins(1);

fn secs(n: i64) -> DateTime<Utc> {
    t0() + TimeDelta::seconds(n)
}

async fn customer(db: &SeaAccounts, email: &str) -> i64 {
    db.create_customer(new_customer(email), t0()).await.unwrap().customer_id
}

async fn endpoint(db: &SeaAccounts, customer_id: i64, types: &[EventType], sports: &[&str]) -> String {
    let new = NewEndpoint {
        id: new_id(ENDPOINT_ID_PREFIX).unwrap(),
        customer_id,
        url: "https://example.com/hook".to_owned(),
        description: None,
        event_types: types.iter().map(|t| t.code().to_owned()).collect(),
        sports: sports.iter().map(|s| (*s).to_owned()).collect(),
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_owned(),
    };
    match db.create_endpoint(new, t0()).await.unwrap() {
        EndpointCreated::Created(e) => e.id,
        other @ EndpointCreated::LimitReached { .. } => panic!("{other:?}"),
    }
}

fn message(
    event: EventType,
    customer_id: Option<i64>,
    sport: Option<&str>,
    order_key: &str,
    at: DateTime<Utc>,
) -> NewMessage {
    NewMessage {
        id: new_id(MESSAGE_ID_PREFIX).unwrap(),
        customer_id,
        event_type: event.code().to_owned(),
        sport: sport.map(str::to_owned),
        order_key: order_key.to_owned(),
        payload: r#"{"type":"test"}"#.to_owned(),
        dedupe_key: None,
        created_at: at,
    }
}

fn failure(at: DateTime<Utc>) -> NewAttempt {
    NewAttempt {
        attempted_at: at,
        status_code: Some(500),
        latency_ms: 12,
        error: None,
        response_body: b"oops".to_vec(),
        succeeded: false,
    }
}

pub async fn a_message_fans_out_by_type_sport_and_customer(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let b = customer(&db, "b@example.com").await;
    let releases_all = endpoint(&db, a, &[EventType::ReleasePublished], &[]).await;
    let releases_nba = endpoint(
        &db,
        b,
        &[EventType::ReleasePublished, EventType::QuotaThreshold],
        &["nba"],
    )
    .await;
    let quota_a = endpoint(&db, a, &[EventType::QuotaThreshold], &[]).await;
    let disabled = endpoint(&db, b, &[EventType::ReleasePublished], &[]).await;
    db.disable_endpoint(&disabled, "gone", t0()).await.unwrap();

    let nba = db
        .enqueue(message(EventType::ReleasePublished, None, Some("nba"), "nba", t0()))
        .await
        .unwrap();
    assert!(nba.new);
    assert_eq!(nba.deliveries, 2, "every enabled subscriber of the type and sport");
    let nfl = db
        .enqueue(message(EventType::ReleasePublished, None, Some("nfl"), "nfl", t0()))
        .await
        .unwrap();
    assert_eq!(nfl.deliveries, 1, "the NBA-only endpoint is left out");
    let quota = db
        .enqueue(message(EventType::QuotaThreshold, Some(a), None, "quota", t0()))
        .await
        .unwrap();
    assert_eq!(quota.deliveries, 1, "only the account's own endpoint");

    let claimed = db.claim_due("w", secs(1), LEASE, 100).await.unwrap();
    let mut got: Vec<(String, String)> = claimed
        .iter()
        .map(|c| {
            (
                c.delivery.endpoint_id.clone(),
                c.message.sport.clone().unwrap_or_default(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        (releases_all.clone(), "nba".to_owned()),
        (releases_nba, "nba".to_owned()),
        (releases_all, "nfl".to_owned()),
        (quota_a, String::new()),
    ];
    want.sort();
    assert_eq!(got, want);
}

pub async fn a_dedupe_key_is_stored_once(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    endpoint(&db, a, &[EventType::QuotaThreshold], &[]).await;
    let mut first = message(EventType::QuotaThreshold, Some(a), None, "quota", t0());
    first.dedupe_key = Some(format!("quota/{a}/2026-03/80"));
    let mut second = message(EventType::QuotaThreshold, Some(a), None, "quota", secs(1));
    second.dedupe_key = first.dedupe_key.clone();
    let (x, y) = tokio::join!(db.enqueue(first), db.enqueue(second));
    let (x, y) = (x.unwrap(), y.unwrap());
    assert!(x.new != y.new, "one of the two is stored: {x:?} {y:?}");
    assert_eq!(x.deliveries + y.deliveries, 1);
    assert_eq!(db.claim_due("w", secs(2), LEASE, 10).await.unwrap().len(), 1);
}

pub async fn an_account_has_at_most_ten_endpoints(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let b = customer(&db, "b@example.com").await;
    for _ in 0..MAX_ENDPOINTS_PER_ACCOUNT {
        endpoint(&db, a, &[EventType::ReleasePublished], &[]).await;
    }
    let eleventh = NewEndpoint {
        id: new_id(ENDPOINT_ID_PREFIX).unwrap(),
        customer_id: a,
        url: "https://example.com/11".to_owned(),
        description: Some("one too many".to_owned()),
        event_types: vec![EventType::ReleasePublished.code().to_owned()],
        sports: vec![],
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_owned(),
    };
    assert_eq!(
        db.create_endpoint(eleventh.clone(), t0()).await.unwrap(),
        EndpointCreated::LimitReached {
            limit: MAX_ENDPOINTS_PER_ACCOUNT
        }
    );
    assert_eq!(db.endpoints(a).await.unwrap().len(), MAX_ENDPOINTS_PER_ACCOUNT);
    // Another account is not affected; a deletion makes room.
    endpoint(&db, b, &[EventType::ReleasePublished], &[]).await;
    let first = db.endpoints(a).await.unwrap()[0].id.clone();
    assert!(
        db.endpoint(b, &first).await.unwrap().is_none(),
        "another account's endpoint"
    );
    db.delete_endpoint(a, &first).await.unwrap();
    assert!(matches!(
        db.create_endpoint(eleventh, t0()).await.unwrap(),
        EndpointCreated::Created(_)
    ));
}

pub async fn concurrent_creations_never_pass_the_endpoint_limit(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let creations = (0..MAX_ENDPOINTS_PER_ACCOUNT + 4).map(|_| {
        let db = db.clone();
        tokio::spawn(async move {
            let new = NewEndpoint {
                id: new_id(ENDPOINT_ID_PREFIX).unwrap(),
                customer_id: a,
                url: "https://example.com/hook".to_owned(),
                description: None,
                event_types: vec![EventType::ReleasePublished.code().to_owned()],
                sports: vec![],
                secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_owned(),
            };
            db.create_endpoint(new, t0()).await.unwrap()
        })
    });
    let results = futures::future::join_all(creations).await;
    let created = results
        .into_iter()
        .filter(|r| matches!(r.as_ref().unwrap(), EndpointCreated::Created(_)))
        .count();
    assert_eq!(created, MAX_ENDPOINTS_PER_ACCOUNT);
    assert_eq!(db.endpoints(a).await.unwrap().len(), MAX_ENDPOINTS_PER_ACCOUNT);
}

pub async fn claims_keep_each_endpoints_order_per_order_key(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let one = endpoint(&db, a, &[EventType::DataStatusChanged], &[]).await;
    // Game g1: three messages; game g2: one. Enqueued out of instant order.
    let g1_second = message(EventType::DataStatusChanged, None, Some("nba"), "g1", secs(2));
    let g1_first = message(EventType::DataStatusChanged, None, Some("nba"), "g1", secs(1));
    let g1_third = message(EventType::DataStatusChanged, None, Some("nba"), "g1", secs(3));
    let g2 = message(EventType::DataStatusChanged, None, Some("nba"), "g2", secs(2));
    for m in [&g1_second, &g1_first, &g1_third, &g2] {
        db.enqueue(m.clone()).await.unwrap();
    }
    let now = secs(10);
    let claimed = db.claim_due("w", now, LEASE, 10).await.unwrap();
    let ids: HashSet<String> = claimed.iter().map(|c| c.message.id.clone()).collect();
    assert_eq!(
        ids,
        HashSet::from([g1_first.id.clone(), g2.id.clone()]),
        "the first of each key only"
    );
    let g2_claim = claimed.iter().find(|c| c.message.id == g2.id).unwrap();
    db.mark_delivered(g2_claim.delivery.id, now).await.unwrap();
    // While g1's first is claimed (pending) nothing more of g1 goes out.
    assert!(db.claim_due("w2", now, LEASE, 10).await.unwrap().is_empty());
    // A retry scheduled later still holds the key back.
    let first = claimed.iter().find(|c| c.message.id == g1_first.id).unwrap();
    db.record_attempt(first.delivery.id, failure(now)).await.unwrap();
    db.reschedule(first.delivery.id, secs(100)).await.unwrap();
    assert!(db.claim_due("w2", secs(20), LEASE, 10).await.unwrap().is_empty());
    // Delivered: the next of g1 is due.
    let again = db.claim_due("w2", secs(100), LEASE, 10).await.unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].message.id, g1_first.id);
    assert_eq!(again[0].delivery.attempts, 1);
    db.mark_delivered(first.delivery.id, secs(100)).await.unwrap();
    let next = db.claim_due("w2", secs(101), LEASE, 10).await.unwrap();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].message.id, g1_second.id);
    assert_eq!(next[0].delivery.endpoint_id, one);
    // A failed message no longer holds the key.
    db.mark_failed(next[0].delivery.id).await.unwrap();
    let last = db.claim_due("w2", secs(102), LEASE, 10).await.unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].message.id, g1_third.id);
}

pub async fn concurrent_claimers_never_share_a_delivery(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let mut endpoints = Vec::new();
    for _ in 0..4 {
        endpoints.push(endpoint(&db, a, &[EventType::ReleasePublished], &[]).await);
    }
    // 4 endpoints × 30 messages of distinct keys: 120 deliveries, all due.
    for i in 0..30 {
        let key = format!("g{i}");
        db.enqueue(message(EventType::ReleasePublished, None, Some("nba"), &key, secs(i)))
            .await
            .unwrap();
    }
    let other = SeaAccounts::connect(&url).await.unwrap();
    let mut seen: HashSet<i64> = HashSet::new();
    let mut total = 0;
    loop {
        let now = secs(1000);
        let (x, y) = tokio::join!(db.claim_due("w1", now, LEASE, 7), other.claim_due("w2", now, LEASE, 7));
        let (x, y) = (x.unwrap(), y.unwrap());
        if x.is_empty() && y.is_empty() {
            break;
        }
        for c in x.iter().chain(&y) {
            assert!(seen.insert(c.delivery.id), "delivery {} claimed twice", c.delivery.id);
            total += 1;
        }
        assert!(x.iter().all(|c| c.delivery.claimed_by.as_deref() == Some("w1")));
        assert!(y.iter().all(|c| c.delivery.claimed_by.as_deref() == Some("w2")));
    }
    assert_eq!(total, 120, "every delivery claimed exactly once");
}

pub async fn an_expired_claim_is_claimed_again_with_the_same_message(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    endpoint(&db, a, &[EventType::ReleasePublished], &[]).await;
    let m = message(EventType::ReleasePublished, None, Some("nba"), "nba", t0());
    db.enqueue(m.clone()).await.unwrap();
    let crashed = db.claim_due("crashed", secs(1), LEASE, 10).await.unwrap();
    assert_eq!(crashed.len(), 1);
    assert_eq!(crashed[0].delivery.claimed_until, Some(secs(61)));
    // Within the lease nobody else gets it; from its end, another worker.
    assert!(db.claim_due("w", secs(60), LEASE, 10).await.unwrap().is_empty());
    let again = db.claim_due("w", secs(61), LEASE, 10).await.unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].delivery.id, crashed[0].delivery.id);
    assert_eq!(again[0].message.id, m.id, "the same webhook-id");
    assert_eq!(again[0].message.payload, m.payload);
    assert_eq!(again[0].delivery.claimed_by.as_deref(), Some("w"));
}

pub async fn resend_and_recovery_keep_the_message_id(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let b = customer(&db, "b@example.com").await;
    let ep = endpoint(&db, a, &[EventType::ReleasePublished], &[]).await;
    let old = message(EventType::ReleasePublished, None, Some("nba"), "k1", secs(0));
    let recent = message(EventType::ReleasePublished, None, Some("nba"), "k2", secs(100));
    let done = message(EventType::ReleasePublished, None, Some("nba"), "k3", secs(100));
    for m in [&old, &recent, &done] {
        db.enqueue(m.clone()).await.unwrap();
    }
    let claimed = db.claim_due("w", secs(200), LEASE, 10).await.unwrap();
    assert_eq!(claimed.len(), 3);
    for c in &claimed {
        db.record_attempt(c.delivery.id, failure(secs(200))).await.unwrap();
        if c.message.id == done.id {
            db.mark_delivered(c.delivery.id, secs(201)).await.unwrap();
        } else {
            db.mark_failed(c.delivery.id).await.unwrap();
        }
    }
    assert!(db.claim_due("w", secs(300), LEASE, 10).await.unwrap().is_empty());

    // Recovery since 50 s re-queues the recent failed one only.
    assert_eq!(
        db.recover_since(b, &ep, secs(50), secs(300)).await,
        Err(linecast_core::AccountsError::NotFound),
        "another account's endpoint"
    );
    assert_eq!(db.recover_since(a, &ep, secs(50), secs(300)).await.unwrap(), 1);
    let recovered = db.claim_due("w", secs(300), LEASE, 10).await.unwrap();
    assert_eq!(recovered.len(), 1);
    assert_eq!(recovered[0].message.id, recent.id);
    assert_eq!(recovered[0].delivery.attempts, 0, "counted from zero again");
    db.mark_delivered(recovered[0].delivery.id, secs(301)).await.unwrap();

    // Resend of the delivered one: the same delivery, the same message.
    let delivered = claimed.iter().find(|c| c.message.id == done.id).unwrap();
    assert_eq!(
        db.delivery(a, delivered.delivery.id).await.unwrap().unwrap().status,
        DeliveryStatus::Delivered
    );
    assert!(db.resend(b, delivered.delivery.id, secs(400)).await.is_err());
    let resent = db.resend(a, delivered.delivery.id, secs(400)).await.unwrap();
    assert_eq!(resent.status, DeliveryStatus::Pending);
    assert_eq!(resent.message_id, done.id);
    assert!(
        db.resend(a, delivered.delivery.id, secs(400)).await.is_err(),
        "a pending delivery is not resent"
    );
    let out = db.claim_due("w", secs(400), LEASE, 10).await.unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].message.id, done.id, "the same webhook-id");

    // Deleting the endpoint cancels what is pending, even while claimed:
    // the worker's late outcome does not revive it.
    db.delete_endpoint(a, &ep).await.unwrap();
    assert!(db.claim_due("w", secs(10_000), LEASE, 10).await.unwrap().is_empty());
    assert_eq!(
        db.mark_delivered(out[0].delivery.id, secs(401)).await,
        Err(linecast_core::AccountsError::NotFound)
    );
}

pub async fn attempts_read_newest_first_and_old_ones_are_pruned(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let ep = endpoint(&db, a, &[EventType::ReleasePublished], &[]).await;
    db.enqueue(message(EventType::ReleasePublished, None, Some("nba"), "k", t0()))
        .await
        .unwrap();
    let claimed = db.claim_due("w", secs(1), LEASE, 10).await.unwrap();
    let delivery = claimed[0].delivery.id;
    for (i, status) in [(1, 500), (2, 503), (3, 200)] {
        let mut attempt = failure(secs(i * 10));
        attempt.status_code = Some(status);
        attempt.succeeded = status == 200;
        attempt.response_body = "é".repeat(3000).into_bytes();
        db.record_attempt(delivery, attempt).await.unwrap();
        let failing = db.endpoint(a, &ep).await.unwrap().unwrap().failing_since;
        assert_eq!(failing, (status != 200).then(|| secs(10)), "from the first failure");
    }
    let log = db.attempts(a, &ep, 10).await.unwrap();
    let codes: Vec<Option<u16>> = log.iter().map(|x| x.status_code).collect();
    assert_eq!(codes, [Some(200), Some(503), Some(500)]);
    assert!(log.iter().all(|x| x.response_body.len() == 4096), "the preview");
    assert_eq!(db.attempts(a, &ep, 1).await.unwrap().len(), 1);
    assert_eq!(db.prune_attempts(secs(25)).await.unwrap(), 2);
    let left = db.attempts(a, &ep, 10).await.unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].attempted_at, secs(30));
}

pub async fn a_rotated_secret_is_kept_until_its_instant(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = customer(&db, "a@example.com").await;
    let ep = endpoint(&db, a, &[EventType::ReleasePublished], &[]).await;
    let before = db.endpoint(a, &ep).await.unwrap().unwrap();
    let new_secret = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let rotated = db
        .rotate_secret(a, &ep, new_secret, secs(86_400), secs(10))
        .await
        .unwrap();
    assert_eq!(rotated.secret, new_secret);
    assert_eq!(rotated.previous_secret.as_deref(), Some(before.secret.as_str()));
    assert_eq!(rotated.previous_secret_until, Some(secs(86_400)));
    assert_eq!(
        rotated.signing_secrets(secs(86_399)),
        [new_secret, before.secret.as_str()]
    );
    assert_eq!(rotated.signing_secrets(secs(86_400)), [new_secret]);
    assert_eq!(db.endpoint(a, &ep).await.unwrap().unwrap(), rotated);
    // Updates and re-enabling.
    let updated = db
        .update_endpoint(
            a,
            &ep,
            EndpointUpdate {
                url: Some("https://example.org/h".to_owned()),
                description: Some(Some("prod".to_owned())),
                sports: Some(vec!["nba".to_owned(), "nfl".to_owned()]),
                ..EndpointUpdate::default()
            },
            secs(20),
        )
        .await
        .unwrap();
    assert_eq!(updated.url, "https://example.org/h");
    assert_eq!(updated.sports, ["nba", "nfl"]);
    assert_eq!(updated.updated_at, secs(20));
    db.disable_endpoint(&ep, "http_410", secs(30)).await.unwrap();
    let disabled = db.endpoint(a, &ep).await.unwrap().unwrap();
    assert!(!disabled.enabled);
    assert_eq!(disabled.disabled_reason.as_deref(), Some("http_410"));
    let enabled = db
        .update_endpoint(
            a,
            &ep,
            EndpointUpdate {
                enabled: Some(true),
                ..EndpointUpdate::default()
            },
            secs(40),
        )
        .await
        .unwrap();
    assert!(enabled.enabled && enabled.disabled_reason.is_none());
}
