//! The bulk export bodies: one season, or all of history, as CSV or typed
//! Parquet, holding the very rows, columns and values `/results` serves
//! (through `linecast_payloads::result_rows::served`, the one home of the
//! value rules). The files are written by `linecast-export`; this module
//! says which columns they have, their types and each cell's value.
//!
//! Columns: the union of the seasons' served columns, in first-seen order
//! oldest season first, with `push`, `graded`, `ungraded_reason`,
//! `game_id`, `archive_check` and `forecast_digest` last as on every result
//! row; a season without a column has null there.
//!
//! Parquet types follow the column's kind, except for the text columns of
//! [`TYPED_TEXT`], whose text has a known form: Parquet holds them typed
//! while CSV (and `/results`) keep the text.

use actix_web::http::header::{CONTENT_DISPOSITION, HeaderName, HeaderValue};
use std::sync::Arc;

use linecast_core::services::archive_check::SeasonChecks;
use linecast_core::services::history::export::Export;
use linecast_core::services::history::rows::{Cell, Kind, ServedColumn};
use linecast_export::{CsvWriter, ParquetWriter, Type, Value};
use linecast_payloads::result_rows::{Served, served};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::responses::Rendered;

/// The version of the export's column mapping (names, order and types);
/// bumped when any of them changes.
pub const COLUMNS_VERSION: &str = "3";

/// The response header naming the snapshot of the exported seasons.
pub const SNAPSHOT_HEADER: &str = "x-linecast-snapshot";

/// A Parquet export's body in the document: a file's bytes (`format:
/// binary`), so generated clients hand it back as bytes, never decoded as
/// text (a CSV export is text, a plain string). Schema only: the body is
/// written by `ExportFormat::render`.
pub struct ExportFile;

impl utoipa::PartialSchema for ExportFile {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .description(Some("The Parquet file (`format=parquet`), as bytes"))
            .into()
    }
}

impl ToSchema for ExportFile {}

/// The `format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Csv,
    Parquet,
}

impl ExportFormat {
    /// `csv` or `parquet`; required.
    pub fn parse(raw: Option<&String>) -> Result<Self, ApiError> {
        match raw.map(String::as_str) {
            Some("csv") => Ok(Self::Csv),
            Some("parquet") => Ok(Self::Parquet),
            Some(other) => Err(ApiError::invalid_param("format", other, "csv, parquet")),
            None => Err(ApiError::invalid("format", "Missing format. Allowed: csv, parquet")),
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Self::Csv => "csv",
            Self::Parquet => "parquet",
        }
    }

    /// The body of `export` in this format, with its download headers;
    /// `checks` are its seasons' archive checks, in `export.seasons` order.
    pub fn render(self, export: &Export, checks: &[Arc<SeasonChecks>]) -> Result<Rendered, ApiError> {
        if checks.len() != export.seasons.len() {
            return Err(ApiError::Internal(format!(
                "{} archive checks for {} seasons",
                checks.len(),
                export.seasons.len()
            )));
        }
        let columns = union_columns(export);
        let body = match self {
            Self::Csv => Rendered::from_bytes(csv(export, checks, &columns)?.into(), "text/csv; charset=utf-8"),
            Self::Parquet => Rendered::precompressed(
                parquet(export, checks, &columns)?.into(),
                "application/vnd.apache.parquet",
            ),
        };
        let filename = format!(
            "{}_{}_{}.{}",
            export.sport.code(),
            export.model_type.code(),
            export.label,
            self.extension()
        );
        let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
            .map_err(|e| ApiError::Internal(format!("content disposition: {e}")))?;
        let snapshot =
            HeaderValue::from_str(&export.snapshot).map_err(|e| ApiError::Internal(format!("snapshot header: {e}")))?;
        Ok(body
            .with_ranges()
            .with_header(CONTENT_DISPOSITION, disposition)
            .with_header(HeaderName::from_static(SNAPSHOT_HEADER), snapshot))
    }
}

/// Columns recomputed on every row and served last.
const TAIL: [&str; 6] = [
    "push",
    "graded",
    "ungraded_reason",
    "game_id",
    "archive_check",
    "forecast_digest",
];

/// The union of the seasons' served columns (see the module doc).
fn union_columns(export: &Export) -> Vec<ServedColumn<'_>> {
    let mut union: Vec<ServedColumn<'_>> = Vec::new();
    let mut tail: Vec<ServedColumn<'_>> = Vec::new();
    for data in &export.seasons {
        for column in data.served_columns() {
            let list = if TAIL.contains(&column.name) {
                &mut tail
            } else {
                &mut union
            };
            if !list.iter().any(|c| c.name == column.name) {
                list.push(column);
            }
        }
    }
    tail.sort_by_key(|c| TAIL.iter().position(|t| *t == c.name));
    union.extend(tail);
    union
}

/// Each season's rows as cells under `columns` (null where the season has
/// no such column), oldest season first.
fn for_each_row<'a>(
    export: &'a Export,
    checks: &'a [Arc<SeasonChecks>],
    columns: &[ServedColumn<'a>],
    mut each: impl FnMut(Vec<Cell<'a>>),
) {
    for (data, checks) in export.seasons.iter().zip(checks) {
        let own = data.served_columns();
        let mine: Vec<Option<&ServedColumn<'_>>> =
            columns.iter().map(|c| own.iter().find(|o| o.name == c.name)).collect();
        for (row, graded, check) in checks.served(data) {
            each(
                mine.iter()
                    .map(|c| c.map_or(Cell::Null, |c| c.cell(row, graded, check)))
                    .collect(),
            );
        }
    }
}

/// A served cell as the file writer takes it.
fn value(served: Served<'_>) -> Value<'_> {
    match served {
        Served::Null => Value::Null,
        Served::Text(text) => Value::Text(text),
        Served::Int(n) => Value::Int(n),
        Served::Float(x) => Value::Float(x),
        Served::Bool(b) => Value::Bool(b),
    }
}

/// A written file's failure, as the 500 it is.
pub(crate) fn failed(e: &linecast_export::Error) -> ApiError {
    ApiError::Internal(e.to_string())
}

fn csv(export: &Export, checks: &[Arc<SeasonChecks>], columns: &[ServedColumn<'_>]) -> Result<Vec<u8>, ApiError> {
    let out = Vec::with_capacity(export.total() * 256);
    let mut out = CsvWriter::new(out, columns.iter().map(|c| c.name)).map_err(|e| failed(&e))?;
    let mut result = Ok(());
    for_each_row(export, checks, columns, |cells| {
        if result.is_ok() {
            result = out.row(columns.iter().zip(cells).map(|(c, cell)| value(served(c, cell))));
        }
    });
    result.map_err(|e| failed(&e))?;
    out.finish().map_err(|e| failed(&e))
}

/// Text columns whose text has a known form, typed in Parquet:
/// `forecast_published_at` (an RFC 3339 instant) and
/// `model_training_through` (a date), both checked by the store parser, and
/// the unknown columns `home_rest_days` (whole days) and `travel_km`. A cell
/// that does not read as its type is null in Parquet.
const TYPED_TEXT: [(&str, Type); 4] = [
    ("forecast_published_at", Type::Instant),
    ("model_training_through", Type::Date),
    ("home_rest_days", Type::Whole),
    ("travel_km", Type::Number),
];

/// The Parquet type of a column's cells.
pub fn data_type(column: &ServedColumn<'_>) -> Type {
    let kind = column.column.kind();
    if kind == Kind::Text
        && let Some((_, typed)) = TYPED_TEXT.iter().find(|(name, _)| *name == column.name)
    {
        return *typed;
    }
    match kind {
        Kind::Date => Type::Date,
        Kind::Time | Kind::Text => Type::Text,
        Kind::Number | Kind::Probability => Type::Number,
        Kind::Outcome => Type::Whole,
        Kind::Flag => Type::Flag,
    }
}

/// A cell's value in Parquet: a date stays a date (the writer reads the
/// text of a typed text column as its type), any other cell as `/results`
/// serves it.
fn parquet_value<'a>(column: &ServedColumn<'_>, cell: Cell<'a>) -> Value<'a> {
    match cell {
        Cell::Date(date) => Value::Date(date),
        cell => value(served(column, cell)),
    }
}

fn parquet(export: &Export, checks: &[Arc<SeasonChecks>], columns: &[ServedColumn<'_>]) -> Result<Vec<u8>, ApiError> {
    let mut table = ParquetWriter::new(columns.iter().map(|c| (c.name, data_type(c))), export.total());
    for_each_row(export, checks, columns, |cells| {
        table.row(columns.iter().zip(cells).map(|(c, cell)| parquet_value(c, cell)));
    });
    // In the footer's key-value metadata, in a fixed order (the bytes, and
    // so the ETag, are the same on every instance). The Arrow schema is not
    // stored: every type is plain in Parquet's own schema, and readers
    // (pyarrow, polars) then show this metadata on the schema they read.
    let metadata = [
        ("linecast.snapshot", export.snapshot.clone()),
        ("linecast.sport", export.sport.code().to_owned()),
        ("linecast.model_type", export.model_type.code().to_owned()),
        ("linecast.season", export.label.clone()),
        ("linecast.columns_version", COLUMNS_VERSION.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    table.write(metadata, Vec::new()).map_err(|e| failed(&e))
}
