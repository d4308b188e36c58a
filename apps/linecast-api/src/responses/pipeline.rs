//! The one way a read is served. A read handler does three things: parse
//! its parameters, name the core read that answers them, and name how the
//! value is rendered. [`serve`] does the rest, the same way for every read:
//!
//! 1. the resolution memo: the route, the parsed parameters and the ET date
//!    to the body they led to, for `RESOLUTION_TTL` (a hit touches no store
//!    and no cache between the access gate and the bytes);
//! 2. the core read, which returns the value with its `Deps`;
//! 3. the response cache, keyed by the route, the parameters and the deps
//!    (render once per distinct key; the key is never written by a
//!    handler, so no input of a body can be left out of it);
//! 4. the ETag, `If-None-Match` (304) and the content coding.

use std::fmt::Debug;
use std::future::Future;

use actix_web::{HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use linecast_core::Derived;
use linecast_domain::time::et_date;

use super::{CacheKey, PRIVATE, PUBLIC, Rendered, Resolutions};
use crate::error::ApiError;
use crate::state::AppState;

/// A read route as the pipeline knows it: a stable name (the first part of
/// every key) and the `Cache-Control` of its bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub name: &'static str,
    pub cache_control: &'static str,
}

impl Route {
    /// An authenticated read: only the caller's own cache may keep it.
    pub const fn private(name: &'static str) -> Self {
        Self {
            name,
            cache_control: PRIVATE,
        }
    }

    /// A read of the free public feed.
    pub const fn public(name: &'static str) -> Self {
        Self {
            name,
            cache_control: PUBLIC,
        }
    }
}

/// Serves one read: the memoized or cached body when there is one, else
/// `load(now)` (a core read) rendered by `render`. `params` are the parsed
/// parameters of the request (typed values, never raw strings); their
/// `Debug` form is part of every key, so two requests share a body only
/// when they parsed to the same values.
pub async fn serve<P, T, E, L, Fut, R>(
    req: &HttpRequest,
    state: &AppState,
    route: Route,
    params: &P,
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Debug + ?Sized,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    R: FnOnce(&T) -> Result<Rendered, ApiError>,
{
    let now = state.clock.now();
    // The hit path writes one string (the memo key) and nothing else.
    let memo = Resolutions::key(route.name, params, et_date(now));
    if let Some(body) = state.resolutions.get(&memo) {
        return Ok(body.respond(req, route.cache_control));
    }
    let Derived { value, deps } = load(now).await?;
    let key = CacheKey::new(route.name).with(format_args!("{params:?}")).with(&deps);
    let body = state.responses.get_or_render(key, || render(&value)).await?;
    state.resolutions.put(memo, body.clone());
    Ok(body.respond(req, route.cache_control))
}
