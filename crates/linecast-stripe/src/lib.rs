//! linecast-stripe: the typed adapter that reads Stripe's webhook events
//! into `linecast_core::ports::billing::BillingEvent`. It keeps only the
//! fields used, ignores every other field, and knows four event types:
//!
//! - `checkout.session.completed` (mode `subscription`): the buyer
//!   (`client_reference_id`, `customer_details.email` and `.name`) and the
//!   Stripe customer and subscription ids;
//! - `customer.subscription.created`, `.updated`, `.deleted`: the status
//!   and the first item's price (lookup key, then id), mapped to a plan by
//!   the operator's `PlanTable`.
//!
//! Any other type is [`Parsed::Ignored`] (the endpoint answers 200: Stripe
//! retries anything that is not 2xx), and so is an event whose `livemode`
//! is not the deployment's (`LINECAST_STRIPE_LIVEMODE`): a test-mode event
//! never acts on live accounts, nor a live one on a test deployment.
//!
//! A checkout's `client_reference_id` names a customer only when it is a
//! reference linecast signed ([`reference`]).
//!
//! [`signature`] is Stripe's webhook signature scheme (the
//! `Stripe-Signature` header, its HMAC-SHA256, the timestamp tolerance, the
//! endpoint secrets). The HTTP shell applies it to a delivery before its
//! body is read here.
//!
//! [`api`] is the other direction: the REST calls that open Stripe's hosted
//! Checkout and Customer Portal pages for the portal's Billing page.

pub mod api;
pub mod reference;
pub mod signature;

use linecast_core::SubscriptionStatus;
use linecast_core::ports::billing::{BillingEvent, BillingEventKind, Buyer, SubscriptionState};
use linecast_core::services::billing::PlanTable;
use serde::Deserialize;

pub use api::{ApiKey, StripeApi, StripeApiConfig};
pub use reference::{ReferenceKey, ReferenceRefusal};

/// What a body holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// An event that changes accounts.
    Event(BillingEvent),
    /// A well-formed event this service does not act on.
    Ignored {
        event_id: String,
        event_type: String,
        /// Why, for the log line.
        reason: &'static str,
    },
}

/// A body that is not a Stripe event of the shape expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a Stripe event: {0}")]
pub struct StripeJsonError(pub String);

#[derive(Deserialize)]
struct Envelope {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    created: i64,
    #[serde(default)]
    livemode: bool,
    data: Data,
}

#[derive(Deserialize)]
struct Data {
    object: serde_json::Value,
}

/// An id, or the object it names when the event expanded it.
#[derive(Deserialize)]
#[serde(untagged)]
enum Ref {
    Id(String),
    Object { id: String },
}

impl Ref {
    fn id(self) -> String {
        match self {
            Ref::Id(id) | Ref::Object { id } => id,
        }
    }
}

#[derive(Deserialize)]
struct Subscription {
    id: String,
    customer: Ref,
    status: String,
    #[serde(default)]
    items: Option<Items>,
    /// Where API versions before 2025-03-31 put it.
    #[serde(default)]
    current_period_end: Option<i64>,
}

#[derive(Deserialize)]
struct Items {
    #[serde(default)]
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    price: Option<Price>,
    /// Where API versions from 2025-03-31 on put it (per item).
    #[serde(default)]
    current_period_end: Option<i64>,
}

#[derive(Deserialize)]
struct Price {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    lookup_key: Option<String>,
}

#[derive(Deserialize)]
struct Session {
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    client_reference_id: Option<String>,
    #[serde(default)]
    customer: Option<Ref>,
    #[serde(default)]
    customer_details: Option<Details>,
    #[serde(default)]
    customer_email: Option<String>,
    #[serde(default)]
    subscription: Option<Ref>,
}

#[derive(Deserialize)]
struct Details {
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

fn object<T: serde::de::DeserializeOwned>(value: serde_json::Value, what: &str) -> Result<T, StripeJsonError> {
    serde_json::from_value(value).map_err(|e| StripeJsonError(format!("data.object of {what}: {e}")))
}

/// How this deployment reads events: the plan of each price, the key of
/// its subscribe references, and whether it takes live or test events.
#[derive(Debug, Clone, Default)]
pub struct Reader {
    plans: PlanTable,
    references: Option<ReferenceKey>,
    livemode: bool,
}

impl Reader {
    /// `references`: `None` when no signing key is configured (then no
    /// reference is honoured). `livemode`: the only `livemode` acted on.
    pub fn new(plans: PlanTable, references: Option<ReferenceKey>, livemode: bool) -> Self {
        Self {
            plans,
            references,
            livemode,
        }
    }

    /// Which plan each price grants.
    pub fn plans(&self) -> &PlanTable {
        &self.plans
    }

    /// What a `client_reference_id` names: a verified customer, or why not.
    fn reference(&self, raw: Option<&str>, at: i64) -> (Option<i64>, Option<String>) {
        let Some(raw) = raw.filter(|r| !r.trim().is_empty()) else {
            return (None, None);
        };
        let verified = match &self.references {
            Some(key) => key.verify(raw, at),
            None => Err(ReferenceRefusal::Unsigned),
        };
        match verified {
            Ok(id) => (Some(id), None),
            Err(refusal) => (None, Some(refusal.to_string())),
        }
    }

    /// Reads one event body. A subscription event's price is mapped to a
    /// plan; a price with no mapping leaves `SubscriptionState::plan` `None`
    /// (the ledger then ignores the event).
    pub fn read(&self, body: &[u8]) -> Result<Parsed, StripeJsonError> {
        let plans = &self.plans;
        let envelope: Envelope = serde_json::from_slice(body).map_err(|e| StripeJsonError(e.to_string()))?;
        let ignored = |reason| {
            Ok(Parsed::Ignored {
                event_id: envelope.id.clone(),
                event_type: envelope.kind.clone(),
                reason,
            })
        };
        if envelope.livemode != self.livemode {
            return ignored(if envelope.livemode {
                "a live-mode event, and LINECAST_STRIPE_LIVEMODE is false"
            } else {
                "a test-mode event, and LINECAST_STRIPE_LIVEMODE is true"
            });
        }
        match envelope.kind.as_str() {
            "checkout.session.completed" => {
                let session: Session = object(envelope.data.object, &envelope.kind)?;
                if session.mode.as_deref() != Some("subscription") {
                    return ignored("not a subscription checkout");
                }
                let Some(customer) = session.customer.map(Ref::id) else {
                    return ignored("the checkout names no Stripe customer");
                };
                let details = session.customer_details.unwrap_or(Details {
                    email: None,
                    name: None,
                });
                let (signed_customer, refused_reference) =
                    self.reference(session.client_reference_id.as_deref(), envelope.created);
                Ok(Parsed::Event(BillingEvent {
                    event_id: envelope.id,
                    created: envelope.created,
                    stripe_customer: customer,
                    stripe_subscription: session.subscription.map(Ref::id),
                    kind: BillingEventKind::Checkout(Buyer {
                        signed_customer,
                        refused_reference,
                        email: details
                            .email
                            .or(session.customer_email)
                            .filter(|e| !e.trim().is_empty()),
                        name: details.name,
                    }),
                }))
            }
            "customer.subscription.created" | "customer.subscription.updated" | "customer.subscription.deleted" => {
                let sub: Subscription = object(envelope.data.object, &envelope.kind)?;
                let status = SubscriptionStatus::parse(&sub.status).ok_or_else(|| {
                    StripeJsonError(format!(
                        "data.object.status of {}: unknown subscription status '{}'",
                        envelope.kind, sub.status
                    ))
                })?;
                // A deleted subscription has ended, whatever else it says.
                let status = if envelope.kind == "customer.subscription.deleted" {
                    SubscriptionStatus::Canceled
                } else {
                    status
                };
                let first = sub.items.and_then(|items| items.data.into_iter().next());
                // The subscription's own field (older API versions), else the
                // first item's (from 2025-03-31, where Stripe moved it).
                let period_end = sub
                    .current_period_end
                    .or_else(|| first.as_ref().and_then(|item| item.current_period_end));
                let price = first.and_then(|item| item.price);
                let (lookup_key, price_id) = price.map_or((None, None), |p| (p.lookup_key, p.id));
                let plan = plans.grant(lookup_key.as_deref(), price_id.as_deref()).cloned();
                Ok(Parsed::Event(BillingEvent {
                    event_id: envelope.id,
                    created: envelope.created,
                    stripe_customer: sub.customer.id(),
                    stripe_subscription: Some(sub.id),
                    kind: BillingEventKind::Subscription(SubscriptionState {
                        status,
                        plan,
                        price: lookup_key.or(price_id),
                        period_end,
                    }),
                }))
            }
            _ => ignored("an event type this service does not act on"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use linecast_core::ports::billing::PlanGrant;

    use super::*;

    fn plans() -> PlanTable {
        PlanTable::parse("ai_monthly=ai,price_pro=ai:500000").unwrap()
    }

    const KEY: &[u8] = b"test signing key";

    fn reader() -> Reader {
        Reader::new(plans(), Some(ReferenceKey::new(KEY)), false)
    }

    /// A subscription event as Stripe sends it (trimmed, but with fields
    /// this adapter does not read, which it must ignore).
    const UPDATED: &str = r#"{
      "id": "evt_1", "object": "event", "api_version": "2024-06-20", "created": 1700000300,
      "livemode": false, "pending_webhooks": 1, "request": {"id": null, "idempotency_key": null},
      "type": "customer.subscription.updated",
      "data": {
        "object": {
          "id": "sub_1", "object": "subscription", "customer": "cus_1", "status": "past_due",
          "cancel_at_period_end": false, "current_period_end": 1702000000,
          "items": {"object": "list", "data": [
            {"id": "si_1", "object": "subscription_item", "quantity": 1,
             "price": {"id": "price_pro", "object": "price", "lookup_key": null, "unit_amount": 4900, "currency": "usd"}}
          ]}
        },
        "previous_attributes": {"status": "active"}
      }
    }"#;

    #[test]
    fn a_subscription_update_reads_status_ids_and_the_plan_of_its_price() {
        let Parsed::Event(event) = reader().read(UPDATED.as_bytes()).unwrap() else {
            panic!("ignored")
        };
        assert_eq!(event.event_id, "evt_1");
        assert_eq!(event.created, 1_700_000_300);
        assert_eq!(event.stripe_customer, "cus_1");
        assert_eq!(event.stripe_subscription.as_deref(), Some("sub_1"));
        assert_eq!(
            event.kind,
            BillingEventKind::Subscription(SubscriptionState {
                status: SubscriptionStatus::PastDue,
                plan: Some(PlanGrant {
                    plan: "ai".into(),
                    monthly_limit: Some(500_000)
                }),
                price: Some("price_pro".into()),
                period_end: Some(1_702_000_000),
            })
        );
    }

    #[test]
    fn the_period_end_is_read_from_the_first_item_where_newer_api_versions_put_it() {
        // API 2025-03-31 and later: no current_period_end on the
        // subscription, one per item.
        let body = UPDATED
            .replace(
                "\"api_version\": \"2024-06-20\"",
                "\"api_version\": \"2025-10-29.clover\"",
            )
            .replace(
                "\"cancel_at_period_end\": false, \"current_period_end\": 1702000000,",
                "\"cancel_at_period_end\": false,",
            )
            .replace(
                "\"quantity\": 1,",
                "\"quantity\": 1, \"current_period_start\": 1699400000, \"current_period_end\": 1702000999,",
            );
        assert!(!body.contains("1702000000"));
        let Parsed::Event(event) = reader().read(body.as_bytes()).unwrap() else {
            panic!("ignored")
        };
        let BillingEventKind::Subscription(state) = event.kind else {
            panic!("a subscription event")
        };
        assert_eq!(state.period_end, Some(1_702_000_999));
        // Neither place: unknown, not an error.
        let none = body.replace(" \"current_period_end\": 1702000999,", "");
        let Parsed::Event(event) = reader().read(none.as_bytes()).unwrap() else {
            panic!("ignored")
        };
        let BillingEventKind::Subscription(state) = event.kind else {
            panic!("a subscription event")
        };
        assert_eq!(state.period_end, None);
    }

    #[test]
    fn an_unmapped_price_gives_no_plan_and_a_deleted_subscription_is_canceled() {
        let body = UPDATED
            .replace("customer.subscription.updated", "customer.subscription.deleted")
            .replace("\"lookup_key\": null", "\"lookup_key\": \"enterprise\"")
            .replace("\"id\": \"price_pro\"", "\"id\": \"price_other\"");
        let Parsed::Event(event) = reader().read(body.as_bytes()).unwrap() else {
            panic!("ignored")
        };
        assert_eq!(
            event.kind,
            BillingEventKind::Subscription(SubscriptionState {
                status: SubscriptionStatus::Canceled,
                plan: None,
                price: Some("enterprise".into()),
                period_end: Some(1_702_000_000),
            })
        );
    }

    #[test]
    fn a_subscription_checkout_reads_the_buyer_and_an_expanded_customer() {
        let reference = ReferenceKey::new(KEY).sign(42, 1_700_000_000);
        let body = CHECKOUT.replace("REFERENCE", &reference);
        let Parsed::Event(event) = reader().read(body.as_bytes()).unwrap() else {
            panic!("ignored")
        };
        assert_eq!(event.stripe_customer, "cus_9");
        assert_eq!(event.stripe_subscription.as_deref(), Some("sub_9"));
        assert_eq!(
            event.kind,
            BillingEventKind::Checkout(Buyer {
                signed_customer: Some(42),
                refused_reference: None,
                email: Some("Ada@Example.com".into()),
                name: Some("Ada L".into()),
            })
        );
    }

    const CHECKOUT: &str = r#"{"id": "evt_2", "type": "checkout.session.completed", "created": 1700000000,
      "livemode": false,
      "data": {"object": {"id": "cs_1", "object": "checkout.session", "mode": "subscription",
        "client_reference_id": "REFERENCE", "customer": {"id": "cus_9", "object": "customer"},
        "customer_details": {"email": "Ada@Example.com", "name": "Ada L", "phone": null},
        "subscription": "sub_9", "payment_status": "paid"}}}"#;

    fn buyer(body: &str, reader: &Reader) -> Buyer {
        match reader.read(body.as_bytes()).unwrap() {
            Parsed::Event(BillingEvent {
                kind: BillingEventKind::Checkout(buyer),
                ..
            }) => buyer,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_bare_id_a_forged_or_expired_reference_names_nobody() {
        let key = ReferenceKey::new(KEY);
        let forged = ReferenceKey::new(b"the attacker's key").sign(1, 1_800_000_000);
        let expired = key.sign(1, 1_699_999_999);
        for (reference, why) in [
            ("1".to_owned(), "not a reference linecast signed"),
            (forged, "does not match"),
            (expired, "expired"),
        ] {
            let b = buyer(&CHECKOUT.replace("REFERENCE", &reference), &reader());
            assert_eq!(b.signed_customer, None, "{reference}");
            assert!(b.refused_reference.as_deref().unwrap().contains(why), "{b:?}");
            // The email is still read: the ledger decides what it may do.
            assert_eq!(b.email.as_deref(), Some("Ada@Example.com"));
        }
        // Without a signing key, no reference is honoured.
        let unkeyed = Reader::new(plans(), None, false);
        let b = buyer(&CHECKOUT.replace("REFERENCE", &key.sign(42, 1_800_000_000)), &unkeyed);
        assert_eq!(b.signed_customer, None);
        // No reference at all is no refusal.
        let b = buyer(&CHECKOUT.replace("\"REFERENCE\"", "null"), &reader());
        assert_eq!((b.signed_customer, b.refused_reference), (None, None));
    }

    #[test]
    fn an_event_of_the_other_mode_is_ignored() {
        let live = CHECKOUT.replace("\"livemode\": false", "\"livemode\": true");
        assert!(matches!(
            reader().read(live.as_bytes()).unwrap(),
            Parsed::Ignored { reason, .. } if reason.contains("live-mode")
        ));
        let live_reader = Reader::new(plans(), None, true);
        assert!(matches!(
            live_reader.read(CHECKOUT.as_bytes()).unwrap(),
            Parsed::Ignored { reason, .. } if reason.contains("test-mode")
        ));
        assert!(matches!(live_reader.read(live.as_bytes()).unwrap(), Parsed::Event(_)));
        // An event without the field is a test-mode event.
        let bare = CHECKOUT.replace("\"livemode\": false,", "");
        assert!(matches!(reader().read(bare.as_bytes()).unwrap(), Parsed::Event(_)));
        assert!(matches!(
            live_reader.read(bare.as_bytes()).unwrap(),
            Parsed::Ignored { .. }
        ));
    }

    #[test]
    fn other_types_and_payment_checkouts_are_ignored() {
        let invoice = r#"{"id": "evt_3", "type": "invoice.paid", "created": 1, "data": {"object": {"id": "in_1"}}}"#;
        assert!(matches!(
            reader().read(invoice.as_bytes()).unwrap(),
            Parsed::Ignored { ref event_type, .. } if event_type == "invoice.paid"
        ));
        let payment = r#"{"id": "evt_4", "type": "checkout.session.completed", "created": 1,
          "data": {"object": {"mode": "payment", "customer": "cus_1"}}}"#;
        assert!(matches!(
            reader().read(payment.as_bytes()).unwrap(),
            Parsed::Ignored { .. }
        ));
    }

    #[test]
    fn a_malformed_body_is_an_error_naming_what_is_wrong() {
        assert!(reader().read(b"not json").is_err());
        let no_status = UPDATED.replace("\"status\": \"past_due\",", "");
        let err = reader().read(no_status.as_bytes()).unwrap_err();
        assert!(err.0.contains("status"), "{err}");
        let odd = UPDATED.replace("past_due", "on_fire");
        let err = reader().read(odd.as_bytes()).unwrap_err();
        assert!(err.0.contains("on_fire"), "{err}");
    }
}
