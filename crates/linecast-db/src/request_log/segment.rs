//! A segment's body: the requests of one customer-day written by one flush,
//! as a JSON array of rows `[at_ms, key_id, method, route, status,
//! duration_us, request_id]` in the order they were recorded. JSON so an
//! operator can read it with the database's own JSON functions, and so the
//! release before segments' rows fold into it in SQL.

use chrono::DateTime;
use linecast_core::AccountsError;
use linecast_core::ports::request_log::{LoggedRequest, RequestRow};
use serde_json::Value;

use crate::error::corrupt;

/// The columns of a row, in order (named in errors).
const COLUMNS: [&str; 7] = [
    "at_ms",
    "key_id",
    "method",
    "route",
    "status",
    "duration_us",
    "request_id",
];

type Wire = (i64, i64, String, String, u16, u64, String);

/// The body of `requests` (their order kept), byte for byte what
/// `serde_json` writes for the rows, written by hand: this runs once per
/// stored request under load, where `serde_json`'s writer cost about 1,000
/// instructions a row (`bench/RESULTS.md`, "The request log on the hit
/// path"). The test `the_body_is_what_serde_json_writes` holds the two
/// together.
pub(crate) fn encode(requests: &[&LoggedRequest]) -> String {
    // About 110 bytes a row with a UUID request id.
    let mut out = Vec::with_capacity(2 + requests.len() * 112);
    let mut digits = itoa::Buffer::new();
    out.push(b'[');
    for (i, r) in requests.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'[');
        out.extend_from_slice(digits.format(r.at.timestamp_millis()).as_bytes());
        out.push(b',');
        out.extend_from_slice(digits.format(r.key_id).as_bytes());
        out.push(b',');
        string(&mut out, r.method.as_bytes());
        out.push(b',');
        string(&mut out, r.route.as_bytes());
        out.push(b',');
        out.extend_from_slice(digits.format(r.status).as_bytes());
        out.push(b',');
        out.extend_from_slice(digits.format(r.duration_us).as_bytes());
        out.push(b',');
        string(&mut out, r.request_id.as_bytes());
        out.push(b']');
    }
    out.push(b']');
    // Every piece is UTF-8 (digits, `str`s, a request id's bytes), so the
    // body is checked once here rather than each id on its own.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

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

/// The rows of segment `id`; an unreadable body is an error naming the
/// segment, the row and the column.
pub(crate) fn decode(id: i64, body: &str) -> Result<Vec<RequestRow>, AccountsError> {
    let Ok(rows) = serde_json::from_str::<Vec<Wire>>(body) else {
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
    let rows = match serde_json::from_str::<Value>(body) {
        Err(e) => return at(format!("body is not JSON: {e}")),
        Ok(Value::Array(rows)) => rows,
        Ok(_) => return at("body is not an array of rows".to_owned()),
    };
    for (i, row) in rows.iter().enumerate() {
        let Some(values) = row.as_array() else {
            return at(format!("row {i}: not an array"));
        };
        if values.len() != COLUMNS.len() {
            return at(format!("row {i}: {} columns, not {}", values.len(), COLUMNS.len()));
        }
        for (column, value) in COLUMNS.iter().zip(values) {
            let fits = match *column {
                "at_ms" | "key_id" => value.is_i64(),
                "status" => value.as_u64().is_some_and(|s| u16::try_from(s).is_ok()),
                "duration_us" => value.is_u64(),
                _ => value.is_string(),
            };
            if !fits {
                return at(format!("row {i}, column {column}: {value} does not fit"));
            }
        }
    }
    at("body does not read as rows".to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::{TimeZone, Utc};
    use linecast_core::ports::request_log::RequestId;

    use super::*;

    /// A body reads back as the very rows written, in order; a request id
    /// that needs escaping survives.
    #[test]
    fn a_body_reads_back_as_written() {
        let at = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let a = LoggedRequest {
            customer_id: 1,
            key_id: 7,
            at,
            method: "GET",
            route: "/api/v1/games/{sport}",
            status: 200,
            duration_us: 1234,
            request_id: RequestId::new("0b7c-\"quoted\"\\"),
        };
        let b = LoggedRequest {
            key_id: 8,
            method: "POST",
            status: 503,
            ..a.clone()
        };
        let body = encode(&[&a, &b]);
        assert_eq!(
            &body[..60],
            r#"[[1796040000000,7,"GET","/api/v1/games/{sport}",200,1234,"0b"#
        );
        let rows = decode(3, &body).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].at, at);
        assert_eq!(rows[0].request_id, "0b7c-\"quoted\"\\");
        assert_eq!(
            (rows[1].key_id, rows[1].method.as_str(), rows[1].status),
            (8, "POST", 503)
        );
        assert_eq!(decode(4, "[]").unwrap(), vec![]);
    }

    /// The hand-written body is, byte for byte, what `serde_json` writes for
    /// the same rows as arrays: numbers at their extremes, text with every
    /// kind of byte JSON escapes and some it does not.
    #[test]
    fn the_body_is_what_serde_json_writes() {
        let texts = [
            "",
            "GET",
            "/api/v1/predictions/{sport}/{model_type}",
            "quote \" and backslash \\",
            "tab\tnewline\ncontrol\u{1}del\u{7f}",
            "caf\u{e9} \u{1f3c8} </script>",
        ];
        let at = |ms: i64| DateTime::from_timestamp_millis(ms).unwrap();
        let mut requests = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let other = texts[(i + 1) % texts.len()];
            requests.push(LoggedRequest {
                customer_id: 1,
                key_id: [i64::MIN, -1, 0, 7, i64::MAX, 42][i],
                at: at([-62_135_596_800_000, -1, 0, 1_796_040_000_123, 253_402_300_799_999, 5][i]),
                method: text,
                route: other,
                status: [0, 200, 404, 503, u16::MAX, 1][i],
                duration_us: [0, 1, 999, 1_000_000, u64::MAX, 10][i],
                request_id: RequestId::new(other),
            });
        }
        let refs: Vec<&LoggedRequest> = requests.iter().collect();
        let expected: Vec<serde_json::Value> = requests
            .iter()
            .map(|r| {
                serde_json::json!([
                    r.at.timestamp_millis(),
                    r.key_id,
                    r.method,
                    r.route,
                    r.status,
                    r.duration_us,
                    r.request_id.as_str()
                ])
            })
            .collect();
        assert_eq!(encode(&refs), serde_json::to_string(&expected).unwrap());
        assert_eq!(encode(&refs[..1]), serde_json::to_string(&expected[..1]).unwrap());
        assert_eq!(encode(&[]), "[]");
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
                let row = serde_json::json!([[
                    request.at.timestamp_millis(),
                    request.key_id,
                    request.method,
                    request.route,
                    request.status,
                    request.duration_us,
                    id
                ]]);
                assert_eq!(encode(&[&request]), row.to_string(), "{id:?}");
            }
        }
    }

    /// An unreadable body names the segment, the row and the column.
    #[test]
    fn a_malformed_body_names_segment_row_and_column() {
        let ok = r#"[1796040000000,7,"GET","/r",200,5,"id"]"#;
        let message = |body: &str| decode(9, body).unwrap_err().to_string();
        let status = message(&format!(r#"[{ok},[1796040000000,7,"GET","/r",70000,5,"id"]]"#));
        assert!(status.contains("segment 9, row 1, column status"), "{status}");
        let key = message(&format!(r#"[{ok},{ok},[1796040000000,"7","GET","/r",200,5,"id"]]"#));
        assert!(key.contains("segment 9, row 2, column key_id"), "{key}");
        let short = message("[[1796040000000,7]]");
        assert!(short.contains("segment 9, row 0: 2 columns, not 7"), "{short}");
        assert!(message("[[1,2").contains("segment 9, body is not JSON"));
        assert!(message("{}").contains("segment 9, body is not an array"));
        let instant = message(r#"[[9223372036854775807,7,"GET","/r",200,5,"id"]]"#);
        assert!(instant.contains("segment 9, row 0, column at_ms"), "{instant}");
    }
}
