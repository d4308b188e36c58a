//! A segment's body: the requests of one customer-day written by one flush,
//! in the order they were recorded, as a JSON object:
//!
//! ```json
//! {"v":2,"t0":1796040000000,
//!  "rows":[[0,7,0,200,1234,"0b7c..."],[12,8,1,404,88,"9f2e..."]],
//!  "routes":[["GET","/api/v1/games/{sport}"],["POST","/api/v1/customers/me/api-keys"]]}
//! ```
//!
//! Each row is `[at_offset_ms, key_id, route, status, duration_us,
//! request_id]`: its instant is `t0 + at_offset_ms` (`t0` the first row's
//! Unix milliseconds), and `route` indexes `routes`, each `[method,
//! template]` once per segment. About 57 bytes a row with a generated
//! request id, half the first format's: the bytes a row writes through the
//! database are most of what storing it costs (`bench/RESULTS.md`, "The
//! request log on the hit path"). JSON so an operator can still read it
//! with the database's own JSON functions.
//!
//! The first format, `[[at_ms, key_id, method, route, status, duration_us,
//! request_id], ...]`, is still read: segments written by the release
//! before this one, and those the prune round folds from `request_log`.

use chrono::DateTime;
use linecast_core::AccountsError;
use linecast_core::ports::request_log::{LoggedRequest, RequestRow};
use serde::Deserialize;
use serde_json::Value;

use crate::error::corrupt;

/// The format [`Writer`] writes.
const VERSION: u64 = 2;

/// What a column of a row holds (checked when a body does not read).
#[derive(Clone, Copy)]
enum Kind {
    Integer,
    Unsigned,
    Status,
    Text,
}

/// The columns of a row of the first format, in order (named in errors).
const COLUMNS_V1: [(&str, Kind); 7] = [
    ("at_ms", Kind::Integer),
    ("key_id", Kind::Integer),
    ("method", Kind::Text),
    ("route", Kind::Text),
    ("status", Kind::Status),
    ("duration_us", Kind::Unsigned),
    ("request_id", Kind::Text),
];

/// The columns of a row of the current format, in order (named in errors).
const COLUMNS: [(&str, Kind); 6] = [
    ("at_offset_ms", Kind::Integer),
    ("key_id", Kind::Integer),
    ("route", Kind::Unsigned),
    ("status", Kind::Status),
    ("duration_us", Kind::Unsigned),
    ("request_id", Kind::Text),
];

type WireV1 = (i64, i64, String, String, u16, u64, String);

#[derive(Deserialize)]
struct Body {
    v: u64,
    t0: i64,
    rows: Vec<(i64, i64, usize, u16, u64, String)>,
    routes: Vec<(String, String)>,
}

/// A segment's body written as its requests come ([`Writer::push`]), byte
/// for byte what `serde_json` writes for the same object, written by hand:
/// this runs once per stored request under load, where `serde_json`'s
/// writer cost about 1,000 instructions a row (`bench/RESULTS.md`, "The
/// request log on the hit path"). The test `the_body_is_what_serde_json_writes`
/// holds the two together.
///
/// Rows are pushed in the order recorded, one customer-day's writer at a
/// time: the flush lists each customer-day's requests first, so the
/// body's bytes are written one after another, not into a thousand
/// bodies at once.
pub(crate) struct Writer {
    out: Vec<u8>,
    t0: i64,
    rows: usize,
    first_ms: i64,
    last_ms: i64,
    /// A segment holds a handful of routes: a list searched from the last
    /// one used beats a map.
    routes: Vec<(&'static str, &'static str)>,
    last: usize,
}

impl Writer {
    /// A writer with room for `rows` rows.
    pub(crate) fn with_rows(rows: usize) -> Self {
        Self {
            // About 57 bytes a row with a 32-digit request id.
            out: Vec::with_capacity(64 + rows.saturating_mul(60)),
            t0: 0,
            rows: 0,
            first_ms: 0,
            last_ms: 0,
            routes: Vec::new(),
            last: 0,
        }
    }

    /// Rows pushed so far.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The earliest and the latest instant pushed (Unix milliseconds; both
    /// 0 before the first row).
    pub(crate) fn span_ms(&self) -> (i64, i64) {
        (self.first_ms, self.last_ms)
    }

    pub(crate) fn push(&mut self, r: &LoggedRequest) {
        let mut line = Line::new();
        if self.rows == 0 {
            self.t0 = r.at_ms;
            (self.first_ms, self.last_ms) = (r.at_ms, r.at_ms);
            self.head();
        } else {
            line.byte(b',');
            self.first_ms = self.first_ms.min(r.at_ms);
            self.last_ms = self.last_ms.max(r.at_ms);
        }
        self.rows += 1;
        let route = (r.method.as_str(), r.route.as_str());
        // Templates are the route table's `'static` strings: the same
        // address is the same route, and only a new one is compared by text.
        let same = |known: &(&str, &str)| std::ptr::eq(known.1, route.1) && known.0 == route.0;
        if !self.routes.get(self.last).is_some_and(same) {
            self.last = self.routes.iter().position(|known| *known == route).unwrap_or_else(|| {
                self.routes.push(route);
                self.routes.len() - 1
            });
        }
        line.byte(b'[');
        line.signed(r.at_ms - self.t0);
        line.byte(b',');
        line.signed(r.key_id);
        line.byte(b',');
        line.unsigned(self.last as u64);
        line.byte(b',');
        line.unsigned(u64::from(r.status));
        line.byte(b',');
        line.unsigned(u64::from(r.duration_us));
        line.byte(b',');
        if let Some(digits) = r.request_id.hex_digits() {
            line.quoted(&digits);
            line.byte(b']');
            self.out.extend_from_slice(line.bytes());
        } else {
            self.out.extend_from_slice(line.bytes());
            r.request_id.with_text(|id| string(&mut self.out, id.as_bytes()));
            self.out.push(b']');
        }
    }

    /// The body: every row pushed, in order (none: an empty segment).
    pub(crate) fn finish(mut self) -> String {
        if self.rows == 0 {
            self.head();
        }
        let out = &mut self.out;
        out.extend_from_slice(b"],\"routes\":[");
        for (i, (method, route)) in self.routes.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'[');
            string(out, method.as_bytes());
            out.push(b',');
            string(out, route.as_bytes());
            out.push(b']');
        }
        out.extend_from_slice(b"]}");
        // Every piece is UTF-8 (digits, `str`s, a request id's bytes), so
        // the body is checked once here rather than each id on its own.
        String::from_utf8(self.out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    /// `{"v":2,"t0":<t0>,"rows":[`
    fn head(&mut self) {
        let mut digits = itoa::Buffer::new();
        self.out.extend_from_slice(b"{\"v\":");
        self.out.extend_from_slice(digits.format(VERSION).as_bytes());
        self.out.extend_from_slice(b",\"t0\":");
        self.out.extend_from_slice(digits.format(self.t0).as_bytes());
        self.out.extend_from_slice(b",\"rows\":[");
    }
}

/// One row's bytes, written in place on the stack and then copied into the
/// body at once. Pushing each piece onto the body's `Vec` checked its room
/// and called `memcpy` for each number: the flush spent 875 instructions a
/// stored row that way, 741 with this (`bench/RESULTS.md`, "The request
/// log on the hit path").
struct Line {
    bytes: [u8; Line::ROOM],
    len: usize,
}

impl Line {
    /// The longest row: a comma, `[`, five numbers of at most 20
    /// characters (`-9223372036854775808`) each with its comma, 32 digits
    /// in quotes, `]`.
    const ROOM: usize = 2 + 5 * 21 + 34 + 1;

    fn new() -> Self {
        Self {
            bytes: [0; Self::ROOM],
            len: 0,
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn byte(&mut self, b: u8) {
        self.bytes[self.len] = b;
        self.len += 1;
    }

    /// `n` in decimal, as JSON writes an integer.
    fn signed(&mut self, n: i64) {
        if n < 0 {
            self.byte(b'-');
        }
        self.unsigned(n.unsigned_abs());
    }

    /// `n` in decimal, written from its last digits back, two at a time.
    fn unsigned(&mut self, mut n: u64) {
        let end = self.len + n.checked_ilog10().map_or(1, |d| d as usize + 1);
        let mut at = end;
        while n >= 100 {
            at -= 2;
            self.bytes[at..at + 2].copy_from_slice(&DECIMAL_PAIRS[(n % 100) as usize]);
            n /= 100;
        }
        if n >= 10 {
            self.bytes[at - 2..at].copy_from_slice(&DECIMAL_PAIRS[n as usize]);
        } else {
            self.bytes[at - 1] = b'0' + n as u8;
        }
        self.len = end;
    }

    /// 32 digits and letters in quotes (nothing in them JSON escapes).
    fn quoted(&mut self, digits: &[u8; 32]) {
        self.byte(b'"');
        self.bytes[self.len..self.len + 32].copy_from_slice(digits);
        self.len += 32;
        self.byte(b'"');
    }
}

/// `00` to `99`.
const DECIMAL_PAIRS: [[u8; 2]; 100] = {
    let mut table = [[0; 2]; 100];
    let mut n = 0;
    while n < 100 {
        table[n] = [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
        n += 1;
    }
    table
};

/// `text` (UTF-8) as a JSON string. Text without a byte JSON escapes (a
/// control byte, `"` or `\\`), which is every method, template and
/// request id the gate records, is copied as it is; other text is
/// `serde_json`'s.
fn string(out: &mut Vec<u8>, text: &[u8]) {
    if escapes(text) {
        // Writing a `str` to a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, &String::from_utf8_lossy(text));
    } else {
        out.push(b'"');
        out.extend_from_slice(text);
        out.push(b'"');
    }
}

/// Whether `text` holds a byte JSON escapes: below 0x20, `"` or `\\`.
/// Eight bytes at a time (a byte-by-byte test was most of the encoder's
/// cost): in each word, a byte below 0x20, or one equal to `"` or `\\`
/// (zero once XORed with it), sets its high bit in the test's result. The
/// test has no false negative; a false positive would only take the
/// `serde_json` path, which writes the same bytes.
fn escapes(text: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    const QUOTE: u64 = u64::from_ne_bytes([b'"'; 8]);
    const BACKSLASH: u64 = u64::from_ne_bytes([b'\\'; 8]);
    let below = |word: u64, n: u64| word.wrapping_sub(ONES * n) & !word & HIGH;
    let mut words = text.chunks_exact(8);
    for chunk in &mut words {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let word = u64::from_ne_bytes(bytes);
        if below(word, 0x20) | below(word ^ QUOTE, 1) | below(word ^ BACKSLASH, 1) != 0 {
            return true;
        }
    }
    words.remainder().iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// The rows of segment `id`, of either format; an unreadable body is an
/// error naming the segment, the row and the column.
pub(crate) fn decode(id: i64, body: &str) -> Result<Vec<RequestRow>, AccountsError> {
    if body.trim_start().starts_with('[') {
        return decode_v1(id, body);
    }
    let Ok(Body { v, t0, rows, routes }) = serde_json::from_str::<Body>(body) else {
        return Err(locate(id, body));
    };
    if v != VERSION {
        return Err(corrupt(format!(
            "request log segment {id}, format {v} is not one this release reads"
        )));
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, (offset, key_id, route, status, duration_us, request_id))| {
            let column = |column: &str, what: String| {
                corrupt(format!("request log segment {id}, row {i}, column {column}: {what}"))
            };
            let at_ms = t0
                .checked_add(offset)
                .ok_or_else(|| column("at_offset_ms", format!("{t0} + {offset} overflows")))?;
            let at = DateTime::from_timestamp_millis(at_ms)
                .ok_or_else(|| column("at_offset_ms", format!("{at_ms} is no instant")))?;
            let (method, route) = routes
                .get(route)
                .ok_or_else(|| column("route", format!("{route} is not one of the {} routes", routes.len())))?;
            Ok(RequestRow {
                at,
                key_id,
                method: method.clone(),
                route: route.clone(),
                status,
                duration_us,
                request_id,
            })
        })
        .collect()
}

/// The rows of a body of the first format.
fn decode_v1(id: i64, body: &str) -> Result<Vec<RequestRow>, AccountsError> {
    let Ok(rows) = serde_json::from_str::<Vec<WireV1>>(body) else {
        return Err(locate(id, body));
    };
    rows.into_iter()
        .enumerate()
        .map(|(i, (at_ms, key_id, method, route, status, duration_us, request_id))| {
            let at = DateTime::from_timestamp_millis(at_ms).ok_or_else(|| {
                corrupt(format!(
                    "request log segment {id}, row {i}, column at_ms: {at_ms} is no instant"
                ))
            })?;
            Ok(RequestRow {
                at,
                key_id,
                method,
                route,
                status,
                duration_us,
                request_id,
            })
        })
        .collect()
}

/// What is wrong with a body that does not read as rows.
fn locate(id: i64, body: &str) -> AccountsError {
    let at = |what: String| corrupt(format!("request log segment {id}, {what}"));
    let fields = match serde_json::from_str::<Value>(body) {
        Err(e) => return at(format!("body is not JSON: {e}")),
        Ok(Value::Array(rows)) => return at(misfit(&rows, &COLUMNS_V1)),
        Ok(Value::Object(fields)) => fields,
        Ok(_) => return at("body is neither an array nor an object of rows".to_owned()),
    };
    if !fields.get("v").is_some_and(Value::is_u64) {
        return at("field v: not a format number".to_owned());
    }
    if !fields.get("t0").is_some_and(Value::is_i64) {
        return at("field t0: not Unix milliseconds".to_owned());
    }
    let Some(Value::Array(routes)) = fields.get("routes") else {
        return at("field routes: not an array".to_owned());
    };
    for (i, route) in routes.iter().enumerate() {
        let pair = route.as_array();
        if !pair.is_some_and(|pair| pair.len() == 2 && pair.iter().all(Value::is_string)) {
            return at(format!("route {i}: {route} is not [method, template]"));
        }
    }
    let Some(Value::Array(rows)) = fields.get("rows") else {
        return at("field rows: not an array".to_owned());
    };
    at(misfit(rows, &COLUMNS))
}

/// The first row or value of `rows` that does not fit `columns`.
fn misfit(rows: &[Value], columns: &[(&str, Kind)]) -> String {
    for (i, row) in rows.iter().enumerate() {
        let Some(values) = row.as_array() else {
            return format!("row {i}: not an array");
        };
        if values.len() != columns.len() {
            return format!("row {i}: {} columns, not {}", values.len(), columns.len());
        }
        for ((column, kind), value) in columns.iter().zip(values) {
            let fits = match kind {
                Kind::Integer => value.is_i64(),
                Kind::Unsigned => value.is_u64(),
                Kind::Status => value.as_u64().is_some_and(|s| u16::try_from(s).is_ok()),
                Kind::Text => value.is_string(),
            };
            if !fits {
                return format!("row {i}, column {column}: {value} does not fit");
            }
        }
    }
    "body does not read as rows".to_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::{TimeZone, Utc};
    use linecast_core::ports::request_log::{Method, RequestId, RouteTemplate};
    use serde::Serialize;

    use super::*;

    /// The body of `requests`, in their order, as the flush writes it.
    fn encode(requests: &[&LoggedRequest]) -> String {
        let mut writer = Writer::with_rows(requests.len());
        for r in requests {
            writer.push(r);
        }
        writer.finish()
    }

    fn request(key_id: i64, at_ms: i64, method: Method, route: &'static &'static str, id: &str) -> LoggedRequest {
        LoggedRequest {
            customer_id: 1,
            key_id,
            at_ms,
            method,
            route: RouteTemplate::new(route),
            status: 200,
            duration_us: 1234,
            request_id: RequestId::new(id),
        }
    }

    /// A body reads back as the very rows written, in order; a request id
    /// that needs escaping survives; each route is written once.
    #[test]
    fn a_body_reads_back_as_written() {
        let at = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let ms = at.timestamp_millis();
        let a = request(7, ms, Method::Get, &"/api/v1/games/{sport}", "0b7c-\"quoted\"\\");
        let b = LoggedRequest {
            status: 503,
            ..request(8, ms + 1500, Method::Post, &"/api/v1/customers/me/api-keys", "b")
        };
        // Recorded by another worker a little before `a`.
        // The server's own id, held as the 16 bytes its digits spell.
        let c = request(
            7,
            ms - 3,
            Method::Get,
            &"/api/v1/games/{sport}",
            "0123456789abcdef0123456789abcdef",
        );
        let body = encode(&[&a, &b, &c]);
        assert_eq!(
            body,
            r#"{"v":2,"t0":1796040000000,"rows":[[0,7,0,200,1234,"0b7c-\"quoted\"\\"],[1500,8,1,503,1234,"b"],[-3,7,0,200,1234,"0123456789abcdef0123456789abcdef"]],"routes":[["GET","/api/v1/games/{sport}"],["POST","/api/v1/customers/me/api-keys"]]}"#
        );
        let rows = decode(3, &body).unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].at, at);
        assert_eq!(rows[0].request_id, "0b7c-\"quoted\"\\");
        assert_eq!(
            (rows[1].at - at, rows[1].key_id, rows[1].method.as_str(), rows[1].status),
            (chrono::TimeDelta::milliseconds(1500), 8, "POST", 503)
        );
        assert_eq!(rows[1].route, "/api/v1/customers/me/api-keys");
        assert_eq!(
            (rows[2].at - at, rows[2].route.as_str(), rows[2].request_id.as_str()),
            (
                chrono::TimeDelta::milliseconds(-3),
                "/api/v1/games/{sport}",
                "0123456789abcdef0123456789abcdef"
            )
        );
        assert_eq!(decode(4, &encode(&[])).unwrap(), vec![]);
    }

    /// The first format's bodies (the release before, and the rows the
    /// prune round folds in SQL) still read.
    #[test]
    fn a_body_of_the_first_format_still_reads() {
        let body =
            r#"[[1796040000000,7,"GET","/api/v1/games/{sport}",200,1234,"a"],[1796040000005,8,"POST","/r",503,9,"b"]]"#;
        let rows = decode(5, body).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].at, Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap());
        assert_eq!(
            (
                rows[1].key_id,
                rows[1].method.as_str(),
                rows[1].route.as_str(),
                rows[1].status,
                rows[1].duration_us
            ),
            (8, "POST", "/r", 503, 9)
        );
        assert_eq!(rows[1].request_id, "b");
        assert_eq!(decode(6, "[]").unwrap(), vec![]);
    }

    /// What `serde_json` writes for a segment, built from the rows with the
    /// format's own definition: routes numbered in first-seen order,
    /// instants from the first row's.
    #[derive(Serialize)]
    struct Expected<'a> {
        v: u64,
        t0: i64,
        rows: Vec<(i64, i64, usize, u16, u32, String)>,
        routes: Vec<(&'a str, &'a str)>,
    }

    fn expected(requests: &[LoggedRequest]) -> String {
        let mut body = Expected {
            v: 2,
            t0: requests.first().map_or(0, |r| r.at_ms),
            rows: vec![],
            routes: vec![],
        };
        for r in requests {
            let named = (r.method.as_str(), r.route.as_str());
            let seen = body.routes.iter().position(|&known| known == named);
            let route = seen.unwrap_or(body.routes.len());
            if seen.is_none() {
                body.routes.push(named);
            }
            let at = r.at_ms - body.t0;
            body.rows
                .push((at, r.key_id, route, r.status, r.duration_us, r.request_id.to_string()));
        }
        serde_json::to_string(&body).unwrap()
    }

    /// The hand-written body is, byte for byte, what `serde_json` writes for
    /// the same segment: numbers at their extremes, text with every kind of
    /// byte JSON escapes and some it does not, routes seen again after
    /// others.
    #[test]
    fn the_body_is_what_serde_json_writes() {
        static TEXTS: [&str; 6] = [
            "",
            "GET",
            "/api/v1/predictions/{sport}/{model_type}",
            "quote \" and backslash \\",
            "tab\tnewline\ncontrol\u{1}del\u{7f}",
            "caf\u{e9} \u{1f3c8} </script>",
        ];
        let methods = [
            Method::Get,
            Method::Post,
            Method::Other,
            Method::Head,
            Method::Delete,
            Method::Options,
        ];
        let mut requests = Vec::new();
        for round in 0..2 {
            for i in 0..TEXTS.len() {
                let other = (i + 1 + round) % TEXTS.len();
                requests.push(LoggedRequest {
                    customer_id: 1,
                    key_id: [i64::MIN, -1, 0, 7, i64::MAX, 42][i],
                    at_ms: [-62_135_596_800_000, -1, 0, 1_796_040_000_123, 253_402_300_799_999, 5][(i + round) % 6],
                    method: methods[(i + round) % methods.len()],
                    route: RouteTemplate::new(&TEXTS[other]),
                    status: [0, 200, 404, 503, u16::MAX, 1][i],
                    duration_us: [0, 1, 999, 1_000_000, u32::MAX, 10][i],
                    request_id: RequestId::new(TEXTS[i]),
                });
            }
        }
        let refs: Vec<&LoggedRequest> = requests.iter().collect();
        assert_eq!(encode(&refs), expected(&requests));
        assert_eq!(encode(&refs[..1]), expected(&requests[..1]));
        assert_eq!(encode(&[]), expected(&[]));
        assert_eq!(decode(1, &encode(&refs)).unwrap().len(), requests.len());
        // Each byte JSON escapes, and its neighbours that it does not, at
        // every place of a 17-byte id (both words and the rest).
        for special in [
            '\u{0}', '\u{1f}', ' ', '!', '"', '#', '[', '\\', ']', '\u{7f}', '\u{e9}',
        ] {
            for at in 0..17 {
                let mut id: String = "a".repeat(17);
                id.replace_range(at..=at, special.encode_utf8(&mut [0; 4]));
                let request = LoggedRequest {
                    request_id: RequestId::new(&id),
                    ..requests[3].clone()
                };
                assert_eq!(encode(&[&request]), expected(std::slice::from_ref(&request)), "{id:?}");
            }
        }
        // The server's own ids (held as their 16 bytes, spelled by the
        // writer), with the same numbers at their extremes.
        let made: Vec<LoggedRequest> = requests
            .iter()
            .enumerate()
            .map(|(i, r)| LoggedRequest {
                request_id: RequestId::new(&format!(
                    "{:032x}",
                    (i as u128 + 1).wrapping_mul(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211)
                )),
                ..r.clone()
            })
            .collect();
        assert!(made.iter().all(|r| r.request_id.hex_digits().is_some()));
        assert_eq!(encode(&made.iter().collect::<Vec<_>>()), expected(&made));
    }

    /// A row's numbers are written as Rust's own `Display` writes them:
    /// every number below two million, each side of every power of ten,
    /// and the extremes.
    #[test]
    fn numbers_are_written_as_display_writes_them() {
        let mut unsigned: Vec<u64> = (0..2_000_000).collect();
        for power in 1..=19 {
            let p = 10_u64.pow(power);
            unsigned.extend([p - 1, p, p + 1, p + p / 2, p / 5 * 9]);
        }
        unsigned.extend([u64::MAX, u64::MAX - 1, u64::from(u32::MAX), 99_999_999, 100_000_000]);
        for n in unsigned {
            let mut line = Line::new();
            line.unsigned(n);
            assert_eq!(line.bytes(), n.to_string().as_bytes(), "{n}");
        }
        for n in [
            i64::MIN,
            i64::MIN + 1,
            -100_000_000,
            -99_999_999,
            -10,
            -1,
            0,
            1,
            i64::MAX,
        ] {
            let mut line = Line::new();
            line.signed(n);
            assert_eq!(line.bytes(), n.to_string().as_bytes(), "{n}");
        }
    }

    /// An unreadable body names the segment, the row and the column, in
    /// either format.
    #[test]
    fn a_malformed_body_names_segment_row_and_column() {
        let message = |body: &str| decode(9, body).unwrap_err().to_string();
        let ok = r#"[1796040000000,7,"GET","/r",200,5,"id"]"#;
        let status = message(&format!(r#"[{ok},[1796040000000,7,"GET","/r",70000,5,"id"]]"#));
        assert!(status.contains("segment 9, row 1, column status"), "{status}");
        let key = message(&format!(r#"[{ok},{ok},[1796040000000,"7","GET","/r",200,5,"id"]]"#));
        assert!(key.contains("segment 9, row 2, column key_id"), "{key}");
        let short = message("[[1796040000000,7]]");
        assert!(short.contains("segment 9, row 0: 2 columns, not 7"), "{short}");
        assert!(message("[[1,2").contains("segment 9, body is not JSON"));
        assert!(message("3").contains("segment 9, body is neither an array nor an object"));
        let instant = message(r#"[[9223372036854775807,7,"GET","/r",200,5,"id"]]"#);
        assert!(instant.contains("segment 9, row 0, column at_ms"), "{instant}");

        let v2 =
            |rows: &str, routes: &str| format!(r#"{{"v":2,"t0":1796040000000,"rows":[{rows}],"routes":[{routes}]}}"#);
        let ok = r#"[0,7,0,200,5,"id"]"#;
        let get = r#"["GET","/r"]"#;
        assert_eq!(decode(9, &v2(ok, get)).unwrap().len(), 1);
        let status = message(&v2(&format!(r#"{ok},[1,7,0,70000,5,"id"]"#), get));
        assert!(status.contains("segment 9, row 1, column status"), "{status}");
        let route = message(&v2(&format!(r#"{ok},{ok},[1,7,1,200,5,"id"]"#), get));
        assert!(
            route.contains("segment 9, row 2, column route: 1 is not one of the 1 routes"),
            "{route}"
        );
        let negative = message(&v2(r#"[1,7,-1,200,5,"id"]"#, get));
        assert!(negative.contains("segment 9, row 0, column route"), "{negative}");
        let short = message(&v2("[1,7]", get));
        assert!(short.contains("segment 9, row 0: 2 columns, not 6"), "{short}");
        let pair = message(&v2(ok, r#"["GET"]"#));
        assert!(
            pair.contains(r#"segment 9, route 0: ["GET"] is not [method, template]"#),
            "{pair}"
        );
        let instant = message(&v2(r#"[9223372036854775807,7,0,200,5,"id"]"#, get));
        assert!(instant.contains("segment 9, row 0, column at_offset_ms"), "{instant}");
        assert!(message("{}").contains("segment 9, field v"));
        assert!(message(r#"{"v":2}"#).contains("segment 9, field t0"));
        let later = message(r#"{"v":3,"t0":0,"rows":[],"routes":[]}"#);
        assert!(
            later.contains("segment 9, format 3 is not one this release reads"),
            "{later}"
        );
    }
}
