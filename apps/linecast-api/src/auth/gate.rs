//! The gate's state: what every access check consults. Below the checks
//! that read it (`middleware`, `anonymous`, `stripe_signature`,
//! `session`), so none of them imports another to reach it.

use std::sync::Arc;

use linecast_core::Clock;
use linecast_core::services::access::Access as Decide;
use linecast_core::services::events::StreamSlots;
use linecast_core::services::request_log::RequestLog;
use linecast_core::services::slots::Slots;
use linecast_keycache::KeyCache;

use super::address_limiter::AddressLimiter;
use super::client_address::ClientAddresses;

/// What the gate consults: the access decision, the key cache, who a
/// request comes from, the per-address limits and the slot caps. Owned by
/// `auth`; the app state only holds it.
pub struct Gate {
    /// `None` when auth and limits are disabled (benchmarks only).
    pub access: Option<Arc<Decide>>,
    /// Where each admitted request is recorded for its customer's log (a
    /// push into a bounded buffer; the flush round writes it).
    pub request_log: Arc<RequestLog>,
    /// Key hash to key and customer, so the gate skips the database.
    pub keys: KeyCache,
    /// Who a request comes from (the TCP peer or what trusted proxies say).
    pub clients: ClientAddresses,
    /// The per-address limit of the public data routes.
    pub addresses: Arc<AddressLimiter>,
    /// The per-address limit on failed key checks.
    pub auth_failures: Arc<AddressLimiter>,
    /// Event streams each customer has open.
    pub streams: Arc<StreamSlots>,
    /// Exports each customer has in flight (a large download holds one
    /// slot until its last byte is sent).
    pub downloads: Arc<Slots>,
    pub clock: Arc<dyn Clock>,
    /// The billing webhook's endpoint secrets (none: the webhook is off)
    /// and its refusal log.
    pub webhook: super::stripe_signature::Webhook,
    /// The portal's sessions (`None` while keys are not checked at all:
    /// `LINECAST_AUTH_DISABLED`).
    pub portal: Option<super::session::SessionGate>,
    /// The quota thresholds admitted requests reach (the delivery worker
    /// writes them to the webhooks' outbox).
    pub quota_notices: Arc<linecast_core::services::webhooks::QuotaNotices>,
}
