//! The per-address limit of the public data routes (the free feed,
//! data-status, edge picks and signed downloads). A token bucket per client
//! address, in process: with N instances behind a balancer an address gets at
//! most N times the rate (see docs/operations.md).
//!
//! The address is the TCP peer or, behind trusted proxies, the one they
//! name (see `auth::client_address`).

use std::time::Instant;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;

use super::address_limiter::AddressDecision;
use crate::error::ApiError;
use crate::state::AppState;

/// Middleware of the public data scopes.
pub async fn per_address(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if let Some(state) = req.app_data::<web::Data<AppState>>()
        && let Some(addr) = state.clients.of(&req)
        && let AddressDecision::Refused { retry_after_secs } = state.addresses.check(addr.into(), Instant::now())
    {
        crate::metrics::limiter_decision("address", "refused");
        let err = ApiError::TooManyRequests {
            detail: format!(
                "Rate limit exceeded. Limit: {} requests per second per client address on public routes",
                state.addresses.per_second()
            ),
            retry_after: Some(retry_after_secs),
        };
        return Ok(req.error_response(err));
    }
    next.call(req).await.map(ServiceResponse::map_into_boxed_body)
}
