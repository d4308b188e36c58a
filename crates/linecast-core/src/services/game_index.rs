//! The index of games per kept predictions release: what a history entry
//! needs of a game's row, encoded once when the release is kept, so a
//! game's history reads its own index rows and never the archive.
//!
//! Owns the row encoding (a versioned, tab-separated text that gives back
//! the very row the archive's parser read: every number written in Rust's
//! shortest round-trip form) and which games a table indexes. Must not know
//! SQL (the `ReleaseLog` port stores the text as it is).

use chrono::{NaiveDate, NaiveTime};
use linecast_domain::artifacts::{PredictionRow, PredictionTable};
use linecast_domain::{GameKey, LineField, ModelColumn, ModelProbs};

use crate::ports::releases::IndexedGame;

/// The first field of every encoded row: the encoding's version.
const VERSION: &str = "1";

/// The index rows of `table`: one per game, in the table's order.
pub fn index_table(table: &PredictionTable) -> Vec<IndexedGame> {
    table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| IndexedGame {
            game_id: row.game_id.as_str().to_owned(),
            ordinal: u32::try_from(i).unwrap_or(u32::MAX),
            row: encode(&table.models_present, row),
        })
        .collect()
}

fn escape(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(value: &str) -> Option<String> {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                _ => return None,
            });
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn number(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

fn read_number(field: &str) -> Option<Option<f64>> {
    if field.is_empty() {
        return Some(None);
    }
    field.parse::<f64>().ok().map(Some)
}

/// `row` of a release whose header had the model columns `present`.
pub fn encode(present: &[ModelColumn], row: &PredictionRow) -> String {
    let mut fields: Vec<String> = vec![
        VERSION.to_owned(),
        row.key.date.format("%Y-%m-%d").to_string(),
        row.key.time_est.format("%H:%M:%S%.f").to_string(),
        row.key.away_team.as_str().to_owned(),
        row.key.home_team.as_str().to_owned(),
        present.iter().map(|m| m.code()).collect::<Vec<_>>().join(","),
    ];
    fields.extend(LineField::ALL.iter().map(|f| number(row.lines.get(*f))));
    fields.extend(ModelColumn::ALL.iter().map(|m| number(row.models.get(*m))));
    for (name, value) in &row.extras {
        fields.push(name.to_string());
        fields.push(value.clone());
    }
    let mut out = String::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        escape(&mut out, field);
    }
    out
}

/// The row `encoded` holds (its id `game_id`) and the model columns its
/// release's header had; `None` when the text is not an encoded row.
pub fn decode(game_id: &str, encoded: &str) -> Option<(PredictionRow, Vec<ModelColumn>)> {
    let fields: Vec<String> = encoded.split('\t').map(unescape).collect::<Option<_>>()?;
    let lines_at = 6;
    let models_at = lines_at + LineField::ALL.len();
    let extras_at = models_at + ModelColumn::ALL.len();
    if fields.len() < extras_at || fields[0] != VERSION || (fields.len() - extras_at) % 2 != 0 {
        return None;
    }
    let date = NaiveDate::parse_from_str(&fields[1], "%Y-%m-%d").ok()?;
    let time = NaiveTime::parse_from_str(&fields[2], "%H:%M:%S%.f").ok()?;
    let present = if fields[5].is_empty() {
        Vec::new()
    } else {
        fields[5]
            .split(',')
            .map(|c| ModelColumn::parse(c).ok())
            .collect::<Option<Vec<_>>>()?
    };
    let mut lines = linecast_domain::Lines::default();
    for (field, raw) in LineField::ALL.iter().zip(&fields[lines_at..models_at]) {
        lines.set(*field, read_number(raw)?);
    }
    let mut models = ModelProbs::default();
    for (column, raw) in ModelColumn::ALL.iter().zip(&fields[models_at..extras_at]) {
        models.set(*column, read_number(raw)?);
    }
    let extras = fields[extras_at..]
        .chunks(2)
        .map(|pair| (std::sync::Arc::from(pair[0].as_str()), pair[1].clone()))
        .collect();
    let row = PredictionRow {
        key: GameKey::new(date, time, fields[3].as_str(), fields[4].as_str()),
        game_id: game_id.into(),
        lines,
        models,
        extras,
    };
    Some((row, present))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> PredictionRow {
        let mut lines = linecast_domain::Lines::default();
        lines.set(LineField::HomeMoneyLine, Some(-145.0));
        lines.set(LineField::AwayMoneyLine, Some(125.0));
        lines.set(LineField::OpenHomeMoneyLine, Some(-131.5));
        let mut models = ModelProbs::default();
        models.set(ModelColumn::Blend, Some(0.1 + 0.2));
        models.set(ModelColumn::Xgb, Some(0.583_333_333_333_333_4));
        PredictionRow {
            key: GameKey::new(
                NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
                NaiveTime::from_hms_opt(19, 30, 0).unwrap(),
                "New York Knicks",
                "Boston\tCeltics\\",
            ),
            game_id: "nba-20261120-new_york_knicks-boston_celtics".into(),
            lines,
            models,
            extras: vec![
                (std::sync::Arc::from("note"), "a\tb\nc".to_owned()),
                (std::sync::Arc::from("empty"), String::new()),
            ],
        }
    }

    #[test]
    fn a_row_reads_back_equal_with_every_digit_and_the_header_models() {
        let present = vec![ModelColumn::Blend, ModelColumn::Xgb];
        let encoded = encode(&present, &row());
        let (back, models) = decode("nba-20261120-new_york_knicks-boston_celtics", &encoded).unwrap();
        assert_eq!(back, row());
        assert_eq!(back.models.get(ModelColumn::Blend), Some(0.300_000_000_000_000_04));
        assert_eq!(back.lines.get(LineField::OverUnder), None);
        assert_eq!(back.extras[0].1, "a\tb\nc");
        assert_eq!(models, present);
    }

    #[test]
    fn text_that_is_not_an_encoded_row_is_refused() {
        assert!(decode("x", "").is_none());
        assert!(decode("x", "2\t2026-11-20").is_none());
        let mut wrong = encode(&[], &row());
        wrong.push_str("\tdangling");
        assert!(decode("x", &wrong).is_none());
    }
}
