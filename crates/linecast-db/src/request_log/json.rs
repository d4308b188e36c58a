//! The JSON formats of a segment's body, read, no longer written: the
//! requests of one customer-day written by one flush, in the order they
//! were recorded. Format 2 is a JSON object:
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
//! template]` once per segment. The first format, `[[at_ms, key_id, method,
//! route, status, duration_us, request_id], ...]`, is what the prune round
//! folds from `request_log` and what segments before `v` hold. Segments
//! are written in format 3 ([`super::packed`]), whose `body` is
//! [`packed::BODY`](super::packed::BODY).

use chrono::DateTime;
use linecast_core::AccountsError;
use linecast_core::ports::request_log::RequestRow;
use serde::Deserialize;
use serde_json::Value;

use crate::error::corrupt;

/// The JSON format with `v`.
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

/// The rows of segment `id`, of either format; an unreadable body is an
/// error naming the segment, the row and the column.
pub(crate) fn decode(id: i64, body: &str) -> Result<Vec<RequestRow>, AccountsError> {
    if body == super::packed::BODY {
        return Err(corrupt(format!(
            "request log segment {id}, format 3 without its packed rows"
        )));
    }
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

    use super::*;

    /// A body of format 2 reads back as its rows, in order: instants from
    /// `t0`, routes by index, a request id that JSON escapes.
    #[test]
    fn a_body_of_the_second_format_still_reads() {
        let at = Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0).unwrap();
        let body = r#"{"v":2,"t0":1796040000000,"rows":[[0,7,0,200,1234,"0b7c-\"quoted\"\\"],[1500,8,1,503,1234,"b"],[-3,7,0,200,1234,"0123456789abcdef0123456789abcdef"]],"routes":[["GET","/api/v1/games/{sport}"],["POST","/api/v1/customers/me/api-keys"]]}"#;
        let rows = decode(3, body).unwrap();
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
        let empty = r#"{"v":2,"t0":0,"rows":[],"routes":[]}"#;
        assert_eq!(decode(4, empty).unwrap(), vec![]);
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
        let later = message(r#"{"v":4,"t0":0,"rows":[],"routes":[]}"#);
        assert!(
            later.contains("segment 9, format 4 is not one this release reads"),
            "{later}"
        );
        let unpacked = message(r#"{"v":3,"t0":0,"rows":[],"routes":[]}"#);
        assert!(
            unpacked.contains("segment 9, format 3 without its packed rows"),
            "{unpacked}"
        );
    }
}
