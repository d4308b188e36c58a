//! Signed webhooks (issue 78), after the Standard Webhooks specification:
//! the pure rules a delivery worker and the portal follow
//! (docs/decisions.md, "Webhooks: the delivery rules").
//!
//! Owns: how a message is signed and a signature verified
//! ([`signature`]), when a failed delivery is tried again, given up or
//! disables its endpoint ([`schedule`]), which URLs and resolved addresses
//! a delivery may reach ([`address`]), the per-endpoint circuit breaker
//! ([`breaker`]) and the events' own rules: their names, quota thresholds,
//! key-expiry notices, ordering, the endpoint limit and the body preview
//! ([`events`]).
//!
//! Must not touch: the network, the clock, a random source, storage or
//! HTTP types. Instants, random draws and resolved addresses come in as
//! arguments; sending, resolving and keeping state belong to the worker
//! that uses these rules.
//!
//! ```
//! use linecast_webhooks::signature::{Secret, sign};
//! let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
//! assert_eq!(
//!     sign(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, br#"{"test": 2432232314}"#),
//!     "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
//! );
//! ```

pub mod address;
pub mod breaker;
pub mod events;
pub mod schedule;
pub mod signature;

#[cfg(test)]
mod tests;
