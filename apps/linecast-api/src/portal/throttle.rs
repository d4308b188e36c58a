//! The per-address failed-key limit on the portal's sign-in forms.

use actix_web::HttpRequest;
use actix_web::http::StatusCode;

use super::html::error_page;

/// The per-address failed-key limit as the portal's sign-in forms (a key, a
/// sign-in link) pay it: as the API's gate does (`auth::middleware`), an
/// attempt pays its token before the lookup and gets it back when it turns
/// out not to be a failure, so concurrent failures cannot all pass one look
/// at a bucket with a token left. Unlike the gate, the portal pays even
/// while every bucket is full: sign-ins are rare, and paying is one lock.
pub(crate) struct SignInThrottle<'a> {
    limiter: &'a crate::auth::address_limiter::AddressLimiter,
    /// The address that paid, if it is known.
    paid: Option<crate::auth::client_address::ClientKey>,
}

impl<'a> SignInThrottle<'a> {
    /// Pays for one attempt from the request's address; a 429 page when the
    /// address is past the limit (nothing is tried then).
    pub(crate) fn pay(
        gate: &'a crate::auth::gate::Gate,
        req: &HttpRequest,
    ) -> Result<Self, Box<actix_web::HttpResponse>> {
        use crate::auth::address_limiter::AddressDecision;
        let client = gate
            .clients
            .from_parts(req.headers(), req.peer_addr().map(|a| a.ip()))
            .map(crate::auth::client_address::ClientKey::from);
        if let Some(client) = client
            && let AddressDecision::Refused { retry_after_secs } =
                gate.auth_failures.check(client, std::time::Instant::now())
        {
            crate::metrics::limiter_decision("auth_failure", "refused");
            let mut res = error_page(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many failed sign-ins from this address. Wait a moment and try again.",
            );
            res.headers_mut()
                .insert(actix_web::http::header::RETRY_AFTER, retry_after_secs.max(1).into());
            return Err(Box::new(res));
        }
        Ok(Self {
            limiter: &gate.auth_failures,
            paid: client,
        })
    }

    /// The attempt was not a failure (signed in, or refused for a reason
    /// that is no guess: the accounts database down, a valid link for an
    /// account it cannot sign in): its token goes back. A failed attempt
    /// keeps it (drop the throttle).
    pub(crate) fn refund(self) {
        if let Some(client) = self.paid {
            self.limiter.refund(client);
        }
    }
}

/// What both sign-in forms check before any attempt: the portal is on, the
/// form came from the portal's own origin, and the address may try (paid
/// for). The gate and the paid attempt; otherwise the page that refused.
pub(crate) fn begin<'a>(
    gate: &'a crate::auth::gate::Gate,
    req: &HttpRequest,
) -> Result<(&'a crate::auth::session::SessionGate, SignInThrottle<'a>), Box<actix_web::HttpResponse>> {
    let Some(sessions) = gate.portal.as_ref() else {
        return Err(Box::new(error_page(
            StatusCode::NOT_FOUND,
            "The portal is not available on this server.",
        )));
    };
    if let Some(refusal) = sessions.origin.refusal(req) {
        return Err(Box::new(error_page(StatusCode::FORBIDDEN, refusal)));
    }
    let throttle = SignInThrottle::pay(gate, req)?;
    Ok((sessions, throttle))
}
