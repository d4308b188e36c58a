//! Render once, serve bytes: the read pipeline and its caches.
//!
//! A cacheable body is a pure function of its route, its parsed parameters
//! and what the core read it came from depends on (`linecast_core::Deps`:
//! object versions, the slate or ET date, the choices core made). A read
//! handler hands those to [`pipeline::serve`], the one way a read is
//! served; no handler builds a key. The first request renders and
//! serializes the body, later ones with the same key get the stored bytes.
//! A hit does no parsing, no serialization and no compression: gzip and
//! brotli variants are made once per body, on first demand.
//!
//! Every body has a strong `ETag` (a hash of its JSON bytes; the gzip and
//! brotli variants carry their own tag, suffixed `-gz` and `-br`). An
//! `If-None-Match` naming one of them exactly answers 304 with no body. The
//! request is still authenticated and counted by the access gate, which ran
//! before the handler.

use std::future::Future;
use std::io::Write as _;
use std::sync::{Arc, OnceLock};

use actix_web::http::StatusCode;
use actix_web::http::header::{
    ACCEPT_ENCODING, ACCEPT_RANGES, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_RANGE, CONTENT_TYPE, ETAG, HeaderName,
    HeaderValue, IF_NONE_MATCH, IF_RANGE, RANGE, VARY,
};
use actix_web::{HttpRequest, HttpResponse};
use bytes::Bytes;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::endpoint::row;
use crate::error::ApiError;

pub mod heavy;
pub mod in_flight;
pub mod page;
pub mod pipeline;
pub mod ranges;
mod resolutions;
pub mod rows;
pub mod sliced;
pub mod spooled;

pub use heavy::HeavyWork;
pub use pipeline::{Parts, serve, serve_heavy, serve_planned, serve_selected, serve_spooled};

/// An answer about a past instant (`as_of`), which never changes: its
/// `Cache-Control` lets the caller's cache keep it
/// ([`crate::endpoint::SETTLED`]), on the 200 and the 304 alike.
pub fn settled(mut res: HttpResponse) -> HttpResponse {
    if res.status().is_success() || res.status() == StatusCode::NOT_MODIFIED {
        res.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static(crate::endpoint::SETTLED));
    }
    res
}
pub use resolutions::{RESOLUTION_TTL, Resolutions};

/// What the serving path owns: the clock it dates reads by, the
/// resolution memo, the rendered bodies, the rendered season rows and the
/// threads large bodies are made on. The app state only holds it.
pub struct Responses {
    pub clock: Arc<dyn linecast_core::Clock>,
    /// Request parameters (and ET date) to the body they resolved to, for
    /// a short while: the hot path's shortcut past the store lookups.
    pub memo: Arc<Resolutions>,
    /// Rendered bodies of the read endpoints (render once, serve bytes).
    pub bodies: Arc<ResponseCache>,
    /// Each season generation's rows rendered once (results pages are cut
    /// from them).
    pub rows: Arc<rows::RowCache>,
    /// The threads large bodies are made on, off the request threads.
    pub heavy: Arc<HeavyWork>,
    /// Large bodies being sent, so one cut short is logged
    /// (`in_flight`; telemetry watches them).
    pub in_flight: Arc<in_flight::InFlight>,
    /// Files too large to hold (history exports), rendered once to disk.
    pub files: Arc<spooled::SpoolCache>,
}

/// Serves `value`, made for this request, as `row` says: a strong ETag
/// (`If-None-Match` answered with 304), the coding the client asked for,
/// and the row's `Cache-Control`. For the rows served `Fresh`.
pub fn fresh(req: &HttpRequest, value: &impl Serialize) -> Result<HttpResponse, ApiError> {
    let row = row(req)?;
    Ok(Rendered::new(value)?.respond(req, row.cache_control()))
}

/// [`fresh`] for a body already made (a file, with its own media type and
/// headers).
pub fn fresh_body(req: &HttpRequest, body: &Rendered) -> Result<HttpResponse, ApiError> {
    Ok(body.respond(req, row(req)?.cache_control()))
}

/// A server-sent event stream (`Serving::Stream`): never compressed (each
/// event must reach the client when sent) and never stored; proxies are
/// asked not to buffer it.
pub fn event_stream<S, E>(req: &HttpRequest, events: S) -> Result<HttpResponse, ApiError>
where
    S: futures::Stream<Item = Result<Bytes, E>> + 'static,
    E: Into<Box<dyn std::error::Error>> + 'static,
{
    let row = row(req)?;
    let mut res = HttpResponse::Ok().streaming(events);
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(row.cache_control()));
    headers.insert(
        HeaderName::from_static("x-accel-buffering"),
        HeaderValue::from_static("no"),
    );
    Ok(res)
}

/// The answer of a write (`Serving::Write`): its JSON, never stored.
pub fn written(status: StatusCode, value: &impl Serialize) -> Result<HttpResponse, ApiError> {
    let json = serde_json::to_vec(value).map_err(|e| ApiError::Internal(format!("serializing a body: {e}")))?;
    let mut res = HttpResponse::with_body(status, json);
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static(crate::endpoint::NO_STORE));
    Ok(res.map_into_boxed_body())
}

/// Everything a body depends on: the byte stream that the route's name,
/// the parsed parameters and the core read's `Deps` write through `Hash`,
/// recorded, not hashed (`resolutions::Recorder`: as exact as the values
/// themselves, see that module's docs). Built only by the pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CacheKey(Box<[u8]>);

impl CacheKey {
    fn new(route: &str, params: &(impl std::hash::Hash + ?Sized), deps: &linecast_core::Deps) -> Self {
        Self(resolutions::record(|out| {
            std::hash::Hash::hash(route, out);
            params.hash(out);
            std::hash::Hash::hash(deps, out);
        }))
    }
}

/// A body rendered once, with its compressed variants made on first demand.
#[derive(Debug)]
pub struct Rendered {
    identity: Bytes,
    /// `application/json`, or the media type of a non-JSON body.
    content_type: HeaderValue,
    /// False for a body already compressed (Parquet): served as is.
    compressible: bool,
    /// Headers of this body beyond the usual (a download's file name).
    headers: Vec<(HeaderName, HeaderValue)>,
    /// The strong ETag of each coding (identity, gzip, brotli), written once.
    etags: [HeaderValue; 3],
    gzip: OnceLock<Bytes>,
    br: OnceLock<Bytes>,
    /// A file (a dataset, an export): `Range` is honoured and
    /// `Accept-Ranges: bytes` says so.
    ranges: bool,
}

/// A content coding of a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// The discriminants index `Rendered::etags`.
    Identity = 0,
    Gzip = 1,
    Brotli = 2,
}

impl Rendered {
    /// Serializes `value` and tags it.
    pub fn new(value: &impl Serialize) -> Result<Self, ApiError> {
        let json = serde_json::to_vec(value).map_err(|e| ApiError::Internal(format!("serializing a body: {e}")))?;
        Ok(Self::from_json(Bytes::from(json)))
    }

    /// Tags already serialized JSON.
    pub fn from_json(identity: Bytes) -> Self {
        Self::from_bytes(identity, "application/json")
    }

    /// Tags a body of another media type (an SVG picture, a CSV file).
    pub fn from_bytes(identity: Bytes, content_type: &'static str) -> Self {
        Self::of_media_type(identity, HeaderValue::from_static(content_type))
    }

    /// Tags a body whose media type is known only at run time.
    pub fn of_media_type(identity: Bytes, content_type: HeaderValue) -> Self {
        let etags = tags(&Sha256::digest(&identity));
        Self {
            identity,
            content_type,
            compressible: true,
            headers: Vec::new(),
            etags,
            gzip: OnceLock::new(),
            br: OnceLock::new(),
            ranges: false,
        }
    }

    /// Tags a body that is compressed already (a Parquet file): every
    /// request gets it as is, whatever `Accept-Encoding` says.
    pub fn precompressed(identity: Bytes, content_type: &'static str) -> Self {
        Self::precompressed_as(identity, HeaderValue::from_static(content_type))
    }

    /// [`Rendered::precompressed`], with a media type known at run time.
    pub fn precompressed_as(identity: Bytes, content_type: HeaderValue) -> Self {
        Self {
            compressible: false,
            ..Self::of_media_type(identity, content_type)
        }
    }

    /// Makes this a file a client may fetch in parts: a `Range` (one byte
    /// range of the variant served) gets 206 with those bytes, or 416 when
    /// it lies past the end; `If-Range` with another ETag gets the whole
    /// body. A download cut short resumes where it stopped.
    #[must_use]
    pub fn with_ranges(mut self) -> Self {
        self.ranges = true;
        self
    }

    /// Adds a header sent with this body (on 200 and 304 alike).
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// The uncompressed bytes (JSON unless made `from_bytes`).
    pub fn json(&self) -> &Bytes {
        &self.identity
    }

    /// The strong ETag of one variant (quoted).
    pub fn etag(&self, coding: Coding) -> &HeaderValue {
        &self.etags[coding as usize]
    }

    /// Makes the body in `asked` now unless the body is not compressible
    /// (then identity is what is served): the heavy path calls it off the
    /// request threads.
    pub fn prepare(&self, asked: Coding) {
        if self.compressible {
            let _ = self.body(asked);
        }
    }

    /// Whether the body in `coding` is made already (identity always is).
    pub fn ready(&self, coding: Coding) -> bool {
        match coding {
            Coding::Identity => true,
            Coding::Gzip => self.gzip.get().is_some(),
            Coding::Brotli => self.br.get().is_some(),
        }
    }

    /// The coding `req` gets: its `Accept-Encoding` choice, or identity for
    /// a body that is compressed already.
    pub fn coding_for(&self, req: &HttpRequest) -> Coding {
        if self.compressible {
            negotiate(req.headers().get(ACCEPT_ENCODING).and_then(|v| v.to_str().ok()))
        } else {
            Coding::Identity
        }
    }

    /// The body in `coding`, compressing it the first time it is asked for.
    pub fn body(&self, coding: Coding) -> Bytes {
        match coding {
            Coding::Identity => self.identity.clone(),
            Coding::Gzip => self.gzip.get_or_init(|| gzip(&self.identity)).clone(),
            Coding::Brotli => self.br.get_or_init(|| brotli(&self.identity)).clone(),
        }
    }

    /// Whether `If-None-Match` names one of this body's tags exactly (or is `*`).
    pub fn matches(&self, if_none_match: &str) -> bool {
        names_a_tag(if_none_match, &self.etags)
    }

    /// The response to `req`: 304 on a matching `If-None-Match`, otherwise
    /// 200 with the variant `Accept-Encoding` prefers.
    pub fn respond(&self, req: &HttpRequest, cache_control: &'static str) -> HttpResponse {
        self.respond_holding(req, cache_control, None)
    }

    /// [`Rendered::respond`], holding `slot` (a download slot) until the
    /// body has been sent or dropped. A body over `sliced::SLICE_ABOVE` is
    /// sent as slices of its one buffer (`sliced::Sliced`).
    pub fn respond_holding(
        &self,
        req: &HttpRequest,
        cache_control: &'static str,
        slot: Option<linecast_core::services::slots::Slot>,
    ) -> HttpResponse {
        let coding = self.coding_for(req);
        let not_modified = req
            .headers()
            .get(IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| self.matches(v));
        let mut res = if not_modified {
            HttpResponse::new(StatusCode::NOT_MODIFIED)
        } else {
            let body = self.body(coding);
            let (status, body, content_range) =
                match select_part(req, self.ranges, self.etag(coding), body.len() as u64) {
                    Selected::Whole => (StatusCode::OK, body, None),
                    Selected::Unsatisfiable { range } => (StatusCode::RANGE_NOT_SATISFIABLE, Bytes::new(), Some(range)),
                    Selected::Part { first, last, range } => {
                        let (from, to) = (
                            usize::try_from(first).unwrap_or(usize::MAX),
                            usize::try_from(last).unwrap_or(usize::MAX),
                        );
                        (StatusCode::PARTIAL_CONTENT, body.slice(from..=to), Some(range))
                    }
                };
            let mut res = if body.len() > sliced::SLICE_ABOVE {
                HttpResponse::with_body(status, sliced::Sliced::new(body, slot)).map_into_boxed_body()
            } else {
                HttpResponse::with_body(status, body).map_into_boxed_body()
            };
            if let Some(range) = content_range {
                res.headers_mut().insert(CONTENT_RANGE, range);
            }
            res
        };
        finish_headers(
            &mut res,
            self.etag(coding),
            &self.content_type,
            coding,
            not_modified,
            &self.headers,
            self.ranges,
            cache_control,
        );
        res
    }

    /// Bytes held (the compressed variants are counted at their usual ratio
    /// before they exist, so a cached body's weight does not change).
    fn weight(&self) -> u64 {
        let n = self.identity.len() as u64;
        let variants = if self.compressible { n / 2 } else { 0 };
        n + variants + 256
    }
}

/// The strong ETags of a body whose bytes hash to `digest`: identity, and
/// its gzip and brotli variants (suffixed `-gz`, `-br`).
fn tags(digest: &[u8]) -> [HeaderValue; 3] {
    let tag = hex::encode(&digest[..16.min(digest.len())]);
    let etag = |suffix: &str| {
        HeaderValue::from_str(&format!("\"{tag}{suffix}\"")).unwrap_or_else(|_| HeaderValue::from_static("\"\""))
    };
    [etag(""), etag("-gz"), etag("-br")]
}

/// Whether `If-None-Match` names one of `etags` exactly (or is `*`).
fn names_a_tag(if_none_match: &str, etags: &[HeaderValue]) -> bool {
    if_none_match
        .split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || etags.iter().any(|tag| candidate.as_bytes() == tag.as_bytes()))
}

/// What part of a body of `len` bytes answers `req`.
enum Selected {
    /// The whole body (200).
    Whole,
    /// Bytes `first..=last` (206), with their `Content-Range`.
    Part { first: u64, last: u64, range: HeaderValue },
    /// A range past the end (416), with `Content-Range: bytes */len`.
    Unsatisfiable { range: HeaderValue },
}

/// The part of the variant tagged `etag` (of `len` bytes) that `req` asks
/// for: the whole body unless the body is a file (`ranges`) and `req`
/// asks for one range of this very variant.
fn select_part(req: &HttpRequest, ranges: bool, etag: &HeaderValue, len: u64) -> Selected {
    let range = if ranges {
        req.headers().get(RANGE).and_then(|v| v.to_str().ok())
    } else {
        None
    };
    // `If-Range`: the part only of the representation the client holds
    // (its strong ETag; a date never matches a strong validator here).
    let same = req
        .headers()
        .get(IF_RANGE)
        .is_none_or(|tag| tag.as_bytes() == etag.as_bytes());
    let Some(range) = range.filter(|_| same) else {
        return Selected::Whole;
    };
    let header = |text: String| HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("bytes */0"));
    match ranges::ask(range, len) {
        ranges::Ask::Whole => Selected::Whole,
        ranges::Ask::Unsatisfiable => Selected::Unsatisfiable {
            range: header(format!("bytes */{len}")),
        },
        ranges::Ask::Part { first, last } => Selected::Part {
            first,
            last,
            range: header(format!("bytes {first}-{last}/{len}")),
        },
    }
}

/// The headers of a body's response: its `ETag`, `Vary`, `Cache-Control`,
/// its media type and content coding (not on a 304), its own `headers`,
/// and `Accept-Ranges` for a file.
#[expect(
    clippy::too_many_arguments,
    reason = "each is one fact of the body or the request, shared by the held and the spooled body"
)]
fn finish_headers(
    res: &mut HttpResponse,
    etag: &HeaderValue,
    content_type: &HeaderValue,
    coding: Coding,
    not_modified: bool,
    own: &[(HeaderName, HeaderValue)],
    ranges: bool,
    cache_control: &'static str,
) {
    let headers = res.headers_mut();
    // Room for every header this response gets on its way out (these,
    // the access gate's six and telemetry's two), so the map is sized
    // once instead of growing and rehashing twice.
    // The response is new, so the usual names are appended (`insert`
    // would also look for a value to remove and hand it back); the
    // body's own headers, which could name one of them, replace.
    headers.reserve(16);
    headers.append(ETAG, etag.clone());
    headers.append(VARY, VARY_ACCEPT_ENCODING);
    headers.append(CACHE_CONTROL, cache_control_value(cache_control));
    if !not_modified {
        headers.append(CONTENT_TYPE, content_type.clone());
        // Identity is no content coding: said by leaving the header out.
        match coding {
            Coding::Identity => {}
            Coding::Gzip => headers.append(CONTENT_ENCODING, GZIP),
            Coding::Brotli => headers.append(CONTENT_ENCODING, BR),
        }
    }
    for (name, value) in own {
        headers.insert(name.clone(), value.clone());
    }
    if ranges {
        headers.insert(ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    }
}

// Header values checked once, at compile time (`from_static` at run time
// checks every byte on each call).
const VARY_ACCEPT_ENCODING: HeaderValue = HeaderValue::from_static("Accept-Encoding");
const GZIP: HeaderValue = HeaderValue::from_static("gzip");
const BR: HeaderValue = HeaderValue::from_static("br");

/// The `Cache-Control` value of `cache_control`: one of the endpoint
/// constants (checked at compile time), or made now.
fn cache_control_value(cache_control: &'static str) -> HeaderValue {
    use crate::endpoint::{NO_STORE, PRIVATE, PUBLIC, REVALIDATE};
    const KNOWN: [(&str, HeaderValue); 4] = [
        (PRIVATE, HeaderValue::from_static(PRIVATE)),
        (PUBLIC, HeaderValue::from_static(PUBLIC)),
        (REVALIDATE, HeaderValue::from_static(REVALIDATE)),
        (NO_STORE, HeaderValue::from_static(NO_STORE)),
    ];
    KNOWN
        .iter()
        .find(|(text, _)| *text == cache_control)
        .map_or_else(|| HeaderValue::from_static(cache_control), |(_, value)| value.clone())
}

fn gzip(bytes: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::with_capacity(bytes.len() / 4), flate2::Compression::new(6));
    // Writing to a Vec cannot fail.
    let _ = encoder.write_all(bytes);
    Bytes::from(encoder.finish().unwrap_or_default())
}

fn brotli(bytes: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(bytes.len() / 5);
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 16 * 1024, 6, 22);
        let _ = writer.write_all(bytes);
    }
    Bytes::from(out)
}

/// The coding `Accept-Encoding` prefers among br, gzip and identity, by
/// q-value (ties: br, then gzip, then identity). No header means identity;
/// identity stays acceptable, as the last choice, unless named with its own
/// q-value or refused with `q=0` (directly or by `*`).
pub fn negotiate(accept: Option<&str>) -> Coding {
    let Some(accept) = accept else {
        return Coding::Identity;
    };
    // What clients usually send, answered without parsing (the parse below
    // gives the same answers; a test holds them to it).
    match accept {
        "identity" | "" => return Coding::Identity,
        "gzip" | "gzip, deflate" => return Coding::Gzip,
        "br" | "gzip, deflate, br" | "gzip, deflate, br, zstd" | "br, gzip" => return Coding::Brotli,
        _ => {}
    }
    parse_accept_encoding(accept)
}

/// [`negotiate`] for any `Accept-Encoding` value, parsed with its q-values.
fn parse_accept_encoding(accept: &str) -> Coding {
    let (mut br, mut gz, mut id, mut star) = (None::<f32>, None::<f32>, None::<f32>, None::<f32>);
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim();
        let mut q = 1.0_f32;
        for param in parts {
            if let Some(v) = param
                .trim()
                .strip_prefix("q=")
                .or_else(|| param.trim().strip_prefix("Q="))
            {
                q = v.trim().parse().unwrap_or(0.0);
            }
        }
        let is = |coding: &str| name.eq_ignore_ascii_case(coding);
        if is("br") {
            br = Some(q);
        } else if is("gzip") || is("x-gzip") {
            gz = Some(q);
        } else if is("identity") {
            id = Some(q);
        } else if name == "*" {
            star = Some(q);
        }
    }
    let br = br.or(star).unwrap_or(0.0);
    let gz = gz.or(star).unwrap_or(0.0);
    // Identity, when not named, is acceptable but least preferred.
    let id = id.or(star.filter(|q| *q == 0.0)).unwrap_or(0.001);
    let best = br.max(gz).max(id);
    if best <= 0.0 {
        return Coding::Identity;
    }
    if br >= best {
        Coding::Brotli
    } else if gz >= best {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

/// Rendered bodies by key, within the bodies share of the budget.
pub struct ResponseCache {
    cache: linecast_core::memory::Budgeted<CacheKey, Arc<Rendered>>,
}

impl ResponseCache {
    /// A cache holding at most `budget_bytes` of bodies.
    pub fn new(budget_bytes: u64) -> Self {
        Self {
            cache: linecast_core::memory::Budgeted::new(budget_bytes, |_k, v: &Arc<Rendered>| v.weight()),
        }
    }

    /// The cache's state, for metrics.
    pub fn stats(&self) -> linecast_core::memory::CacheStats {
        self.cache.stats()
    }

    /// The body for `key`, made by `make` on a miss (concurrent misses of
    /// one key make it once). Errors are not cached.
    async fn get_or_make(
        &self,
        key: CacheKey,
        make: impl Future<Output = Result<Rendered, ApiError>>,
    ) -> Result<Arc<Rendered>, ApiError> {
        if let Some(hit) = self.cache.get(&key).await {
            crate::metrics::response_cache("hit");
            return Ok(hit);
        }
        crate::metrics::response_cache("miss");
        let init = async move { make.await.map(Arc::new) };
        self.cache
            .try_get_with(key, init)
            .await
            // The error as made (a storage failure stays a 503), whether or
            // not the cache still shares it with another waiter.
            .map_err(|e| Arc::try_unwrap(e).unwrap_or_else(|shared| (*shared).clone()))
    }

    /// Bodies held now (for tests and metrics).
    pub fn entry_count(&self) -> u64 {
        self.cache.entry_count()
    }

    /// Bodies held, exactly (the latest inserts counted): for tests that
    /// count the bodies a sequence of requests made.
    pub async fn held(&self) -> u64 {
        self.cache.held().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache key tells apart every input that tells bodies apart (the
    /// route, each parameter, the deps), and two requests that parsed to
    /// the same values share it. Inputs whose text would run together
    /// ("ab" + "c" and "a" + "bc") stay apart.
    #[test]
    fn a_cache_key_is_its_inputs_exactly() {
        use linecast_core::Deps;
        let deps = |s: &str| Deps::new().param("release", s);
        let key = |route: &str, p: &(&str, &str, Option<u32>), d: &Deps| CacheKey::new(route, p, d);
        let base = key("results", &("nba", "won", Some(1)), &deps("v1"));
        assert_eq!(base, key("results", &("nba", "won", Some(1)), &deps("v1")));
        for other in [
            key("summary", &("nba", "won", Some(1)), &deps("v1")),
            key("results", &("nhl", "won", Some(1)), &deps("v1")),
            key("results", &("nba", "won", None), &deps("v1")),
            key("results", &("nba", "won", Some(2)), &deps("v1")),
            key("results", &("nba", "won", Some(1)), &deps("v2")),
            key("results", &("nbaw", "on", Some(1)), &deps("v1")),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn accept_encoding_is_read_with_its_q_values() {
        assert_eq!(negotiate(None), Coding::Identity);
        assert_eq!(negotiate(Some("gzip")), Coding::Gzip);
        assert_eq!(negotiate(Some("gzip, br")), Coding::Brotli);
        assert_eq!(negotiate(Some("br;q=0.5, gzip;q=0.8")), Coding::Gzip);
        assert_eq!(negotiate(Some("gzip;q=0, br;q=0")), Coding::Identity);
        assert_eq!(negotiate(Some("identity")), Coding::Identity);
        assert_eq!(negotiate(Some("*")), Coding::Brotli);
        assert_eq!(negotiate(Some("gzip;q=0.1, identity;q=0.5")), Coding::Identity);
        assert_eq!(negotiate(Some("deflate, zstd")), Coding::Identity);
        assert_eq!(negotiate(Some("GZIP;Q=1")), Coding::Gzip);
        assert_eq!(negotiate(Some("gzip;q=nonsense")), Coding::Identity);
    }

    /// The values `negotiate` answers without parsing get what the parse
    /// answers.
    #[test]
    fn the_usual_accept_encodings_are_answered_as_the_parse_answers_them() {
        for (value, expected) in [
            ("identity", Coding::Identity),
            ("", Coding::Identity),
            ("gzip", Coding::Gzip),
            ("gzip, deflate", Coding::Gzip),
            ("br", Coding::Brotli),
            ("gzip, deflate, br", Coding::Brotli),
            ("gzip, deflate, br, zstd", Coding::Brotli),
            ("br, gzip", Coding::Brotli),
        ] {
            assert_eq!(parse_accept_encoding(value), expected, "{value:?}");
            assert_eq!(negotiate(Some(value)), expected, "{value:?}");
        }
    }

    #[test]
    fn only_an_exact_tag_matches() {
        let r = Rendered::from_json(Bytes::from_static(b"{\"a\":1}"));
        let tag = r.etag(Coding::Identity).to_str().unwrap_or_default().to_owned();
        assert!(r.matches(&tag));
        assert!(r.matches(r.etag(Coding::Gzip).to_str().unwrap_or_default()));
        assert!(r.matches(&format!("\"other\", {tag}")));
        assert!(r.matches("*"));
        assert!(!r.matches(&tag[..tag.len() - 2]));
        assert!(!r.matches(&format!("W/{tag}")));
        assert!(!r.matches("\"x\""));
        let other = Rendered::from_json(Bytes::from_static(b"{\"a\":2}"));
        assert!(!other.matches(&tag));
    }

    #[test]
    fn the_compressed_variants_decode_to_the_same_json() {
        use std::io::Read as _;
        let json = Bytes::from(serde_json::to_vec(&serde_json::json!({"x": vec![1.5; 500]})).unwrap_or_default());
        let r = Rendered::from_json(json.clone());
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&r.body(Coding::Gzip)[..])
            .read_to_end(&mut out)
            .unwrap_or_default();
        assert_eq!(out, json);
        let mut out = Vec::new();
        brotli::Decompressor::new(&r.body(Coding::Brotli)[..], 4096)
            .read_to_end(&mut out)
            .unwrap_or_default();
        assert_eq!(out, json);
        assert!(r.body(Coding::Gzip).len() < json.len() / 4);
    }
}
