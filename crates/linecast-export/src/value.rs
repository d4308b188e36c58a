//! A cell's value and a column's type.

use std::borrow::Cow;

use arrow_schema::{DataType, TimeUnit};
use chrono::NaiveDate;

/// A cell of an exported row.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    Null,
    Text(Cow<'a, str>),
    /// A whole number.
    Int(i64),
    Float(f64),
    Bool(bool),
    /// A date held as a date (a Parquet `Date` column takes it as is).
    Date(NaiveDate),
}

impl Value<'_> {
    /// The value as a CSV cell: null is empty, booleans `true`/`false`,
    /// numbers as JSON writes them (`-110`, `0.5132`, `2.0`), a date
    /// `YYYY-MM-DD`.
    pub fn csv_text(&self) -> Cow<'_, str> {
        match self {
            Self::Null => Cow::Borrowed(""),
            Self::Text(text) => Cow::Borrowed(text),
            Self::Int(n) => Cow::Owned(n.to_string()),
            Self::Float(x) => Cow::Owned(
                serde_json::Number::from_f64(*x)
                    .map(|n| n.to_string())
                    .unwrap_or_default(),
            ),
            Self::Bool(b) => Cow::Owned(b.to_string()),
            Self::Date(date) => Cow::Owned(iso_date(*date)),
        }
    }
}

/// A date as `YYYY-MM-DD`.
pub(crate) fn iso_date(date: NaiveDate) -> String {
    date.format(DATE_FORMAT).to_string()
}

/// How a date is written as text, and read back.
pub(crate) const DATE_FORMAT: &str = "%Y-%m-%d";

/// The Parquet type of a column. A [`Value`] of another type is null in
/// it, except text read as the column's type: a `Date` column reads
/// `YYYY-MM-DD`, an `Instant` column an RFC 3339 instant, a `Whole` or
/// `Number` column a finite number (`7`, `1618`, `3.5`; a `Whole` column
/// only when it is whole); a `Number` column also takes a whole number, a
/// `Text` column a date (as `YYYY-MM-DD`). Text that does not read as the
/// type is null.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// UTF-8 text.
    Text,
    /// Days since 1970-01-01.
    Date,
    /// A UTC timestamp in microseconds.
    Instant,
    /// A 64-bit integer.
    Whole,
    /// A double.
    Number,
    /// A boolean.
    Flag,
}

/// The time zone of a timestamp column: its instants are adjusted to UTC.
pub(crate) const UTC: &str = "UTC";

impl Type {
    /// The Arrow type of the column.
    pub fn data_type(self) -> DataType {
        match self {
            Self::Text => DataType::Utf8,
            Self::Date => DataType::Date32,
            Self::Instant => DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
            Self::Whole => DataType::Int64,
            Self::Number => DataType::Float64,
            Self::Flag => DataType::Boolean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_text_writes_numbers_as_json_does_and_null_empty() {
        assert_eq!(Value::Null.csv_text(), "");
        assert_eq!(Value::Int(-110).csv_text(), "-110");
        assert_eq!(Value::Float(2.0).csv_text(), "2.0");
        assert_eq!(Value::Float(0.5132).csv_text(), "0.5132");
        assert_eq!(Value::Float(f64::NAN).csv_text(), "");
        assert_eq!(Value::Bool(true).csv_text(), "true");
        assert_eq!(Value::Text("a,b".into()).csv_text(), "a,b");
        let date = NaiveDate::from_ymd_opt(2026, 11, 4).unwrap_or_default();
        assert_eq!(Value::Date(date).csv_text(), "2026-11-04");
    }
}
