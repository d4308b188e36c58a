//! The export files seen from outside: CSV read back as text, Parquet read
//! back with the parquet crate's own reader.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod csv;
mod parquet;
