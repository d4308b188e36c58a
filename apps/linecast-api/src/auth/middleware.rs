//! The access gate: what every routed request passes before its handler
//! (`crate::routes::dispatch` calls [`admit`] with the row's `Access`). It
//! reads the presented key, asks core's access decision
//! (`linecast_core::services::access`: authentication, the route's
//! `Policy`, limits, counting), words a refusal as the spec does, and adds
//! the rate-limit headers. Public data passes the per-address limit
//! instead (`anonymous`).
//!
//! It never looks at the request path: which access applies is decided by
//! the row the dispatcher routed to, so a route reached through any
//! spelling of its path (percent-encoded, dot segments) is guarded all
//! the same.

use std::future::Future;
use std::time::Instant;

use actix_web::HttpMessage;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use chrono::{DateTime, Utc};
use linecast_core::Rate;
use linecast_core::ports::request_log::{LoggedRequest, Method, RequestId, RouteTemplate};
use linecast_core::quota_calendar::first_day;
use linecast_core::services::access::{Access as Decide, Bucket, Refusal};
use linecast_core::services::slots::Slot;

use super::address_limiter::AddressDecision;
use super::client_address::ClientKey;
pub use super::gate::Gate;
use super::{AuthContext, Policy, month_of, next_reset};
use crate::endpoint::{Access, Hold};
use crate::error::ApiError;

/// The slot the gate took for this request (see [`Hold`]).
pub struct HeldSlot(pub Slot);

/// Checks `req` against `access` and, when admitted, answers it with
/// `call`. A refusal is answered here (not returned as an error) so the
/// request context still logs it with the request id. With `hand_caller`
/// a key's `AuthContext` goes into the request's extensions for the
/// handler (`Endpoint::hands_caller`). `route` is the template of the row
/// the dispatcher matched (`None` for a path no row declares): what the
/// customer's request log records, handed over so nothing looks it up
/// again.
pub async fn admit<F, Fut>(
    gate: &Gate,
    access: Access,
    hand_caller: bool,
    route: Option<RouteTemplate>,
    req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    match access {
        Access::Open => call(req).await,
        Access::PerAddress => match super::anonymous::refusal(gate, &req) {
            Some(err) => Ok(req.error_response(err)),
            None => call(req).await,
        },
        Access::Key(policy) => guarded(gate, policy, None, (hand_caller, route), req, call).await,
        Access::KeyHolding(policy, hold) => guarded(gate, policy, Some(hold), (hand_caller, route), req, call).await,
        Access::StripeSignature => {
            let parts = (&gate.webhook, &gate.clients, &*gate.auth_failures);
            super::stripe_signature::admit(parts, req, call).await
        }
        Access::Session(policy) => super::session::admit(gate.portal.as_ref(), policy, req, call).await,
    }
}

async fn guarded<F, Fut>(
    gate: &Gate,
    policy: Policy,
    hold: Option<Hold>,
    (hand_caller, route): (bool, Option<RouteTemplate>),
    req: ServiceRequest,
    call: F,
) -> Result<ServiceResponse, actix_web::Error>
where
    F: FnOnce(ServiceRequest) -> Fut,
    Fut: Future<Output = Result<ServiceResponse, actix_web::Error>>,
{
    let Some(access) = gate.access.as_deref() else {
        // Only with LINECAST_AUTH_DISABLED (demo mode): no keys, no limits.
        return call(req).await;
    };
    let started = Instant::now();
    let presented = super::credentials::presented_key(req.request());
    let client = gate.clients.of(&req).map(ClientKey::from);
    let paid = match prepay_failure(gate, presented.as_deref(), client, started).await {
        Ok(paid) => paid,
        Err(refused) => return Ok(req.error_response(refused)),
    };
    let admitted = authenticate(gate, access, presented.as_deref(), policy, hold).await;
    settle_failure(gate, paid, client, matches!(admitted, Err(Refusal::InvalidKey)));
    let (ctx, slot) = match admitted {
        Ok(admitted) => admitted,
        Err(refused) => {
            let headers = refusal_headers(&refused, access.rate(), gate.clock.now());
            let mut res = req.error_response(ApiError::from(refused));
            insert(res.headers_mut(), headers);
            return Ok(res);
        }
    };
    if let Some(slot) = slot {
        req.extensions_mut().insert(HeldSlot(slot));
    }
    // The key may borrow from the request, which moves on below.
    drop(presented);
    // The reset is that of the month the request was counted in.
    let now = ctx.at;
    let limit = ctx.customer().monthly_limit;
    let remaining = limit.saturating_sub(ctx.month_used);
    gate.quota_notices
        .observe(ctx.customer().customer_id, ctx.month_used, limit, now);
    let bucket = ctx.bucket;
    let caller = (ctx.customer().customer_id, ctx.key().id);
    if hand_caller {
        req.extensions_mut().insert(ctx);
    }
    let mut res = call(req).await?;
    if let Some(route) = route {
        log_request(gate, caller, (now, route), &res, started);
    }
    append_limits(
        res.headers_mut(),
        plan_values(access.rate(), limit),
        (remaining, now),
        bucket,
    );
    Ok(res)
}

/// The failed-key limit, before the lookup: a check that may fail is paid
/// for first (and the token given back when the key turns out good, by
/// [`settle_failure`]), so concurrent bad keys cannot all pass one look at
/// a bucket with a token left. While no address has failed within a
/// bucket's refill time (`quiet`, one atomic load: the usual case) the
/// check is paid after a failure instead, so at most the checks already in
/// flight when the first failure lands go unpaid. A key known good never
/// pays. The address that paid, or the 429 of one out of tokens.
async fn prepay_failure(
    gate: &Gate,
    presented: Option<&str>,
    client: Option<ClientKey>,
    started: Instant,
) -> Result<Option<ClientKey>, ApiError> {
    let (Some(key), Some(client)) = (presented, client) else {
        return Ok(None);
    };
    if gate.auth_failures.quiet(started) || gate.keys.knows(key).await {
        return Ok(None);
    }
    match gate.auth_failures.check(client, Instant::now()) {
        AddressDecision::Allowed => Ok(Some(client)),
        AddressDecision::Refused { retry_after_secs } => {
            crate::metrics::limiter_decision("auth_failure", "refused");
            Err(ApiError::TooManyRequests {
                detail: "Too many failed API key checks from this address; retry later".to_owned(),
                retry_after: Some(retry_after_secs),
            })
        }
    }
}

/// The failed-key limit, after the lookup: a prepaid check of a key that
/// proved good is given back; a failure nobody prepaid is paid now.
fn settle_failure(gate: &Gate, paid: Option<ClientKey>, client: Option<ClientKey>, failed: bool) {
    match (paid, client) {
        (Some(paid), _) if !failed => gate.auth_failures.refund(&paid),
        (None, Some(client)) if failed => {
            gate.auth_failures.check(client, Instant::now());
        }
        _ => {}
    }
}

/// Core's access decision for `presented` under `policy`. Only a row that
/// holds a slot asks the slot registry (which may be Redis); every other
/// request is decided without it.
async fn authenticate(
    gate: &Gate,
    access: &Decide,
    presented: Option<&str>,
    policy: Policy,
    hold: Option<Hold>,
) -> Result<(AuthContext, Option<Slot>), Refusal> {
    let Some(hold) = hold else {
        return access.authenticate(presented, policy).await.map(|grant| (grant, None));
    };
    let slots = match hold {
        Hold::Stream => &gate.streams,
        Hold::Download => &gate.downloads,
    };
    access
        .authenticate_admitting(presented, policy, |customer| {
            let customer_id = customer.customer_id;
            async move { slots.open(customer_id).await.map(Some) }
        })
        .await
}

/// Appends an admitted answer's rate-limit headers. What a plan or a month
/// fixes (limit, policy, reset) is written once and shared; only the
/// remaining counts are written per request, each in one allocation of its
/// length. No handler sets these names, so they are appended (`insert`
/// would also look for a value to remove and hand it back).
fn append_limits(headers: &mut HeaderMap, plan: PlanValues, (remaining, now): (u64, DateTime<Utc>), bucket: Bucket) {
    let (reset, reset_in_secs) = month_reset(now);
    let monthly = Monthly {
        remaining,
        reset_in_secs,
    };
    headers.append(X_RATELIMIT_LIMIT, plan.limit);
    headers.append(X_RATELIMIT_REMAINING, count_value(remaining));
    headers.append(X_RATELIMIT_RESET, reset);
    headers.append(X_RATELIMIT_TIER, HeaderValue::from_static("ai"));
    if let Some(policy) = plan.policy {
        headers.append(RATELIMIT_POLICY, policy);
    }
    if let Ok(v) = HeaderValue::from_bytes(state_header(Some(bucket), Some(monthly)).as_bytes()) {
        headers.append(RATELIMIT, v);
    }
}

/// A count as a header value, in one allocation of its digits: `From<u64>`
/// grows a `BytesMut` to them (299 instructions a value, callgrind;
/// `bench/RESULTS.md`, "The request id logged from its bytes").
fn count_value(n: u64) -> HeaderValue {
    let mut digits = itoa::Buffer::new();
    // Digits are always a valid value.
    HeaderValue::from_bytes(digits.format(n).as_bytes()).unwrap_or_else(|_| HeaderValue::from(n))
}

/// Records an admitted request in its customer's log: one small struct
/// pushed into the log's bounded buffer (no I/O; the route is the row's
/// `'static` template, never the raw path or the query).
fn log_request(
    gate: &Gate,
    (customer_id, key_id): (i64, i64),
    (at, route): (DateTime<Utc>, RouteTemplate),
    res: &ServiceResponse,
    started: Instant,
) {
    // An id the server made is kept as its bytes. One a client sent is
    // ASCII (telemetry echoes only a sane id), so its text is read without
    // `to_str`'s byte-by-byte check; anything else would be recorded as
    // `to_str` left it: empty.
    let request_id = crate::error::REQUEST_ID
        .try_with(|id| match id.made {
            Some(bytes) => RequestId::from_hex_bytes(bytes),
            None => RequestId::new(ascii_text(id.value.as_bytes())),
        })
        .unwrap_or_else(|_| RequestId::new(""));
    gate.request_log.record(LoggedRequest {
        customer_id,
        key_id,
        at_ms: at.timestamp_millis(),
        method: Method::of(res.request().method().as_str()),
        route,
        status: res.status().as_u16(),
        duration_us: u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX),
        request_id,
    });
}

/// A header value's bytes as text when `HeaderValue::to_str` would give
/// it, else empty (as `to_str(..).unwrap_or_default()`). A `HeaderValue`
/// holds no control byte but tab, so its ASCII is visible ASCII or tab:
/// checked a word at a time instead of byte by byte.
fn ascii_text(bytes: &[u8]) -> &str {
    if bytes.is_ascii() {
        std::str::from_utf8(bytes).unwrap_or_default()
    } else {
        ""
    }
}

// Header names checked once, at compile time (`from_static` at run time
// checks every byte on each call).
const X_RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
const X_RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
const X_RATELIMIT_RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
const X_RATELIMIT_TIER: HeaderName = HeaderName::from_static("x-ratelimit-tier");
const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");

/// The headers of a plan: the same for every customer of a (rate, monthly
/// limit), so written once and then shared.
#[derive(Clone)]
struct PlanValues {
    /// `X-RateLimit-Limit`.
    limit: HeaderValue,
    /// `RateLimit-Policy` (`None` only if it could not be a header value).
    policy: Option<HeaderValue>,
}

fn plan_values(rate: Rate, limit: u64) -> PlanValues {
    linecast_core::memo::plan_headers((rate.per_second, rate.burst, limit), || PlanValues {
        limit: HeaderValue::from(limit),
        policy: HeaderValue::from_str(&policy_header(rate, Some(limit))).ok(),
    })
}

/// The quota month of `now` as the headers say it: `X-RateLimit-Reset`
/// (the Unix second the month ends, the instant `next_reset` names) and
/// the whole seconds left until then. Each thread remembers the month it
/// saw last with its header value, so the calendar is worked out and the
/// value written once per month and thread.
fn month_reset(now: DateTime<Utc>) -> (HeaderValue, u64) {
    let at = now.timestamp();
    // Whole seconds, as a difference of instants truncates them: one fewer
    // while a second is under way.
    let left = |end: i64| u64::try_from(end - at - i64::from(now.timestamp_subsec_nanos() > 0)).unwrap_or(0);
    let (end, value) = linecast_core::memo::quota_month(at, || {
        let end = next_reset(now).timestamp();
        let start = first_day(month_of(now))
            .and_then(|day| day.and_hms_opt(0, 0, 0))
            .map_or(at, |midnight| midnight.and_utc().timestamp());
        (start, end, HeaderValue::from(end))
    });
    (value, left(end))
}

fn insert(headers: &mut HeaderMap, values: impl IntoIterator<Item = (&'static str, String)>) {
    for (name, value) in values {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), v);
        }
    }
}

/// The standard headers of a 429: what is known of each limit at refusal.
fn refusal_headers(refused: &Refusal, rate: Rate, now: DateTime<Utc>) -> Vec<(&'static str, String)> {
    match *refused {
        Refusal::TooManyPerSecond { retry_after_secs, .. } => vec![
            ("ratelimit-policy", policy_header(rate, None)),
            (
                "ratelimit",
                state_header(
                    Some(Bucket {
                        remaining: 0,
                        full_in_secs: retry_after_secs,
                    }),
                    None,
                )
                .as_str()
                .to_owned(),
            ),
        ],
        Refusal::QuotaExhausted { limit, .. } => vec![
            ("ratelimit-policy", policy_header(rate, Some(limit))),
            (
                "ratelimit",
                state_header(
                    None,
                    Some(Monthly {
                        remaining: 0,
                        reset_in_secs: month_reset(now).1,
                    }),
                )
                .as_str()
                .to_owned(),
            ),
        ],
        // Refused before any limit was consulted.
        _ => Vec::new(),
    }
}

/// Window of the monthly quota in `RateLimit-Policy` (30 days).
const MONTH_WINDOW_SECS: u64 = 2_592_000;

/// The monthly quota's state at a response.
struct Monthly {
    remaining: u64,
    reset_in_secs: u64,
}

/// `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers, structured
/// fields): the burst bucket and, when known, the monthly quota.
fn policy_header(rate: Rate, monthly_limit: Option<u64>) -> String {
    let burst = format!("\"burst\";q={};w=1", rate.burst);
    match monthly_limit {
        Some(limit) => format!("{burst}, \"monthly\";q={limit};w={MONTH_WINDOW_SECS}"),
        None => burst,
    }
}

/// `RateLimit`: remaining calls (`r`) and seconds until refilled or reset
/// (`t`) of each limit known at this response.
fn state_header(bucket: Option<Bucket>, monthly: Option<Monthly>) -> StateLine {
    // Numbers through `itoa`, into a buffer on the stack: the formatter and
    // a heap string cost more than the rest of the header on every limited
    // response.
    let mut digits = itoa::Buffer::new();
    let mut out = StateLine::default();
    if let Some(b) = bucket {
        out.push_str("\"burst\";r=");
        out.push_str(digits.format(b.remaining));
        out.push_str(";t=");
        out.push_str(digits.format(b.full_in_secs));
    }
    if let Some(m) = monthly {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str("\"monthly\";r=");
        out.push_str(digits.format(m.remaining));
        out.push_str(";t=");
        out.push_str(digits.format(m.reset_in_secs));
    }
    out
}

/// A `RateLimit` value, written on the stack. Its longest form (both
/// limits, every number at its type's maximum) is 100 bytes.
struct StateLine {
    buf: [u8; 128],
    len: usize,
}

impl Default for StateLine {
    fn default() -> Self {
        Self { buf: [0; 128], len: 0 }
    }
}

impl StateLine {
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn push_str(&mut self, s: &str) {
        if let Some(dst) = self.buf.get_mut(self.len..self.len + s.len()) {
            dst.copy_from_slice(s.as_bytes());
            self.len += s.len();
        }
    }

    fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }

    /// The line as text (only ASCII is ever pushed).
    fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_is_its_decimal_digits() {
        for n in [0, 7, 10, 199_999, 1_000_000_000, u64::MAX] {
            assert_eq!(count_value(n).to_str().unwrap(), n.to_string());
        }
    }

    #[test]
    fn the_standard_headers_read_as_the_draft_writes_them() {
        let rate = Rate {
            per_second: 50,
            burst: 100,
        };
        assert_eq!(
            policy_header(rate, Some(200_000)),
            r#""burst";q=100;w=1, "monthly";q=200000;w=2592000"#
        );
        assert_eq!(policy_header(rate, None), r#""burst";q=100;w=1"#);
        assert_eq!(
            state_header(
                Some(Bucket {
                    remaining: 99,
                    full_in_secs: 1
                }),
                Some(Monthly {
                    remaining: 199_873,
                    reset_in_secs: 691_200
                })
            )
            .as_str(),
            r#""burst";r=99;t=1, "monthly";r=199873;t=691200"#
        );
        assert_eq!(
            state_header(
                None,
                Some(Monthly {
                    remaining: 0,
                    reset_in_secs: 10
                })
            )
            .as_str(),
            r#""monthly";r=0;t=10"#
        );
        // The longest value fits the buffer whole.
        let longest = state_header(
            Some(Bucket {
                remaining: u32::MAX,
                full_in_secs: u64::MAX,
            }),
            Some(Monthly {
                remaining: u64::MAX,
                reset_in_secs: u64::MAX,
            }),
        );
        assert_eq!(
            longest.as_str(),
            format!(
                "\"burst\";r={};t={}, \"monthly\";r={};t={}",
                u32::MAX,
                u64::MAX,
                u64::MAX,
                u64::MAX
            )
        );
    }

    /// The memoized values follow their inputs: another plan or another
    /// month gets its own value, never the previous one.
    #[test]
    fn memoized_header_values_follow_their_inputs() {
        let rate = Rate {
            per_second: 50,
            burst: 100,
        };
        for (limit, text, policy) in [
            (200_000, "200000", r#""burst";q=100;w=1, "monthly";q=200000;w=2592000"#),
            (1_000, "1000", r#""burst";q=100;w=1, "monthly";q=1000;w=2592000"#),
            (200_000, "200000", r#""burst";q=100;w=1, "monthly";q=200000;w=2592000"#),
        ] {
            let plan = plan_values(rate, limit);
            assert_eq!(plan.limit.to_str().unwrap(), text);
            assert_eq!(plan.policy.unwrap().to_str().unwrap(), policy);
        }
        let other = Rate {
            per_second: 5,
            burst: 10,
        };
        assert_eq!(
            plan_values(other, 1_000).policy.unwrap().to_str().unwrap(),
            r#""burst";q=10;w=1, "monthly";q=1000;w=2592000"#
        );
    }

    /// The reset and the seconds left follow the calendar, whichever month
    /// the thread saw before: the end of each instant's UTC month, and the
    /// whole seconds until it as chrono counts them.
    #[test]
    fn the_month_reset_is_the_end_of_the_month_of_each_instant() {
        use chrono::{Datelike, TimeZone};
        let instants = [
            Utc.with_ymd_and_hms(2026, 11, 30, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(2026, 11, 1, 0, 0, 0).unwrap() + chrono::TimeDelta::milliseconds(1),
            Utc.with_ymd_and_hms(2026, 12, 31, 23, 59, 59).unwrap() + chrono::TimeDelta::milliseconds(999),
            Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(2028, 2, 29, 12, 0, 0).unwrap() + chrono::TimeDelta::microseconds(1),
            Utc.with_ymd_and_hms(2026, 11, 15, 8, 0, 0).unwrap(),
        ];
        // Twice over, so each month is asked both fresh and remembered.
        for now in instants.iter().chain(instants.iter()) {
            let (year, month) = if now.month() == 12 {
                (now.year() + 1, 1)
            } else {
                (now.year(), now.month() + 1)
            };
            let end = Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0).unwrap();
            let (value, left) = month_reset(*now);
            assert_eq!(value.to_str().unwrap(), end.timestamp().to_string(), "{now}");
            assert_eq!(left, (end - *now).num_seconds() as u64, "{now}");
        }
    }
}
