//! CSV: header, records, `\n` line ends, values as JSON writes them.

use std::borrow::Cow;

use chrono::NaiveDate;
use linecast_export::{CsvWriter, Value};

#[test]
fn a_csv_file_is_a_header_and_one_record_per_row_with_values_as_json_writes_them() {
    let mut out = CsvWriter::new(Vec::new(), ["date", "team", "price", "p", "won", "note"]).unwrap();
    out.row([
        Value::Date(NaiveDate::from_ymd_opt(2026, 11, 14).unwrap()),
        Value::Text(Cow::Borrowed("brooklyn_nets")),
        Value::Int(-110),
        Value::Float(0.5132),
        Value::Bool(true),
        Value::Text(Cow::Owned("a, \"quoted\" note".to_owned())),
    ])
    .unwrap();
    out.row([
        Value::Text("2026-11-15".into()),
        Value::Null,
        Value::Float(2.0),
        Value::Float(f64::INFINITY),
        Value::Bool(false),
        Value::Null,
    ])
    .unwrap();
    let bytes = out.finish().unwrap();
    assert_eq!(
        String::from_utf8(bytes).unwrap(),
        "date,team,price,p,won,note\n\
         2026-11-14,brooklyn_nets,-110,0.5132,true,\"a, \"\"quoted\"\" note\"\n\
         2026-11-15,,2.0,,false,\n"
    );
}

#[test]
fn a_csv_file_without_rows_is_its_header() {
    let bytes = CsvWriter::new(Vec::new(), ["a", "b"]).unwrap().finish().unwrap();
    assert_eq!(bytes, b"a,b\n");
}
