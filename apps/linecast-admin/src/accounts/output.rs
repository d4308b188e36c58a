//! Printing: one JSON document on stdout with `--json`, readable text
//! otherwise. Errors are not printed here; `main` prints them on stderr.
//!
//! Stored text (names, emails, plans, products) is escaped on output: a row
//! may predate the rule on key names, and a customer name was never held to
//! it, so a value must not be able to start a line of its own or reorder the
//! text after it. The text form passes every such value through `escaped`;
//! the JSON form writes those characters as `\uXXXX` escapes, which decode
//! to the same value.

use std::borrow::Cow;
use std::fmt::Write as _;

use chrono::{DateTime, SecondsFormat, Utc};
use linecast_domain::text::is_unprintable;
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
            println!("{}", json_escaped(&serde_json::to_string_pretty(value)?));
        } else {
            let text = human();
            println!("{}", text.trim_end());
        }
        Ok(())
    }
}

/// Stored text as printed in a line of text output: each unprintable
/// character (control characters, U+2028/U+2029, bidi controls) becomes its
/// `\u{..}` escape and a backslash becomes `\\`, so the printed form reads
/// back unambiguously. Text without either is returned as it is.
pub fn escaped(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c == '\\' || is_unprintable(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if is_unprintable(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A serialized JSON document with every unprintable character written as
/// `\uXXXX`. Inside strings serde_json already escapes C0 controls, so a raw
/// one is the document's own layout and stays; DEL, C1, the separators and
/// the bidi controls it writes raw, only ever inside strings, where the
/// escape decodes to the same character. All of them are in the Basic
/// Multilingual Plane, so one `\uXXXX` each suffices.
fn json_escaped(json: &str) -> Cow<'_, str> {
    let raw_in_strings = |c: char| c >= ' ' && is_unprintable(c);
    if !json.chars().any(raw_in_strings) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if raw_in_strings(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
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
    #![allow(clippy::unwrap_used)]

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
    fn a_name_with_a_forged_audit_line_prints_on_one_line() {
        let name = "laptop\n[audit] forged";
        let rows = vec![vec!["sk_service_AbCd*****".to_owned(), escaped(name).into_owned()]];
        let printed = table(&["key", "name"], &rows);
        assert_eq!(printed.lines().count(), 2, "{printed}");
        assert_eq!(
            printed.lines().nth(1),
            Some("sk_service_AbCd*****  laptop\\u{a}[audit] forged")
        );
    }

    #[test]
    fn line_breaks_separators_and_bidi_controls_are_printed_as_escapes() {
        assert_eq!(escaped("a\rb\tc"), "a\\u{d}b\\u{9}c");
        assert_eq!(escaped("\u{202E}evil"), "\\u{202e}evil");
        assert_eq!(escaped("x\u{0085}y\u{2028}z\u{2066}"), "x\\u{85}y\\u{2028}z\\u{2066}");
        assert_eq!(escaped("C:\\keys"), "C:\\\\keys", "a backslash cannot fake an escape");
        assert!(matches!(escaped("Équipe ü 日本 🚀"), Cow::Borrowed("Équipe ü 日本 🚀")));
    }

    #[test]
    fn json_output_escapes_the_same_characters_and_decodes_to_the_same_value() {
        let value = serde_json::json!({"name": "a\nb\u{202E}c\u{2028}d\u{85}e", "list": [1, 2]});
        let pretty = serde_json::to_string_pretty(&value).unwrap();
        let printed = json_escaped(&pretty);
        for bad in ['\u{202E}', '\u{2028}', '\u{85}'] {
            assert!(!printed.contains(bad), "{printed}");
        }
        assert!(printed.contains("\\u202e") && printed.contains("\\u2028") && printed.contains("\\u0085"));
        let back: Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(back, value);
        assert_eq!(printed.lines().count(), pretty.lines().count(), "the layout is kept");
    }

    #[test]
    fn instants_print_in_utc_to_the_second() {
        let at = Utc.with_ymd_and_hms(2026, 11, 21, 23, 50, 16).single();
        assert_eq!(at.map(instant).as_deref(), Some("2026-11-21T23:50:16Z"));
        assert_eq!(instant_or_dash(None), "-");
    }
}
