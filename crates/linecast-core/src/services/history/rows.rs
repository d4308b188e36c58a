//! Result rows as served, typed (owned by the history area; knows nothing of
//! the season cache, so the cache can use it without a module cycle): every
//! stored column in artifact order (unknown extras included, verbatim), with
//! the outcome column and IMPLIED recomputed by the grading rules (both
//! appended when the store lacks them), then `push`, `graded`,
//! `ungraded_reason`, the public `game_id`, `archive_check` and
//! `forecast_digest`. Placeholder zero openers are
//! null.
//!
//! This module says which columns a row has and what each cell holds; how a
//! cell is written (JSON, CSV, Parquet, rounding) is the API's presentation.

use std::borrow::Cow;

use chrono::{NaiveDate, NaiveTime};
use linecast_domain::artifacts::SeasonTable;
use linecast_domain::row::SEASON_TEXT_COLUMNS;
use linecast_domain::{LineField, ModelColumn, ModelType, SeasonRow};
use linecast_grading::GradedRow;

use crate::services::archive_check::row::RowCheck;

/// What a served column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column<'a> {
    Date,
    Time,
    Away,
    Home,
    Season,
    SeasonType,
    AwayScore,
    HomeScore,
    /// The recomputed outcome column of the model type (0/1).
    Outcome,
    Line(LineField),
    /// The recomputed no-vig IMPLIED (unrounded here).
    Implied,
    Model(ModelColumn),
    /// Position in [`SEASON_TEXT_COLUMNS`].
    Text(usize),
    /// A column the contract does not name, served verbatim as text.
    Extra(&'a str),
    Push,
    Graded,
    UngradedReason,
    /// The public game id (the season row's).
    GameId,
    /// The row checked against the kept releases
    /// (`crate::services::archive_check`).
    ArchiveCheck,
    /// The SHA-256 of the release a `matched` row's forecast came from.
    ForecastDigest,
}

/// The type of a column's cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A calendar date.
    Date,
    /// An ET wall-clock time.
    Time,
    /// UTF-8 text.
    Text,
    /// A score, price or line (a contract "number").
    Number,
    /// A probability in [0, 1].
    Probability,
    /// A recomputed 0/1 outcome.
    Outcome,
    /// true or false.
    Flag,
}

impl Column<'_> {
    pub fn kind(self) -> Kind {
        match self {
            Self::Date => Kind::Date,
            Self::Time => Kind::Time,
            Self::Away
            | Self::Home
            | Self::Season
            | Self::SeasonType
            | Self::Text(_)
            | Self::Extra(_)
            | Self::UngradedReason
            | Self::GameId
            | Self::ArchiveCheck
            | Self::ForecastDigest => Kind::Text,
            Self::AwayScore | Self::HomeScore | Self::Line(_) => Kind::Number,
            Self::Implied | Self::Model(_) => Kind::Probability,
            Self::Outcome => Kind::Outcome,
            Self::Push | Self::Graded => Kind::Flag,
        }
    }
}

/// One cell of a served row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell<'a> {
    Null,
    Text(Cow<'a, str>),
    Date(NaiveDate),
    Time(NaiveTime),
    Number(f64),
    Flag(bool),
}

fn classify<'a>(name: &'a str, outcome: &str) -> Column<'a> {
    if name == outcome {
        return Column::Outcome;
    }
    if let Some(field) = LineField::parse(name) {
        return Column::Line(field);
    }
    match ModelColumn::parse(name) {
        Ok(ModelColumn::Implied) => return Column::Implied,
        Ok(column) => return Column::Model(column),
        Err(_) => {}
    }
    if let Some(i) = SEASON_TEXT_COLUMNS.iter().position(|c| *c == name) {
        return Column::Text(i);
    }
    match name {
        "date" => Column::Date,
        "time_est" => Column::Time,
        "away_team" => Column::Away,
        "home_team" => Column::Home,
        "season" => Column::Season,
        "season_type" => Column::SeasonType,
        "away_score" => Column::AwayScore,
        "home_score" => Column::HomeScore,
        "push" => Column::Push,
        "graded" => Column::Graded,
        "ungraded_reason" => Column::UngradedReason,
        "game_id" => Column::GameId,
        "archive_check" => Column::ArchiveCheck,
        "forecast_digest" => Column::ForecastDigest,
        other => Column::Extra(other),
    }
}

/// One served column: its name and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedColumn<'a> {
    pub name: &'a str,
    pub column: Column<'a>,
}

impl ServedColumn<'_> {
    /// The cell of this column in `row`, graded as `graded` and checked
    /// against the archive as `check`.
    pub fn cell<'r>(&self, row: &'r SeasonRow, graded: &GradedRow, check: &'r RowCheck) -> Cell<'r> {
        let number = |x: Option<f64>| x.map_or(Cell::Null, Cell::Number);
        let text = |s: Option<&'r str>| s.map_or(Cell::Null, |s| Cell::Text(Cow::Borrowed(s)));
        match self.column {
            Column::Date => Cell::Date(row.key.date),
            Column::Time => Cell::Time(row.key.time_est),
            Column::Away => text(Some(&row.key.away_team)),
            Column::Home => text(Some(&row.key.home_team)),
            Column::Season => Cell::Text(Cow::Owned(row.season.to_string())),
            Column::SeasonType => text(Some(row.season_type.as_str())),
            Column::AwayScore => number(row.away_score),
            Column::HomeScore => number(row.home_score),
            Column::Outcome => number(graded.outcome.map(f64::from)),
            // Placeholder zero openers are null here as on /predictions (docs/decisions.md, "Placeholder zero openers are null").
            Column::Line(field) => number(row.lines.served(field)),
            Column::Implied => number(graded.implied),
            Column::Model(column) => number(row.models.get(column)),
            Column::Text(i) => text(row.texts()[i]),
            Column::Extra(name) => row
                .extras
                .iter()
                .find(|(n, _)| n.as_ref() == name)
                .map_or(Cell::Null, |(_, v)| {
                    if v.is_empty() {
                        Cell::Null
                    } else {
                        Cell::Text(Cow::Borrowed(v.as_str()))
                    }
                }),
            Column::Push => graded.push.map_or(Cell::Null, Cell::Flag),
            Column::Graded => Cell::Flag(graded.graded),
            Column::UngradedReason => text(graded.ungraded_reason.map(linecast_grading::UngradedReason::as_str)),
            Column::GameId => text(Some(&row.game_id)),
            Column::ArchiveCheck => Cell::Text(Cow::Borrowed(check.check.as_str())),
            Column::ForecastDigest => text(check.forecast_digest()),
        }
    }
}

/// The columns of every served row of `table`, in served order: the
/// artifact's columns (each name once, at its first position), then the
/// outcome column and IMPLIED when the store lacks them, then `push`,
/// `graded`, `ungraded_reason`, `game_id`, `archive_check` and
/// `forecast_digest` unless stored. Recomputed columns (and the game id and
/// checks) are served recomputed wherever they stand; the added columns
/// come last, in the order they were added, so that CSV readers by
/// position keep working.
pub fn served_columns(table: &SeasonTable, model_type: ModelType) -> Vec<ServedColumn<'_>> {
    let outcome = model_type.outcome_column();
    let mut columns: Vec<ServedColumn<'_>> = Vec::with_capacity(table.columns.len() + 8);
    for name in &table.columns {
        if !columns.iter().any(|c| c.name == name.as_ref()) {
            columns.push(ServedColumn {
                name,
                column: classify(name, outcome),
            });
        }
    }
    for (name, column) in [
        (outcome, Column::Outcome),
        (ModelColumn::Implied.code(), Column::Implied),
        ("push", Column::Push),
        ("graded", Column::Graded),
        ("ungraded_reason", Column::UngradedReason),
        ("game_id", Column::GameId),
        ("archive_check", Column::ArchiveCheck),
        ("forecast_digest", Column::ForecastDigest),
    ] {
        if !columns.iter().any(|c| c.name == name) {
            columns.push(ServedColumn { name, column });
        }
    }
    columns
}
