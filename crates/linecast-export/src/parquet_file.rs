//! Parquet: typed columns built as Arrow arrays, written as one file
//! ([`ParquetWriter`], the whole table held, one row group) or as it goes
//! ([`ParquetStream`], row groups of [`ParquetStream::ROW_GROUP_ROWS`]
//! rows, what it holds bounded by one row group).

use std::io::Write;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, StringBuilder, TimestampMicrosecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{Field, Schema};
use chrono::{DateTime, NaiveDate};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use crate::value::{DATE_FORMAT, UTC, iso_date};
use crate::{Error, Type, Value};

/// A Parquet file under construction: the whole table is held as Arrow
/// arrays, then written as one record batch.
pub struct ParquetWriter {
    schema: Arc<Schema>,
    builders: Vec<Builder>,
}

impl ParquetWriter {
    /// A table of `columns` (name and type, every column nullable), with
    /// room for `rows` rows.
    pub fn new<'c>(columns: impl IntoIterator<Item = (&'c str, Type)>, rows: usize) -> Self {
        let (fields, builders): (Vec<Field>, Vec<Builder>) = columns
            .into_iter()
            .map(|(name, kind)| (Field::new(name, kind.data_type(), true), Builder::new(kind, rows)))
            .unzip();
        Self {
            schema: Arc::new(Schema::new(fields)),
            builders,
        }
    }

    /// Appends one row: a value per column, in column order (a column left
    /// without one gets nothing, and the file fails to write).
    pub fn row<'v>(&mut self, values: impl IntoIterator<Item = Value<'v>>) {
        for (builder, value) in self.builders.iter_mut().zip(values) {
            builder.push(value);
        }
    }

    /// Writes the file into `out`: Snappy, dictionaries on, `metadata` as
    /// the footer's key-value metadata in the order given, no Arrow schema
    /// stored.
    pub fn write<W: Write + Send>(self, metadata: Vec<(String, String)>, out: W) -> Result<W, Error> {
        let arrays: Vec<ArrayRef> = self.builders.into_iter().map(Builder::finish).collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        let mut writer = arrow_writer(out, self.schema, metadata, None)?;
        writer.write(&batch)?;
        Ok(writer.into_inner()?)
    }
}

/// The one writer configuration of every linecast Parquet file: Snappy,
/// dictionaries on, `metadata` in the footer, no Arrow schema stored, and
/// row groups of at most `row_group_rows` rows (the parquet crate's
/// default when `None`).
fn arrow_writer<W: Write + Send>(
    out: W,
    schema: Arc<Schema>,
    metadata: Vec<(String, String)>,
    row_group_rows: Option<usize>,
) -> Result<ArrowWriter<W>, Error> {
    let mut properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(true)
        .set_key_value_metadata(Some(metadata.into_iter().map(|(k, v)| KeyValue::new(k, v)).collect()));
    if let Some(rows) = row_group_rows {
        properties = properties.set_max_row_group_row_count(Some(rows));
    }
    let options = ArrowWriterOptions::new()
        .with_properties(properties.build())
        .with_skip_arrow_metadata(true);
    Ok(ArrowWriter::try_new_with_options(out, schema, options)?)
}

/// A Parquet file written into `out` as its rows come: rows are gathered
/// as Arrow arrays [`ParquetStream::BATCH_ROWS`] at a time, each batch is
/// encoded into the row group in progress, and a row group is written out
/// each [`ParquetStream::ROW_GROUP_ROWS`] rows. What it holds stays near
/// one row group however long the file grows; the same rows give the same
/// bytes (the groups are cut by count).
pub struct ParquetStream<W: Write + Send> {
    schema: Arc<Schema>,
    kinds: Vec<Type>,
    builders: Vec<Builder>,
    pending: usize,
    writer: ArrowWriter<W>,
}

impl<W: Write + Send> ParquetStream<W> {
    /// Rows gathered before they are encoded.
    pub const BATCH_ROWS: usize = 4096;
    /// Rows of a row group (the last may hold fewer).
    pub const ROW_GROUP_ROWS: usize = 16_384;

    /// A file of `columns` (name and type, every column nullable) with
    /// `metadata` in its footer, written into `out`.
    pub fn new<'c>(
        columns: impl IntoIterator<Item = (&'c str, Type)>,
        metadata: Vec<(String, String)>,
        out: W,
    ) -> Result<Self, Error> {
        let (fields, kinds): (Vec<Field>, Vec<Type>) = columns
            .into_iter()
            .map(|(name, kind)| (Field::new(name, kind.data_type(), true), kind))
            .unzip();
        let schema = Arc::new(Schema::new(fields));
        let writer = arrow_writer(out, schema.clone(), metadata, Some(Self::ROW_GROUP_ROWS))?;
        Ok(Self {
            builders: kinds.iter().map(|kind| Builder::new(*kind, Self::BATCH_ROWS)).collect(),
            schema,
            kinds,
            pending: 0,
            writer,
        })
    }

    /// Appends one row: a value per column, in column order (a column left
    /// without one makes the batch, and the file, fail to write).
    pub fn row<'v>(&mut self, values: impl IntoIterator<Item = Value<'v>>) -> Result<(), Error> {
        for (builder, value) in self.builders.iter_mut().zip(values) {
            builder.push(value);
        }
        self.pending += 1;
        if self.pending == Self::BATCH_ROWS {
            self.encode()?;
        }
        Ok(())
    }

    /// Encodes the rows gathered into the row group in progress.
    fn encode(&mut self) -> Result<(), Error> {
        let arrays: Vec<ArrayRef> = self
            .builders
            .iter_mut()
            .zip(&self.kinds)
            .map(|(builder, kind)| std::mem::replace(builder, Builder::new(*kind, Self::BATCH_ROWS)).finish())
            .collect();
        self.pending = 0;
        let batch = RecordBatch::try_new(self.schema.clone(), arrays)?;
        self.writer.write(&batch)?;
        Ok(())
    }

    /// Writes the last rows and the footer, and hands back `out`.
    pub fn finish(mut self) -> Result<W, Error> {
        if self.pending > 0 {
            self.encode()?;
        }
        Ok(self.writer.into_inner()?)
    }
}

/// A typed column under construction.
enum Builder {
    Text(StringBuilder),
    Date(Date32Builder),
    Instant(TimestampMicrosecondBuilder),
    Whole(Int64Builder),
    Number(Float64Builder),
    Flag(BooleanBuilder),
}

impl Builder {
    fn new(kind: Type, rows: usize) -> Self {
        match kind {
            Type::Text => Self::Text(StringBuilder::with_capacity(rows, rows * 8)),
            Type::Date => Self::Date(Date32Builder::with_capacity(rows)),
            Type::Instant => Self::Instant(TimestampMicrosecondBuilder::with_capacity(rows).with_timezone(UTC)),
            Type::Whole => Self::Whole(Int64Builder::with_capacity(rows)),
            Type::Number => Self::Number(Float64Builder::with_capacity(rows)),
            Type::Flag => Self::Flag(BooleanBuilder::with_capacity(rows)),
        }
    }

    /// Appends `value` in this column's type (see [`Type`]), null where it
    /// is not of it.
    fn push(&mut self, value: Value<'_>) {
        match (self, value) {
            (Self::Text(b), Value::Text(text)) => b.append_value(text),
            (Self::Text(b), Value::Date(date)) => b.append_value(iso_date(date)),
            (Self::Date(b), Value::Date(date)) => b.append_value(days_since_epoch(date)),
            (Self::Date(b), Value::Text(text)) => {
                b.append_option(NaiveDate::parse_from_str(&text, DATE_FORMAT).ok().map(days_since_epoch));
            }
            (Self::Instant(b), Value::Text(text)) => {
                b.append_option(DateTime::parse_from_rfc3339(&text).ok().map(|t| t.timestamp_micros()));
            }
            (Self::Whole(b), Value::Int(n)) => b.append_value(n),
            (Self::Whole(b), Value::Text(text)) => {
                b.append_option(number(&text).and_then(linecast_domain::round::as_whole));
            }
            (Self::Number(b), Value::Float(x)) => b.append_value(x),
            #[expect(clippy::cast_precision_loss, reason = "whole numbers exported are below 2^53")]
            (Self::Number(b), Value::Int(n)) => b.append_value(n as f64),
            (Self::Number(b), Value::Text(text)) => b.append_option(number(&text)),
            (Self::Flag(b), Value::Bool(flag)) => b.append_value(flag),
            (Self::Text(b), _) => b.append_null(),
            (Self::Date(b), _) => b.append_null(),
            (Self::Instant(b), _) => b.append_null(),
            (Self::Whole(b), _) => b.append_null(),
            (Self::Number(b), _) => b.append_null(),
            (Self::Flag(b), _) => b.append_null(),
        }
    }

    fn finish(self) -> ArrayRef {
        match self {
            Self::Text(mut b) => Arc::new(b.finish()),
            Self::Date(mut b) => Arc::new(b.finish()),
            Self::Instant(mut b) => Arc::new(b.finish()),
            Self::Whole(mut b) => Arc::new(b.finish()),
            Self::Number(mut b) => Arc::new(b.finish()),
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
