//! The predictions history export: one row per game and kept release, as
//! CSV or typed Parquet, holding the very values a predictions game had in
//! that release (through `slate::prediction_game`, the one home of the
//! served values: probabilities, lines, openers, EV and their rounding).
//!
//! Columns: `game_id`, `published_at`, `digest`, `date`, `time_est`,
//! `away_team`, `home_team`, the model columns any exported release served
//! (catalog order, IMPLIED first; null where a release did not serve one),
//! then the market's current line fields, openers and EV fields in contract
//! order. Parquet: `published_at` a UTC microsecond timestamp, `date` a
//! date, every number a double, the rest text.

use std::sync::Arc;

use actix_web::http::header::{CONTENT_DISPOSITION, HeaderValue};
use arrow_array::builder::{Date32Builder, Float64Builder, StringBuilder, TimestampMicrosecondBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use chrono::NaiveDate;
use linecast_core::services::releases::{GameRelease, HistoryPlan};
use linecast_domain::{ModelColumn, ModelType};
use parquet::file::metadata::KeyValue;
use serde_json::Value;

use super::export::{ExportFormat, parquet_file};
use super::slate::prediction_game;
use crate::error::ApiError;
use crate::responses::Rendered;

/// The version of this export's column mapping; bumped when names, order or
/// types change.
pub const HISTORY_COLUMNS_VERSION: &str = "1";

const HEAD: [&str; 7] = [
    "game_id",
    "published_at",
    "digest",
    "date",
    "time_est",
    "away_team",
    "home_team",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Type {
    Text,
    Instant,
    Date,
    Number,
}

/// The columns of an export of `rows` in `model_type`.
fn columns(model_type: ModelType, rows: &[GameRelease]) -> Vec<(String, Type)> {
    let mut out: Vec<(String, Type)> = HEAD
        .iter()
        .map(|name| {
            let kind = match *name {
                "published_at" => Type::Instant,
                "date" => Type::Date,
                _ => Type::Text,
            };
            ((*name).to_owned(), kind)
        })
        .collect();
    for column in ModelColumn::ALL {
        if rows.iter().any(|r| r.models.contains(column)) {
            out.push((column.code().to_owned(), Type::Number));
        }
    }
    let (neg, pos) = model_type.ev_fields();
    for field in model_type
        .line_fields()
        .iter()
        .chain(model_type.open_fields())
        .chain([&neg, &pos])
    {
        out.push(((*field).to_owned(), Type::Number));
    }
    out
}

/// Each row's cells by column name, as the predictions game serves them.
fn cells(model_type: ModelType, row: &GameRelease) -> serde_json::Map<String, Value> {
    let game = prediction_game(&row.row, model_type, &row.models);
    let mut map = match serde_json::to_value(&game) {
        Ok(Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    if let Some(Value::Object(probabilities)) = map.remove("predictions") {
        map.extend(probabilities);
    }
    if let Some(time) = map.remove("time") {
        map.insert("time_est".to_owned(), time);
    }
    map.insert(
        "published_at".to_owned(),
        Value::from(
            row.release
                .published_at
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true),
        ),
    );
    map.insert("digest".to_owned(), Value::from(row.release.digest.clone()));
    map
}

fn csv_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The body of the history export of `plan` (rows `rows`) in `format`.
pub fn render(format: ExportFormat, plan: &HistoryPlan, rows: &[GameRelease]) -> Result<Rendered, ApiError> {
    let columns = columns(plan.model_type, rows);
    let table: Vec<serde_json::Map<String, Value>> = rows.iter().map(|r| cells(plan.model_type, r)).collect();
    let label = plan.season.map_or_else(|| "all".to_owned(), |s| s.to_string());
    let (body, extension) = match format {
        ExportFormat::Csv => (
            Rendered::from_bytes(csv(&columns, &table)?.into(), "text/csv; charset=utf-8"),
            "csv",
        ),
        ExportFormat::Parquet => (
            Rendered::precompressed(
                parquet(plan, &label, &columns, &table)?.into(),
                "application/vnd.apache.parquet",
            ),
            "parquet",
        ),
    };
    let filename = format!(
        "{}_{}_history_{label}.{extension}",
        plan.sport.code(),
        plan.model_type.code()
    );
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .map_err(|e| ApiError::Internal(format!("content disposition: {e}")))?;
    Ok(body.with_ranges().with_header(CONTENT_DISPOSITION, disposition))
}

fn csv(columns: &[(String, Type)], table: &[serde_json::Map<String, Value>]) -> Result<Vec<u8>, ApiError> {
    let failed = |e: csv::Error| ApiError::Internal(format!("writing CSV: {e}"));
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::with_capacity(table.len() * 200));
    out.write_record(columns.iter().map(|(name, _)| name.as_str()))
        .map_err(failed)?;
    for row in table {
        out.write_record(columns.iter().map(|(name, _)| csv_text(row.get(name))))
            .map_err(failed)?;
    }
    out.into_inner()
        .map_err(|e| ApiError::Internal(format!("writing CSV: {e}")))
}

fn days_since_epoch(date: NaiveDate) -> i32 {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    i32::try_from((date - epoch).num_days()).unwrap_or(i32::MAX)
}

fn array(kind: Type, name: &str, table: &[serde_json::Map<String, Value>]) -> ArrayRef {
    let values = table.iter().map(|row| row.get(name));
    match kind {
        Type::Text => {
            let mut b = StringBuilder::with_capacity(table.len(), table.len() * 16);
            for v in values {
                b.append_option(v.and_then(Value::as_str));
            }
            Arc::new(b.finish())
        }
        Type::Instant => {
            let mut b = TimestampMicrosecondBuilder::with_capacity(table.len()).with_timezone("UTC");
            for v in values {
                b.append_option(
                    v.and_then(Value::as_str)
                        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                        .map(|t| t.timestamp_micros()),
                );
            }
            Arc::new(b.finish())
        }
        Type::Date => {
            let mut b = Date32Builder::with_capacity(table.len());
            for v in values {
                b.append_option(
                    v.and_then(Value::as_str)
                        .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
                        .map(days_since_epoch),
                );
            }
            Arc::new(b.finish())
        }
        Type::Number => {
            let mut b = Float64Builder::with_capacity(table.len());
            for v in values {
                b.append_option(v.and_then(Value::as_f64));
            }
            Arc::new(b.finish())
        }
    }
}

fn parquet(
    plan: &HistoryPlan,
    label: &str,
    columns: &[(String, Type)],
    table: &[serde_json::Map<String, Value>],
) -> Result<Vec<u8>, ApiError> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, kind)| {
                let data_type = match kind {
                    Type::Text => DataType::Utf8,
                    Type::Instant => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
                    Type::Date => DataType::Date32,
                    Type::Number => DataType::Float64,
                };
                Field::new(name, data_type, true)
            })
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = columns.iter().map(|(name, kind)| array(*kind, name, table)).collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays)
        .map_err(|e| ApiError::Internal(format!("history export batch: {e}")))?;
    let metadata = [
        ("linecast.sport", plan.sport.code().to_owned()),
        ("linecast.model_type", plan.model_type.code().to_owned()),
        ("linecast.season", label.to_owned()),
        ("linecast.releases", plan.releases.len().to_string()),
        ("linecast.columns_version", HISTORY_COLUMNS_VERSION.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| KeyValue::new(k.to_owned(), v))
    .collect();
    parquet_file(schema, &batch, metadata)
}
