//! The request log: each customer's own API requests (time, key, method,
//! route template, status, duration, request id), written in batches by the
//! usage flush round and read by the portal's Requests page. Never a key,
//! a token, a raw path or a query string: a route is its template.

use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::accounts::AccountsError;
use crate::quota_calendar::Day;

/// Longest request id kept (the ids the server echoes are 1 to 128
/// characters of `A-Z a-z 0-9 . _ : -`).
pub const REQUEST_ID_MAX: usize = 128;

/// Ids of up to this many bytes are held inline (besides the server's own,
/// held as the 16 bytes its 32 hex digits spell).
const INLINE_MAX: usize = 22;

/// A request id, in at most 24 bytes: the server's own (32 lowercase hex
/// digits) as the 16 bytes they spell, a text of up to [`INLINE_MAX`]
/// bytes inline, and only a longer one (which only a client's
/// `X-Request-Id` can be) boxed. Recording a request with the server's own
/// id allocates nothing; every byte of a logged request is written by the
/// request path into a buffer that outgrows the core's cache, so the bytes
/// saved here are the cache lines the request path no longer evicts
/// (`bench/RESULTS.md`, "The request log on the hit path").
#[derive(Clone, PartialEq, Eq)]
pub struct RequestId(Repr);

/// One spelling per id, so derived equality is the texts' equality: 32
/// lowercase hex digits are always `Hex`, any other text of up to
/// [`INLINE_MAX`] bytes `Inline` (zero-padded), the rest `Boxed`.
#[derive(Clone, PartialEq, Eq)]
enum Repr {
    Hex([u8; 16]),
    Inline { bytes: [u8; INLINE_MAX], len: u8 },
    Boxed(Box<str>),
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// Each byte's value as a lowercase hex digit, or `INVALID` (its high bits
/// set) when it is none.
const NIBBLES: [u8; 256] = {
    let mut table = [INVALID; 256];
    let mut digit = 0;
    while digit < 16 {
        table[HEX_DIGITS[digit] as usize] = digit as u8;
        digit += 1;
    }
    table
};

const INVALID: u8 = 0xff;

/// Each byte's two lowercase hex digits: one table read a byte instead of
/// two reads of `HEX_DIGITS` and their shifts (the flush spells every
/// stored request id; measured with the flush's other changes,
/// `bench/RESULTS.md`).
const PAIRS: [[u8; 2]; 256] = {
    let mut table = [[0; 2]; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = [HEX_DIGITS[byte >> 4], HEX_DIGITS[byte & 0x0f]];
        byte += 1;
    }
    table
};

/// The 16 bytes 32 lowercase hex digits spell, if `text` is that. One
/// table read a digit and one test at the end (a digit-by-digit early
/// return cost about 320 instructions an id, this about 240, callgrind).
fn hex_bytes(text: &[u8]) -> Option<[u8; 16]> {
    let digits: &[u8; 32] = text.try_into().ok()?;
    let mut out = [0; 16];
    let mut seen = 0;
    for (byte, pair) in out.iter_mut().zip(digits.chunks_exact(2)) {
        let (high, low) = (NIBBLES[usize::from(pair[0])], NIBBLES[usize::from(pair[1])]);
        seen |= high | low;
        *byte = (high << 4) | (low & 0x0f);
    }
    (seen & 0xf0 == 0).then_some(out)
}

impl RequestId {
    /// The id, cut to [`REQUEST_ID_MAX`] bytes (at a character boundary).
    pub fn new(id: &str) -> Self {
        let mut end = id.len().min(REQUEST_ID_MAX);
        while !id.is_char_boundary(end) {
            end -= 1;
        }
        let id = &id[..end];
        if let Some(bytes) = hex_bytes(id.as_bytes()) {
            Self(Repr::Hex(bytes))
        } else if id.len() <= INLINE_MAX {
            let mut bytes = [0; INLINE_MAX];
            bytes[..id.len()].copy_from_slice(id.as_bytes());
            Self(Repr::Inline {
                bytes,
                len: id.len() as u8,
            })
        } else {
            Self(Repr::Boxed(id.into()))
        }
    }

    /// The id spelled by `bytes` as 32 lowercase hex digits (what
    /// [`RequestId::new`] makes of that text, without reading it back).
    pub fn from_hex_bytes(bytes: [u8; 16]) -> Self {
        Self(Repr::Hex(bytes))
    }

    /// The 16 bytes the id's 32 lowercase hex digits spell, when it is
    /// such an id (every id the server makes).
    pub fn as_hex_bytes(&self) -> Option<&[u8; 16]> {
        match &self.0 {
            Repr::Hex(bytes) => Some(bytes),
            _ => None,
        }
    }

    /// The id's text when it is 32 lowercase hex digits (every id the
    /// server makes), spelled out on the stack: ASCII digits and letters,
    /// nothing a writer needs to check or escape.
    pub fn hex_digits(&self) -> Option<[u8; 32]> {
        let Repr::Hex(bytes) = &self.0 else {
            return None;
        };
        let mut digits = [0; 32];
        for (pair, byte) in digits.chunks_exact_mut(2).zip(bytes) {
            pair.copy_from_slice(&PAIRS[usize::from(*byte)]);
        }
        Some(digits)
    }

    /// Calls `f` with the id's text (UTF-8, as `new` cut it at a character
    /// boundary), spelled out on the stack when held as hex.
    pub fn with_text<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        match &self.0 {
            Repr::Hex(_) => {
                let digits = self.hex_digits().unwrap_or([b'0'; 32]);
                f(std::str::from_utf8(&digits).unwrap_or_default())
            }
            Repr::Inline { bytes, len } => f(std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()),
            Repr::Boxed(id) => f(id),
        }
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.with_text(|text| f.write_str(text))
    }
}

impl std::fmt::Debug for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// The HTTP method of a logged request, in one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Head,
    Post,
    Put,
    Delete,
    Patch,
    Options,
    Connect,
    Trace,
    /// Any other (an extension method): its name is not kept.
    Other,
}

impl Method {
    /// The method named `name` (case-sensitive, as HTTP's are).
    pub fn of(name: &str) -> Self {
        match name {
            "GET" => Self::Get,
            "HEAD" => Self::Head,
            "POST" => Self::Post,
            "PUT" => Self::Put,
            "DELETE" => Self::Delete,
            "PATCH" => Self::Patch,
            "OPTIONS" => Self::Options,
            "CONNECT" => Self::Connect,
            "TRACE" => Self::Trace,
            _ => Self::Other,
        }
    }

    /// Its name (`OTHER` for an extension method).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Head => "HEAD",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Delete => "DELETE",
            Self::Patch => "PATCH",
            Self::Options => "OPTIONS",
            Self::Connect => "CONNECT",
            Self::Trace => "TRACE",
            Self::Other => "OTHER",
        }
    }
}

/// A route template as the request path records it: a thin pointer to
/// the route table's own `&'static str` (8 bytes where the `&str` is 16).
#[derive(Clone, Copy)]
pub struct RouteTemplate(&'static &'static str);

impl RouteTemplate {
    pub const fn new(template: &'static &'static str) -> Self {
        Self(template)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl PartialEq for RouteTemplate {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for RouteTemplate {}

impl std::fmt::Debug for RouteTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One answered request, as the request path records it, in 64 bytes (one
/// cache line): the instant in milliseconds (what the store keeps), the
/// method a byte, the route a thin pointer, the server's own id its 16
/// bytes, the duration in 32 bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    pub customer_id: i64,
    pub key_id: i64,
    /// When it was admitted, Unix milliseconds.
    pub at_ms: i64,
    /// The route template (`/api/v1/predictions/{sport}/{model_type}`).
    pub route: RouteTemplate,
    pub request_id: RequestId,
    /// Microseconds, at most `u32::MAX` (71 minutes).
    pub duration_us: u32,
    pub status: u16,
    pub method: Method,
}

impl LoggedRequest {
    /// When it was admitted (to the millisecond).
    pub fn at(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.at_ms).unwrap_or_default()
    }
}

/// A stored request, as the log reads it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRow {
    pub at: DateTime<Utc>,
    pub key_id: i64,
    pub method: String,
    pub route: String,
    pub status: u16,
    pub duration_us: u64,
    pub request_id: String,
}

/// Which stored requests to show: narrowed by key, status class (`2` for
/// 2xx, ...) and route template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFilter {
    pub key_id: Option<i64>,
    /// The status' hundreds digit: 2, 3, 4 or 5.
    pub status_class: Option<u16>,
    pub route: Option<String>,
}

impl RequestFilter {
    /// Whether `row` is one this filter shows.
    pub fn admits(&self, row: &RequestRow) -> bool {
        self.key_id.is_none_or(|k| k == row.key_id)
            && self.status_class.is_none_or(|class| row.status / 100 == class)
            && self.route.as_deref().is_none_or(|route| route == row.route)
    }
}

/// What one customer-day holds beyond its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayTotals {
    pub day: Day,
    /// Requests recorded that day, stored or not.
    pub offered: u64,
    /// Those past the day's cap: counted, not stored.
    pub over_cap: u64,
}

/// Stored requests per UTC day and one grouping value (a key id or a route
/// template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayCount<T> {
    pub day: Day,
    pub by: T,
    pub requests: u64,
}

/// Where logged requests are kept. The store keeps rows and day totals;
/// what a page shows of them (filters, order, per-day counts) is the
/// request log service's.
#[async_trait]
pub trait RequestLogStore: Send + Sync {
    /// Stores `batch` in one transaction, at most `cap_per_day` rows per
    /// customer and UTC day (of `at`), counting every request of the batch
    /// against its day, stored or not; concurrent batches share each day's
    /// cap. The batch is shared, not lent: an adapter that writes on
    /// another task keeps it without a copy (a batch is up to
    /// [`BUFFER_BOUND`](crate::services::request_log::BUFFER_BOUND)
    /// requests), and the caller takes its allocation back for the next
    /// batch.
    async fn append_requests(&self, batch: Arc<Vec<LoggedRequest>>, cap_per_day: u64) -> Result<(), AccountsError>;

    /// Deletes rows older than `before` (a store that keeps rows in
    /// groups may keep a group that also holds a newer row), and day totals
    /// of days before its day. Returns the rows deleted.
    async fn prune_requests(&self, before: DateTime<Utc>) -> Result<u64, AccountsError>;

    /// The customer's stored requests at or after `since`, in the order
    /// they were recorded.
    async fn requests_since(&self, customer_id: i64, since: DateTime<Utc>) -> Result<Vec<RequestRow>, AccountsError>;

    /// The requests recorded (stored or not) per day of the customer since
    /// `from`, oldest first; days without any are absent.
    async fn requests_offered(&self, customer_id: i64, from: Day) -> Result<Vec<(Day, u64)>, AccountsError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_reads_back_cut_to_its_longest_whole_characters() {
        // The longest prefix of at most 128 bytes that ends between
        // characters, worked out character by character.
        let cut = |id: &str| {
            let mut out = String::new();
            for c in id.chars() {
                if out.len() + c.len_utf8() > 128 {
                    break;
                }
                out.push(c);
            }
            out
        };
        let hex = "0123456789abcdef0123456789abcdef";
        for id in [
            String::new(),
            "r".to_owned(),
            hex.to_owned(),
            hex.to_uppercase(),
            format!("{}g", &hex[..31]),
            format!("{hex}x"),
            "a".repeat(22),
            "a".repeat(23),
            "a".repeat(128),
            "a".repeat(129),
            format!("{}é", "a".repeat(31)),
            format!("{}é", "a".repeat(127)),
            "é".repeat(70),
        ] {
            let kept = RequestId::new(&id);
            assert_eq!(kept.to_string(), cut(&id), "{id:?}");
            assert_eq!(kept.clone(), RequestId::new(&cut(&id)));
        }
    }

    /// Only the 16 lowercase digits spell bytes: an id with any other byte
    /// at any place reads back as it was sent, not as hex re-spelled.
    #[test]
    fn a_request_id_near_hex_reads_back_as_sent() {
        let hex = "0123456789abcdef0123456789abcdef";
        for other in ['/', ':', '`', 'g', 'A', 'F', 'G', ' ', '\u{0}', '\u{7f}'] {
            for at in [0, 1, 17, 31] {
                let mut id = hex.to_owned();
                id.replace_range(at..=at, other.encode_utf8(&mut [0; 4]));
                assert_eq!(RequestId::new(&id).to_string(), id, "{id:?}");
            }
        }
        assert_eq!(RequestId::new(hex).to_string(), hex);
    }

    /// The bytes of an id the server made read back as the digits it sent,
    /// and are the same id as those digits read from the header.
    #[test]
    fn an_id_kept_as_its_bytes_is_its_lowercase_digits() {
        for n in [0_u128, 1, 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210, u128::MAX] {
            let digits = format!("{n:032x}");
            let kept = RequestId::from_hex_bytes(n.to_be_bytes());
            assert_eq!(kept.to_string(), digits);
            assert_eq!(kept, RequestId::new(&digits));
            assert_eq!(kept.hex_digits().map(|d| d.to_vec()), Some(digits.clone().into_bytes()));
            assert_eq!(RequestId::new(&digits).hex_digits(), kept.hex_digits());
        }
        // Any other text is not spelled as digits: upper case, too short,
        // too long, a client's own id.
        for text in ["0123456789ABCDEF0123456789ABCDEF", "0123", &"a".repeat(33), "client-id"] {
            assert_eq!(RequestId::new(text).hex_digits(), None, "{text:?}");
        }
    }

    #[test]
    fn a_method_is_named_as_http_names_it() {
        for name in [
            "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE",
        ] {
            assert_eq!(Method::of(name).as_str(), name);
        }
        for other in ["get", "PROPFIND", ""] {
            assert_eq!(Method::of(other), Method::Other, "{other:?}");
        }
        assert_eq!(Method::Other.as_str(), "OTHER");
    }

    #[test]
    fn a_logged_request_is_one_cache_line() {
        // The buffer between two writes holds 262,144 of these, written
        // by the request path.
        assert_eq!(std::mem::size_of::<RequestId>(), 24);
        assert_eq!(std::mem::size_of::<LoggedRequest>(), 64);
    }
}
