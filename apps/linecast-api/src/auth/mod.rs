//! The HTTP side of access: reading a presented key (`credentials`), the
//! gate middleware of key-gated scopes (`middleware`, which consults the key
//! cache, `linecast_keycache::KeyCache`, core's `KeyDirectory`), the billing
//! webhook's signature check (`stripe_signature`) and the per-address limit of public routes (`anonymous`). The rules
//! (order of checks, policies, tiers, limits) are core's
//! `services::access`.

pub use linecast_http::{client_address, sign_in_origin};

pub mod address_limiter;
pub mod anonymous;
pub mod credentials;
pub mod gate;
pub mod middleware;
pub mod session;
pub mod session_cookie;
pub mod stripe_signature;

/// The rules of access live in core; the HTTP shell names them from here.
pub use linecast_core::services::access::{ACCEPTED_TIERS, PER_SECOND_LIMIT, Policy, month_of, next_reset};

/// Who is calling, attached to the request after authentication: the access
/// decision's grant (the key cache's shared entry, and this month's count).
pub use linecast_core::services::access::Grant as AuthContext;
