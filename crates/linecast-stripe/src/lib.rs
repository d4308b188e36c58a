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
//! retries anything that is not 2xx). Signatures are not checked here: the
//! HTTP shell checks them before a body reaches this crate.

use linecast_core::SubscriptionStatus;
use linecast_core::ports::billing::{BillingEvent, BillingEventKind, Buyer, SubscriptionState};
use linecast_core::services::billing::PlanTable;
use serde::Deserialize;

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

/// Reads one event body. `plans` maps the price of a subscription event to
/// a plan; a price with no mapping leaves `SubscriptionState::plan` `None`.
pub fn parse_event(body: &[u8], plans: &PlanTable) -> Result<Parsed, StripeJsonError> {
    let envelope: Envelope = serde_json::from_slice(body).map_err(|e| StripeJsonError(e.to_string()))?;
    let ignored = |reason| {
        Ok(Parsed::Ignored {
            event_id: envelope.id.clone(),
            event_type: envelope.kind.clone(),
            reason,
        })
    };
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
            Ok(Parsed::Event(BillingEvent {
                event_id: envelope.id,
                created: envelope.created,
                stripe_customer: customer,
                stripe_subscription: session.subscription.map(Ref::id),
                kind: BillingEventKind::Checkout(Buyer {
                    customer_id: session
                        .client_reference_id
                        .as_deref()
                        .and_then(|r| r.trim().parse::<i64>().ok()),
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
            let price = sub
                .items
                .and_then(|items| items.data.into_iter().next())
                .and_then(|item| item.price);
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
                }),
            }))
        }
        _ => ignored("an event type this service does not act on"),
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
        let Parsed::Event(event) = parse_event(UPDATED.as_bytes(), &plans()).unwrap() else {
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
            })
        );
    }

    #[test]
    fn an_unmapped_price_gives_no_plan_and_a_deleted_subscription_is_canceled() {
        let body = UPDATED
            .replace("customer.subscription.updated", "customer.subscription.deleted")
            .replace("\"lookup_key\": null", "\"lookup_key\": \"enterprise\"")
            .replace("\"id\": \"price_pro\"", "\"id\": \"price_other\"");
        let Parsed::Event(event) = parse_event(body.as_bytes(), &plans()).unwrap() else {
            panic!("ignored")
        };
        assert_eq!(
            event.kind,
            BillingEventKind::Subscription(SubscriptionState {
                status: SubscriptionStatus::Canceled,
                plan: None,
                price: Some("enterprise".into()),
            })
        );
    }

    #[test]
    fn a_subscription_checkout_reads_the_buyer_and_an_expanded_customer() {
        let body = r#"{"id": "evt_2", "type": "checkout.session.completed", "created": 1700000000,
          "data": {"object": {"id": "cs_1", "object": "checkout.session", "mode": "subscription",
            "client_reference_id": "42", "customer": {"id": "cus_9", "object": "customer"},
            "customer_details": {"email": "Ada@Example.com", "name": "Ada L", "phone": null},
            "subscription": "sub_9", "payment_status": "paid"}}}"#;
        let Parsed::Event(event) = parse_event(body.as_bytes(), &plans()).unwrap() else {
            panic!("ignored")
        };
        assert_eq!(event.stripe_customer, "cus_9");
        assert_eq!(event.stripe_subscription.as_deref(), Some("sub_9"));
        assert_eq!(
            event.kind,
            BillingEventKind::Checkout(Buyer {
                customer_id: Some(42),
                email: Some("Ada@Example.com".into()),
                name: Some("Ada L".into()),
            })
        );
    }

    #[test]
    fn other_types_and_payment_checkouts_are_ignored() {
        let invoice = r#"{"id": "evt_3", "type": "invoice.paid", "created": 1, "data": {"object": {"id": "in_1"}}}"#;
        assert!(matches!(
            parse_event(invoice.as_bytes(), &plans()).unwrap(),
            Parsed::Ignored { ref event_type, .. } if event_type == "invoice.paid"
        ));
        let payment = r#"{"id": "evt_4", "type": "checkout.session.completed", "created": 1,
          "data": {"object": {"mode": "payment", "customer": "cus_1"}}}"#;
        assert!(matches!(
            parse_event(payment.as_bytes(), &plans()).unwrap(),
            Parsed::Ignored { .. }
        ));
    }

    #[test]
    fn a_malformed_body_is_an_error_naming_what_is_wrong() {
        assert!(parse_event(b"not json", &plans()).is_err());
        let no_status = UPDATED.replace("\"status\": \"past_due\",", "");
        let err = parse_event(no_status.as_bytes(), &plans()).unwrap_err();
        assert!(err.0.contains("status"), "{err}");
        let odd = UPDATED.replace("past_due", "on_fire");
        let err = parse_event(odd.as_bytes(), &plans()).unwrap_err();
        assert!(err.0.contains("on_fire"), "{err}");
    }
}
