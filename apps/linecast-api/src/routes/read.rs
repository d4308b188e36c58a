//! What a handler is handed. A read: its request, the app state, its
//! path's typed segments and its query pairs, in one extraction ([`Read`]),
//! and the one way it is served (`read.serve(&key, load, render)` and its
//! kin, the `responses::pipeline` with the request and the responses
//! already in hand). One extractor instead of four: a hit builds one
//! extraction future instead of four and skips the query's parse (and its
//! config lookup) when there is no query. The errors are the four
//! extractors' own, in their order: the state, then the path, then the
//! query. A keyed route's caller: [`Caller`], the grant the gate placed.

use std::future::Future;
use std::hash::Hash;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpMessage, HttpRequest, HttpResponse, web};
use chrono::{DateTime, Utc};
use futures::future::{Ready, ready};
use linecast_core::Derived;

use crate::auth::AuthContext;
use crate::auth::middleware::HeldSlot;
use crate::error::ApiError;
use crate::params::RawQuery;
use crate::responses::spooled::{SpoolDir, Spooled};
use crate::responses::{self, Parts, Rendered, settled};
use crate::state::AppState;

/// A read's inputs. `P` is one of the typed path extractors of
/// `crate::params` (`SportModelPath`, `SportPath`, ...), or [`NoPath`] for
/// a route without segments.
pub struct Read<P> {
    pub req: HttpRequest,
    pub state: web::Data<AppState>,
    pub path: P,
    /// The query pairs, read exactly as `web::Query<RawQuery>` reads them
    /// (the first occurrence of a name wins).
    pub query: RawQuery,
}

impl<P> FromRequest for Read<P>
where
    P: FromRequest<Error = ApiError, Future = Ready<Result<P, ApiError>>>,
{
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, actix_web::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        ready(extract(req, payload))
    }
}

fn extract<P>(req: &HttpRequest, payload: &mut Payload) -> Result<Read<P>, actix_web::Error>
where
    P: FromRequest<Error = ApiError, Future = Ready<Result<P, ApiError>>>,
{
    let state = web::Data::<AppState>::from_request(req, payload).into_inner()?;
    let path = P::from_request(req, payload).into_inner()?;
    // No query: the empty map the query extractor would have made.
    let query = if req.query_string().is_empty() {
        RawQuery::new()
    } else {
        web::Query::<RawQuery>::from_request(req, payload)
            .into_inner()?
            .into_inner()
    };
    Ok(Read {
        req: req.clone(),
        state,
        path,
        query,
    })
}

/// The path of a route without typed segments.
#[derive(Debug, Clone, Copy)]
pub struct NoPath;

impl FromRequest for NoPath {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(_: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(Self))
    }
}

impl<P> Read<P> {
    /// The query's `name` as an RFC 3339 instant in the past, if given
    /// (`params::instant`).
    pub fn instant(&self, name: &str) -> Result<Option<DateTime<Utc>>, ApiError> {
        crate::params::instant(&self.query, name)
    }

    /// The download or stream slot the gate took for this request (a row
    /// that holds one), to be held until the answer is sent.
    pub fn held_slot(&self) -> Option<linecast_core::services::slots::Slot> {
        self.req
            .extensions_mut()
            .remove::<HeldSlot>()
            .map(|HeldSlot(slot)| slot)
    }

    /// Serves `value`, made for this request (a `Fresh` row):
    /// `responses::fresh`.
    pub fn fresh(&self, value: &impl serde::Serialize) -> Result<HttpResponse, ApiError> {
        responses::fresh(&self.req, value)
    }

    /// Serves the read keyed by `key` (the parsed parameters):
    /// `responses::serve`.
    pub async fn serve<K, T, E, L, Fut, R>(&self, key: &K, load: L, render: R) -> Result<HttpResponse, ApiError>
    where
        K: Hash + ?Sized,
        L: FnOnce(DateTime<Utc>) -> Fut,
        Fut: Future<Output = Result<Derived<T>, E>>,
        ApiError: From<E>,
        R: FnOnce(&T) -> Result<Rendered, ApiError>,
    {
        responses::serve(&self.req, &self.state.responses, key, load, render).await
    }

    /// Serves the read as it answered at `instant` (`as_of`): the instant
    /// selects, the body is keyed by `key` and the release read
    /// (`responses::serve_selected`), and the answer, which never changes,
    /// is `settled`.
    pub async fn serve_as_of<K, T, E, L, Fut, R>(
        &self,
        key: &K,
        instant: DateTime<Utc>,
        load: L,
        render: R,
    ) -> Result<HttpResponse, ApiError>
    where
        K: Hash + ?Sized,
        L: FnOnce(DateTime<Utc>) -> Fut,
        Fut: Future<Output = Result<Derived<T>, E>>,
        ApiError: From<E>,
        R: FnOnce(&T) -> Result<Rendered, ApiError>,
    {
        responses::serve_selected(&self.req, &self.state.responses, key, &instant, load, render)
            .await
            .map(settled)
    }

    /// Serves the read now (`current`), or as it answered at the query's
    /// `as_of` instant (`past(instant, now)`, [`Read::serve_as_of`]); both
    /// rendered by `render`.
    pub async fn serve_or_as_of<K, T, E, F, C, CFut, A, AFut, R>(
        &self,
        key: &K,
        current: C,
        past: A,
        render: R,
    ) -> Result<HttpResponse, ApiError>
    where
        K: Hash + ?Sized,
        C: FnOnce(DateTime<Utc>) -> CFut,
        CFut: Future<Output = Result<Derived<T>, E>>,
        ApiError: From<E>,
        A: FnOnce(DateTime<Utc>, DateTime<Utc>) -> AFut,
        AFut: Future<Output = Result<Derived<T>, F>>,
        ApiError: From<F>,
        R: FnOnce(&T) -> Result<Rendered, ApiError>,
    {
        match self.instant("as_of")? {
            Some(at) => self.serve_as_of(key, at, |now| past(at, now), render).await,
            None => self.serve(key, current, render).await,
        }
    }

    /// Serves a read whose body is made by an async step:
    /// `responses::serve_planned`.
    pub async fn serve_planned<K, T, E, L, Fut, M, MFut>(
        &self,
        key: &K,
        load: L,
        make: M,
    ) -> Result<HttpResponse, ApiError>
    where
        K: Hash + ?Sized,
        L: FnOnce(DateTime<Utc>) -> Fut,
        Fut: Future<Output = Result<Derived<T>, E>>,
        ApiError: From<E>,
        M: FnOnce(T, DateTime<Utc>) -> MFut,
        MFut: Future<Output = Result<Rendered, ApiError>>,
    {
        responses::serve_planned(&self.req, &self.state.responses, key, load, make).await
    }

    /// Serves a heavy read (rendered off the request's worker, holding the
    /// gate's slot): `responses::serve_heavy`.
    pub async fn serve_heavy<K, T, E, L, Fut, R, RFut>(
        &self,
        key: K,
        load: L,
        render: R,
    ) -> Result<HttpResponse, ApiError>
    where
        K: Hash + Send + Sync + 'static,
        L: FnOnce(DateTime<Utc>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Derived<T>, E>> + Send + 'static,
        ApiError: From<E>,
        T: Send + 'static,
        R: FnOnce(T, Parts) -> RFut + Send + 'static,
        RFut: Future<Output = Result<Rendered, ApiError>> + Send + 'static,
    {
        let slot = self.held_slot();
        responses::serve_heavy(&self.req, &self.state.responses, key, slot, load, render).await
    }

    /// Serves a file spooled to disk (holding the gate's slot until it is
    /// sent): `responses::serve_spooled`.
    pub async fn serve_spooled<K, T, E, L, Fut, R, RFut>(
        &self,
        key: K,
        load: L,
        render: R,
    ) -> Result<HttpResponse, ApiError>
    where
        K: Hash + Send + Sync + 'static,
        L: FnOnce(DateTime<Utc>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Derived<T>, E>> + Send + 'static,
        ApiError: From<E>,
        T: Send + 'static,
        R: FnOnce(T, std::sync::Arc<SpoolDir>) -> RFut + Send + 'static,
        RFut: Future<Output = Result<Spooled, ApiError>> + Send + 'static,
    {
        let slot = self.held_slot();
        responses::serve_spooled(&self.req, &self.state.responses, key, slot, load, render).await
    }
}

/// The caller of a keyed route: the grant the access gate placed on the
/// request. Fails closed: a request the gate handed none is a 401.
pub struct Caller(pub AuthContext);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(
            req.extensions()
                .get::<AuthContext>()
                .cloned()
                .map(Caller)
                .ok_or_else(|| ApiError::Unauthorized("API key required".to_owned())),
        )
    }
}
