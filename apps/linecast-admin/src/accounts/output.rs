//! Printing: one JSON document on stdout with `--json`, readable text
//! otherwise. Errors are not printed here; `main` prints them on stderr.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::Value;

/// The output mode chosen by `--json`.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    json: bool,
}

impl Output {
    pub fn new(json: bool) -> Self {
        Self { json }
    }

    /// Prints `value` (pretty JSON) or the text `human` builds; the text is
    /// only built when it is printed.
    pub fn emit(self, value: &Value, human: impl FnOnce() -> String) -> anyhow::Result<()> {
        if self.json {
            println!("{}", serde_json::to_string_pretty(value)?);
        } else {
            let text = human();
            println!("{}", text.trim_end());
        }
        Ok(())
    }
}

/// Instants are printed as RFC 3339 with second precision, in UTC.
pub fn instant(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// An optional instant, `-` when absent.
pub fn instant_or_dash(at: Option<DateTime<Utc>>) -> String {
    at.map_or_else(|| "-".to_owned(), instant)
}

/// Left-aligned columns separated by two spaces, widths from the widest cell.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let padded: Vec<String> = cells.zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = line(&mut headers.iter().copied());
    for row in rows {
        out.push('\n');
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn table_columns_line_up_on_the_widest_cell() {
        let rows = vec![
            vec!["1".to_owned(), "long@example.com".to_owned()],
            vec!["22".to_owned(), "a@b.c".to_owned()],
        ];
        assert_eq!(
            table(&["id", "email"], &rows),
            "id  email\n1   long@example.com\n22  a@b.c"
        );
    }

    #[test]
    fn instants_print_in_utc_to_the_second() {
        let at = Utc.with_ymd_and_hms(2026, 11, 21, 23, 50, 16).single();
        assert_eq!(at.map(instant).as_deref(), Some("2026-11-21T23:50:16Z"));
        assert_eq!(instant_or_dash(None), "-");
    }
}
