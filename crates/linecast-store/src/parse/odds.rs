//! `odds/{sport}.csv`: the books' current prices.

use linecast_domain::artifacts::OddsRow;
use linecast_domain::{GameId, LineField, Lines, Sport};

use super::problems::Problems;
use super::sheet::{Cells, Col, Sheet, number_games};

/// Parses the odds table. Every line column present is read.
pub fn odds(sport: Sport, bytes: &[u8], problems: &mut Problems) -> Option<Vec<OddsRow>> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let match_id = sheet.require("match_id", problems);
    let key = sheet.key_columns(problems);
    let last_updated = sheet.require("last_updated", problems);
    let (match_id, key, last_updated) = (match_id?, key?, last_updated?);
    let lines = line_columns(&sheet, &LineField::ALL);
    let mut rows = Vec::new();
    sheet.each_row(problems, |c| {
        let m = c.text(match_id);
        let k = c.key(&key);
        let l = read_lines(c, &lines);
        refuse_impossible(c, sport, &lines, &l);
        let u = c.naive_datetime(last_updated);
        if let (Some(match_id), Some(key), Some(last_updated), true) = (m, k, u, c.ok()) {
            rows.push(OddsRow {
                match_id: match_id.to_owned(),
                key,
                game_id: GameId::default(),
                lines: l,
                last_updated,
            });
        }
    });
    number_games(sport, &mut rows, |r| &r.key, |r| &mut r.game_id);
    Some(rows)
}

/// The header columns of `fields` that are present.
pub fn line_columns(sheet: &Sheet<'_>, fields: &[LineField]) -> Vec<(LineField, Col)> {
    fields
        .iter()
        .filter_map(|&f| sheet.column(f.name()).map(|c| (f, c)))
        .collect()
}

/// Fails the row on the first line no book could have quoted
/// ([`LineField::impossible`]: a price strictly between -100 and +100, a
/// run or puck line other than ±1.5), naming its column. Predictions and
/// odds are read through it; a broken version is never kept as a release.
pub fn refuse_impossible(c: &mut Cells<'_>, sport: Sport, cols: &[(LineField, Col)], lines: &Lines) {
    for &(field, col) in cols {
        if let Some(value) = lines.get(field)
            && let Some(reason) = field.impossible(sport, value)
        {
            c.fail(col.name, reason);
            return;
        }
    }
}

/// Reads line fields as nullable numbers. A `0` opener is read as 0.0: the
/// placeholder "no opener" is the serving layer's to suppress, so the
/// parsed form stays faithful to the object.
pub fn read_lines(c: &mut Cells<'_>, cols: &[(LineField, Col)]) -> Lines {
    let mut lines = Lines::default();
    for &(field, col) in cols {
        lines.set(field, c.number(Some(col)));
    }
    lines
}
