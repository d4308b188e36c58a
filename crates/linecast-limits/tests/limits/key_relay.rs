//! The Redis key relay (`RedisKeyRelay`) against a real Redis, when
//! `LINECAST_TEST_REDIS_URL` is set: two relays on one namespace stand for
//! an instance cut off from the database and one that reaches it. Each
//! test uses its own namespace and deletes it.

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeZone, Utc};
use linecast_core::ports::accounts::{ApiKeyRecord, Customer, SubscriptionStatus};
use linecast_core::ports::key_relay::KeyRelay;
use linecast_limits::RedisKeyRelay;
use rand::Rng;

use crate::redis::{cleanup, redis_url};

const TIMEOUT: Duration = Duration::from_secs(5);
const FRESH: Duration = Duration::from_secs(10);

fn entry(revoked: bool, status: SubscriptionStatus) -> Arc<(ApiKeyRecord, Customer)> {
    let at = Utc.with_ymd_and_hms(2026, 11, 28, 12, 0, 0).unwrap();
    Arc::new((
        ApiKeyRecord {
            id: 7,
            customer_id: 3,
            key_hash: "a".repeat(64),
            display_prefix: "sk_service_abcd".into(),
            name: "trading \"bot\" | é".into(),
            tier: "ai".into(),
            created_at: at,
            is_active: true,
            expires_at: Some(at + chrono::Duration::days(30)),
            revoked_at: revoked.then_some(at),
            last_used_at: None,
        },
        Customer {
            customer_id: 3,
            email: "q@example.com".into(),
            name: "Q".into(),
            tier: "ai".into(),
            api_plan: Some("ai".into()),
            api_subscription_status: status,
            subscription_status: status,
            monthly_limit: 200_000,
            created_at: at,
        },
    ))
}

#[tokio::test]
async fn an_ask_is_answered_by_another_relay_with_the_record_as_read_and_its_age() {
    let Some(url) = redis_url() else { return };
    let namespace = format!("linecast-test-{:016x}", rand::rng().random::<u64>());
    let cut = RedisKeyRelay::connect(&url, namespace.clone(), TIMEOUT).await.unwrap();
    let up = RedisKeyRelay::connect(&url, namespace.clone(), TIMEOUT).await.unwrap();
    let (known, gone) = ("a".repeat(64), "b".repeat(64));
    let nobody = cut.ask(&[], FRESH).await.unwrap();
    assert!(nobody.keys.is_empty() && nobody.listened.is_none(), "{nobody:?}");
    assert!(up.listen(100).await.unwrap().is_empty(), "nothing asked yet");
    assert!(
        cut.ask(&[], FRESH).await.unwrap().listened.unwrap() < Duration::from_secs(5),
        "one listened"
    );

    let first = cut.ask(&[known.clone(), gone.clone()], FRESH).await.unwrap();
    assert!(first.keys.is_empty(), "no answer yet: {first:?}");
    let mut asked = up.listen(100).await.unwrap();
    asked.sort();
    assert_eq!(asked, vec![known.clone(), gone.clone()]);
    assert_eq!(up.listen(1).await.unwrap().len(), 1, "at most the limit");

    let revoked = entry(true, SubscriptionStatus::Canceled);
    up.answer(
        &[(known.clone(), Some(revoked.clone())), (gone.clone(), None)],
        Duration::from_millis(1500),
        FRESH,
    )
    .await
    .unwrap();
    let mut answers = cut.ask(&[known.clone(), gone.clone()], FRESH).await.unwrap().keys;
    answers.sort_by(|a, b| a.key_hash.cmp(&b.key_hash));
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0].key_hash, known);
    assert_eq!(answers[0].entry.as_deref(), Some(&*revoked), "every field as read");
    assert!(answers[0].age >= Duration::from_millis(1500) && answers[0].age < Duration::from_secs(5));
    assert_eq!(answers[1].entry, None, "a hash no key has is answered as unknown");

    // An older read does not replace a newer answer.
    let active = entry(false, SubscriptionStatus::Active);
    up.answer(&[(known.clone(), Some(active))], Duration::from_secs(4), FRESH)
        .await
        .unwrap();
    let again = cut.ask(std::slice::from_ref(&known), FRESH).await.unwrap().keys;
    assert_eq!(again[0].entry.as_deref(), Some(&*revoked));
    // Only answers fresher than asked for are returned.
    assert!(
        cut.ask(std::slice::from_ref(&known), Duration::from_secs(1))
            .await
            .unwrap()
            .keys
            .is_empty()
    );
    // A read older than it may be kept is not stored at all.
    let other = "c".repeat(64);
    up.answer(&[(other.clone(), None)], FRESH + Duration::from_secs(1), FRESH)
        .await
        .unwrap();
    assert!(cut.ask(&[other], FRESH).await.unwrap().keys.is_empty());
    cleanup(&url, &namespace).await;
}
