//! The dispatcher: finds the row of the route table a request reaches and
//! answers it. A path whose segments are all codes of the closed sets
//! (sports, model types, markets) is looked up whole in a map made from
//! the templates at start; any other path takes one radix-tree lookup
//! (`matchit`, no regex). Then the method among the path's rows:
//!
//! - a row: its access (`auth::admit`), then its handler;
//! - a path declared with other methods: 405 with `Allow`, before any
//!   access check (no key needed, nothing counted, limited or logged),
//!   except on a portal page's or the webhook's path, answered after the
//!   most permissive access among the path's rows (`Access::gates_wrong_method`);
//! - a path no row declares: 404, after the `Subscriber` check when it lies
//!   under `/api/v1` (fail closed: an unknown path tells nothing to a caller
//!   without a key). Counted as any admitted request, it is listed in the
//!   customer's request log as [`NO_ROUTE`].
//!
//! The portal's refusals are pages, as its own are: a wrong method on a
//! `Page` row's path (`HEAD` included) and a path no row declares under
//! `/portal` answer the portal's HTML 405 or 404 with its security headers,
//! not the API's JSON.
//!
//! The path matched is the one actix routes on (percent escapes of
//! unreserved characters decoded), so every spelling of a path reaches
//! the same row and the same access. Path segments are handed to the
//! handler's extractors as actix's own match info.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::{Service, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{ALLOW, HeaderValue};
type RouteService = <actix_web::Route as ServiceFactory<ServiceRequest>>::Service;
use actix_web::{Error, HttpMessage, web};
use futures::future::LocalBoxFuture;
use linecast_core::ports::request_log::RouteTemplate;
use linecast_core::services::access::Policy;
use linecast_domain::{ModelType, PublicMarket, Sport};

use crate::auth::middleware::{Gate, admit};
use crate::endpoint::{Access, Endpoint, Matched, Serving};
pub use crate::endpoint::{row, template};
use crate::error::error_response;
use crate::telemetry::{Answer, Redaction};

/// The service factory of the table: what answers every request inside the
/// app's request context (`telemetry::RequestContext`), one service per
/// worker.
pub struct Dispatcher {
    gate: Arc<Gate>,
    body_timeout: Duration,
    redaction: web::Data<Redaction>,
}

impl Dispatcher {
    /// The dispatcher of `routes::table`, checking access with `gate`; a
    /// request body not received within `body_timeout` is answered 408
    /// (`crate::stall::BodyDeadline`). A refusal that quotes the path
    /// quotes it as the log does (`redaction`, the app's).
    pub fn new(gate: Arc<Gate>, body_timeout: Duration, redaction: web::Data<Redaction>) -> Self {
        Self {
            gate,
            body_timeout,
            redaction,
        }
    }
}

/// The rows sharing one path template.
struct PathRows {
    /// Indices into the table, one per method.
    rows: Vec<usize>,
    /// The template's segment names, in order (as matchit reports them).
    names: Vec<&'static str>,
    /// `Allow` of a 405.
    allow: HeaderValue,
    /// The access a wrong method is answered after.
    loosest: Access,
    /// Whether the path's answers are readable cross-origin (`super::cors`).
    cross_origin: bool,
}

/// What a path and method lead to.
#[derive(Clone, Copy)]
enum Found {
    Row(usize),
    WrongMethod(usize),
    Unknown,
}

/// A path's segments, as the handler's extractors read them.
type Segments = [Option<(&'static str, Cow<'static, str>)>; 4];

struct Table {
    rows: &'static [&'static Endpoint],
    /// Per row, whether it answers cross-origin callers (`super::cors`).
    cross_origin: Vec<bool>,
    router: matchit::Router<usize>,
    paths: Vec<PathRows>,
    /// Every path a template makes from the closed sets' codes, with its
    /// index in `paths` and its segments: what `router` answers for it,
    /// found by one hash of the whole path.
    known: foldhash::HashMap<Box<str>, (usize, Segments)>,
}

/// The path segments whose values are closed sets: each name with its codes.
fn closed_sets() -> &'static [(&'static str, Vec<&'static str>)] {
    static SETS: std::sync::OnceLock<Vec<(&'static str, Vec<&'static str>)>> = std::sync::OnceLock::new();
    SETS.get_or_init(|| {
        vec![
            ("sport", Sport::ALL.iter().map(|s| s.code()).collect()),
            ("model_type", ModelType::ALL.iter().map(|m| m.code()).collect()),
            ("market", PublicMarket::ALL.iter().map(|m| m.code()).collect()),
        ]
    })
}

/// The codes a segment of this name can take, when they are a closed set.
fn codes_of(name: &str) -> Option<&'static [&'static str]> {
    closed_sets()
        .iter()
        .find(|(set, _)| *set == name)
        .map(|(_, codes)| codes.as_slice())
}

/// The name of a template segment that is a parameter (`{name}`, or
/// `{*name}` for a catch-all), `None` for a literal segment.
fn parameter(segment: &str) -> Option<&str> {
    segment
        .strip_prefix('{')
        .and_then(|s| s.strip_suffix('}'))
        .map(|s| s.trim_start_matches('*'))
}

/// Every path `template` makes when each `{name}` segment takes each of
/// its codes, with the segments; nothing when a segment is not a closed
/// set (or the template has none).
fn instances(template: &'static str) -> Vec<(String, Segments)> {
    let mut made: Vec<(String, Segments)> = vec![(String::new(), Segments::default())];
    let mut filled = 0;
    for (i, part) in template.split('/').enumerate() {
        let sep = if i == 0 { "" } else { "/" };
        let Some(name) = parameter(part) else {
            for (path, _) in &mut made {
                path.push_str(sep);
                path.push_str(part);
            }
            continue;
        };
        let Some(codes) = codes_of(name) else {
            return Vec::new();
        };
        if filled == Segments::default().len() {
            return Vec::new();
        }
        made = made
            .into_iter()
            .flat_map(|(path, segments)| {
                codes.iter().map(move |&code| {
                    let mut segments = segments.clone();
                    segments[filled] = Some((name, Cow::Borrowed(code)));
                    (format!("{path}{sep}{code}"), segments)
                })
            })
            .collect();
        filled += 1;
    }
    if filled == 0 { Vec::new() } else { made }
}

impl Table {
    /// The lookup structure of `rows`. Panics on a template matchit
    /// cannot hold (two rows whose templates overlap ambiguously): a table
    /// error, caught by the tests before any server starts.
    fn new(rows: &'static [&'static Endpoint]) -> Self {
        let mut router = matchit::Router::new();
        let mut paths: Vec<PathRows> = Vec::new();
        let mut index: Vec<&'static str> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            if let Some(at) = index.iter().position(|p| *p == row.path) {
                let p = &mut paths[at];
                p.rows.push(i);
                if row.access.openness() > p.loosest.openness() {
                    p.loosest = row.access;
                }
                continue;
            }
            if let Err(e) = router.insert(row.path, paths.len()) {
                panic!("route table: {} cannot be routed: {e}", row.path);
            }
            index.push(row.path);
            paths.push(PathRows {
                rows: vec![i],
                names: row.path.split('/').filter_map(parameter).collect(),
                allow: HeaderValue::from_static(""),
                loosest: row.access,
                cross_origin: false,
            });
        }
        for p in &mut paths {
            // In the order an OpenAPI path item lists its operations.
            const ORDER: [&str; 8] = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"];
            let mut methods: Vec<&str> = p.rows.iter().map(|&i| rows[i].method.as_str()).collect();
            methods.sort_by_key(|m| ORDER.iter().position(|o| o == m));
            p.allow = HeaderValue::from_str(&methods.join(", ")).unwrap_or_else(|_| HeaderValue::from_static(""));
            p.cross_origin = p.rows.iter().any(|&i| super::cors::applies(rows[i]));
        }
        let mut known = foldhash::HashMap::default();
        for (at, p) in paths.iter().enumerate() {
            for (path, segments) in instances(rows[p.rows[0]].path) {
                known.insert(path.into_boxed_str(), (at, segments));
            }
        }
        Self {
            rows,
            cross_origin: rows.iter().map(|row| super::cors::applies(row)).collect(),
            router,
            paths,
            known,
        }
    }

    /// The row (or refusal) for `req`, with the path's segments added to
    /// its match info.
    fn find(&self, req: &mut ServiceRequest) -> Found {
        let (at, segments) = if let Some((at, segments)) = self.known.get(req.match_info().as_str()) {
            (*at, segments.clone())
        } else {
            let Ok(m) = self.router.at(req.match_info().as_str()) else {
                return Found::Unknown;
            };
            let mut segments = Segments::default();
            let p = &self.paths[*m.value];
            for ((slot, name), (_, value)) in segments.iter_mut().zip(&p.names).zip(m.params.iter()) {
                *slot = Some((name, interned(value)));
            }
            (*m.value, segments)
        };
        let p = &self.paths[at];
        let (found, matched) = match p.rows.iter().find(|&&i| self.rows[i].method == req.method()) {
            Some(&i) => (Found::Row(i), Matched::dispatched(self.rows[i])),
            None => (Found::WrongMethod(at), Matched::wrong_method(self.rows[p.rows[0]])),
        };
        req.extensions_mut().insert(matched);
        let info = req.match_info_mut();
        for (name, value) in segments.into_iter().flatten() {
            info.add_static(name, value);
        }
        found
    }
}

/// A segment's text, without a copy when it is one of the closed sets'
/// codes (every valid sport, model type and market).
fn interned(value: &str) -> Cow<'static, str> {
    closed_sets()
        .iter()
        .flat_map(|(_, codes)| codes.iter())
        .find(|code| **code == value)
        .map_or_else(|| Cow::Owned(value.to_owned()), |code| Cow::Borrowed(*code))
}

/// The table of `routes::table`, built once per process.
fn table() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| Table::new(super::table::ENDPOINTS))
}

pub struct DispatchService(Rc<Inner>);

struct Inner {
    table: &'static Table,
    gate: Arc<Gate>,
    /// Each row's handler, built once per worker.
    handlers: Vec<RouteService>,
    /// How long a request body may take to arrive.
    body_timeout: Duration,
    /// How a refusal quotes the path.
    redaction: web::Data<Redaction>,
}

impl ServiceFactory<ServiceRequest> for Dispatcher {
    type Response = ServiceResponse;
    type Error = Error;
    type Config = ();
    type Service = DispatchService;
    type InitError = ();
    type Future = LocalBoxFuture<'static, Result<DispatchService, ()>>;

    fn new_service(&self, (): ()) -> Self::Future {
        let gate = Arc::clone(&self.gate);
        let body_timeout = self.body_timeout;
        let redaction = self.redaction.clone();
        Box::pin(async move {
            let table = table();
            let mut handlers = Vec::with_capacity(table.rows.len());
            for row in table.rows {
                handlers.push((row.route)().new_service(()).await?);
            }
            Ok(DispatchService(Rc::new(Inner {
                table,
                gate,
                handlers,
                body_timeout,
                redaction,
            })))
        })
    }
}

impl Service<ServiceRequest> for DispatchService {
    type Response = ServiceResponse;
    type Error = Error;
    type Future = LocalBoxFuture<'static, Result<ServiceResponse, Error>>;

    actix_service::always_ready!();

    fn call(&self, req: ServiceRequest) -> Self::Future {
        self.respond(req)
    }
}

/// The app's request context (`telemetry`) awaits the dispatcher's answer
/// itself, with no actix routing or boxed default service between them.
///
/// Each answer is boxed on its own. Awaited unboxed inside the context's
/// future, the answer cost more instructions than the box it saves: the
/// one larger future went through `malloc`'s slow path (`_int_malloc`)
/// once more a request and was copied whole into its box (callgrind,
/// `bench/RESULTS.md`, "One layer fewer").
impl Answer for DispatchService {
    fn answer(&self, req: ServiceRequest) -> impl Future<Output = Result<ServiceResponse, Error>> + 'static {
        self.respond(req)
    }
}

impl DispatchService {
    /// The answer to `req`: its row found, its body's deadline armed, then
    /// the row's (or refusal's) answer, through the page step for a page.
    fn respond(&self, mut req: ServiceRequest) -> LocalBoxFuture<'static, Result<ServiceResponse, Error>> {
        let inner = Rc::clone(&self.0);
        let found = inner.table.find(&mut req);
        // Every body, whoever reads it (gate, extractor, handler), and
        // whatever the path leads to, arrives within the deadline.
        let deadline = crate::stall::BodyDeadline::arm(&mut req, inner.body_timeout);
        // Under /portal every error is a portal page, whoever made it (a
        // handler, an extractor, the gate, the body deadline), and every
        // page (the portal's, `/status`) goes out through the page step:
        // security headers, ETag, content coding (`responses::page`).
        // The 408 page is made inside the deadline's race, so a 408 that
        // ends the connection keeps its connection handling (closed, the
        // unread body held until the answer is sent).
        let portal = crate::portal::html::under_portal(req.path());
        // Every answer of the API, whatever made it, is readable by a page
        // of any origin (`super::cors`).
        let cross_origin = match found {
            Found::Row(i) => inner.table.cross_origin[i],
            Found::WrongMethod(p) => inner.table.paths[p].cross_origin,
            Found::Unknown => gated(req.match_info().as_str()),
        };
        let page = portal
            || match found {
                Found::Row(i) => matches!(inner.table.rows[i].serving, Serving::Page(_)),
                Found::WrongMethod(p) => {
                    matches!(inner.table.rows[inner.table.paths[p].rows[0]].serving, Serving::Page(_))
                }
                Found::Unknown => false,
            };
        let shape: fn(actix_web::HttpResponse) -> actix_web::HttpResponse = if portal {
            portal_error
        } else if cross_origin {
            super::cors::readable
        } else {
            std::convert::identity
        };
        let http = page.then(|| req.request().clone());
        let answer = Self::answer(inner, found, req);
        let answer = match http {
            Some(http) => Box::pin(async move {
                let res = match answer.await {
                    Ok(res) => res,
                    Err(e) => ServiceResponse::new(http, e.error_response()),
                };
                let (req, res) = res.into_parts();
                let res = if portal { crate::portal::html::as_page(res) } else { res };
                let res = crate::responses::page::finish(&req, crate::portal::html::signed_in(&req, res));
                Ok(ServiceResponse::new(req, res))
            }),
            None => answer,
        };
        match deadline {
            Some(deadline) => deadline.race(answer, shape),
            None => answer,
        }
    }
}

/// The 405 of a method `req`'s path does not take, with `Allow`: the
/// portal's page on a page's path, else the API's error body.
fn method_not_allowed(req: ServiceRequest, page: bool, allow: HeaderValue, redaction: &Redaction) -> ServiceResponse {
    let mut res = if page {
        crate::portal::html::error_page(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("This page does not answer {}.", req.method()),
        )
    } else {
        error_response(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("Method {} not allowed on {}", req.method(), redaction.path(req.path())),
        )
    };
    res.headers_mut().insert(ALLOW, allow);
    req.into_response(res)
}

/// Whether `path` lies under `/api/v1` (the API's paths: fail closed, and
/// readable cross-origin).
fn gated(path: &str) -> bool {
    path == super::table::GATED_PREFIX
        || path
            .strip_prefix(super::table::GATED_PREFIX)
            .is_some_and(|rest| rest.starts_with('/'))
}
/// The route a request log lists for a path under `/api/v1` that no row
/// declares: admitted with a key and counted, so listed too (every counted
/// request is in the log), never as the path sent.
pub static NO_ROUTE: &str = "(no such route)";

/// An error under `/portal` made where no request is at hand (the body
/// deadline's 408): the portal's page, with the pages' security headers.
fn portal_error(res: actix_web::HttpResponse) -> actix_web::HttpResponse {
    let mut res = crate::portal::html::as_page(res);
    crate::responses::page::secure(&mut res);
    res
}

impl DispatchService {
    fn answer(
        inner: Rc<Inner>,
        found: Found,
        req: ServiceRequest,
    ) -> LocalBoxFuture<'static, Result<ServiceResponse, Error>> {
        match found {
            Found::Row(i) => Self::answer_row(inner, i, req),
            Found::WrongMethod(p) => Self::answer_wrong_method(inner, p, req),
            Found::Unknown => Self::answer_unknown(inner, req),
        }
    }

    /// Row `i`'s answer: its access checked, then its handler.
    fn answer_row(
        inner: Rc<Inner>,
        i: usize,
        req: ServiceRequest,
    ) -> LocalBoxFuture<'static, Result<ServiceResponse, Error>> {
        let row = inner.table.rows[i];
        let cross_origin = inner.table.cross_origin[i];
        Box::pin(async move {
            let mut res = admit(
                &inner.gate,
                row.access,
                row.hands_caller(),
                Some(RouteTemplate::new(&row.path)),
                req,
                |req| inner.handlers[i].call(req),
            )
            .await?;
            if cross_origin {
                super::cors::allow_reading(res.headers_mut());
            }
            Ok(res)
        })
    }

    /// The 405 of path `p` (or its CORS preflight), checked as the path's
    /// loosest access says.
    fn answer_wrong_method(
        inner: Rc<Inner>,
        p: usize,
        req: ServiceRequest,
    ) -> LocalBoxFuture<'static, Result<ServiceResponse, Error>> {
        let path = &inner.table.paths[p];
        let (access, allow) = (path.loosest, path.allow.clone());
        if path.cross_origin && super::cors::is_preflight(req.request()) {
            let res = super::cors::preflight(allow);
            return Box::pin(async move { Ok(req.into_response(res)) });
        }
        let first = inner.table.rows[path.rows[0]];
        let page = matches!(first.serving, Serving::Page(_));
        let cross_origin = path.cross_origin;
        let redaction = inner.redaction.clone();
        if !access.gates_wrong_method() {
            // Before any access check: no key needed, nothing
            // counted, limited or logged (the methods are no
            // secret: the OpenAPI document lists them).
            let mut res = method_not_allowed(req, page, allow, &redaction);
            if cross_origin {
                super::cors::allow_reading(res.headers_mut());
            }
            return Box::pin(async move { Ok(res) });
        }
        Box::pin(async move {
            let mut res = admit(
                &inner.gate,
                access,
                false,
                Some(RouteTemplate::new(&first.path)),
                req,
                |req| async move { Ok(method_not_allowed(req, page, allow, &redaction)) },
            )
            .await?;
            if cross_origin {
                super::cors::allow_reading(res.headers_mut());
            }
            Ok(res)
        })
    }

    /// The 404 of a path no row declares: the portal's page under
    /// `/portal`; under `/api/v1` admitted with a key and counted first.
    fn answer_unknown(
        inner: Rc<Inner>,
        req: ServiceRequest,
    ) -> LocalBoxFuture<'static, Result<ServiceResponse, Error>> {
        let path = req.match_info().as_str();
        let gated = gated(path);
        let redaction = inner.redaction.clone();
        let not_found = move |req: ServiceRequest| async move {
            let res = error_response(
                StatusCode::NOT_FOUND,
                &format!("No route for {} {}", req.method(), redaction.path(req.path())),
            );
            Ok(req.into_response(res))
        };
        if crate::portal::html::under_portal(path) {
            let res = crate::portal::html::error_page(StatusCode::NOT_FOUND, "There is no such page.");
            Box::pin(async move { Ok(req.into_response(res)) })
        } else if gated {
            Box::pin(async move {
                let mut res = admit(
                    &inner.gate,
                    Access::Key(Policy::Subscriber),
                    false,
                    Some(RouteTemplate::new(&NO_ROUTE)),
                    req,
                    not_found,
                )
                .await?;
                super::cors::allow_reading(res.headers_mut());
                Ok(res)
            })
        } else {
            Box::pin(not_found(req))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::table::ENDPOINTS;

    fn find(method: &str, path: &str) -> (Option<&'static str>, Vec<(String, String)>, bool) {
        let table = Table::new(ENDPOINTS);
        let mut req = actix_web::test::TestRequest::default()
            .method(method.parse().unwrap_or(actix_web::http::Method::GET))
            .uri(path)
            .to_srv_request();
        let found = table.find(&mut req);
        let params = req
            .match_info()
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        match found {
            Found::Row(i) => (Some(ENDPOINTS[i].name), params, false),
            Found::WrongMethod(_) => (None, params, true),
            Found::Unknown => (None, params, false),
        }
    }

    #[test]
    fn the_table_routes_without_conflicts() {
        let _ = Table::new(ENDPOINTS);
    }

    /// The whole-path map answers exactly what the radix tree answers for
    /// each path in it, and holds every template's closed-set instances.
    #[test]
    fn the_precomputed_paths_agree_with_the_radix_tree() {
        let table = Table::new(ENDPOINTS);
        for (path, (at, segments)) in &table.known {
            let m = table.router.at(path).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(*m.value, *at, "{path}");
            let tree: Vec<(&str, &str)> = m.params.iter().collect();
            let ours: Vec<(&str, &str)> = segments.iter().flatten().map(|(n, v)| (*n, v.as_ref())).collect();
            assert_eq!(tree, ours, "{path}");
        }
        // 6 sports x 3 model types for each of the thirteen templates made
        // of them (the public scorecard's included), 6 x 3 public markets,
        // and 6 sports for odds, the books, data status and markets;
        // strategy replays (strategy ids), game histories and odds
        // histories (game ids) are left to the tree.
        assert_eq!(table.known.len(), 13 * 18 + 18 + 4 * 6);
        for path in [
            "/api/v1/predictions/nba/won_on_points",
            "/api/v1/odds/nba/books",
            "/api/v1/results/ncaab/over_under/export",
            "/api/v1/public/ml-picks/nfl/spread",
            "/api/v1/odds/mlb",
        ] {
            assert!(table.known.contains_key(path), "{path}");
        }
        assert!(!table.known.keys().any(|p| p.contains('{')));
    }

    #[test]
    fn a_path_reaches_its_row_with_its_segments() {
        let (name, params, _) = find("GET", "/api/v1/predictions/nba/ai");
        assert_eq!(name, Some("predictions"));
        assert_eq!(
            params,
            [
                ("sport".to_owned(), "nba".to_owned()),
                ("model_type".to_owned(), "ai".to_owned())
            ]
        );
        assert_eq!(find("GET", "/api/v1/results/nba/ai").0, Some("results"));
        assert_eq!(find("GET", "/api/v1/results/nba/ai/export").0, Some("results_export"));
        assert_eq!(
            find("GET", "/api/v1/edge-picks/track-record").0,
            Some("edge_picks_track_record")
        );
        assert_eq!(
            find("GET", "/api/v1/edge-picks/2026-11-20").0,
            Some("edge_picks_for_date")
        );
        assert_eq!(find("GET", "/api/v1/picks/today").0, Some("picks_today"));
        assert_eq!(
            find("PATCH", "/api/v1/customers/me/api-keys/rename").0,
            Some("rename_api_key")
        );
        assert_eq!(
            find("DELETE", "/api/v1/customers/me/api-keys/lc_abc").0,
            Some("revoke_api_key")
        );
        assert_eq!(find("POST", "/api/v1/customers/me/api-keys").0, Some("create_api_key"));
        assert_eq!(find("GET", "/api/v1/customers/me/api-keys").0, Some("list_api_keys"));
        assert_eq!(find("GET", "/").0, Some("root"));
        // A percent-escaped unreserved character is the same path.
        assert_eq!(find("GET", "/api/v1/%70redictions/nba/ai").0, Some("predictions"));
        // An unknown value is still routed: the handler's extractor
        // answers 400 naming the parameter.
        let (name, params, _) = find("GET", "/api/v1/predictions/xyz/ai");
        assert_eq!(name, Some("predictions"));
        assert_eq!(params[0], ("sport".to_owned(), "xyz".to_owned()));
    }

    #[test]
    fn a_wrong_method_or_an_unknown_path_is_told_apart() {
        assert_eq!(
            find("POST", "/api/v1/predictions/nba/ai"),
            (
                None,
                vec![
                    ("sport".to_owned(), "nba".to_owned()),
                    ("model_type".to_owned(), "ai".to_owned())
                ],
                true
            )
        );
        assert!(find("PUT", "/api/v1/health").2);
        assert_eq!(find("GET", "/api/v1/nothing/here"), (None, vec![], false));
        assert_eq!(find("GET", "/api/v1/predictions/nba"), (None, vec![], false));
        assert_eq!(find("GET", "/api/v1/predictions/nba/ai/extra"), (None, vec![], false));
    }

    #[test]
    fn a_wrong_method_is_checked_with_the_paths_most_permissive_access() {
        let table = Table::new(ENDPOINTS);
        let keys = table
            .paths
            .iter()
            .find(|p| table.rows[p.rows[0]].path == "/api/v1/customers/me/api-keys")
            .map(|p| (p.loosest, p.allow.to_str().unwrap_or_default().to_owned()));
        assert_eq!(keys, Some((Access::Key(Policy::AnyKey), "GET, POST".to_owned())));
    }

    /// Only handlers whose body may depend on who asks get the caller: the
    /// account reads and writes do; no read of the pipeline does.
    #[test]
    fn the_caller_is_handed_to_account_handlers_and_withheld_from_pipeline_reads() {
        let hands = |name: &str| {
            ENDPOINTS
                .iter()
                .find(|row| row.name == name)
                .map(|row| row.hands_caller())
        };
        for name in [
            "get_me",
            "get_usage",
            "list_api_keys",
            "create_api_key",
            "revoke_api_key",
            "dataset_status",
            "events",
        ] {
            assert_eq!(hands(name), Some(true), "{name}");
        }
        for name in [
            "predictions",
            "results",
            "results_export",
            "odds",
            "strategies",
            "public_ml_picks",
        ] {
            assert_eq!(hands(name), Some(false), "{name}");
        }
    }
}
