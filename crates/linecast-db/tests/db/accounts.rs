//! Customers, keys, the audit log and entitlements.

use std::collections::BTreeSet;
use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use linecast_core::key_material::{display_prefix, generate_key, hash_key};
use linecast_core::services::keys::{KeyError, Keys};
use linecast_core::{
    Accounts, AccountsError, ApiKeyRecord, KeyIssue, KeyIssued, NewApiKey, NewCustomer, SubscriptionStatus,
};
use linecast_db::SeaAccounts;
use linecast_domain::Sport;
use sea_orm::ConnectionTrait;

pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, 0).unwrap()
}

pub fn new_customer(email: &str) -> NewCustomer {
    NewCustomer {
        email: email.to_owned(),
        name: "Ada".to_owned(),
        tier: "ai".to_owned(),
        api_plan: Some("ai".to_owned()),
        subscription_status: SubscriptionStatus::Active,
        monthly_limit: 200_000,
    }
}

fn new_key(customer_id: i64, name: &str) -> (String, NewApiKey) {
    let full = generate_key().unwrap();
    let key = NewApiKey {
        customer_id,
        key_hash: hash_key(&full),
        display_prefix: display_prefix(&full).unwrap().to_owned(),
        name: name.to_owned(),
        tier: "ai".to_owned(),
        expires_at: None,
    };
    (full, key)
}

/// `issue_key` with no cap and the audit detail `detail`.
fn uncapped(key: NewApiKey, detail: &str) -> KeyIssue {
    KeyIssue {
        key,
        max_active: None,
        audit_action: "issue".to_owned(),
        audit_detail: detail.to_owned(),
    }
}

/// Stores `key` uncapped and returns its record.
async fn insert_key(db: &SeaAccounts, key: NewApiKey, now: DateTime<Utc>) -> Result<ApiKeyRecord, AccountsError> {
    match db.issue_key(uncapped(key, "seeded"), now).await? {
        KeyIssued::Stored(record) => Ok(record),
        KeyIssued::LimitReached => panic!("an uncapped issue reached a limit"),
    }
}

pub async fn a_second_customer_with_the_same_email_is_a_conflict(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let again = db.create_customer(new_customer("ada@example.com"), t0()).await;
    assert!(matches!(again, Err(AccountsError::Conflict(_))), "{again:?}");
    let other_case = db.create_customer(new_customer(" ADA@example.com"), t0()).await;
    assert!(matches!(other_case, Err(AccountsError::Conflict(_))), "{other_case:?}");
    assert_eq!(db.list_customers().await.unwrap().len(), 1);
}

pub async fn customers_are_found_by_email_listed_and_their_subscription_set(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    assert_eq!(ada.created_at, t0());
    assert_eq!(ada.monthly_limit, 200_000);
    assert_eq!(
        db.find_customer_by_email("Ada@Example.com").await.unwrap(),
        Some(ada.clone())
    );
    assert_eq!(db.find_customer_by_email("nobody@example.com").await.unwrap(), None);
    assert_eq!(db.get_customer(bob.customer_id).await.unwrap(), bob);
    let listed: Vec<_> = db
        .list_customers()
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.email)
        .collect();
    assert_eq!(listed, ["ada@example.com", "bob@example.com"]);

    let canceled = db
        .set_subscription("ada@example.com", SubscriptionStatus::Canceled)
        .await
        .unwrap();
    assert_eq!(canceled.subscription_status, SubscriptionStatus::Canceled);
    assert_eq!(canceled.api_subscription_status, SubscriptionStatus::Canceled);
    assert_eq!(
        db.get_customer(bob.customer_id).await.unwrap().subscription_status,
        SubscriptionStatus::Active
    );
    let missing = db
        .set_subscription("nobody@example.com", SubscriptionStatus::Active)
        .await;
    assert_eq!(missing, Err(AccountsError::NotFound));
}

pub async fn a_missing_customer_or_key_is_not_found(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    assert_eq!(db.get_customer(4242).await, Err(AccountsError::NotFound));
    assert_eq!(db.rename_key(4242, "x").await, Err(AccountsError::NotFound));
    assert_eq!(db.revoke_key(4242, t0()).await, Err(AccountsError::NotFound));
    assert_eq!(db.find_key_by_hash(&hash_key("sk_service_nope")).await, Ok(None));
    // A key for a customer that does not exist breaks the foreign key.
    let (_, orphan) = new_key(4242, "orphan");
    assert_eq!(
        insert_key(&db, orphan.clone(), t0()).await,
        Err(AccountsError::NotFound)
    );
    let capped = KeyIssue {
        max_active: Some(5),
        ..uncapped(orphan, "orphan")
    };
    assert_eq!(db.issue_key(capped, t0()).await, Err(AccountsError::NotFound));
}

pub async fn a_key_is_found_by_hash_listed_renamed_and_revoked(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    let (full, first) = new_key(ada.customer_id, "laptop");
    let expiry = t0() + Duration::days(30);
    let stored = insert_key(
        &db,
        NewApiKey {
            expires_at: Some(expiry),
            ..first.clone()
        },
        t0(),
    )
    .await
    .unwrap();
    assert_eq!(stored.key_hash, first.key_hash);
    assert_eq!(stored.display_prefix, &full["sk_service_".len()..][..4]);
    assert!(stored.is_active && stored.revoked_at.is_none() && stored.last_used_at.is_none());
    assert_eq!(stored.expires_at, Some(expiry));
    let (_, second) = new_key(ada.customer_id, "server");
    let second = insert_key(&db, second, t0()).await.unwrap();
    let (_, bobs) = new_key(bob.customer_id, "bob");
    insert_key(&db, bobs, t0()).await.unwrap();

    let (found, owner) = db.find_key_by_hash(&hash_key(&full)).await.unwrap().unwrap();
    assert_eq!(found, stored);
    assert_eq!(owner, ada);
    let names: Vec<_> = db
        .list_keys(ada.customer_id)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.name)
        .collect();
    assert_eq!(names, ["laptop", "server"]);

    db.rename_key(second.id, "build box").await.unwrap();
    let later = t0() + Duration::hours(1);
    db.revoke_key(stored.id, later).await.unwrap();
    // Revoking again keeps the first instant.
    db.revoke_key(stored.id, later + Duration::hours(1)).await.unwrap();

    let keys = db.list_keys(ada.customer_id).await.unwrap();
    assert_eq!(keys[1].name, "build box");
    assert!(keys[1].is_usable(later));
    assert!(!keys[0].is_active);
    assert_eq!(keys[0].revoked_at, Some(later));
    assert!(!keys[0].is_usable(later));
    let (revoked, _) = db.find_key_by_hash(&hash_key(&full)).await.unwrap().unwrap();
    assert!(
        !revoked.is_active,
        "a revoked key is still found, so the caller can answer 401"
    );
}

/// A key's expiry only ever moves earlier: a roll's grace never extends a
/// key that was already due to expire sooner.
pub async fn a_key_expiry_is_set_and_never_moves_later(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let (_, open) = new_key(ada.customer_id, "open-ended");
    let open = insert_key(&db, open, t0()).await.unwrap();
    let (_, soon) = new_key(ada.customer_id, "soon");
    let soon_at = t0() + Duration::minutes(30);
    let soon = insert_key(
        &db,
        NewApiKey {
            expires_at: Some(soon_at),
            ..soon
        },
        t0(),
    )
    .await
    .unwrap();
    let (_, other) = new_key(ada.customer_id, "untouched");
    let other = insert_key(&db, other, t0()).await.unwrap();

    let in_an_hour = t0() + Duration::hours(1);
    db.set_key_expiry(open.id, in_an_hour).await.unwrap();
    db.set_key_expiry(soon.id, in_an_hour).await.unwrap();
    let keys = db.list_keys(ada.customer_id).await.unwrap();
    assert_eq!(keys[0].expires_at, Some(in_an_hour));
    assert_eq!(
        keys[1].expires_at,
        Some(soon_at),
        "a later expiry never replaces an earlier one"
    );
    assert_eq!(keys[2].expires_at, None, "only the named key changes");
    assert!(keys[0].is_usable(in_an_hour - Duration::seconds(1)));
    assert!(!keys[0].is_usable(in_an_hour));

    // Earlier again: it moves.
    db.set_key_expiry(open.id, t0()).await.unwrap();
    let (found, _) = db.find_key_by_hash(&open.key_hash).await.unwrap().unwrap();
    assert_eq!(found.expires_at, Some(t0()));
    assert!(
        found.is_active && found.revoked_at.is_none(),
        "expiring is not revoking"
    );
    assert!(!found.is_usable(t0()));

    assert_eq!(
        db.set_key_expiry(other.id + 1000, t0()).await,
        Err(AccountsError::NotFound)
    );
}

pub async fn many_keys_are_found_in_one_read_with_their_own_customers(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    let mut hashes = Vec::new();
    let mut owners = std::collections::BTreeMap::new();
    // More keys than one chunk of the batch read, spread over two customers.
    for i in 0..520 {
        let owner = if i % 3 == 0 { &bob } else { &ada };
        let (_, key) = new_key(owner.customer_id, &format!("k{i}"));
        let stored = insert_key(&db, key, t0()).await.unwrap();
        owners.insert(stored.key_hash.clone(), owner.customer_id);
        hashes.push(stored.key_hash);
    }
    let revoked = db.find_key_by_hash(&hashes[7]).await.unwrap().unwrap().0;
    db.revoke_key(revoked.id, t0()).await.unwrap();
    hashes.push(hash_key("sk_service_nope"));

    let found = db.find_keys_by_hashes(&hashes).await.unwrap();
    assert_eq!(found.len(), 520, "every stored key, the unknown hash left out");
    for (key, customer) in &found {
        assert_eq!(
            owners[&key.key_hash], customer.customer_id,
            "key {} and its own customer",
            key.name
        );
        assert_eq!(key.customer_id, customer.customer_id);
    }
    let state = found.iter().find(|(k, _)| k.id == revoked.id).unwrap();
    assert!(!state.0.is_active, "a revoked key is found too, with its state");
    assert_eq!(db.find_keys_by_hashes(&[]).await, Ok(Vec::new()));
}

pub async fn a_duplicate_key_hash_is_a_conflict(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let (_, key) = new_key(ada.customer_id, "one");
    insert_key(&db, key.clone(), t0()).await.unwrap();
    assert!(matches!(
        insert_key(&db, key, t0()).await,
        Err(AccountsError::Conflict(_))
    ));
    // The failed insert left no audit line behind.
    assert_eq!(db.audit_log(ada.customer_id).await.unwrap().len(), 1);
}

pub async fn last_used_is_touched_in_one_batch_and_never_moves_back(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let mut ids = Vec::new();
    for name in ["a", "b", "c"] {
        ids.push(
            insert_key(&db, new_key(ada.customer_id, name).1, t0())
                .await
                .unwrap()
                .id,
        );
    }
    let later = t0() + Duration::minutes(5);
    db.touch_last_used(&ids[..2], later).await.unwrap();
    db.touch_last_used(&ids[..1], t0()).await.unwrap();
    db.touch_last_used(&[], later).await.unwrap();
    let used: Vec<_> = db
        .list_keys(ada.customer_id)
        .await
        .unwrap()
        .into_iter()
        .map(|k| k.last_used_at)
        .collect();
    assert_eq!(used, [Some(later), Some(later), None]);
}

pub async fn the_audit_log_keeps_every_line_in_order(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    let issued = db
        .issue_key(uncapped(new_key(ada.customer_id, "k").1, "name=k"), t0())
        .await
        .unwrap();
    let KeyIssued::Stored(key) = issued else {
        panic!("{issued:?}")
    };
    db.audit(bob.customer_id, None, "subscription", "active", t0())
        .await
        .unwrap();
    db.audit(ada.customer_id, Some(key.id), "revoke", "", t0() + Duration::seconds(1))
        .await
        .unwrap();
    let log = db.audit_log(ada.customer_id).await.unwrap();
    let actions: Vec<_> = log.iter().map(|e| (e.action.as_str(), e.key_id, e.at)).collect();
    assert_eq!(
        actions,
        [
            ("issue", Some(key.id), t0()),
            ("revoke", Some(key.id), t0() + Duration::seconds(1))
        ]
    );
    assert_eq!(log[0].detail, "name=k");
    assert_eq!(db.audit_log(bob.customer_id).await.unwrap().len(), 1);
}

pub async fn entitlements_accumulate_products_and_sports(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    assert_eq!(db.get_entitlement(ada.customer_id).await.unwrap(), None);
    let first = db
        .grant_entitlement(ada.customer_id, &["nba_history".to_owned()], &[Sport::Nba], None)
        .await
        .unwrap();
    assert_eq!(first.owned_sports, [Sport::Nba]);
    let until = t0() + Duration::days(365);
    let second = db
        .grant_entitlement(
            ada.customer_id,
            &["mlb_history".to_owned()],
            &[Sport::Mlb, Sport::Nba],
            Some(until),
        )
        .await
        .unwrap();
    assert_eq!(second.owned_products, ["mlb_history", "nba_history"]);
    assert_eq!(second.owned_sports, [Sport::Mlb, Sport::Nba]);
    assert_eq!(second.expires_at, Some(until));
    assert_eq!(db.get_entitlement(ada.customer_id).await.unwrap(), Some(second));
    let missing = db.grant_entitlement(4242, &[], &[Sport::Nfl], None).await;
    assert_eq!(missing, Err(AccountsError::NotFound));
}

pub async fn the_database_answers_a_ping(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    db.ping().await.unwrap();
}

pub async fn two_instances_starting_at_once_both_migrate_and_connect(url: String) {
    let (a, b) = tokio::join!(SeaAccounts::connect(&url), SeaAccounts::connect(&url));
    let (a, b) = (a.unwrap(), b.unwrap());
    let ada = a.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    assert_eq!(b.get_customer(ada.customer_id).await.unwrap(), ada);
}

/// The cap holds under concurrency: 40 issues started at once for one
/// customer with a cap of 25 store exactly 25 keys, each with exactly one
/// `issue` audit line, and refuse the other 15.
pub async fn concurrent_issues_never_pass_the_cap_and_every_key_has_its_audit_line(url: String) {
    const CAP: usize = 25;
    const ATTEMPTS: usize = 40;
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let keys = Arc::new(Keys::new(Arc::new(db.clone()), CAP));
    let start = Arc::new(tokio::sync::Barrier::new(ATTEMPTS));
    let tasks: Vec<_> = (0..ATTEMPTS)
        .map(|i| {
            let (keys, start, ada) = (keys.clone(), start.clone(), ada.clone());
            tokio::spawn(async move {
                start.wait().await;
                keys.issue(&ada, &format!("key {i}"), None, "api", t0()).await
            })
        })
        .collect();
    let (mut issued, mut refused) = (0, 0);
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => issued += 1,
            Err(KeyError::LimitReached { max: CAP }) => refused += 1,
            Err(other) => panic!("an issue failed: {other:?}"),
        }
    }
    assert_eq!((issued, refused), (CAP, ATTEMPTS - CAP));
    let stored = db.list_keys(ada.customer_id).await.unwrap();
    assert_eq!(stored.iter().filter(|k| k.is_usable(t0())).count(), CAP);
    assert_eq!(stored.len(), CAP, "no refused issue left a key behind");
    let log = db.audit_log(ada.customer_id).await.unwrap();
    let issue_lines: Vec<_> = log.iter().filter(|l| l.action == "issue").collect();
    assert_eq!(issue_lines.len(), CAP);
    let audited: BTreeSet<_> = issue_lines.iter().map(|l| l.key_id).collect();
    let stored_ids: BTreeSet<_> = stored.iter().map(|k| Some(k.id)).collect();
    assert_eq!(audited, stored_ids, "each stored key has its own line");
}

/// The key and its audit line are one transaction: when the line cannot be
/// written (here its table is renamed away), no key is stored either.
pub async fn a_key_whose_audit_line_fails_is_rolled_back(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let conn = db.connection();
    conn.execute_unprepared("ALTER TABLE key_audit_log RENAME TO key_audit_log_away")
        .await
        .unwrap();
    let (_, key) = new_key(ada.customer_id, "lost");
    let capped = KeyIssue {
        max_active: Some(25),
        ..uncapped(key, "issued key 'lost'")
    };
    let failed = db.issue_key(capped, t0()).await;
    assert!(matches!(failed, Err(AccountsError::Unavailable(_))), "{failed:?}");
    conn.execute_unprepared("ALTER TABLE key_audit_log_away RENAME TO key_audit_log")
        .await
        .unwrap();
    assert_eq!(db.list_keys(ada.customer_id).await.unwrap(), []);
    assert_eq!(db.audit_log(ada.customer_id).await.unwrap(), []);
}
