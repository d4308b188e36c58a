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
            signed_customer: reference,
            refused_reference: None,
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
            // A 30-day period starting at the event.
            period_end: Some(created + PERIOD),
        }),
    }
}

const PERIOD: i64 = 30 * 86_400;

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
    db.apply_billing(&checkout("evt_1", 100, None, Some(ada.customer_id)), at(0))
        .await
        .unwrap();
    let cancel = subscription("evt_2", 200, SubscriptionStatus::Canceled, Some(("ai", None)));
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

pub async fn a_checkout_links_by_signed_reference_holds_an_email_match_and_creates_an_unknown_buyer(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    // A signed reference names its customer, whatever email was typed.
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

    // An email that belongs to a customer links nothing: it is held for an
    // operator, with an audit line on that customer.
    let mut by_email = checkout("evt_2", 110, Some(" Ada@Example.COM "), None);
    by_email.stripe_customer = "cus_B".into();
    by_email.stripe_subscription = Some("sub_B".into());
    assert_eq!(
        db.apply_billing(&by_email, at(1)).await.unwrap(),
        BillingOutcome::Held {
            customer_id: ada.customer_id
        }
    );
    assert_eq!(db.stripe_link(ada.customer_id).await.unwrap(), None);
    let pending = db.pending_billing().await.unwrap();
    assert_eq!(pending.held.len(), 1);
    let held = &pending.held[0];
    assert_eq!(
        (
            held.event_id.as_str(),
            held.customer_id,
            held.email.as_str(),
            held.stripe_customer.as_str(),
            held.stripe_subscription.as_deref()
        ),
        ("evt_2", ada.customer_id, "ada@example.com", "cus_B", Some("sub_B"))
    );
    let audit = db.audit_log(ada.customer_id).await.unwrap();
    assert!(
        audit
            .iter()
            .any(|l| l.detail.starts_with("actor=stripe event=evt_2 held for an operator")),
        "{audit:?}"
    );

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

    // A name from Stripe that an operator could not type is replaced by the
    // email; an email an operator could not type creates nobody.
    let mut odd = checkout("evt_4", 130, Some("dave@example.com"), None);
    odd.stripe_customer = "cus_D".into();
    odd.stripe_subscription = Some("sub_D".into());
    if let BillingEventKind::Checkout(buyer) = &mut odd.kind {
        buyer.name = Some("Dave\u{202e}gpj.exe".into());
    }
    match db.apply_billing(&odd, at(3)).await.unwrap() {
        BillingOutcome::Linked { customer, .. } => assert_eq!(customer.name, "dave@example.com"),
        other => panic!("{other:?}"),
    }
    let mut bad_email = checkout("evt_5", 140, Some("not an email"), None);
    bad_email.stripe_customer = "cus_E".into();
    assert_eq!(
        db.apply_billing(&bad_email, at(4)).await.unwrap(),
        BillingOutcome::NoBuyer
    );

    // A signed reference to no customer, and no email: nothing happens.
    let mut nobody = checkout("evt_6", 150, None, Some(424_242));
    nobody.stripe_customer = "cus_F".into();
    assert_eq!(db.apply_billing(&nobody, at(5)).await.unwrap(), BillingOutcome::NoBuyer);
    let mut nothing = checkout("evt_7", 160, None, None);
    nothing.stripe_customer = "cus_G".into();
    assert_eq!(
        db.apply_billing(&nothing, at(6)).await.unwrap(),
        BillingOutcome::NoBuyer
    );
    assert_eq!(db.list_customers().await.unwrap().len(), 4);
}

/// The review's attack (2026-11-25, finding 1): a paying customer's link is
/// never moved by a buyer-chosen email or reference, and their own
/// renewals keep applying.
pub async fn a_checkout_never_takes_over_a_paying_customers_link(url: String) {
    let db = fresh(&url).await;
    let victim = db
        .create_customer(new_customer("victim@example.com"), t0())
        .await
        .unwrap();
    let pro = Some(("ai", Some(500_000)));
    let small = Some(("ai", Some(1_000)));
    let mut own = checkout("evt_v_co", 100, Some("victim@example.com"), Some(victim.customer_id));
    own.stripe_customer = "cus_VICTIM".into();
    own.stripe_subscription = Some("sub_VICTIM".into());
    db.apply_billing(&own, at(0)).await.unwrap();
    let mut renew = subscription("evt_v_s1", 101, SubscriptionStatus::Active, pro);
    renew.stripe_customer = "cus_VICTIM".into();
    renew.stripe_subscription = Some("sub_VICTIM".into());
    db.apply_billing(&renew, at(1)).await.unwrap();
    let paying = db.get_customer(victim.customer_id).await.unwrap();
    assert_eq!(
        state(&paying),
        ("active".into(), "active".into(), Some("ai".into()), 500_000)
    );
    let link_before = db.stripe_link(victim.customer_id).await.unwrap();

    let attacker_events = |tag: &str, created: i64| {
        let mut trial = subscription(
            &format!("evt_{tag}_s1"),
            created + 1,
            SubscriptionStatus::Trialing,
            small,
        );
        let mut cancel = subscription(
            &format!("evt_{tag}_s2"),
            created + 2,
            SubscriptionStatus::Canceled,
            small,
        );
        for e in [&mut trial, &mut cancel] {
            e.stripe_customer = format!("cus_{tag}");
            e.stripe_subscription = Some(format!("sub_{tag}"));
        }
        [trial, cancel]
    };
    // 1. The victim's email, in another case and with spaces, no reference.
    let mut by_email = checkout("evt_a_co", 110, Some("  VICTIM@EXAMPLE.COM "), None);
    by_email.stripe_customer = "cus_a".into();
    by_email.stripe_subscription = Some("sub_a".into());
    assert_eq!(
        db.apply_billing(&by_email, at(2)).await.unwrap(),
        BillingOutcome::Held {
            customer_id: victim.customer_id
        }
    );
    for e in attacker_events("a", 110) {
        assert_eq!(db.apply_billing(&e, at(3)).await.unwrap(), BillingOutcome::Pending);
    }
    // 2. A forged or bare reference (refused upstream) with the victim's email.
    let mut forged = checkout("evt_b_co", 120, Some("victim@example.com"), None);
    forged.stripe_customer = "cus_b".into();
    forged.stripe_subscription = Some("sub_b".into());
    if let BillingEventKind::Checkout(buyer) = &mut forged.kind {
        buyer.refused_reference = Some("a reference whose signature does not match".into());
    }
    assert!(matches!(
        db.apply_billing(&forged, at(4)).await.unwrap(),
        BillingOutcome::Held { .. }
    ));
    // 3. Even a reference linecast signed for the victim (leaked) cannot
    //    move a link that still serves.
    let mut signed = checkout("evt_c_co", 130, Some("attacker@evil.example"), Some(victim.customer_id));
    signed.stripe_customer = "cus_c".into();
    signed.stripe_subscription = Some("sub_c".into());
    match db.apply_billing(&signed, at(5)).await.unwrap() {
        BillingOutcome::Conflict { customer_id, detail } => {
            assert_eq!(customer_id, victim.customer_id);
            assert!(detail.contains("cus_VICTIM/sub_VICTIM"), "{detail}");
        }
        other => panic!("{other:?}"),
    }
    for e in attacker_events("c", 130) {
        assert_eq!(db.apply_billing(&e, at(6)).await.unwrap(), BillingOutcome::Pending);
    }
    // 4. The victim's own Stripe customer with another customer's signed reference.
    let other = db
        .create_customer(new_customer("other@example.com"), t0())
        .await
        .unwrap();
    let mut crossed = checkout("evt_d_co", 140, None, Some(other.customer_id));
    crossed.stripe_customer = "cus_VICTIM".into();
    crossed.stripe_subscription = Some("sub_d".into());
    assert!(matches!(
        db.apply_billing(&crossed, at(7)).await.unwrap(),
        BillingOutcome::Conflict { .. }
    ));

    // The victim is exactly as before, link and all, with a line per attempt.
    assert_eq!(
        state(&db.get_customer(victim.customer_id).await.unwrap()),
        state(&paying)
    );
    assert_eq!(db.stripe_link(victim.customer_id).await.unwrap(), link_before);
    assert_eq!(db.stripe_link(other.customer_id).await.unwrap(), None);
    let audit = db.audit_log(victim.customer_id).await.unwrap();
    for id in ["evt_a_co", "evt_b_co", "evt_c_co", "evt_d_co"] {
        assert!(
            audit
                .iter()
                .any(|l| l.detail.starts_with(&format!("actor=stripe event={id} "))),
            "{id}: {audit:?}"
        );
    }
    // Their own renewal still applies.
    let mut next = subscription("evt_v_s2", 200, SubscriptionStatus::PastDue, pro);
    next.stripe_customer = "cus_VICTIM".into();
    next.stripe_subscription = Some("sub_VICTIM".into());
    assert!(matches!(
        db.apply_billing(&next, at(8)).await.unwrap(),
        BillingOutcome::Applied { .. }
    ));
    assert_eq!(
        db.get_customer(victim.customer_id)
            .await
            .unwrap()
            .api_subscription_status,
        SubscriptionStatus::PastDue
    );
}

/// Once a link's subscription has ended, a signed checkout (the customer
/// subscribing again) may replace it; so may a new mapped subscription of
/// the same Stripe customer.
pub async fn an_ended_link_may_be_replaced_by_the_customers_new_subscription(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    let plan = Some(("ai", None));
    db.apply_billing(&checkout("evt_1", 100, None, Some(ada.customer_id)), at(0))
        .await
        .unwrap();
    db.apply_billing(&subscription("evt_2", 110, SubscriptionStatus::Canceled, plan), at(1))
        .await
        .unwrap();
    let mut again = checkout("evt_3", 200, None, Some(ada.customer_id));
    again.stripe_customer = "cus_NEW".into();
    again.stripe_subscription = Some("sub_NEW".into());
    assert!(matches!(
        db.apply_billing(&again, at(2)).await.unwrap(),
        BillingOutcome::Linked { .. }
    ));
    let mut active = subscription("evt_4", 201, SubscriptionStatus::Active, plan);
    active.stripe_customer = "cus_NEW".into();
    active.stripe_subscription = Some("sub_NEW".into());
    db.apply_billing(&active, at(3)).await.unwrap();
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert_eq!(
        (
            link.stripe_customer.as_str(),
            link.stripe_subscription.as_deref(),
            link.last_status
        ),
        ("cus_NEW", Some("sub_NEW"), Some(SubscriptionStatus::Active))
    );
    // Ended again; a new subscription of the same Stripe customer takes over.
    let mut end = subscription("evt_5", 300, SubscriptionStatus::Canceled, plan);
    end.stripe_customer = "cus_NEW".into();
    end.stripe_subscription = Some("sub_NEW".into());
    db.apply_billing(&end, at(4)).await.unwrap();
    let mut next = subscription("evt_6", 301, SubscriptionStatus::Trialing, plan);
    next.stripe_customer = "cus_NEW".into();
    next.stripe_subscription = Some("sub_NEXT".into());
    assert!(matches!(
        db.apply_billing(&next, at(5)).await.unwrap(),
        BillingOutcome::Applied { .. }
    ));
    assert_eq!(
        db.get_customer(ada.customer_id).await.unwrap().api_subscription_status,
        SubscriptionStatus::Trialing
    );
}

/// Every order of the same four events ends in the same state, the one the
/// newest subscription event describes.
pub async fn any_delivery_order_converges_to_the_newest_subscription_state(url: String) {
    let events = [
        checkout("evt_checkout", 100, None, None),
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
                buyer.signed_customer = Some(ada.customer_id);
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
    db.apply_billing(&checkout("evt_1", 100, None, Some(ada.customer_id)), at(0))
        .await
        .unwrap();
    db.apply_billing(
        &subscription("evt_new", 500, SubscriptionStatus::Canceled, Some(("ai", None))),
        at(1),
    )
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

pub async fn an_unmapped_price_never_grants_and_another_subscription_changes_nothing(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.set_subscription("ada@example.com", SubscriptionStatus::PastDue)
        .await
        .unwrap();
    db.apply_billing(&checkout("evt_1", 100, None, Some(ada.customer_id)), at(0))
        .await
        .unwrap();
    db.apply_billing(
        &subscription("evt_2", 150, SubscriptionStatus::PastDue, Some(("ai", Some(500)))),
        at(1),
    )
    .await
    .unwrap();
    let before = state(&db.get_customer(ada.customer_id).await.unwrap());
    assert_eq!(before.0, "past_due");
    let lines = db.audit_log(ada.customer_id).await.unwrap().len();
    // The linked subscription, paid again at a price nobody mapped: an
    // unmapped price never grants, so the suspended account stays so.
    for (id, status) in [
        ("evt_3", SubscriptionStatus::Active),
        ("evt_3t", SubscriptionStatus::Trialing),
    ] {
        match db
            .apply_billing(&subscription(id, 200, status, None), at(2))
            .await
            .unwrap()
        {
            BillingOutcome::Ignored { reason } => {
                assert!(
                    reason.contains("price_x") && reason.contains("never grants"),
                    "{reason}"
                );
            }
            other => panic!("{id}: {other:?}"),
        }
    }
    // Another subscription of the same Stripe customer (a newsletter, mapped
    // or not): buying it does not grant, cancelling it does not end.
    for (id, status, plan) in [
        ("evt_4", SubscriptionStatus::Active, Some(("ai", Some(1)))),
        ("evt_5", SubscriptionStatus::Trialing, None),
        ("evt_5c", SubscriptionStatus::Canceled, None),
    ] {
        let mut other = subscription(id, 300, status, plan);
        other.stripe_subscription = Some("sub_NEWSLETTER".into());
        assert!(
            matches!(
                db.apply_billing(&other, at(3)).await.unwrap(),
                BillingOutcome::Ignored { .. }
            ),
            "{id}"
        );
    }
    assert_eq!(state(&db.get_customer(ada.customer_id).await.unwrap()), before);
    assert_eq!(db.audit_log(ada.customer_id).await.unwrap().len(), lines);
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert_eq!(
        (link.stripe_subscription.as_deref(), link.last_event_id.as_deref()),
        (Some("sub_A"), Some("evt_2"))
    );
    // Ignored events are spent: a redelivery is a duplicate.
    assert_eq!(
        db.apply_billing(&subscription("evt_3", 200, SubscriptionStatus::Active, None), at(4))
            .await
            .unwrap(),
        BillingOutcome::Duplicate
    );
    // An unmapped event of a subscription nobody follows yet (no link, no
    // mapped event waiting) is not kept, whatever its status.
    for (id, status) in [
        ("evt_6", SubscriptionStatus::Active),
        ("evt_6c", SubscriptionStatus::Canceled),
    ] {
        let mut early = subscription(id, 400, status, None);
        early.stripe_customer = "cus_Z".into();
        early.stripe_subscription = Some("sub_Z".into());
        assert!(
            matches!(
                db.apply_billing(&early, at(5)).await.unwrap(),
                BillingOutcome::Ignored { .. }
            ),
            "{id}"
        );
    }
    assert!(db.pending_billing().await.unwrap().waiting.is_empty());
}

/// The review's 2026-11-28 finding 5: after a plan switch to a price
/// nobody mapped, the linked subscription's suspension and end still apply;
/// the plan and quota stay what they were.
pub async fn an_unmapped_price_still_suspends_and_ends_the_linked_subscription(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.apply_billing(&checkout("evt_1", 100, None, Some(ada.customer_id)), at(0))
        .await
        .unwrap();
    db.apply_billing(
        &subscription("evt_2", 150, SubscriptionStatus::Active, Some(("ai", Some(500)))),
        at(1),
    )
    .await
    .unwrap();
    // The switch itself (`updated: active` at the new price) grants nothing new.
    assert!(matches!(
        db.apply_billing(&subscription("evt_3", 200, SubscriptionStatus::Active, None), at(2))
            .await
            .unwrap(),
        BillingOutcome::Ignored { .. }
    ));
    let kept = |status: &str| (status.to_owned(), status.to_owned(), Some("ai".to_owned()), 500);
    assert_eq!(state(&db.get_customer(ada.customer_id).await.unwrap()), kept("active"));
    // The payment fails: suspended, plan and quota kept.
    match db
        .apply_billing(&subscription("evt_4", 300, SubscriptionStatus::PastDue, None), at(3))
        .await
        .unwrap()
    {
        BillingOutcome::Applied { customer } => assert_eq!(state(&customer), kept("past_due")),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        state(&db.get_customer(ada.customer_id).await.unwrap()),
        kept("past_due")
    );
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert_eq!(
        (
            link.last_event_id.as_deref(),
            link.last_status,
            link.last_created,
            link.period_end
        ),
        (
            Some("evt_4"),
            Some(SubscriptionStatus::PastDue),
            Some(300),
            Some(300 + PERIOD)
        )
    );
    let audit = db.audit_log(ada.customer_id).await.unwrap();
    let line = &audit.last().unwrap().detail;
    assert!(
        line.starts_with("actor=stripe event=evt_4 ") && line.contains("status=past_due") && line.contains("price_x"),
        "{line}"
    );
    // An older event delivered late changes nothing: stale when mapped,
    // and an unmapped one that would grant is ignored before that.
    assert!(matches!(
        db.apply_billing(
            &subscription("evt_5m", 250, SubscriptionStatus::Active, Some(("ai", Some(9)))),
            at(4)
        )
        .await
        .unwrap(),
        BillingOutcome::Stale { .. }
    ));
    assert!(matches!(
        db.apply_billing(&subscription("evt_5u", 260, SubscriptionStatus::Unpaid, None), at(4))
            .await
            .unwrap(),
        BillingOutcome::Stale { .. }
    ));
    assert_eq!(
        state(&db.get_customer(ada.customer_id).await.unwrap()),
        kept("past_due")
    );
    // `deleted` at the unmapped price ends it.
    assert!(matches!(
        db.apply_billing(&subscription("evt_6", 400, SubscriptionStatus::Canceled, None), at(5))
            .await
            .unwrap(),
        BillingOutcome::Applied { .. }
    ));
    assert_eq!(
        state(&db.get_customer(ada.customer_id).await.unwrap()),
        kept("canceled")
    );
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert!(link.may_be_replaced());

    // Without a suspension first: `deleted` straight from `active`.
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    let mut co = checkout("evt_b1", 100, None, Some(bob.customer_id));
    co.stripe_customer = "cus_B".into();
    co.stripe_subscription = Some("sub_B".into());
    db.apply_billing(&co, at(6)).await.unwrap();
    let mut del = subscription("evt_b2", 500, SubscriptionStatus::Canceled, None);
    del.stripe_customer = "cus_B".into();
    del.stripe_subscription = Some("sub_B".into());
    assert!(matches!(
        db.apply_billing(&del, at(7)).await.unwrap(),
        BillingOutcome::Applied { .. }
    ));
    assert_eq!(
        state(&db.get_customer(bob.customer_id).await.unwrap()),
        ("canceled".into(), "canceled".into(), Some("ai".into()), 200_000)
    );
}

/// An unmapped end of a subscription whose mapped event waits for its
/// checkout replaces that event, and the checkout applies the end.
pub async fn an_unmapped_end_waiting_for_its_checkout_applies_with_it(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    db.set_subscription("ada@example.com", SubscriptionStatus::Incomplete)
        .await
        .unwrap();
    let started = subscription("evt_1", 100, SubscriptionStatus::Active, Some(("ai", Some(500))));
    assert_eq!(
        db.apply_billing(&started, at(0)).await.unwrap(),
        BillingOutcome::Pending
    );
    // A granting unmapped event does not replace it; an end does; an older
    // end does not replace a newer one.
    assert!(matches!(
        db.apply_billing(&subscription("evt_2", 200, SubscriptionStatus::Active, None), at(1))
            .await
            .unwrap(),
        BillingOutcome::Ignored { .. }
    ));
    for (id, created) in [("evt_3", 300), ("evt_4", 250)] {
        assert_eq!(
            db.apply_billing(&subscription(id, created, SubscriptionStatus::Canceled, None), at(2))
                .await
                .unwrap(),
            BillingOutcome::Pending,
            "{id}"
        );
    }
    let waiting = db.pending_billing().await.unwrap().waiting;
    assert_eq!(waiting.len(), 1);
    assert_eq!(
        (waiting[0].event_id.as_str(), waiting[0].status),
        ("evt_3", SubscriptionStatus::Canceled)
    );
    match db
        .apply_billing(&checkout("evt_5", 50, None, Some(ada.customer_id)), at(3))
        .await
        .unwrap()
    {
        BillingOutcome::Linked {
            customer,
            applied_pending,
            ..
        } => {
            assert!(applied_pending);
            assert_eq!(
                state(&customer),
                ("canceled".into(), "canceled".into(), Some("ai".into()), 200_000)
            );
        }
        other => panic!("{other:?}"),
    }
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert_eq!(link.last_event_id.as_deref(), Some("evt_3"));
    assert!(db.pending_billing().await.unwrap().waiting.is_empty());
}

/// The review's finding 7: a late redelivery of an older `updated: active`
/// of the same second does not undo a `deleted`, in either order.
pub async fn an_end_is_final_within_its_second(url: String) {
    let db = fresh(&url).await;
    let plan = Some(("ai", None));
    for (tag, order) in [("ab", [0, 1]), ("ba", [1, 0])] {
        let email = format!("tie{tag}@example.com");
        let c = db.create_customer(new_customer(&email), t0()).await.unwrap();
        let mut link = checkout(&format!("evt_co_{tag}"), 50, None, Some(c.customer_id));
        link.stripe_customer = format!("cus_{tag}");
        link.stripe_subscription = Some(format!("sub_{tag}"));
        db.apply_billing(&link, at(0)).await.unwrap();
        let events = [
            subscription(&format!("evt_del_{tag}"), 100, SubscriptionStatus::Canceled, plan),
            subscription(&format!("evt_act_{tag}"), 100, SubscriptionStatus::Active, plan),
        ];
        for i in order {
            let mut e = events[i].clone();
            e.stripe_customer = format!("cus_{tag}");
            e.stripe_subscription = Some(format!("sub_{tag}"));
            db.apply_billing(&e, at(1)).await.unwrap();
        }
        assert_eq!(
            db.get_customer(c.customer_id).await.unwrap().api_subscription_status,
            SubscriptionStatus::Canceled,
            "{tag}"
        );
    }
    // The same holds for events that wait for their checkout.
    let c = db
        .create_customer(new_customer("waits@example.com"), t0())
        .await
        .unwrap();
    for (id, status) in [
        ("evt_w_del", SubscriptionStatus::Canceled),
        ("evt_w_act", SubscriptionStatus::Active),
    ] {
        let mut e = subscription(id, 100, status, plan);
        e.stripe_customer = "cus_W".into();
        e.stripe_subscription = Some("sub_W".into());
        assert_eq!(db.apply_billing(&e, at(0)).await.unwrap(), BillingOutcome::Pending);
    }
    let mut co = checkout("evt_w_co", 90, None, Some(c.customer_id));
    co.stripe_customer = "cus_W".into();
    co.stripe_subscription = Some("sub_W".into());
    db.apply_billing(&co, at(1)).await.unwrap();
    assert_eq!(
        db.get_customer(c.customer_id).await.unwrap().api_subscription_status,
        SubscriptionStatus::Canceled
    );
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

    // A checkout held for an operator is applied by linking by hand.
    let bob = db.create_customer(new_customer("bob@example.com"), t0()).await.unwrap();
    let mut held = checkout("evt_h", 200, Some("BOB@example.com"), None);
    held.stripe_customer = "cus_H".into();
    held.stripe_subscription = Some("sub_H".into());
    assert!(matches!(
        db.apply_billing(&held, at(2)).await.unwrap(),
        BillingOutcome::Held { .. }
    ));
    let mut waiting = subscription("evt_h_s", 201, SubscriptionStatus::Trialing, Some(("ai", Some(7))));
    waiting.stripe_customer = "cus_H".into();
    waiting.stripe_subscription = Some("sub_H".into());
    assert_eq!(
        db.apply_billing(&waiting, at(3)).await.unwrap(),
        BillingOutcome::Pending
    );
    let pending = db.pending_billing().await.unwrap();
    assert_eq!((pending.held.len(), pending.waiting.len()), (1, 1));
    let link = db
        .link_stripe_customer("bob@example.com", "cus_H", "operator", at(4))
        .await
        .unwrap();
    assert_eq!(link.stripe_subscription.as_deref(), Some("sub_H"));
    assert_eq!(link.last_event_id.as_deref(), Some("evt_h_s"));
    assert_eq!(
        state(&db.get_customer(bob.customer_id).await.unwrap()),
        ("trialing".into(), "trialing".into(), Some("ai".into()), 7)
    );
    assert_eq!(
        db.pending_billing().await.unwrap(),
        linecast_core::ports::billing::PendingBilling::default()
    );
    assert!(
        db.audit_log(bob.customer_id)
            .await
            .unwrap()
            .iter()
            .any(|l| l.detail.contains("applies held checkout evt_h"))
    );

    // Another customer cannot take a Stripe customer that is linked.
    assert!(matches!(
        db.link_stripe_customer("bob@example.com", "cus_A", "operator", at(5))
            .await,
        Err(linecast_core::AccountsError::Conflict(_))
    ));
    assert!(matches!(
        db.link_stripe_customer("nobody@example.com", "cus_Z", "operator", at(2))
            .await,
        Err(linecast_core::AccountsError::NotFound)
    ));
}

pub async fn the_period_end_of_the_event_applied_is_kept_and_an_older_event_leaves_it(url: String) {
    let db = fresh(&url).await;
    let ada = db.create_customer(new_customer("ada@example.com"), t0()).await.unwrap();
    // The subscription event arrives before its checkout: it waits, with
    // its period end, and the checkout applies it.
    let first = subscription("evt_1", 200, SubscriptionStatus::Active, Some(("ai", None)));
    assert_eq!(db.apply_billing(&first, at(0)).await.unwrap(), BillingOutcome::Pending);
    db.apply_billing(&checkout("evt_2", 100, None, Some(ada.customer_id)), at(1))
        .await
        .unwrap();
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert_eq!(link.period_end, Some(200 + 30 * 86_400));
    // A renewal moves it; an older event delivered late does not.
    let renewed = subscription(
        "evt_3",
        300 + 30 * 86_400,
        SubscriptionStatus::Active,
        Some(("ai", None)),
    );
    assert!(matches!(
        db.apply_billing(&renewed, at(2)).await.unwrap(),
        BillingOutcome::Applied { .. }
    ));
    let late = subscription("evt_4", 250, SubscriptionStatus::PastDue, Some(("ai", None)));
    assert!(matches!(
        db.apply_billing(&late, at(3)).await.unwrap(),
        BillingOutcome::Stale { .. }
    ));
    let link = db.stripe_link(ada.customer_id).await.unwrap().unwrap();
    assert_eq!(link.period_end, Some(300 + 2 * 30 * 86_400));
}
