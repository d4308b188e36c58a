//! How a served result row is written. Core says which columns a row has
//! and what each cell holds (`linecast_core::services::history::rows`);
//! this module turns a cell into the value every format serves (one home
//! for the rules: dates `YYYY-MM-DD`, times `HH:MM:SS`, IMPLIED at 6
//! places, whole numbers as integers) and writes rows as JSON.

use std::borrow::Cow;

use linecast_core::services::archive_check::SeasonChecks;
use linecast_core::services::history::SeasonData;
use linecast_core::services::history::rows::{Cell, Column, ServedColumn};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::rounding;

/// A cell as served, whatever the format.
#[derive(Debug, Clone, PartialEq)]
pub enum Served<'a> {
    Null,
    Text(Cow<'a, str>),
    /// A whole number (`-110`, `3`, an outcome).
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// The served value of `cell` in `column`.
pub fn served<'a>(column: &ServedColumn<'_>, cell: Cell<'a>) -> Served<'a> {
    match cell {
        Cell::Null => Served::Null,
        Cell::Text(text) => Served::Text(text),
        Cell::Date(date) => Served::Text(Cow::Owned(date.format("%Y-%m-%d").to_string())),
        Cell::Time(time) => Served::Text(Cow::Owned(time.format("%H:%M:%S").to_string())),
        // IMPLIED is always a 6-place float, even when it is whole.
        Cell::Number(p) if column.column == Column::Implied => Served::Float(rounding::implied(p)),
        Cell::Number(x) => linecast_domain::round::as_whole(x).map_or(Served::Float(x), Served::Int),
        Cell::Flag(flag) => Served::Bool(flag),
    }
}

impl From<Served<'_>> for Value {
    fn from(served: Served<'_>) -> Self {
        match served {
            Served::Null => Value::Null,
            Served::Text(text) => Value::String(text.into_owned()),
            Served::Int(n) => Value::from(n),
            Served::Float(x) => Value::from(x),
            Served::Bool(b) => Value::Bool(b),
        }
    }
}

/// Every served row of `data` as a JSON object, oldest first, with its
/// archive check from `checks` (made for this season generation).
pub fn render_rows(data: &SeasonData, checks: &SeasonChecks) -> Vec<Box<RawValue>> {
    let columns = data.served_columns();
    checks
        .served(data)
        .filter_map(|(row, graded, check)| {
            let mut map = Map::with_capacity(columns.len());
            for column in &columns {
                map.insert(
                    column.name.to_owned(),
                    served(column, column.cell(row, graded, check)).into(),
                );
            }
            let json = serde_json::to_string(&Value::Object(map)).ok()?;
            RawValue::from_string(json).ok()
        })
        .collect()
}
