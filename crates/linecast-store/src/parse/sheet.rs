//! The CSV reading every artifact parser shares: header lookup by name, typed
//! cells with the contract's null and format rules, and problem collection.
//! It knows nothing about which artifact it reads.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use csv::{ByteRecord, StringRecord};
use linecast_domain::artifacts::KEY_COLUMNS;
use linecast_domain::{GameId, GameKey, Sport, Text, assign_game_ids};

use super::problems::{Problems, WHOLE};

/// A located column: its index in the header and its contract name.
#[derive(Debug, Clone, Copy)]
pub struct Col {
    pub idx: usize,
    pub name: &'static str,
}

/// The four key columns of a game.
#[derive(Debug, Clone, Copy)]
pub struct KeyCols {
    date: Col,
    time_est: Col,
    away_team: Col,
    home_team: Col,
}

/// An open CSV object: its header and a reader positioned on the first data row.
pub struct Sheet<'b> {
    headers: Vec<Arc<str>>,
    index: HashMap<Arc<str>, usize>,
    reader: csv::Reader<&'b [u8]>,
    /// Team names and texts handed out so far: equal values share one
    /// allocation across the sheet's rows.
    interned: HashSet<Text>,
}

impl<'b> Sheet<'b> {
    /// Reads the header. Returns `None` (with a problem) when the header is
    /// unreadable; duplicate or empty names are problems but the sheet opens.
    pub fn open(bytes: &'b [u8], problems: &mut Problems) -> Option<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(true)
            .from_reader(bytes);
        let raw = match reader.byte_headers() {
            Ok(raw) => raw.clone(),
            Err(err) => {
                problems.push(0, WHOLE, format!("unreadable CSV header: {err}"));
                return None;
            }
        };
        let mut headers = Vec::with_capacity(raw.len());
        let mut index = HashMap::with_capacity(raw.len());
        for (i, field) in raw.iter().enumerate() {
            let Ok(name) = std::str::from_utf8(field) else {
                problems.push(0, WHOLE, format!("header column {} is not UTF-8", i + 1));
                return None;
            };
            let name: Arc<str> = Arc::from(name);
            if name.is_empty() {
                problems.push(0, WHOLE, format!("header column {} has no name", i + 1));
            } else if index.contains_key(&name) {
                problems.push(0, &name, "duplicate column name in header");
            } else {
                index.insert(Arc::clone(&name), i);
            }
            headers.push(name);
        }
        Some(Self {
            headers,
            index,
            reader,
            interned: HashSet::new(),
        })
    }

    pub fn headers(&self) -> &[Arc<str>] {
        &self.headers
    }

    /// The column if the header has it.
    pub fn column(&self, name: &'static str) -> Option<Col> {
        self.index.get(name).map(|&idx| Col { idx, name })
    }

    /// The column, or a row-0 problem when the header lacks it.
    pub fn require(&self, name: &'static str, problems: &mut Problems) -> Option<Col> {
        let col = self.column(name);
        if col.is_none() {
            problems.push(0, name, "required column is missing from the header");
        }
        col
    }

    /// The four key columns, each required.
    pub fn key_columns(&self, problems: &mut Problems) -> Option<KeyCols> {
        let [d, t, a, h] = KEY_COLUMNS.map(|name| self.require(name, problems));
        Some(KeyCols {
            date: d?,
            time_est: t?,
            away_team: a?,
            home_team: h?,
        })
    }

    /// Calls `f` for every well-formed data row until the problem sink says
    /// stop. Rows are numbered from 1 after the header.
    pub fn each_row(&mut self, problems: &mut Problems, mut f: impl FnMut(&mut Cells<'_>)) {
        let width = self.headers.len();
        let mut raw = ByteRecord::new();
        let mut row = 0usize;
        while !problems.stop() {
            row += 1;
            match self.reader.read_byte_record(&mut raw) {
                Ok(false) => break,
                Ok(true) => {}
                Err(err) => {
                    // Only I/O can fail here and a byte slice cannot; stop rather
                    // than risk re-reading the same position forever.
                    problems.push(row, WHOLE, format!("unreadable CSV: {err}"));
                    break;
                }
            }
            if raw.len() != width {
                problems.push(row, WHOLE, format!("expected {width} fields, found {}", raw.len()));
                continue;
            }
            let record = match StringRecord::from_byte_record(raw.clone()) {
                Ok(record) => record,
                Err(err) => {
                    let column = err.utf8_error().field();
                    let name = self.headers.get(column).map_or(WHOLE, |h| &**h);
                    problems.push(row, name, "cell is not valid UTF-8");
                    continue;
                }
            };
            let mut cells = Cells {
                record: &record,
                row,
                problems,
                interned: &mut self.interned,
                bad: false,
            };
            f(&mut cells);
        }
    }
}

/// The cells of one data row, read with the contract's rules. Every getter
/// records a problem and marks the row bad instead of failing, so callers
/// read all cells and keep the row only when `ok()`.
pub struct Cells<'a> {
    record: &'a StringRecord,
    row: usize,
    problems: &'a mut Problems,
    interned: &'a mut HashSet<Text>,
    bad: bool,
}

impl<'a> Cells<'a> {
    pub fn row(&self) -> usize {
        self.row
    }

    /// True when no getter has found a problem in this row.
    pub fn ok(&self) -> bool {
        !self.bad
    }

    /// Records a problem against this row.
    pub fn fail(&mut self, column: &str, reason: impl Into<String>) {
        self.bad = true;
        self.problems.push(self.row, column, reason);
    }

    /// The raw cell (`None` when empty, which is null).
    fn raw(&self, col: Col) -> Option<&'a str> {
        let record: &'a StringRecord = self.record;
        record.get(col.idx).filter(|s| !s.is_empty())
    }

    /// The raw cell at a header index, verbatim ("" when empty).
    pub fn at(&self, idx: usize) -> &'a str {
        let record: &'a StringRecord = self.record;
        record.get(idx).unwrap_or_default()
    }

    /// A required, non-empty text cell.
    pub fn text(&mut self, col: Col) -> Option<&'a str> {
        let value = self.raw(col);
        if value.is_none() {
            self.fail(col.name, "required value is empty");
        }
        value
    }

    /// The sheet's shared copy of `value` (made on first sight).
    fn intern(&mut self, value: &str) -> Text {
        if let Some(held) = self.interned.get(value) {
            return held.clone();
        }
        let held = Text::from(value);
        self.interned.insert(held.clone());
        held
    }

    /// An optional text cell of an optional column, shared with equal cells.
    pub fn opt_text(&mut self, col: Option<Col>) -> Option<Text> {
        let value = col.and_then(|c| self.raw(c))?;
        Some(self.intern(value))
    }

    /// A required team slug: lowercase ASCII letters, digits and `_`.
    pub fn slug(&mut self, col: Col) -> Option<&'a str> {
        let value = self.text(col)?;
        let valid = value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if valid {
            Some(value)
        } else {
            self.fail(col.name, format!("'{value}' is not a lowercase team slug"));
            None
        }
    }

    /// A nullable finite number of an optional column.
    pub fn number(&mut self, col: Option<Col>) -> Option<f64> {
        let col = col?;
        let value = self.raw(col)?;
        match value.parse::<f64>() {
            Ok(n) if n.is_finite() => Some(n),
            _ => {
                self.fail(col.name, format!("'{value}' is not a finite number"));
                None
            }
        }
    }

    /// A nullable probability in [0, 1].
    pub fn probability(&mut self, col: Option<Col>) -> Option<f64> {
        let value = self.number(col)?;
        if (0.0..=1.0).contains(&value) {
            Some(value)
        } else {
            self.fail(
                col.map_or(WHOLE, |c| c.name),
                format!("{value} is not a probability in [0, 1]"),
            );
            None
        }
    }

    /// A nullable binary outcome (`0`/`1`, `0.0`/`1.0` accepted).
    pub fn outcome(&mut self, col: Option<Col>) -> Option<u8> {
        let value = self.number(col)?;
        // Exact match is intended: only the literal values 0 and 1 are outcomes.
        if value.to_bits() == 0.0f64.to_bits() || value.to_bits() == (-0.0f64).to_bits() {
            Some(0)
        } else if value.to_bits() == 1.0f64.to_bits() {
            Some(1)
        } else {
            self.fail(col.map_or(WHOLE, |c| c.name), format!("{value} is not a 0/1 outcome"));
            None
        }
    }

    /// A required `YYYY-MM-DD` date.
    pub fn date(&mut self, col: Col) -> Option<NaiveDate> {
        let value = self.text(col)?;
        let parsed = parse_date(value);
        if parsed.is_none() {
            self.fail(col.name, format!("'{value}' is not a YYYY-MM-DD date"));
        }
        parsed
    }

    /// A nullable `YYYY-MM-DD` date, kept verbatim once checked.
    pub fn opt_date_text(&mut self, col: Option<Col>) -> Option<Text> {
        let col = col?;
        let value = self.raw(col)?;
        if parse_date(value).is_none() {
            self.fail(col.name, format!("'{value}' is not a YYYY-MM-DD date"));
            return None;
        }
        Some(self.intern(value))
    }

    /// A required `HH:MM:SS` (or `HH:MM`) time.
    pub fn time(&mut self, col: Col) -> Option<NaiveTime> {
        let value = self.text(col)?;
        let parsed = parse_time(value);
        if parsed.is_none() {
            self.fail(col.name, format!("'{value}' is not an HH:MM:SS time"));
        }
        parsed
    }

    /// A required RFC 3339 timestamp with offset.
    pub fn timestamp(&mut self, col: Col) -> Option<DateTime<Utc>> {
        let value = self.text(col)?;
        self.check_timestamp(col, value)
    }

    /// A nullable RFC 3339 timestamp, kept verbatim once checked.
    pub fn opt_timestamp_text(&mut self, col: Option<Col>) -> Option<Text> {
        let col = col?;
        let value = self.raw(col)?;
        self.check_timestamp(col, value)?;
        Some(self.intern(value))
    }

    fn check_timestamp(&mut self, col: Col, value: &str) -> Option<DateTime<Utc>> {
        if let Ok(t) = DateTime::parse_from_rfc3339(value) {
            Some(t.with_timezone(&Utc))
        } else {
            self.fail(col.name, format!("'{value}' is not an RFC 3339 timestamp with offset"));
            None
        }
    }

    /// A required `YYYY-MM-DD HH:MM:SS` date-time.
    pub fn naive_datetime(&mut self, col: Col) -> Option<NaiveDateTime> {
        let value = self.text(col)?;
        let parsed = NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S").ok();
        if parsed.is_none() {
            self.fail(col.name, format!("'{value}' is not a YYYY-MM-DD HH:MM:SS date-time"));
        }
        parsed
    }

    /// The canonical game key.
    pub fn key(&mut self, cols: &KeyCols) -> Option<GameKey> {
        let date = self.date(cols.date);
        let time = self.time(cols.time_est);
        let away = self.slug(cols.away_team);
        let home = self.slug(cols.home_team);
        let (away, home) = (self.intern(away?), self.intern(home?));
        Some(GameKey::new(date?, time?, away, home))
    }
}

fn parse_date(value: &str) -> Option<NaiveDate> {
    // The length check refuses chrono's lenient forms (`+2025-1-1`).
    if value.len() != 10 {
        return None;
    }
    NaiveDate::parse_from_str(value, "%Y-%m-%d").ok()
}

fn parse_time(value: &str) -> Option<NaiveTime> {
    match value.len() {
        8 => NaiveTime::parse_from_str(value, "%H:%M:%S").ok(),
        5 => NaiveTime::parse_from_str(value, "%H:%M").ok(),
        _ => None,
    }
}

/// Sets each row's game id, numbered over all of `rows` (the artifact) by
/// the domain's rule: once per object version, at parse time.
pub fn number_games<T>(sport: Sport, rows: &mut [T], key: impl Fn(&T) -> &GameKey, id: impl Fn(&mut T) -> &mut GameId) {
    let ids = assign_game_ids(sport, rows.iter().map(key));
    for (row, game_id) in rows.iter_mut().zip(ids) {
        *id(row) = game_id;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn dates_and_times_accept_only_the_contract_forms() {
        assert!(parse_date("2026-11-21").is_some());
        assert!(parse_date("2026-11-1").is_none());
        assert!(parse_date("2026-02-30").is_none());
        assert_eq!(parse_time("19:30"), NaiveTime::from_hms_opt(19, 30, 0));
        assert_eq!(parse_time("19:30:05"), NaiveTime::from_hms_opt(19, 30, 5));
        assert!(parse_time("7:30").is_none());
        assert!(parse_time("25:00:00").is_none());
    }
}
