//! Result rows as served (owned by the history area; knows nothing of the
//! season cache, so the cache can use it without a module cycle): every stored column in artifact order (unknown
//! extras included, verbatim), with the outcome column and IMPLIED
//! recomputed by the grading rules (both appended when the store lacks
//! them), then `push`, `graded` and `ungraded_reason`. Placeholder zero
//! openers are null.

use linecast_domain::artifacts::SeasonTable;
use linecast_domain::row::SEASON_TEXT_COLUMNS;
use linecast_domain::{LineField, ModelColumn, ModelType, SeasonRow};
use linecast_grading::GradedRow;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy)]
enum Column<'a> {
    Date,
    Time,
    Away,
    Home,
    Season,
    SeasonType,
    AwayScore,
    HomeScore,
    Outcome,
    Line(LineField),
    Implied,
    Model(ModelColumn),
    /// Position in [`SEASON_TEXT_COLUMNS`].
    Text(usize),
    Extra(&'a str),
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
        other => Column::Extra(other),
    }
}

/// Whole numbers as JSON integers (`-110`, `3`; `round::as_whole`), others
/// as floats.
pub fn number(x: Option<f64>) -> Value {
    match x {
        Some(v) => linecast_domain::round::as_whole(v).map_or_else(|| Value::from(v), Value::from),
        None => Value::Null,
    }
}

fn text(s: Option<&str>) -> Value {
    s.map_or(Value::Null, |s| Value::String(s.to_owned()))
}

/// The recomputed IMPLIED, 6 decimals; null with a one-sided price.
fn implied_value(graded: &GradedRow) -> Value {
    graded
        .implied
        .map_or(Value::Null, |v| Value::from(linecast_domain::round::to_places(v, 6)))
}

fn value(column: Column<'_>, row: &SeasonRow, graded: &GradedRow) -> Value {
    match column {
        Column::Date => row.key.date_string().into(),
        Column::Time => row.key.time_string().into(),
        Column::Away => row.key.away_team.clone().into(),
        Column::Home => row.key.home_team.clone().into(),
        Column::Season => row.season.to_string().into(),
        Column::SeasonType => row.season_type.as_str().into(),
        Column::AwayScore => number(row.away_score),
        Column::HomeScore => number(row.home_score),
        Column::Outcome => graded.outcome.map_or(Value::Null, Value::from),
        // Placeholder zero openers are null here as on /predictions (D5).
        Column::Line(field) => number(row.lines.served(field)),
        Column::Implied => implied_value(graded),
        Column::Model(column) => number(row.models.get(column)),
        Column::Text(i) => text(row.texts()[i]),
        Column::Extra(name) => row
            .extras
            .iter()
            .find(|(n, _)| n.as_ref() == name)
            .map_or(Value::Null, |(_, v)| {
                if v.is_empty() {
                    Value::Null
                } else {
                    Value::String(v.clone())
                }
            }),
    }
}

/// One served row (`table.rows[index]`, graded as `graded`) as a JSON object.
pub fn row_json(table: &SeasonTable, model_type: ModelType, index: usize, graded: &GradedRow) -> Map<String, Value> {
    let outcome = model_type.outcome_column();
    let row = &table.rows[index];
    let mut map = Map::new();
    for name in &table.columns {
        map.insert(name.to_string(), value(classify(name, outcome), row, graded));
    }
    if !map.contains_key(outcome) {
        map.insert(outcome.to_owned(), graded.outcome.map_or(Value::Null, Value::from));
    }
    // Every row carries the recomputed IMPLIED, whether or not the store has the column.
    let implied = ModelColumn::Implied.code();
    if !map.contains_key(implied) {
        map.insert(implied.to_owned(), implied_value(graded));
    }
    map.insert("push".to_owned(), graded.push.map_or(Value::Null, Value::from));
    map.insert("graded".to_owned(), graded.graded.into());
    map.insert(
        "ungraded_reason".to_owned(),
        graded.ungraded_reason.map_or(Value::Null, |r| Value::from(r.as_str())),
    );
    map
}

/// The rows at `order` (indices into `table.rows`, aligned with `graded`),
/// in that order, as raw JSON.
pub fn render_rows(
    table: &SeasonTable,
    model_type: ModelType,
    graded: &[GradedRow],
    order: &[usize],
) -> Vec<Box<RawValue>> {
    order
        .iter()
        .filter_map(|i| {
            let json = serde_json::to_string(&Value::Object(row_json(table, model_type, *i, &graded[*i]))).ok()?;
            RawValue::from_string(json).ok()
        })
        .collect()
}
