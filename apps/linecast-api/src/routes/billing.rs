//! `POST /billing/stripe/webhook`: Stripe's events set each customer's
//! subscription status and plan. The signature was checked by the access
//! gate (`auth::stripe_signature`); this handler reads the event
//! (`linecast_stripe`) and applies it (core's `services::billing`).

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::web;
use linecast_core::ports::billing::{BillingEventKind, BillingOutcome, Buyer};
use linecast_payloads::billing::WebhookAck;
use linecast_stripe::Parsed;

use crate::auth::stripe_signature::SignedBody;
use crate::error::ApiError;
use crate::responses::written;
use crate::state::AppState;
use linecast_operation::operation;

/// Stripe webhook: apply a billing event to a customer's subscription
///
/// Stripe posts its events here with a `Stripe-Signature` header over the raw body; no API key is taken
/// and nothing is counted against a quota. The answer is `{received: true, event_id, outcome}`, where
/// `outcome` is `applied`, `linked`, `pending`, `stale`, `duplicate`, `ignored`, `conflict` or `no_buyer`.
/// A missing, malformed, wrong or stale signature or a body that is not an event is a 400, a body over
/// 256 KiB a 413, too many refused deliveries from one address a 429; while no webhook secret is
/// configured the route is a 404.
///
/// See [payloads.md: Billing webhook](/docs/payloads.md#billing-webhook-stripes-signature-no-key).
#[operation(
    tag = "billing",
    params(("Stripe-Signature" = String, Header, max_length = 1024, description = "Stripe's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.\" + body>`")),
    request_body(content = linecast_payloads::billing::StripeEvent, content_type = "application/json", description = "A Stripe event, exactly as Stripe sent it (at most 256 KiB)"),
    responses(
        (status = 200, description = "The event was received: applied, or ignored with the reason in `outcome`", body = WebhookAck),
        (status = 400, description = "A missing, malformed, wrong or stale signature (the header is checked before the body is read), or a body that is not a Stripe event; nothing changed", body = crate::error::ErrorBody),
        (status = 404, description = "The webhook is off (no secret configured)", body = crate::error::ErrorBody),
        (status = 408, description = "The body was not received within the body timeout; the connection is closed", body = crate::error::ErrorBody),
        (status = 413, description = "The body is over 256 KiB", body = crate::error::ErrorBody),
    )
)]
pub async fn stripe_webhook(state: web::Data<AppState>, body: SignedBody) -> Result<HttpResponse, ApiError> {
    let parsed = state
        .stripe
        .read(&body.0)
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let event = match parsed {
        Parsed::Ignored {
            event_id,
            event_type,
            reason,
        } => {
            tracing::info!(%event_id, %event_type, reason, "billing event ignored");
            return ack(event_id, "ignored");
        }
        Parsed::Event(event) => event,
    };
    if let BillingEventKind::Checkout(Buyer {
        refused_reference: Some(why),
        ..
    }) = &event.kind
    {
        tracing::warn!(event_id = %event.event_id, reason = %why, "a checkout's client_reference_id was not honoured");
    }
    let outcome = state.billing.apply(&event).await?;
    let event_id = &event.event_id;
    match &outcome {
        BillingOutcome::Conflict { customer_id, detail } => {
            crate::metrics::billing_conflict();
            tracing::warn!(%event_id, customer_id, %detail, "billing event refused: it would move a customer's Stripe link");
        }
        BillingOutcome::Held { customer_id } => tracing::warn!(
            %event_id,
            customer_id,
            "checkout held for an operator: its email belongs to an existing customer and no signed reference names it"
        ),
        BillingOutcome::Ignored { reason } => tracing::warn!(%event_id, %reason, "billing event ignored"),
        BillingOutcome::Applied { customer } if unmapped_price(&event.kind) => tracing::warn!(
            %event_id,
            customer_id = customer.customer_id,
            status = %customer.api_subscription_status,
            "billing event applied to the linked subscription at a price with no plan in LINECAST_STRIPE_PLANS: status set, plan kept"
        ),
        _ => tracing::info!(%event_id, outcome = outcome.code(), "billing event received"),
    }
    ack(event.event_id, outcome.code())
}

/// Whether a subscription event's price has no plan (it applies only when
/// it suspends or ends access).
fn unmapped_price(kind: &BillingEventKind) -> bool {
    matches!(kind, BillingEventKind::Subscription(state) if state.plan.is_none())
}

fn ack(event_id: String, outcome: &str) -> Result<HttpResponse, ApiError> {
    written(
        StatusCode::OK,
        &WebhookAck {
            received: true,
            event_id,
            outcome: outcome.to_owned(),
        },
    )
}
