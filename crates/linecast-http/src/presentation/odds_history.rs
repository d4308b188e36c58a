//! A game's odds history as a file: the JSON's `prices` rows, one per book
//! and kept release, oldest first, as CSV or typed Parquet. The rows are
//! `linecast_payloads::books::PriceRow`, the very rows the JSON serves,
//! so the files equal the JSON.
//!
//! Columns: `published_at`, `digest`, `book`, `book_title`,
//! `last_update`, `after_start`, then the nine line columns of the data
//! contract's odds. Parquet: the two instants UTC microsecond timestamps,
//! `after_start` a boolean, numbers doubles, the rest text.

use std::borrow::Cow;

use actix_web::http::header::{CONTENT_DISPOSITION, HeaderValue};
use linecast_export::{CsvWriter, ParquetWriter, Type, Value};
use linecast_payloads::books::{OddsHistoryResponse, PRICE_LINES, PriceRow};

use super::export::{ExportFormat, failed};
use crate::error::ApiError;
use crate::responses::Rendered;

/// The version of this file's column mapping; bumped when names, order or
/// types change.
pub const ODDS_HISTORY_COLUMNS_VERSION: &str = "1";

const HEAD: [(&str, Type); 6] = [
    ("published_at", Type::Instant),
    ("digest", Type::Text),
    ("book", Type::Text),
    ("book_title", Type::Text),
    ("last_update", Type::Instant),
    ("after_start", Type::Flag),
];

fn columns() -> Vec<(&'static str, Type)> {
    HEAD.iter()
        .copied()
        .chain(PRICE_LINES.iter().map(|f| (f.name(), Type::Number)))
        .collect()
}

fn cells(row: &PriceRow) -> Vec<Value<'_>> {
    let number = |v: Option<f64>| v.map_or(Value::Null, Value::Float);
    vec![
        Value::Text(Cow::Borrowed(&row.published_at)),
        Value::Text(Cow::Borrowed(&row.digest)),
        Value::Text(Cow::Borrowed(&row.book)),
        Value::Text(Cow::Borrowed(&row.book_title)),
        Value::Text(Cow::Borrowed(&row.last_update)),
        Value::Bool(row.after_start),
        number(row.away_point_spread),
        number(row.away_point_spread_line),
        number(row.home_point_spread),
        number(row.home_point_spread_line),
        number(row.away_money_line),
        number(row.home_money_line),
        number(row.over_under),
        number(row.over_line),
        number(row.under_line),
    ]
}

/// The history's prices in `format`, with its download header.
pub fn render(format: ExportFormat, history: &OddsHistoryResponse) -> Result<Rendered, ApiError> {
    let columns = columns();
    let (body, extension) = match format {
        ExportFormat::Csv => {
            let mut out = CsvWriter::new(Vec::new(), columns.iter().map(|(name, _)| *name)).map_err(|e| failed(&e))?;
            for row in &history.prices {
                out.row(cells(row)).map_err(|e| failed(&e))?;
            }
            let bytes = out.finish().map_err(|e| failed(&e))?;
            (Rendered::from_bytes(bytes.into(), "text/csv; charset=utf-8"), "csv")
        }
        ExportFormat::Parquet => {
            let mut table = ParquetWriter::new(columns.iter().copied(), history.prices.len());
            for row in &history.prices {
                table.row(cells(row));
            }
            let metadata = [
                ("linecast.game_id", history.game_id.clone()),
                ("linecast.source", history.source.clone()),
                ("linecast.releases", history.releases.to_string()),
                ("linecast.columns_version", ODDS_HISTORY_COLUMNS_VERSION.to_owned()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
            let bytes = table.write(metadata, Vec::new()).map_err(|e| failed(&e))?;
            (
                Rendered::precompressed(bytes.into(), "application/vnd.apache.parquet"),
                "parquet",
            )
        }
    };
    let filename = format!("{}_odds_history.{extension}", history.game_id);
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .map_err(|e| ApiError::Internal(format!("content disposition: {e}")))?;
    Ok(body.with_header(CONTENT_DISPOSITION, disposition))
}
