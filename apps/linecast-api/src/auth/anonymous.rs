//! The per-address limit of the public data routes (the free feed,
//! data-status, edge picks and signed downloads). A token bucket per client
//! address, in process: with N instances behind a balancer an address gets at
//! most N times the rate (see docs/operations.md).
//!
//! The address is the TCP peer or, behind trusted proxies, the one they
//! name (see `auth::client_address`).

use std::time::Instant;

use actix_web::dev::ServiceRequest;

use super::address_limiter::AddressDecision;
use super::gate::Gate;
use crate::error::ApiError;

/// The refusal of a request to public data whose address is over its
/// rate, or `None` to let it through.
pub fn refusal(gate: &Gate, req: &ServiceRequest) -> Option<ApiError> {
    let addr = gate.clients.of(req)?;
    let AddressDecision::Refused { retry_after_secs } = gate.addresses.check(addr.into(), Instant::now()) else {
        return None;
    };
    crate::metrics::limiter_decision("address", "refused");
    Some(ApiError::TooManyRequests {
        detail: format!(
            "Rate limit exceeded. Limit: {} requests per second per client address on public routes",
            gate.addresses.per_second()
        ),
        retry_after: Some(retry_after_secs),
    })
}
