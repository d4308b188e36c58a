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
//! date, every number a double, the rest text, in row groups of 16,384
//! rows. The files are written by `linecast-export` into a spool file
//! (`responses::spooled`): the export is never held whole in memory.

use std::borrow::Cow;

use actix_web::http::header::{CONTENT_DISPOSITION, HeaderValue};
use linecast_core::services::releases::{GameRelease, HistoryPlan, Releases};
use linecast_domain::{ModelColumn, ModelType};
use linecast_export::{CsvWriter, ParquetStream, Type};
use linecast_payloads::slate::prediction_game;
use serde_json::Value;

use super::export::{ExportFormat, failed};
use crate::error::ApiError;
use crate::responses::spooled::{SpoolDir, SpoolFile, Spooled};

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

/// The columns of an export in `model_type` whose rows were served with
/// the model columns `models`.
fn columns(model_type: ModelType, models: &[ModelColumn]) -> Vec<(String, Type)> {
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
        if models.contains(column) {
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

/// A cell as CSV writes it: null empty, text as is, any other JSON value
/// as JSON writes it.
fn csv_value(value: Option<&Value>) -> linecast_export::Value<'_> {
    match value {
        None | Some(Value::Null) => linecast_export::Value::Null,
        Some(Value::String(s)) => linecast_export::Value::Text(Cow::Borrowed(s)),
        Some(other) => linecast_export::Value::Text(Cow::Owned(other.to_string())),
    }
}

/// A cell in Parquet: text for a text, instant or date column (the writer
/// reads the last two), a number for a number column, null otherwise.
fn parquet_value(kind: Type, value: Option<&Value>) -> linecast_export::Value<'_> {
    let value = match kind {
        Type::Number => value.and_then(Value::as_f64).map(linecast_export::Value::Float),
        _ => value
            .and_then(Value::as_str)
            .map(|s| linecast_export::Value::Text(Cow::Borrowed(s))),
    };
    value.unwrap_or(linecast_export::Value::Null)
}

/// The history export of `plan` in `format`, written release by release
/// into a file of `spool`: one release's rows (and their cells) are held
/// at a time, and a Parquet file writes out each row group as it fills,
/// so what rendering holds does not grow with the number of releases.
pub async fn render(
    format: ExportFormat,
    plan: &HistoryPlan,
    releases: &Releases,
    spool: &SpoolDir,
) -> Result<Spooled, ApiError> {
    let models = releases.history_models(plan).await?;
    let columns = columns(plan.model_type, &models);
    let label = plan.season.map_or_else(|| "all".to_owned(), |s| s.to_string());
    let (body, extension) = match format {
        ExportFormat::Csv => (
            csv(plan, releases, &columns, spool.file(true)?)
                .await?
                .finish(HeaderValue::from_static("text/csv; charset=utf-8"))?,
            "csv",
        ),
        ExportFormat::Parquet => (
            parquet(plan, releases, &label, &columns, spool.file(false)?)
                .await?
                .finish(HeaderValue::from_static("application/vnd.apache.parquet"))?,
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
    Ok(body.with_header(CONTENT_DISPOSITION, disposition))
}

/// The cells of the rows of the `i`th release of `plan`.
async fn release_cells(
    plan: &HistoryPlan,
    releases: &Releases,
    i: usize,
) -> Result<Vec<serde_json::Map<String, Value>>, ApiError> {
    let rows: Vec<GameRelease> = releases.history_release_rows(plan, i).await?;
    Ok(rows.iter().map(|r| cells(plan.model_type, r)).collect())
}

async fn csv(
    plan: &HistoryPlan,
    releases: &Releases,
    columns: &[(String, Type)],
    file: SpoolFile,
) -> Result<SpoolFile, ApiError> {
    let mut out = CsvWriter::new(file, columns.iter().map(|(name, _)| name.as_str())).map_err(|e| failed(&e))?;
    for i in 0..plan.releases.len() {
        for row in release_cells(plan, releases, i).await? {
            out.row(columns.iter().map(|(name, _)| csv_value(row.get(name))))
                .map_err(|e| failed(&e))?;
        }
    }
    out.finish().map_err(|e| failed(&e))
}

async fn parquet(
    plan: &HistoryPlan,
    releases: &Releases,
    label: &str,
    columns: &[(String, Type)],
    file: SpoolFile,
) -> Result<SpoolFile, ApiError> {
    let metadata = [
        ("linecast.sport", plan.sport.code().to_owned()),
        ("linecast.model_type", plan.model_type.code().to_owned()),
        ("linecast.season", label.to_owned()),
        ("linecast.releases", plan.releases.len().to_string()),
        ("linecast.columns_version", HISTORY_COLUMNS_VERSION.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut out = ParquetStream::new(
        columns.iter().map(|(name, kind)| (name.as_str(), *kind)),
        metadata,
        file,
    )
    .map_err(|e| failed(&e))?;
    for i in 0..plan.releases.len() {
        for row in release_cells(plan, releases, i).await? {
            out.row(columns.iter().map(|(name, kind)| parquet_value(*kind, row.get(name))))
                .map_err(|e| failed(&e))?;
        }
    }
    out.finish().map_err(|e| failed(&e))
}
