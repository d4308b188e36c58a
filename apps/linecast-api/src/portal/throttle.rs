//! The portal's throttles: the per-address failed-key limit on its sign-in
//! forms, and the per-session rate of its working pages (`Views`).

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
            self.limiter.refund(&client);
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

/// Views of the portal's working pages a session may make at once: the
/// Requests page and its CSV (each reads the customer's whole log within
/// the retention, up to the daily cap times its days), Model quality and
/// its diagram (calibration figures). One bucket per session for all four.
pub const VIEW_BURST: u32 = 20;

/// Views a second a session gets back after its burst.
pub const VIEW_RATE: u32 = 2;

/// Token buckets by session (linecast-limits' `KeyedLimiter`, by the
/// session id's hash), in process: with N instances behind a balancer a
/// session gets at most N times the rate. A session's bucket is kept a
/// minute after its last view (full again by then).
pub type Views = linecast_limits::KeyedLimiter<String>;

/// The most sessions whose buckets are kept at once.
const MAX_SESSIONS: u64 = 200_000;

/// `VIEW_RATE` views a second and `VIEW_BURST` at once per session.
pub fn views() -> Views {
    Views::new(VIEW_RATE, VIEW_BURST, MAX_SESSIONS)
}

/// One view of a working page by `signed`'s session: `None` to go on, or
/// the 429 page (with `Retry-After`) when the session is over its rate.
/// Nothing is read for a refused view.
pub(crate) fn over_rate(
    gate: &crate::auth::gate::Gate,
    signed: &crate::auth::session::SignedIn,
) -> Option<actix_web::HttpResponse> {
    let views = &gate.portal.as_ref()?.views;
    let linecast_limits::KeyedDecision::Refused { retry_after_secs } =
        views.check(signed.0.id_hash.clone(), std::time::Instant::now())
    else {
        return None;
    };
    let retry_after = retry_after_secs.max(1);
    crate::metrics::limiter_decision("portal_session", "refused");
    let mut res = error_page(
        StatusCode::TOO_MANY_REQUESTS,
        &format!(
            "Too many views of this page at once: a session may open the Requests page, its CSV and Model quality {VIEW_BURST} times at once and {VIEW_RATE} times a second after that. Wait {retry_after} second{} and reload.",
            if retry_after == 1 { "" } else { "s" }
        ),
    );
    res.headers_mut()
        .insert(actix_web::http::header::RETRY_AFTER, retry_after.into());
    Some(res)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn a_session_gets_its_burst_then_its_rate_and_others_are_unaffected() {
        use linecast_limits::KeyedDecision::{Allowed, Refused};
        let views = views();
        let t0 = Instant::now();
        for _ in 0..VIEW_BURST {
            assert_eq!(views.check("a".to_owned(), t0), Allowed);
        }
        assert_eq!(views.check("a".to_owned(), t0), Refused { retry_after_secs: 1 });
        assert_eq!(views.check("b".to_owned(), t0), Allowed);
        // Half a second later one view is back at 2 a second, and only one.
        let t1 = t0 + Duration::from_millis(1000 / u64::from(VIEW_RATE));
        assert_eq!(views.check("a".to_owned(), t1), Allowed);
        assert!(matches!(views.check("a".to_owned(), t1), Refused { .. }));
    }
}
