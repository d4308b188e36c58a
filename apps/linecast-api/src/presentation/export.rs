//! The bulk export bodies: one season, or all of history, as CSV or typed
//! Parquet, holding the very rows, columns and values `/results` serves
//! (through `result_rows::served`, the one home of the value rules).
//!
//! Columns: the union of the seasons' served columns, in first-seen order
//! oldest season first, with `push`, `graded`, `ungraded_reason` and
//! `game_id` last as on every result row; a season without a column has
//! null there.
//!
//! Parquet types follow the column's kind, except for the text columns of
//! [`TYPED_TEXT`], whose text has a known form: Parquet holds them typed
//! while CSV (and `/results`) keep the text.

use std::sync::Arc;

use actix_web::http::header::{CONTENT_DISPOSITION, HeaderName, HeaderValue};
use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use chrono::{DateTime, NaiveDate};
use linecast_core::services::history::export::Export;
use linecast_core::services::history::rows::{Cell, Kind, ServedColumn};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use serde::Serialize;
use utoipa::ToSchema;

use super::result_rows::{Served, served};
use crate::error::ApiError;
use crate::responses::Rendered;

/// The version of the export's column mapping (names, order and types);
/// bumped when any of them changes.
pub const COLUMNS_VERSION: &str = "2";

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

    /// The body of `export` in this format, with its download headers.
    pub fn render(self, export: &Export) -> Result<Rendered, ApiError> {
        let columns = union_columns(export);
        let body = match self {
            Self::Csv => Rendered::from_bytes(csv(export, &columns)?.into(), "text/csv; charset=utf-8"),
            Self::Parquet => {
                Rendered::precompressed(parquet(export, &columns)?.into(), "application/vnd.apache.parquet")
            }
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
const TAIL: [&str; 4] = ["push", "graded", "ungraded_reason", "game_id"];

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
fn for_each_row<'a>(export: &'a Export, columns: &[ServedColumn<'a>], mut each: impl FnMut(Vec<Cell<'a>>)) {
    for data in &export.seasons {
        let own = data.served_columns();
        let mine: Vec<Option<&ServedColumn<'_>>> =
            columns.iter().map(|c| own.iter().find(|o| o.name == c.name)).collect();
        for (row, graded) in data.served_rows() {
            each(
                mine.iter()
                    .map(|c| c.map_or(Cell::Null, |c| c.cell(row, graded)))
                    .collect(),
            );
        }
    }
}

/// One CSV cell: null is empty, booleans `true`/`false`, numbers as the
/// JSON of `/results` writes them.
fn csv_text(value: Served<'_>) -> String {
    match value {
        Served::Null => String::new(),
        Served::Text(text) => text.into_owned(),
        Served::Int(n) => n.to_string(),
        Served::Float(x) => serde_json::Number::from_f64(x)
            .map(|n| n.to_string())
            .unwrap_or_default(),
        Served::Bool(b) => b.to_string(),
    }
}

fn csv(export: &Export, columns: &[ServedColumn<'_>]) -> Result<Vec<u8>, ApiError> {
    let failed = |e: csv::Error| ApiError::Internal(format!("writing CSV: {e}"));
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::with_capacity(export.total() * 256));
    out.write_record(columns.iter().map(|c| c.name)).map_err(failed)?;
    let mut result = Ok(());
    for_each_row(export, columns, |cells| {
        if result.is_ok() {
            let record = columns.iter().zip(cells).map(|(c, cell)| csv_text(served(c, cell)));
            result = out.write_record(record).map_err(failed);
        }
    });
    result?;
    out.into_inner()
        .map_err(|e| ApiError::Internal(format!("writing CSV: {e}")))
}

/// Text columns whose text has a known form, typed in Parquet:
/// `forecast_published_at` (an RFC 3339 instant) and
/// `model_training_through` (a date), both checked by the store parser, and
/// the unknown columns `home_rest_days` (whole days) and `travel_km`. A cell
/// that does not read as its type is null in Parquet.
const TYPED_TEXT: [(&str, Typed); 4] = [
    ("forecast_published_at", Typed::Instant),
    ("model_training_through", Typed::Date),
    ("home_rest_days", Typed::Whole),
    ("travel_km", Typed::Number),
];

/// The Parquet type of a text column of [`TYPED_TEXT`].
#[derive(Debug, Clone, Copy)]
enum Typed {
    /// A UTC timestamp in microseconds.
    Instant,
    Date,
    Whole,
    Number,
}

impl Typed {
    fn data_type(self) -> DataType {
        match self {
            Self::Instant => DataType::Timestamp(TimeUnit::Microsecond, Some(UTC.into())),
            Self::Date => DataType::Date32,
            Self::Whole => DataType::Int64,
            Self::Number => DataType::Float64,
        }
    }
}

/// The time zone of a timestamp column: its instants are adjusted to UTC.
const UTC: &str = "UTC";

/// The Arrow type of a column's cells in Parquet.
pub fn data_type(column: &ServedColumn<'_>) -> DataType {
    let kind = column.column.kind();
    if kind == Kind::Text
        && let Some((_, typed)) = TYPED_TEXT.iter().find(|(name, _)| *name == column.name)
    {
        return typed.data_type();
    }
    match kind {
        Kind::Date => DataType::Date32,
        Kind::Time | Kind::Text => DataType::Utf8,
        Kind::Number | Kind::Probability => DataType::Float64,
        Kind::Outcome => DataType::Int64,
        Kind::Flag => DataType::Boolean,
    }
}

/// A typed column under construction.
enum Builder {
    Date(Date32Builder),
    Timestamp(TimestampMicrosecondBuilder),
    Text(StringBuilder),
    Float(Float64Builder),
    Int(Int64Builder),
    Flag(BooleanBuilder),
}

impl Builder {
    fn new(data_type: &DataType, rows: usize) -> Self {
        match data_type {
            DataType::Date32 => Self::Date(Date32Builder::with_capacity(rows)),
            DataType::Timestamp(..) => {
                Self::Timestamp(TimestampMicrosecondBuilder::with_capacity(rows).with_timezone(UTC))
            }
            DataType::Float64 => Self::Float(Float64Builder::with_capacity(rows)),
            DataType::Int64 => Self::Int(Int64Builder::with_capacity(rows)),
            DataType::Boolean => Self::Flag(BooleanBuilder::with_capacity(rows)),
            _ => Self::Text(StringBuilder::with_capacity(rows, rows * 8)),
        }
    }

    /// Appends `cell` of `column` in this type: a text cell of a typed
    /// column (see [`TYPED_TEXT`]) read as that type, any other cell as
    /// `/results` serves it.
    fn push(&mut self, column: &ServedColumn<'_>, cell: Cell<'_>) {
        match (self, cell) {
            (Self::Date(b), Cell::Date(date)) => b.append_value(days_since_epoch(date)),
            (Self::Date(b), Cell::Text(text)) => {
                b.append_option(NaiveDate::parse_from_str(&text, "%Y-%m-%d").ok().map(days_since_epoch));
            }
            (Self::Timestamp(b), Cell::Text(text)) => {
                b.append_option(DateTime::parse_from_rfc3339(&text).ok().map(|t| t.timestamp_micros()));
            }
            (Self::Float(b), Cell::Text(text)) => b.append_option(number(&text)),
            (Self::Int(b), Cell::Text(text)) => {
                b.append_option(number(&text).and_then(linecast_domain::round::as_whole));
            }
            (builder, cell) => builder.push_served(served(column, cell)),
        }
    }

    /// Appends a served value, null where it is not of this type.
    fn push_served(&mut self, value: Served<'_>) {
        match (self, value) {
            (Self::Text(b), Served::Text(text)) => b.append_value(text),
            (Self::Float(b), Served::Float(x)) => b.append_value(x),
            #[expect(clippy::cast_precision_loss, reason = "whole numbers served are below 2^53")]
            (Self::Float(b), Served::Int(n)) => b.append_value(n as f64),
            (Self::Int(b), Served::Int(n)) => b.append_value(n),
            (Self::Flag(b), Served::Bool(flag)) => b.append_value(flag),
            (Self::Date(b), _) => b.append_null(),
            (Self::Timestamp(b), _) => b.append_null(),
            (Self::Text(b), _) => b.append_null(),
            (Self::Float(b), _) => b.append_null(),
            (Self::Int(b), _) => b.append_null(),
            (Self::Flag(b), _) => b.append_null(),
        }
    }

    fn finish(self) -> ArrayRef {
        match self {
            Self::Date(mut b) => Arc::new(b.finish()),
            Self::Timestamp(mut b) => Arc::new(b.finish()),
            Self::Text(mut b) => Arc::new(b.finish()),
            Self::Float(mut b) => Arc::new(b.finish()),
            Self::Int(mut b) => Arc::new(b.finish()),
            Self::Flag(mut b) => Arc::new(b.finish()),
        }
    }
}

/// A finite number written as text (`7`, `1618`, `3.5`).
fn number(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|x| x.is_finite())
}

fn days_since_epoch(date: NaiveDate) -> i32 {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    i32::try_from((date - epoch).num_days()).unwrap_or(i32::MAX)
}

fn parquet(export: &Export, columns: &[ServedColumn<'_>]) -> Result<Vec<u8>, ApiError> {
    let types: Vec<DataType> = columns.iter().map(data_type).collect();
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .zip(&types)
            .map(|(c, t)| Field::new(c.name, t.clone(), true))
            .collect::<Vec<_>>(),
    ));
    let mut builders: Vec<Builder> = types.iter().map(|t| Builder::new(t, export.total())).collect();
    for_each_row(export, columns, |cells| {
        for ((builder, column), cell) in builders.iter_mut().zip(columns).zip(cells) {
            builder.push(column, cell);
        }
    });
    let arrays: Vec<ArrayRef> = builders.into_iter().map(Builder::finish).collect();
    let batch =
        RecordBatch::try_new(schema.clone(), arrays).map_err(|e| ApiError::Internal(format!("export batch: {e}")))?;
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
    .map(|(k, v)| KeyValue::new(k.to_owned(), v))
    .collect();
    parquet_file(schema, &batch, metadata)
}

/// One Parquet file of `batch`: Snappy, dictionaries on, `metadata` in the
/// footer's key-value metadata and no Arrow schema stored (every type is
/// plain in Parquet's own schema). Every export's file is written here.
pub(crate) fn parquet_file(
    schema: Arc<Schema>,
    batch: &RecordBatch,
    metadata: Vec<KeyValue>,
) -> Result<Vec<u8>, ApiError> {
    let failed = |e: parquet::errors::ParquetError| ApiError::Internal(format!("writing Parquet: {e}"));
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(true)
        .set_key_value_metadata(Some(metadata))
        .build();
    let options = ArrowWriterOptions::new()
        .with_properties(properties)
        .with_skip_arrow_metadata(true);
    let mut writer = ArrowWriter::try_new_with_options(Vec::new(), schema, options).map_err(failed)?;
    writer.write(batch).map_err(failed)?;
    writer.into_inner().map_err(failed)
}
