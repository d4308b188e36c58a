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
//!    handler, so no input of a body can be left out of it). A read of the
//!    past ([`serve_selected`]) keys the memo by its instant too, but not
//!    the body: the deps name the release the instant resolved to;
//! 4. the ETag, `If-None-Match` (304) and the content coding.

use std::future::Future;
use std::hash::Hash;

use actix_web::{HttpRequest, HttpResponse};
use chrono::{DateTime, Utc};
use linecast_core::Derived;
use linecast_core::services::slots::Slot;
use linecast_domain::time::et_date;

use actix_web::http::header::ACCEPT_ENCODING;

use super::{CacheKey, Rendered, Responses, negotiate};
use crate::endpoint::row;
use crate::error::ApiError;

/// Serves one read of `route` (a row of `routes::table` served by the
/// read pipeline): the memoized or cached body when there is one, else
/// `load(now)` (a core read) rendered by `render`. `params` are the parsed
/// parameters of the request (typed values, never raw strings): the bytes
/// their `Hash` writes key the resolution memo and are part of every cache
/// key, so two requests share a body only when they parsed to the same
/// values.
pub async fn serve<P, T, E, L, Fut, R>(
    req: &HttpRequest,
    state: &Responses,
    params: &P,
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + ?Sized,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    R: FnOnce(&T) -> Result<Rendered, ApiError>,
{
    let route = row(req)?;
    serve_with(req, state, route, route.cache_control(), (params, &()), load, render).await
}

/// [`serve`] of a read of the past: `selector` (an `as_of` instant) only
/// chooses what is read, so it keys the resolution memo but never the body.
/// The body is keyed by `params` and the deps the read resolved to (the
/// release and the slate it chose), so every instant that resolves to the
/// same release and slate is answered with one body, rendered once; the
/// body must not carry the selector itself (an answer names its release,
/// not the instant asked).
pub async fn serve_selected<P, S, T, E, L, Fut, R>(
    req: &HttpRequest,
    state: &Responses,
    params: &P,
    selector: &S,
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + ?Sized,
    S: Hash,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    R: FnOnce(&T) -> Result<Rendered, ApiError>,
{
    let route = row(req)?;
    serve_with(
        req,
        state,
        route,
        route.cache_control(),
        (params, selector),
        load,
        render,
    )
    .await
}

/// [`serve`] of the body another route serves for the same parameters:
/// the memo and the response cache are `of`'s, so a body that route made is
/// answered here, not made again (the portal's reliability diagram is the
/// API's `format=svg` calibration body); the request's own row gives the
/// caching headers. ETag, `If-None-Match` and the content coding are as for
/// every read.
pub async fn serve_as<P, T, E, L, Fut, R>(
    req: &HttpRequest,
    state: &Responses,
    of: &'static crate::endpoint::Endpoint,
    params: &P,
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + ?Sized,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    R: FnOnce(&T) -> Result<Rendered, ApiError>,
{
    serve_with(req, state, of, row(req)?.cache_control(), (params, &()), load, render).await
}

/// [`serve_as`] with the request's own `Cache-Control` already looked up
/// (a read of its own row looks its row up once): [`serve_planned_with`]
/// whose body is rendered from the loaded value.
async fn serve_with<P, S, T, E, L, Fut, R>(
    req: &HttpRequest,
    state: &Responses,
    route: &'static crate::endpoint::Endpoint,
    cache_control: &'static str,
    (params, selector): (&P, &S),
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + ?Sized,
    S: Hash,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    R: FnOnce(&T) -> Result<Rendered, ApiError>,
{
    let make = |value: T, _: DateTime<Utc>| async move { render(&value) };
    serve_planned_with(req, state, route, cache_control, (params, selector), load, make).await
}

/// [`serve`] of a read whose core value is a plan: `load` answers cheaply
/// what the body depends on (its deps) and `make` does the read and the
/// rendering, only when no body is cached for those deps. A request whose
/// body is cached costs the plan, never the read (a game's history: the
/// series' kept releases, not the game's thousands of index rows).
pub async fn serve_planned<P, T, E, L, Fut, M, MFut>(
    req: &HttpRequest,
    state: &Responses,
    params: &P,
    load: L,
    make: M,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + ?Sized,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    M: FnOnce(T, DateTime<Utc>) -> MFut,
    MFut: Future<Output = Result<Rendered, ApiError>>,
{
    let route = row(req)?;
    serve_planned_with(req, state, route, route.cache_control(), (params, &()), load, make).await
}

/// The read pipeline: the memo, else `load` and the body cached for its
/// key, else `make`. The memo is keyed by the parameters and the selector
/// (`()` but for [`serve_selected`]: it writes no byte), the body by the
/// parameters and the deps.
async fn serve_planned_with<P, S, T, E, L, Fut, M, MFut>(
    req: &HttpRequest,
    state: &Responses,
    route: &'static crate::endpoint::Endpoint,
    cache_control: &'static str,
    (params, selector): (&P, &S),
    load: L,
    make: M,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + ?Sized,
    S: Hash,
    L: FnOnce(DateTime<Utc>) -> Fut,
    Fut: Future<Output = Result<Derived<T>, E>>,
    ApiError: From<E>,
    M: FnOnce(T, DateTime<Utc>) -> MFut,
    MFut: Future<Output = Result<Rendered, ApiError>>,
{
    let now = state.clock.now();
    let date = et_date_of_minute(now);
    let asked = (params, selector);
    if let Some(body) = state.memo.get(route.name, &asked, date) {
        return Ok(body.respond(req, cache_control));
    }
    // A miss: the core read, then the body for its key (made once per
    // key). Boxed: it awaits the store and the response cache, a large
    // future that a hit (the usual case) should neither allocate nor move.
    let body = Box::pin(async {
        let Derived { value, deps } = load(now).await?;
        let key = CacheKey::new(route.name, params, &deps);
        state.bodies.get_or_make(key, make(value, now)).await
    })
    .await?;
    state.memo.put(route.name, &asked, date, body.clone());
    Ok(body.respond(req, cache_control))
}

/// [`serve`] for a route whose bodies can be large (exports, results
/// pages of up to 100,000 rows). A memo hit is answered on the request
/// thread as in `serve`; everything else (the core read, rendering, and
/// compressing the variant asked for) runs on the heavy-work threads
/// (`responses::heavy`), so a cold large body never holds up other
/// requests. `render` gets the value by move and may await (an export
/// loads its seasons only once its body turned out not to be cached).
/// `slot` (a download slot) is held until the body has been sent.
#[allow(clippy::too_many_arguments)]
pub async fn serve_heavy<P, T, E, L, Fut, R, RFut>(
    req: &HttpRequest,
    state: &Responses,
    params: P,
    slot: Option<Slot>,
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + Send + Sync + 'static,
    L: FnOnce(DateTime<Utc>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Derived<T>, E>> + Send + 'static,
    ApiError: From<E>,
    T: Send + 'static,
    R: FnOnce(T, Parts) -> RFut + Send + 'static,
    RFut: Future<Output = Result<Rendered, ApiError>> + Send + 'static,
{
    let route = row(req)?;
    let now = state.clock.now();
    let date = et_date_of_minute(now);
    let asked = negotiate(req.headers().get(ACCEPT_ENCODING).and_then(|v| v.to_str().ok()));
    let memo = state.memo.get(route.name, &params, date);
    if let Some(body) = &memo
        && body.ready(body.coding_for(req))
    {
        return Ok(body.respond_holding(req, route.cache_control(), slot));
    }
    let bodies = state.bodies.clone();
    let parts = Parts(state.rows.clone());
    let (body, params) = state
        .heavy
        .run(async move {
            let body = if let Some(body) = memo {
                body
            } else {
                let Derived { value, deps } = load(now).await?;
                let key = CacheKey::new(route.name, &params, &deps);
                bodies.get_or_make(key, render(value, parts)).await?
            };
            body.prepare(asked);
            Ok((body, params))
        })
        .await?;
    state.memo.put(route.name, &params, date, body.clone());
    Ok(body.respond_holding(req, route.cache_control(), slot))
}

/// [`serve_heavy`] for a file too large to hold (`responses::spooled`):
/// `render` writes it to a file of the spool directory it is given, on the
/// heavy-work threads, once per key (the route, `params` and the deps of
/// `load`'s value); every request is answered from that file. No memo: the
/// core read (`load`, a plan) runs on each request, on the request thread,
/// so a file made already is served without waiting for a heavy thread.
/// `slot` (a download slot) is held until the body has been sent.
pub async fn serve_spooled<P, T, E, L, Fut, R, RFut>(
    req: &HttpRequest,
    state: &Responses,
    params: P,
    slot: Option<Slot>,
    load: L,
    render: R,
) -> Result<HttpResponse, ApiError>
where
    P: Hash + Send + Sync + 'static,
    L: FnOnce(DateTime<Utc>) -> Fut + Send + 'static,
    Fut: Future<Output = Result<Derived<T>, E>> + Send + 'static,
    ApiError: From<E>,
    T: Send + 'static,
    R: FnOnce(T, std::sync::Arc<super::spooled::SpoolDir>) -> RFut + Send + 'static,
    RFut: Future<Output = Result<super::spooled::Spooled, ApiError>> + Send + 'static,
{
    let route = row(req)?;
    let Derived { value, deps } = load(state.clock.now()).await?;
    let key = CacheKey::new(route.name, &params, &deps);
    // A file made already is served at once, never queued behind a render.
    if let Some(body) = state.files.cached(&key).await {
        return body.respond_holding(req, route.cache_control(), slot);
    }
    let files = state.files.clone();
    let body = state
        .heavy
        .run(async move {
            let dir = files.dir().clone();
            files.get_or_make(key, render(value, dir)).await
        })
        .await?;
    body.respond_holding(req, route.cache_control(), slot)
}

/// What a large body is assembled from, kept by the pipeline: a season's
/// result rows, rendered once per season generation and kept-release
/// generation (`rows::RowCache`, keyed by the season's deps and the checks'
/// generation, never by the handler).
#[derive(Clone)]
pub struct Parts(std::sync::Arc<super::rows::RowCache>);

impl Parts {
    /// The rows of `data`'s season generation checked as `checks` (made
    /// for that generation), rendered by `render` the first time they are
    /// asked for.
    pub async fn season_rows(
        &self,
        data: &linecast_core::services::history::SeasonData,
        checks: &linecast_core::services::archive_check::SeasonChecks,
        render: fn(
            &linecast_core::services::history::SeasonData,
            &linecast_core::services::archive_check::SeasonChecks,
        ) -> Vec<Box<serde_json::value::RawValue>>,
    ) -> super::rows::SeasonRows {
        let deps = data.deps().param("archive", &checks.generation);
        self.0.get_or_render(&deps, || render(data, checks)).await
    }
}

/// `et_date(now)`, remembered per UTC minute by each worker thread (core's
/// `memo::et_minute`).
fn et_date_of_minute(now: DateTime<Utc>) -> chrono::NaiveDate {
    linecast_core::memo::et_minute(now.timestamp().div_euclid(60), || et_date(now))
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone};

    use super::*;

    /// Every second across both 2026 clock changes and an ET midnight, in
    /// order and then again out of order (the memo must not stick to a
    /// stale minute): the memo answers what `et_date` answers.
    #[test]
    fn the_minute_memo_answers_what_et_date_answers() {
        let starts = [
            Utc.with_ymd_and_hms(2026, 3, 8, 6, 30, 0).unwrap(),
            Utc.with_ymd_and_hms(2026, 11, 1, 5, 30, 0).unwrap(),
            Utc.with_ymd_and_hms(2026, 11, 24, 4, 58, 0).unwrap(),
        ];
        for start in starts {
            for s in 0..3 * 3600 {
                let now = start + Duration::seconds(s);
                assert_eq!(et_date_of_minute(now), et_date(now), "{now}");
            }
            for s in (0..3 * 3600).rev().step_by(7) {
                let now = start + Duration::seconds(s);
                assert_eq!(et_date_of_minute(now), et_date(now), "{now}");
            }
        }
    }
}
