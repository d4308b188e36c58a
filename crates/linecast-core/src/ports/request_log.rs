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

/// Ids of up to this many bytes are held inline: the server's own (32 hex
/// digits) and most a client sends.
const INLINE_MAX: usize = 32;

/// A request id. One of up to [`INLINE_MAX`] bytes is held inline, so
/// recording a request with the server's own id allocates nothing; a
/// longer one (only a client's `X-Request-Id` can be) is boxed. Room for
/// the longest id inline would nearly double a logged request, and with
/// it the buffer between two flushes and every push into it.
#[derive(Clone)]
pub struct RequestId(Repr);

#[derive(Clone)]
enum Repr {
    Inline { bytes: [u8; INLINE_MAX], len: u8 },
    Boxed(Box<str>),
}

impl RequestId {
    /// The id, cut to [`REQUEST_ID_MAX`] bytes (at a character boundary).
    pub fn new(id: &str) -> Self {
        let mut end = id.len().min(REQUEST_ID_MAX);
        while !id.is_char_boundary(end) {
            end -= 1;
        }
        let id = &id[..end];
        if id.len() <= INLINE_MAX {
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

    /// The id's bytes: UTF-8, as `new` cut it at a character boundary.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { bytes, len } => &bytes[..usize::from(*len)],
            Repr::Boxed(id) => id.as_bytes(),
        }
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }
}

impl std::fmt::Debug for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq for RequestId {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for RequestId {}

/// One answered request, as the request path records it: every text a
/// `'static` name or the id (inline unless a client sent one over 32
/// bytes), 112 bytes in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    pub customer_id: i64,
    pub key_id: i64,
    pub at: DateTime<Utc>,
    /// `GET`, `POST`, ...
    pub method: &'static str,
    /// The route template (`/api/v1/predictions/{sport}/{model_type}`).
    pub route: &'static str,
    pub status: u16,
    pub duration_us: u64,
    pub request_id: RequestId,
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
            format!("{hex}x"),
            "a".repeat(128),
            "a".repeat(129),
            format!("{}é", "a".repeat(31)),
            format!("{}é", "a".repeat(127)),
            "é".repeat(70),
        ] {
            let kept = RequestId::new(&id);
            assert_eq!(kept.as_str(), cut(&id), "{id:?}");
            assert_eq!(kept.as_bytes(), cut(&id).as_bytes(), "{id:?}");
            assert_eq!(kept.clone(), RequestId::new(&cut(&id)));
        }
    }

    #[test]
    fn a_logged_request_holds_the_servers_own_id_in_about_a_hundred_bytes() {
        // The buffer between two writes holds 131,072 of these.
        assert!(
            std::mem::size_of::<LoggedRequest>() <= 112,
            "{}",
            std::mem::size_of::<LoggedRequest>()
        );
    }
}
