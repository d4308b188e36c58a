//! The billing ledger: events applied once, in any order, to the right
//! customer, with an audit line each.

use chrono::{DateTime, Duration, Utc};
use linecast_core::ports::billing::{
    BillingEvent, BillingEventKind, BillingLedger, BillingOutcome, Buyer, PlanGrant, SubscriptionState,
};
use linecast_core::{Accounts, Customer, SubscriptionStatus};
use linecast_db::SeaAccounts;

use crate::accounts::{new_customer, t0};

fn at(secs: i64) -> DateTime<Utc> {
    t0() + Duration::seconds(secs)
}

fn checkout(id: &str, created: i64, email: Option<&str>, reference: Option<i64>) -> BillingEvent {
    BillingEvent {
        event_id: id.to_owned(),
        created,
        stripe_customer: "cus_A".to_owned(),
        stripe_subscription: Some("sub_A".to_owned()),
        kind: BillingEventKind::Checkout(Buyer {
            customer_id: reference,
            email: email.map(str::to_owned),
            name: Some("New Buyer".to_owned()),
        }),
    }
}

fn subscription(id: &str, created: i64, status: SubscriptionStatus, plan: Option<(&str, Option<u64>)>) -> BillingEvent {
    BillingEvent {
        event_id: id.to_owned(),
        created,
        stripe_customer: "cus_A".to_owned(),
        stripe_subscription: Some("sub_A".to_owned()),
        kind: BillingEventKind::Subscription(SubscriptionState {
            status,
            plan: plan.map(|(plan, monthly_limit)| PlanGrant {
                plan: plan.to_owned(),
                monthly_limit,
            }),
            price: Some("price_x".to_owned()),
        }),
    }
}

async fn fresh(url: &str) -> SeaAccounts {
    SeaAccounts::connect(url).await.unwrap()
}

/// A customer as the tests compare it: what billing may change.
fn state(c: &Customer) -> (String, String, Option<String>, u64) {
    (
        c.api_subscription_status.code().to_owned(),
        c.subscription_status.code().to_owned(),
        c.api_plan.clone(),
        c.monthly_limit,
    )
}

pub async fn an_event_id_is_applied_once(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.apply_billing(&checkout("evt_1", 100, Some("ADA@example.com"), None), at(0))
        .await
        .unwrap();
    let cancel = subscription("evt_2", 200, SubscriptionStatus::Canceled, None);
    assert!(matches!(
        db.apply_billing(&cancel, at(1)).await.unwrap(),
        BillingOutcome::Applied { .. }
    ));
    let lines = db.audit_log(ada.customer_id).await.unwrap().len();
    // Reactivated by hand, then the cancel is delivered again.
    db.set_subscription("ada@example.com", SubscriptionStatus::Active)
        .await
        .unwrap();
    assert_eq!(
        db.apply_billing(&cancel, at(2)).await.unwrap(),
        BillingOutcome::Duplicate
    );
    let after = db.get_customer(ada.customer_id).await.unwrap();
    assert_eq!(after.api_subscription_status, SubscriptionStatus::Active);
    assert_eq!(db.audit_log(ada.customer_id).await.unwrap().len(), lines);
}

pub async fn a_checkout_links_by_reference_then_by_email_and_creates_an_unknown_buyer(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    // The reference wins over the email.
    let linked = db
        .apply_billing(
            &checkout("evt_1", 100, Some("ada@example.com"), Some(bob.customer_id)),
            at(0),
        )
        .await
        .unwrap();
    match linked {
        BillingOutcome::Linked { customer, created, .. } => {
            assert_eq!(customer.customer_id, bob.customer_id);
            assert!(!created);
        }
        other => panic!("{other:?}"),
    }
    let link = db.stripe_link(bob.customer_id).await.unwrap().unwrap();
    assert_eq!(
        (link.stripe_customer.as_str(), link.stripe_subscription.as_deref()),
        ("cus_A", Some("sub_A"))
    );
    assert_eq!(db.stripe_link(ada.customer_id).await.unwrap(), None);

    // A reference to no customer falls back to the email, case-insensitively.
    let mut by_email = checkout("evt_2", 110, Some(" Ada@Example.COM "), Some(999_999));
    by_email.stripe_customer = "cus_B".into();
    by_email.stripe_subscription = Some("sub_B".into());
    match db.apply_billing(&by_email, at(1)).await.unwrap() {
        BillingOutcome::Linked { customer, .. } => assert_eq!(customer.customer_id, ada.customer_id),
        other => panic!("{other:?}"),
    }

    // An email nobody has creates the buyer, without access until its
    // subscription event says so.
    let mut new = checkout("evt_3", 120, Some("Carol@Example.com"), None);
    new.stripe_customer = "cus_C".into();
    new.stripe_subscription = Some("sub_C".into());
    let carol = match db.apply_billing(&new, at(2)).await.unwrap() {
        BillingOutcome::Linked { customer, created, .. } => {
            assert!(created);
            customer
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(carol.email, "carol@example.com");
    assert_eq!(carol.name, "New Buyer");
    assert_eq!(carol.api_subscription_status, SubscriptionStatus::Incomplete);
    assert_eq!(carol.api_plan, None);
    assert!(db.list_keys(carol.customer_id).await.unwrap().is_empty());

    // No reference that exists and no email: nothing happens.
    let mut nobody = checkout("evt_4", 130, None, Some(424_242));
    nobody.stripe_customer = "cus_D".into();
    assert_eq!(db.apply_billing(&nobody, at(3)).await.unwrap(), BillingOutcome::NoBuyer);
    assert_eq!(db.list_customers().await.unwrap().len(), 3);
}

/// Every order of the same four events ends in the same state, the one the
/// newest subscription event describes.
pub async fn any_delivery_order_converges_to_the_newest_subscription_state(url: String) {
    let events = [
        checkout("evt_checkout", 100, Some("ada@example.com"), None),
        subscription("evt_created", 100, SubscriptionStatus::Incomplete, Some(("ai", None))),
        subscription(
            "evt_active",
            101,
            SubscriptionStatus::Active,
            Some(("ai", Some(500_000))),
        ),
        subscription(
            "evt_past_due",
            300,
            SubscriptionStatus::PastDue,
            Some(("ai", Some(500_000))),
        ),
    ];
    let orders: [[usize; 4]; 6] = [
        [0, 1, 2, 3],
        [1, 2, 3, 0],
        [3, 2, 1, 0],
        [2, 0, 3, 1],
        [3, 0, 1, 2],
        [1, 3, 0, 2],
    ];
    let db = fresh(&url).await;
    for order in orders {
        // Each order has its own customer, Stripe ids and event ids.
        let tag = format!("{order:?}").replace(|c: char| !c.is_ascii_digit(), "");
        let email = format!("ada{tag}@example.com");
        let ada = db.create_customer(new_customer(&email), t0()).await.unwrap();
        for (step, &i) in order.iter().enumerate() {
            let mut event = events[i].clone();
            event.event_id = format!("{}_{tag}", event.event_id);
            event.stripe_customer = format!("cus_{tag}");
            event.stripe_subscription = Some(format!("sub_{tag}"));
            if let BillingEventKind::Checkout(buyer) = &mut event.kind {
                buyer.email = Some(email.clone());
            }
            db.apply_billing(&event, at(step as i64)).await.unwrap();
        }
        let end = db.get_customer(ada.customer_id).await.unwrap();
        assert_eq!(
            state(&end),
            ("past_due".into(), "past_due".into(), Some("ai".into()), 500_000),
            "order {order:?}"
        );
        let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
        assert_eq!(link.last_created, Some(300), "order {order:?}");
        assert_eq!(
            link.last_event_id,
            Some(format!("evt_past_due_{tag}")),
            "order {order:?}"
        );
    }
}

pub async fn an_older_update_after_a_newer_one_changes_nothing(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.apply_billing(&checkout("evt_1", 100, Some("ada@example.com"), None), at(0))
        .await
        .unwrap();
    db.apply_billing(&subscription("evt_new", 500, SubscriptionStatus::Canceled, None), at(1))
        .await
        .unwrap();
    let lines = db.audit_log(ada.customer_id).await.unwrap().len();
    let old = subscription("evt_old", 400, SubscriptionStatus::Active, Some(("ai", Some(9))));
    assert_eq!(
        db.apply_billing(&old, at(2)).await.unwrap(),
        BillingOutcome::Stale {
            customer_id: ada.customer_id
        }
    );
    let end = db.get_customer(ada.customer_id).await.unwrap();
    assert_eq!(end.api_subscription_status, SubscriptionStatus::Canceled);
    assert_eq!(end.monthly_limit, 200_000);
    assert_eq!(db.audit_log(ada.customer_id).await.unwrap().len(), lines);
    // Its id is spent: a redelivery is a duplicate.
    assert_eq!(db.apply_billing(&old, at(3)).await.unwrap(), BillingOutcome::Duplicate);
}

pub async fn an_unmapped_price_sets_the_status_and_keeps_the_plan(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.apply_billing(&checkout("evt_1", 100, Some("ada@example.com"), None), at(0))
        .await
        .unwrap();
    db.apply_billing(&subscription("evt_2", 200, SubscriptionStatus::Trialing, None), at(1))
        .await
        .unwrap();
    let end = db.get_customer(ada.customer_id).await.unwrap();
    assert_eq!(
        state(&end),
        ("trialing".into(), "trialing".into(), Some("ai".into()), 200_000)
    );
    let audit = db.audit_log(ada.customer_id).await.unwrap();
    let last = audit.last().unwrap();
    assert_eq!(last.action, "billing");
    assert!(last.detail.starts_with("actor=stripe event=evt_2 "), "{}", last.detail);
    assert!(last.detail.contains("price_x has no mapping"), "{}", last.detail);
}

pub async fn a_link_by_hand_applies_what_waited_for_it(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.set_subscription("ada@example.com", SubscriptionStatus::PastDue)
        .await
        .unwrap();
    assert_eq!(
        db.apply_billing(
            &subscription("evt_1", 100, SubscriptionStatus::Active, Some(("ai", None))),
            at(0)
        )
        .await
        .unwrap(),
        BillingOutcome::Pending
    );
    let link = db
        .link_stripe_customer("ADA@example.com", "cus_A", "operator", at(1))
        .await
        .unwrap();
    assert_eq!(link.stripe_subscription.as_deref(), Some("sub_A"));
    assert_eq!(link.last_event_id.as_deref(), Some("evt_1"));
    let end = db.get_customer(ada.customer_id).await.unwrap();
    assert_eq!(end.api_subscription_status, SubscriptionStatus::Active);
    let audit = db.audit_log(ada.customer_id).await.unwrap();
    assert!(
        audit
            .iter()
            .any(|l| l.detail.starts_with("actor=operator linked customer=cus_A"))
    );
    assert!(audit.iter().any(|l| l.detail.starts_with("actor=stripe event=evt_1 ")));

    // Another customer cannot take a Stripe customer that is linked.
    db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    assert!(matches!(
        db.link_stripe_customer("bob@example.com", "cus_A", "operator", at(2))
            .await,
        Err(linecast_core::AccountsError::Conflict(_))
    ));
    assert!(matches!(
        db.link_stripe_customer("nobody@example.com", "cus_Z", "operator", at(2))
            .await,
        Err(linecast_core::AccountsError::NotFound)
    ));
}
