//! What a read handler is handed, in one extraction: its request, the app
//! state, its path's typed segments and its query pairs. One extractor
//! instead of four: a hit builds one extraction future instead of four
//! and skips the query's parse (and its config lookup) when there is no
//! query. The errors are the four extractors' own, in their order: the
//! state, then the path, then the query.

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, web};
use futures::future::{Ready, ready};

use crate::error::ApiError;
use crate::params::RawQuery;
use crate::state::AppState;

/// A read's inputs. `P` is one of the typed path extractors of
/// `crate::params` (`SportModelPath`, `SportPath`, ...), or `()` for a
/// route without segments.
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
