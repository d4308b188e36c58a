//! Tracing setup and the request context: request ids, the access log, and
//! the headers every response carries. No bearer secret reaches a log
//! line: `api_key` query values are redacted, key-shaped path segments
//! masked, and every path segment a route template names `{token}` (sign-in
//! links, download links) replaced by `REDACTED`, whatever row the request
//! reached or whether it reached one at all. The templates are the route
//! table's, handed in at start-up as a [`Redaction`]: telemetry names no
//! route.

use std::rc::Rc;
use std::time::Instant;

use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Service, ServiceFactory, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{
    CONTENT_ENCODING, HeaderName, HeaderValue, STRICT_TRANSPORT_SECURITY, X_CONTENT_TYPE_OPTIONS,
};
use futures::future::LocalBoxFuture;
use tracing::Instrument;
use tracing_subscriber::EnvFilter;

use crate::error::{ApiError, RequestIdHeader};
use crate::settings::LogFormat;

/// Installs the global subscriber with `filter` (`RUST_LOG`, from the
/// environment or the config file; `info` when unset or unreadable).
pub fn init(format: LogFormat, filter: Option<&str>) {
    let filter = filter
        .and_then(|f| EnvFilter::try_new(f).ok())
        .unwrap_or_else(|| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Human => builder.try_init(),
    };
}

/// The log form of a query string: every `api_key` value (whatever the
/// spelling of its name: `API_KEY`, `api%5Fkey`, `%61pi_key`) is replaced by
/// `REDACTED`, and any other key-shaped value is masked.
pub fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            if percent_decode(name).eq_ignore_ascii_case("api_key") {
                format!("{name}=REDACTED")
            } else if pair.contains('=') {
                format!("{}={}", redact_keys(name), redact_keys(value))
            } else {
                redact_keys(pair)
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The log form of a path (or any text): percent-decoded, with every full
/// key masked like the key list masks it (`sk_service_` + four characters +
/// `*****`), so `DELETE /customers/me/api-keys/{api_key}` never logs a key.
pub fn redact_keys(text: &str) -> String {
    const PREFIX: &str = "sk_service_";
    let decoded = percent_decode(text);
    let mut out = String::with_capacity(decoded.len());
    let mut rest = decoded.as_str();
    while let Some(at) = find_ignore_case(rest, PREFIX) {
        out.push_str(&rest[..at]);
        let after = &rest[at + PREFIX.len()..];
        let body_len = after.bytes().take_while(u8::is_ascii_alphanumeric).count();
        out.push_str(&rest[at..at + PREFIX.len()]);
        out.push_str(&after[..body_len.min(4)]);
        if body_len > 0 {
            out.push_str("*****");
        }
        rest = &after[body_len..];
    }
    out.push_str(rest);
    out
}

/// Path parameters whose values are bearer secrets: a segment a template
/// names so is never logged.
const SECRET_PARAMETERS: &[&str] = &["token"];

/// What the log masks in a path beyond keys: every segment in the place of
/// a route template's secret parameter. Made once at start-up from the
/// route table's templates (`startup` hands it to this middleware and to
/// the dispatcher's refusals), so telemetry names no route and no template
/// is listed by hand.
#[derive(Debug)]
pub struct Redaction {
    /// The templates with a secret segment: the template's segments up to
    /// it (`None` for a parameter, which any text fills), the secret last.
    secret_templates: Vec<Vec<Option<&'static str>>>,
}

impl Redaction {
    /// The redaction of a table whose path templates are `templates`.
    pub fn of(templates: impl IntoIterator<Item = &'static str>) -> Self {
        let mut found: Vec<Vec<Option<&'static str>>> = Vec::new();
        for template in templates {
            let mut segments = Vec::new();
            for segment in template.split('/') {
                let parameter = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}'));
                segments.push(if parameter.is_some() { None } else { Some(segment) });
                if parameter.is_some_and(|name| SECRET_PARAMETERS.contains(&name)) {
                    if !found.contains(&segments) {
                        found.push(segments);
                    }
                    break;
                }
            }
        }
        Self {
            secret_templates: found,
        }
    }

    /// The log form of a path: [`redact_keys`], and every segment in the
    /// place of a template's secret parameter replaced by `REDACTED`. Dot
    /// segments are followed as a router would, and the segments before the
    /// secret are compared ignoring case, so no spelling of a link's path
    /// (nor a longer path that answers 404) logs its token.
    pub fn path(&self, path: &str) -> String {
        let decoded = redact_keys(path);
        let segments: Vec<&str> = decoded.split('/').collect();
        // Indices into `segments` of the path a router sees after dot segments.
        let mut resolved: Vec<usize> = Vec::with_capacity(segments.len());
        for (i, segment) in segments.iter().enumerate() {
            match *segment {
                "." => {}
                ".." => {
                    if resolved.len() > 1 {
                        resolved.pop();
                    }
                }
                _ => resolved.push(i),
            }
        }
        let mut secret = vec![false; segments.len()];
        for template in &self.secret_templates {
            let at = template.len() - 1;
            let Some(&target) = resolved.get(at) else {
                continue;
            };
            let fits = template[..at]
                .iter()
                .zip(&resolved)
                .all(|(literal, &i)| literal.is_none_or(|l| l.eq_ignore_ascii_case(segments[i])));
            if fits && !segments[target].is_empty() {
                secret[target] = true;
            }
        }
        if !secret.contains(&true) {
            return decoded;
        }
        segments
            .iter()
            .zip(&secret)
            .map(|(segment, secret)| if *secret { "REDACTED" } else { segment })
            .collect::<Vec<_>>()
            .join("/")
    }
}

fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    haystack
        .as_bytes()
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Percent-decodes `s` (and `+` as a space), leaving malformed escapes as
/// they are. Decoding repeats while it changes something, so a doubly
/// encoded key (`%2561pi_key`) is caught too.
fn percent_decode(s: &str) -> String {
    let mut current = s.to_owned();
    for _ in 0..3 {
        let next = decode_once(&current);
        if next == current {
            break;
        }
        current = next;
    }
    current
}

fn decode_once(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(b) = hex {
                    out.push(b);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A request id worth echoing: 1 to 128 characters of `[A-Za-z0-9._:-]`.
fn sane_request_id(value: &str) -> bool {
    (1..=128).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
}

/// 16 random bytes as 32 lowercase hex digits, written on the stack
/// without building a `String`; the bytes are kept beside the header for
/// the request log. The digits are checked as an array of their fixed
/// length: spelled by `RequestId::with_text` and checked as a `&str`, the
/// same id cost 666 instructions against 420 (callgrind).
fn new_request_id() -> RequestIdHeader {
    let bytes = rand::random::<u128>().to_be_bytes();
    let mut id = [0_u8; 32];
    // 16 bytes always fit 32 hex digits.
    let _ = hex::encode_to_slice(bytes, &mut id);
    match HeaderValue::from_bytes(&id) {
        Ok(value) => RequestIdHeader {
            value,
            made: Some(bytes),
        },
        Err(_) => RequestIdHeader {
            value: HeaderValue::from_static("0"),
            made: None,
        },
    }
}

/// What answers a request inside its context: the route table's dispatcher
/// (`routes::dispatch`). Its future is awaited by the context's own, with
/// no service of actix's between them.
pub trait Answer: 'static {
    fn answer(&self, req: ServiceRequest) -> impl Future<Output = Result<ServiceResponse, actix_web::Error>> + 'static;
}

/// The app's only middleware ([`request_context`]) around what answers
/// every request (`answers`, a factory of one [`Answer`] per worker), with
/// `Strict-Transport-Security` (this value) on every response that does
/// not carry one when served over https. The app's own routing, which it
/// wraps, is never called: every request is answered by `answers`.
pub struct RequestContext<F> {
    pub hsts: Option<HeaderValue>,
    /// What the access log masks in a path (the route table's).
    pub redaction: actix_web::web::Data<Redaction>,
    pub answers: F,
}

impl<S, F> Transform<S, ServiceRequest> for RequestContext<F>
where
    F: ServiceFactory<ServiceRequest, Config = (), InitError = ()>,
    F::Service: Answer,
    F::Future: 'static,
{
    type Response = ServiceResponse<BoxBody>;
    type Error = actix_web::Error;
    type Transform = RequestContextService<F::Service>;
    type InitError = ();
    type Future = LocalBoxFuture<'static, Result<Self::Transform, ()>>;

    fn new_transform(&self, _app: S) -> Self::Future {
        let made = self.answers.new_service(());
        let (hsts, redaction) = (self.hsts.clone(), self.redaction.clone());
        Box::pin(async move {
            Ok(RequestContextService(Rc::new(Context {
                answers: made.await?,
                hsts,
                redaction,
            })))
        })
    }
}

/// [`RequestContext`] of one worker: one shared value, so a request takes
/// one reference count, not one for each part.
pub struct RequestContextService<A>(Rc<Context<A>>);

struct Context<A> {
    answers: A,
    hsts: Option<HeaderValue>,
    redaction: actix_web::web::Data<Redaction>,
}

impl<A: Answer> Service<ServiceRequest> for RequestContextService<A> {
    type Response = ServiceResponse<BoxBody>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<ServiceResponse<BoxBody>, actix_web::Error>>;

    actix_web::dev::always_ready!();

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let context = Rc::clone(&self.0);
        Box::pin(async move {
            let mut res = request_context(&context.redaction, req, &context.answers).await?;
            // Only this names HSTS: appended, no lookup first.
            if let Some(hsts) = &context.hsts {
                res.headers_mut().append(STRICT_TRANSPORT_SECURITY, hsts.clone());
            }
            Ok(res)
        })
    }
}

/// The outermost middleware of every request:
/// - refuses a request body with a `Content-Encoding` (415): bodies are
///   never inflated, so a small compressed body cannot expand past the limit;
/// - gives the request an id (a sane incoming `X-Request-Id` is echoed,
///   otherwise one is generated) and runs it inside a span carrying that id,
///   so error logs carry it too;
/// - writes one access-log line for every answer, 401, 403 and 429 included,
///   with the route template, the redacted path (keys masked, token
///   segments replaced: `redaction`, the app's) and query, and the status;
/// - records the request metrics;
/// - adds `X-Request-Id` and `X-Content-Type-Options: nosniff` to every
///   response.
pub async fn request_context(
    redaction: &Redaction,
    req: ServiceRequest,
    next: &impl Answer,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let request_id = req
        .headers()
        .get(&X_REQUEST_ID)
        .filter(|v| v.to_str().is_ok_and(sane_request_id))
        .map_or_else(new_request_id, |value| RequestIdHeader {
            value: value.clone(),
            made: None,
        });
    // The access log and the metrics cost nothing when both are off (the
    // redaction and the route lookup are only done for them).
    let logging = tracing::enabled!(tracing::Level::INFO);
    let measuring = crate::metrics::installed();
    let started = (logging || measuring).then(Instant::now);
    let method = req.method().clone();
    let (path, query) = if logging {
        (redaction.path(req.path()), redact_query(req.query_string()))
    } else {
        (String::new(), String::new())
    };
    let span = tracing::info_span!("request", request_id = %request_id.value.to_str().unwrap_or_default());
    let encoded_body = req
        .headers()
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !v.trim().eq_ignore_ascii_case("identity"));
    // The gates and handlers answer their own errors, so an `Err` here is
    // actix's own failure; it is passed on (actix renders it) unlogged.
    // Errors rendered while answering quote the request id in their body.
    // The id goes into the task-local and is taken back once answered, not
    // cloned (a clone of a fresh value allocates its shared half).
    let mut scoped = std::pin::pin!(crate::error::REQUEST_ID.scope(request_id, answer(req, next, encoded_body, &span)));
    let mut res = scoped.as_mut().await?;
    let request_id = scoped.as_mut().take_value().unwrap_or_else(new_request_id).value;
    let status = res.status().as_u16();
    if let Some(started) = started {
        let route = route_of(&res);
        let elapsed = started.elapsed();
        if measuring {
            crate::metrics::request(&route, method.as_str(), status, elapsed);
        }
        span.in_scope(|| {
            tracing::info!(
                method = %method,
                route = %route,
                path = %path,
                query = %query,
                status,
                latency_us = elapsed.as_micros() as u64,
                "request"
            );
        });
    }
    // A body sent in many writes is watched to its end: one cut short (the
    // client went, or the stop's in-flight allowance ran out) is logged
    // with its route and the bytes sent (`responses::in_flight`).
    if let BodySize::Sized(total) = res.response().body().size()
        && total > crate::responses::sliced::SLICE_ABOVE as u64
        && let Some(state) = res.request().app_data::<actix_web::web::Data<crate::state::AppState>>()
    {
        let in_flight = state.responses.in_flight.clone();
        let (route, id) = (route_of(&res), request_id.to_str().unwrap_or_default().to_owned());
        res = res.map_body(|_, body| BoxBody::new(in_flight.watch(body, route, id, total)));
    }
    // Only this names the request id and nosniff (pages' own security
    // headers leave it here): appended, not inserted (which would also
    // look for a value to remove and hand it back), and not looked up
    // first.
    let headers = res.headers_mut();
    headers.append(X_REQUEST_ID, request_id);
    headers.append(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    Ok(res)
}

/// The route template a response answered (never the raw path).
fn route_of(res: &ServiceResponse<BoxBody>) -> String {
    crate::endpoint::template(res.request())
        .map(str::to_owned)
        .or_else(|| res.request().match_pattern())
        .unwrap_or_else(|| "(unmatched)".to_owned())
}

/// The answer to `req`: a 415 for an encoded body, else `next`'s.
async fn answer(
    req: ServiceRequest,
    next: &impl Answer,
    encoded_body: bool,
    span: &tracing::Span,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    if encoded_body {
        // The body is never read: the connection is closed after the
        // answer (actix would otherwise drain a chunked body for as long as
        // the client sends it).
        let mut res = req.error_response(ApiError::UnsupportedMediaType(
            "Request bodies with a Content-Encoding are not accepted; send the body uncompressed".to_owned(),
        ));
        res.response_mut()
            .head_mut()
            .set_connection_type(actix_web::http::ConnectionType::Close);
        Ok(res)
    } else {
        let answer = next.answer(req);
        // A span below the log level records nothing: the answer need not
        // enter and leave it at every poll.
        if span.is_disabled() {
            answer.await
        } else {
            answer.instrument(span.clone()).await
        }
    }
}

/// Checked once, at compile time.
const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_values_never_reach_the_log() {
        assert_eq!(
            redact_query("a=1&api_key=sk_service_secret&b=2"),
            "a=1&api_key=REDACTED&b=2"
        );
        assert_eq!(redact_query("API_KEY=x"), "API_KEY=REDACTED");
        assert_eq!(redact_query(""), "");
        // Encoded spellings of the name are still the key parameter.
        for name in ["api%5Fkey", "api%5fkey", "%61pi_key", "%2561pi_key", "Api_Key"] {
            let line = redact_query(&format!("{name}=sk_service_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"));
            assert_eq!(line, format!("{name}=REDACTED"));
        }
        // A key under another name, or encoded, is masked.
        let line = redact_query("x=sk%5Fservice%5FAbCdEfGhIjKlMnOpQrStUvWxYz0123456789");
        assert!(!line.contains("EfGhIj"), "{line}");
    }

    #[test]
    fn key_shaped_path_segments_are_masked_like_the_key_list() {
        let path = "/api/v1/customers/me/api-keys/sk_service_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        assert_eq!(redact_keys(path), "/api/v1/customers/me/api-keys/sk_service_AbCd*****");
        assert_eq!(
            redact_keys("/api/v1/customers/me/api-keys/sk%5Fservice%5FAbCdEfGhIjKlMnOpQr"),
            "/api/v1/customers/me/api-keys/sk_service_AbCd*****"
        );
        assert_eq!(
            redact_keys("/api/v1/predictions/nba/won_on_points"),
            "/api/v1/predictions/nba/won_on_points"
        );
    }

    #[test]
    fn token_segments_of_the_templates_never_reach_the_log() {
        // Templates as a route table has them: two rows share a path, and
        // rows without a secret mask nothing.
        let redaction = Redaction::of([
            "/api/v1/predictions/{sport}/{model_type}",
            "/api/v1/downloads/{token}",
            "/portal/link/{token}",
            "/portal/link/{token}",
            "/portal/overview",
        ]);
        let token = "d94807d17b4c8a971a9e7bb32d1871edf83121d50d29a2cb4e40a05ee67fc850";
        for (path, logged) in [
            (format!("/portal/link/{token}"), "/portal/link/REDACTED".to_owned()),
            (
                format!("/api/v1/downloads/{token}"),
                "/api/v1/downloads/REDACTED".to_owned(),
            ),
            // Longer paths (a 404), other spellings, dot segments.
            (
                format!("/portal/link/{token}/more"),
                "/portal/link/REDACTED/more".to_owned(),
            ),
            (format!("/Portal/LINK/{token}"), "/Portal/LINK/REDACTED".to_owned()),
            (format!("/portal/%6Cink/{token}"), "/portal/link/REDACTED".to_owned()),
            (
                format!("/portal/x/../link/{token}"),
                "/portal/x/../link/REDACTED".to_owned(),
            ),
            (format!("/portal/./link/{token}"), "/portal/./link/REDACTED".to_owned()),
        ] {
            assert_eq!(redaction.path(&path), logged, "{path}");
        }
        // Other paths are as redact_keys makes them.
        for path in [
            "/api/v1/predictions/nba/won_on_points",
            "/portal/link/",
            "/portal/overview",
            "/api/v1/downloads",
        ] {
            assert_eq!(redaction.path(path), path);
        }
        assert_eq!(
            redaction.path("/api/v1/customers/me/api-keys/sk_service_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
            "/api/v1/customers/me/api-keys/sk_service_AbCd*****"
        );
    }

    #[test]
    fn only_sane_request_ids_are_echoed() {
        assert!(sane_request_id("abc-123_x.y:z"));
        assert!(!sane_request_id(""));
        assert!(!sane_request_id("a b"));
        assert!(!sane_request_id("line\nbreak"));
        assert!(!sane_request_id(&"x".repeat(129)));
        let (a, b) = (new_request_id(), new_request_id());
        for id in [&a, &b] {
            let text = id.value.to_str().unwrap();
            assert_eq!(text.len(), 32);
            assert!(text.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')), "{text:?}");
            // The bytes kept are the ones the digits spell.
            let spelled = u128::from_str_radix(text, 16).unwrap().to_be_bytes();
            assert_eq!(id.made, Some(spelled));
        }
        assert_ne!(a.value, b.value);
    }
}
