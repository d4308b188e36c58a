//! Bulk export files: a typed table written as CSV or as Parquet. Rows go
//! in as [`Value`]s, bytes come out; which columns an export has, their
//! types and what each cell holds are the caller's (the API's export
//! bodies, `linecast-api`'s `presentation::export` and
//! `presentation::history_export`).
//!
//! - [`CsvWriter`]: a header and one record per row, `\n` line ends, each
//!   value as [`Value::csv_text`] writes it.
//! - [`ParquetWriter`]: the columns typed by [`Type`], built as Arrow arrays
//!   and written as one Parquet file: Snappy, dictionaries on, the caller's
//!   key-value metadata in the footer and no Arrow schema stored (every type
//!   is plain in Parquet's own schema), so the same table gives the same
//!   bytes everywhere.
//! - [`ParquetStream`]: the same file written as its rows come, in row
//!   groups of a fixed count, into any `Write`: for files whose length has
//!   no bound (a history export), held a row group at a time.

/// The Parquet and Arrow crates the files are written with, for a caller
/// that reads one back (the API's tests check exported files column by
/// column): one home for the dependency and its version.
pub mod read_back {
    pub use arrow_array;
    pub use arrow_schema;
    pub use parquet;
}

mod csv_file;
mod parquet_file;
mod value;

pub use csv_file::CsvWriter;
pub use parquet_file::{ParquetStream, ParquetWriter};
pub use value::{Type, Value};

/// Why a file could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("writing CSV: {0}")]
    Csv(#[from] csv::Error),
    #[error("writing CSV: {0}")]
    CsvOutput(std::io::Error),
    #[error("export batch: {0}")]
    Batch(#[from] arrow_schema::ArrowError),
    #[error("writing Parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
}
