//! A segment's rows packed in bytes (format 3, the `packed` column): the
//! requests of one customer-day written by one flush, in the order they
//! were recorded.
//!
//! ```text
//! 0x03                     the format
//! t0                       signed: the first row's Unix milliseconds
//! then each row, to the end:
//!   at                     signed: its instant less the row before's (t0 for the first)
//!   key_id                 signed
//!   route                  unsigned: an index into the routes defined so far;
//!                          the next index defines one, its method and template
//!                          following as texts
//!   status                 unsigned (at most 65,535)
//!   duration_us            unsigned (at most 2^32 - 1)
//!   request_id             unsigned tag: 0, then the 16 bytes its 32 lowercase
//!                          hex digits spell (the server's own ids);
//!                          n > 0, then a text of n - 1 bytes
//! ```
//!
//! An unsigned number is LEB128 (seven bits a byte, low bits first, the high
//! bit set on every byte but the last); a signed one is zigzag-mapped to an
//! unsigned one first (0, -1, 1, -2 as 0, 1, 2, 3); a text is its byte length,
//! unsigned, then its UTF-8 bytes. A row of a generated request id is about
//! 25 bytes where format 2's JSON was 57: the bytes a row writes through the
//! database are most of what storing it costs (`bench/RESULTS.md`, "The
//! request log on the hit path"). Formats 1 and 2, JSON in `body`, are still
//! read ([`super::segment`]).

use chrono::DateTime;
use linecast_core::AccountsError;
use linecast_core::ports::request_log::{LoggedRequest, RequestId, RequestRow};

use crate::error::corrupt;

/// The format [`Writer`] writes, its body's first byte.
pub(crate) const VERSION: u8 = 3;

/// What a segment of this format holds in its `body` column: the shape
/// of format 2 with no rows, which a release that reads only the JSON
/// formats reads far enough to name the format it cannot read.
pub(crate) const BODY: &str = r#"{"v":3,"t0":0,"rows":[],"routes":[]}"#;

/// A segment's rows written as its requests come ([`Writer::push`]).
///
/// Rows are pushed in the order recorded, one customer-day's writer at a
/// time: the flush lists each customer-day's requests first, so the
/// body's bytes are written one after another, not into a thousand
/// bodies at once.
pub(crate) struct Writer {
    out: Vec<u8>,
    rows: usize,
    /// The instant of the row before (Unix milliseconds).
    previous_ms: i64,
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
        let mut out = Vec::with_capacity(16 + rows.saturating_mul(26));
        out.push(VERSION);
        Self {
            out,
            rows: 0,
            previous_ms: 0,
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
            (self.first_ms, self.last_ms, self.previous_ms) = (r.at_ms, r.at_ms, r.at_ms);
            line.signed(r.at_ms);
        } else {
            self.first_ms = self.first_ms.min(r.at_ms);
            self.last_ms = self.last_ms.max(r.at_ms);
        }
        self.rows += 1;
        // Two's complement: any two instants' difference, read back by a
        // wrapping add.
        line.signed(r.at_ms.wrapping_sub(self.previous_ms));
        self.previous_ms = r.at_ms;
        line.signed(r.key_id);
        let route = (r.method.as_str(), r.route.as_str());
        // Templates are the route table's `'static` strings: the same
        // address is the same route, and only a new one is compared by text.
        let same = |known: &(&str, &str)| std::ptr::eq(known.1, route.1) && known.0 == route.0;
        if self.routes.get(self.last).is_some_and(same) {
            line.unsigned(self.last as u64);
        } else if let Some(known) = self.routes.iter().position(|known| *known == route) {
            self.last = known;
            line.unsigned(known as u64);
        } else {
            self.last = self.routes.len();
            self.routes.push(route);
            line.unsigned(self.last as u64);
            self.out.extend_from_slice(line.bytes());
            line = Line::new();
            text(&mut self.out, route.0.as_bytes());
            text(&mut self.out, route.1.as_bytes());
        }
        line.unsigned(u64::from(r.status));
        line.unsigned(u64::from(r.duration_us));
        if let Some(bytes) = r.request_id.as_hex_bytes() {
            line.byte(0);
            line.sixteen(bytes);
            self.out.extend_from_slice(line.bytes());
        } else {
            self.out.extend_from_slice(line.bytes());
            r.request_id.with_text(|id| {
                unsigned(&mut self.out, id.len() as u64 + 1);
                self.out.extend_from_slice(id.as_bytes());
            });
        }
    }

    /// The packed rows (none: an empty segment, its format byte alone).
    pub(crate) fn finish(self) -> Vec<u8> {
        self.out
    }
}

/// One row's bytes, written in place on the stack and then copied into the
/// body at once (a push per piece checks the `Vec`'s room each time).
struct Line {
    bytes: [u8; Line::ROOM],
    len: usize,
}

impl Line {
    /// The longest a line holds: t0, the instant, the key id and the
    /// route (at most 10 bytes each), the status (3) and the duration
    /// (5), the id's tag and its 16 bytes.
    const ROOM: usize = 4 * 10 + 3 + 5 + 1 + 16;

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

    fn signed(&mut self, n: i64) {
        self.unsigned(zigzag(n));
    }

    fn unsigned(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.byte((n as u8) | 0x80);
            n >>= 7;
        }
        self.byte(n as u8);
    }

    fn sixteen(&mut self, bytes: &[u8; 16]) {
        self.bytes[self.len..self.len + 16].copy_from_slice(bytes);
        self.len += 16;
    }
}

/// 0, -1, 1, -2, ... as 0, 1, 2, 3, ...
fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

fn unsigned(out: &mut Vec<u8>, n: u64) {
    let mut line = Line::new();
    line.unsigned(n);
    out.extend_from_slice(line.bytes());
}

fn text(out: &mut Vec<u8>, bytes: &[u8]) {
    unsigned(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// The rows of segment `id`; bytes that do not read name the segment, the
/// row and the column.
pub(crate) fn decode(id: i64, packed: &[u8]) -> Result<Vec<RequestRow>, AccountsError> {
    let mut reader = Reader { bytes: packed, at: 0 };
    let whole = |what: String| corrupt(format!("request log segment {id}, {what}"));
    match reader.byte() {
        Some(VERSION) => {}
        Some(v) => return Err(whole(format!("format {v} is not one this release reads"))),
        None => return Err(whole("packed rows are empty, not even a format".to_owned())),
    }
    let mut routes: Vec<(String, String)> = Vec::new();
    let mut rows = Vec::new();
    let mut previous_ms = 0;
    while !reader.done() {
        let i = rows.len();
        let column =
            |column: &str, what: &str| corrupt(format!("request log segment {id}, row {i}, column {column}: {what}"));
        let short = |name: &str| {
            column(
                name,
                "does not read (the bytes end inside it, or a number runs past 64 bits)",
            )
        };
        if i == 0 {
            previous_ms = reader.signed().ok_or_else(|| short("t0"))?;
        }
        let at_ms = previous_ms.wrapping_add(reader.signed().ok_or_else(|| short("at"))?);
        previous_ms = at_ms;
        let at =
            DateTime::from_timestamp_millis(at_ms).ok_or_else(|| column("at", &format!("{at_ms} is no instant")))?;
        let key_id = reader.signed().ok_or_else(|| short("key_id"))?;
        let route = reader.unsigned().ok_or_else(|| short("route"))?;
        if route == routes.len() as u64 {
            let method = reader
                .text()
                .ok_or_else(|| column("route", "its method does not read"))?;
            let template = reader
                .text()
                .ok_or_else(|| column("route", "its template does not read"))?;
            routes.push((method, template));
        }
        let Some((method, template)) = usize::try_from(route).ok().and_then(|r| routes.get(r)) else {
            return Err(column(
                "route",
                &format!("{route} is past the {} routes defined", routes.len()),
            ));
        };
        let status = reader.unsigned().ok_or_else(|| short("status"))?;
        let status = u16::try_from(status).map_err(|_| column("status", &format!("{status} is no status")))?;
        let duration_us = reader.unsigned().ok_or_else(|| short("duration_us"))?;
        if duration_us > u64::from(u32::MAX) {
            return Err(column("duration_us", &format!("{duration_us} is past 2^32 - 1")));
        }
        let request_id = match reader.unsigned().ok_or_else(|| short("request_id"))? {
            0 => {
                let bytes = reader.sixteen().ok_or_else(|| short("request_id"))?;
                RequestId::from_hex_bytes(bytes).to_string()
            }
            n => reader
                .exactly(n - 1)
                .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
                .ok_or_else(|| column("request_id", "not a text of the length given"))?,
        };
        rows.push(RequestRow {
            at,
            key_id,
            method: method.clone(),
            route: template.clone(),
            status,
            duration_us,
            request_id,
        });
    }
    Ok(rows)
}

/// Packed bytes read front to back; `None` where they end too soon or a
/// number runs past 64 bits.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn done(&self) -> bool {
        self.at >= self.bytes.len()
    }

    fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn unsigned(&mut self) -> Option<u64> {
        let mut n = 0_u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7f);
            // The tenth byte holds the 64th bit alone.
            if shift == 63 && bits > 1 {
                return None;
            }
            n |= bits << shift;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }

    fn signed(&mut self) -> Option<i64> {
        self.unsigned().map(unzigzag)
    }

    fn exactly(&mut self, n: u64) -> Option<&'a [u8]> {
        let end = self.at.checked_add(usize::try_from(n).ok()?)?;
        let bytes = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(bytes)
    }

    fn sixteen(&mut self) -> Option<[u8; 16]> {
        self.exactly(16)?.try_into().ok()
    }

    fn text(&mut self) -> Option<String> {
        let n = self.unsigned()?;
        String::from_utf8(self.exactly(n)?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::{TimeZone, Utc};
    use linecast_core::ports::request_log::{Method, RouteTemplate};

    use super::*;

    fn pack(requests: &[LoggedRequest]) -> Vec<u8> {
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

    const SERVERS: &str = "0123456789abcdef0123456789abcdef";

    /// Three rows, the bytes written out by hand from the format in the
    /// module's comment (LEB128, zigzag, routes defined at first use).
    #[test]
    fn rows_pack_into_the_documented_bytes() {
        let t0 = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap().timestamp_millis();
        let a = request(7, t0, Method::Get, &"/api/v1/games/{sport}", SERVERS);
        let b = LoggedRequest {
            status: 503,
            duration_us: 9,
            ..request(8, t0 + 1500, Method::Post, &"/r", "b")
        };
        // Recorded by another worker a little before `a`.
        let c = LoggedRequest {
            duration_us: 0,
            ..request(7, t0 - 3, Method::Get, &"/api/v1/games/{sport}", SERVERS)
        };
        let packed = pack(&[a, b, c]);
        let mut expected = vec![0x03, 0x80, 0x88, 0x9c, 0xc5, 0xc5, 0x68];
        // Row 0: at +0, key 7, route 0 defined, 200, 1234, the server's id.
        expected.extend([0x00, 0x0e, 0x00, 0x03]);
        expected.extend(b"GET\x15/api/v1/games/{sport}");
        expected.extend([0xc8, 0x01, 0xd2, 0x09, 0x00]);
        expected.extend([0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef].repeat(2));
        // Row 1: at +1500, key 8, route 1 defined, 503, 9, "b".
        expected.extend([0xb8, 0x17, 0x10, 0x01, 0x04]);
        expected.extend(b"POST\x02/r");
        expected.extend([0xf7, 0x03, 0x09, 0x02, b'b']);
        // Row 2: at -1503, key 7, route 0, 200, 0, the server's id.
        expected.extend([0xbd, 0x17, 0x0e, 0x00, 0xc8, 0x01, 0x00, 0x00]);
        expected.extend([0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef].repeat(2));
        assert_eq!(packed, expected);

        let rows = decode(3, &packed).unwrap();
        let seen: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.at.timestamp_millis() - t0,
                    r.key_id,
                    r.method.as_str(),
                    r.route.as_str(),
                    r.status,
                    r.duration_us,
                    r.request_id.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (0, 7, "GET", "/api/v1/games/{sport}", 200, 1234, SERVERS),
                (1500, 8, "POST", "/r", 503, 9, "b"),
                (-3, 7, "GET", "/api/v1/games/{sport}", 200, 0, SERVERS),
            ]
        );
        assert_eq!(pack(&[]), vec![VERSION]);
        assert_eq!(decode(4, &[VERSION]).unwrap(), vec![]);
    }

    /// A row of the server's own id with the numbers of a busy minute is
    /// at most 25 bytes (format 2's JSON: 57).
    #[test]
    fn a_typical_row_is_25_bytes() {
        let at = 1_796_040_000_000;
        let route = &"/api/v1/predictions/{sport}/{model_type}";
        let first = request(2345, at, Method::Get, route, SERVERS);
        let second = LoggedRequest {
            duration_us: 850,
            ..request(2345, at + 3, Method::Get, route, "fedcba9876543210fedcba9876543210")
        };
        assert_eq!(pack(&[first.clone(), second]).len() - pack(&[first]).len(), 25);
    }

    /// Every row reads back as written: numbers at their extremes,
    /// instants far apart in either direction, ids of every length and
    /// kind, routes seen again after others.
    #[test]
    fn rows_read_back_as_written() {
        static TEMPLATES: [&str; 4] = ["", "/a", "/api/v1/odds/{sport}", "caf\u{e9} \u{1f3c8}"];
        let methods = [Method::Get, Method::Post, Method::Other, Method::Delete];
        let ids = [
            String::new(),
            "b".to_owned(),
            SERVERS.to_owned(),
            SERVERS.to_uppercase(),
            "x".repeat(22),
            "y".repeat(23),
            "z".repeat(128),
            "quote \" and \u{1}".to_owned(),
        ];
        let instants = [-62_135_596_800_000, 253_402_300_799_999, 0, -1, 1_796_040_000_123];
        let mut requests = Vec::new();
        for i in 0..40 {
            requests.push(LoggedRequest {
                customer_id: 1,
                key_id: [i64::MIN, -1, 0, 7, i64::MAX, 42][i % 6],
                at_ms: instants[i % instants.len()],
                method: methods[i % methods.len()],
                route: RouteTemplate::new(&TEMPLATES[(i * 3) % TEMPLATES.len()]),
                status: [0, 200, 404, 503, u16::MAX, 1, 127, 128][i % 8],
                duration_us: [0, 1, 127, 128, 16_383, 16_384, u32::MAX][i % 7],
                request_id: RequestId::new(&ids[i % ids.len()]),
            });
        }
        let rows = decode(1, &pack(&requests)).unwrap();
        assert_eq!(rows.len(), requests.len());
        for (row, r) in rows.iter().zip(&requests) {
            assert_eq!(row.at.timestamp_millis(), r.at_ms);
            assert_eq!(
                (
                    row.key_id,
                    row.method.as_str(),
                    row.route.as_str(),
                    row.status,
                    row.duration_us
                ),
                (
                    r.key_id,
                    r.method.as_str(),
                    r.route.as_str(),
                    r.status,
                    u64::from(r.duration_us)
                )
            );
            assert_eq!(row.request_id, r.request_id.to_string());
        }
    }

    /// Bytes that do not read name the segment, the row and the column.
    #[test]
    fn malformed_bytes_name_segment_row_and_column() {
        let message = |bytes: &[u8]| decode(9, bytes).unwrap_err().to_string();
        // Row 0: t0 1000, at +0, key 7, route 0 ("GET", "/r"), 200, 5, "id".
        let mut ok = vec![VERSION, 0xd0, 0x0f, 0x00, 0x0e, 0x00, 0x03];
        ok.extend(b"GET\x02/r");
        ok.extend([0xc8, 0x01, 0x05, 0x03, b'i', b'd']);
        assert_eq!(decode(9, &ok).unwrap().len(), 1);
        // A second row, and where it may end short or hold a bad value.
        let row = |tail: &[u8]| [ok.as_slice(), tail].concat();
        let cases: [(&[u8], &str); 9] = [
            (&[0x02], "row 1, column key_id: does not read"),
            (&[0x02, 0x0e], "row 1, column route: does not read"),
            (
                &[0x02, 0x0e, 0x02],
                "row 1, column route: 2 is past the 1 routes defined",
            ),
            (
                &[0x02, 0x0e, 0x01, 0x03],
                "row 1, column route: its method does not read",
            ),
            (
                &[0x02, 0x0e, 0x00, 0x80, 0x80, 0x04],
                "row 1, column status: 65536 is no status",
            ),
            (
                &[0x02, 0x0e, 0x00, 0xc8, 0x01, 0x80, 0x80, 0x80, 0x80, 0x10],
                "row 1, column duration_us: 4294967296 is past",
            ),
            (
                &[0x02, 0x0e, 0x00, 0xc8, 0x01, 0x05, 0x00, 0x01],
                "row 1, column request_id: does not read",
            ),
            (
                &[0x02, 0x0e, 0x00, 0xc8, 0x01, 0x05, 0x04, b'a'],
                "row 1, column request_id: not a text of the length given",
            ),
            (
                &[0x02, 0x0e, 0x00, 0xc8, 0x01, 0x05, 0x02, 0xff],
                "row 1, column request_id: not a text of the length given",
            ),
        ];
        for (tail, expected) in cases {
            let got = message(&row(tail));
            assert!(got.contains(&format!("segment 9, {expected}")), "{tail:x?}: {got}");
        }
        // A number past 64 bits.
        let long = message(&row(&[
            0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
        ]));
        assert!(
            long.contains("segment 9, row 1, column key_id: does not read"),
            "{long}"
        );
        // An instant no date holds: i64::MAX milliseconds.
        let mut far = vec![VERSION];
        far.extend([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x00]);
        let instant = message(&far);
        assert!(
            instant.contains("segment 9, row 0, column at: 9223372036854775807 is no instant"),
            "{instant}"
        );
        assert!(message(&[VERSION, 0xd0]).contains("segment 9, row 0, column t0"));
        assert!(message(&[]).contains("segment 9, packed rows are empty"));
        assert!(message(&[2, 0]).contains("segment 9, format 2 is not one this release reads"));
    }
}
