//! Text that customers choose and operators read (key names): which
//! characters may not be stored or printed as they are, because printing them
//! could break a line, forge a new one or reorder what follows.

/// Whether `c` is unsafe to print: a control character (C0, DEL and C1, so
/// line feed, carriage return, tab and NEL), the line or paragraph separator
/// (U+2028, U+2029), or a bidirectional formatting character (the marks
/// U+200E, U+200F, U+061C, the embeddings and overrides U+202A..=U+202E, the
/// isolates U+2066..=U+2069).
pub fn is_unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{061C}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_tabs_separators_and_bidi_controls_are_unprintable() {
        for c in [
            '\n', '\r', '\t', '\0', '\u{7F}', '\u{85}', '\u{9F}', '\u{2028}', '\u{2029}', '\u{200E}', '\u{200F}',
            '\u{61C}', '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2068}',
            '\u{2069}',
        ] {
            assert!(is_unprintable(c), "{c:?}");
        }
    }

    #[test]
    fn letters_digits_punctuation_spaces_and_emoji_are_printable() {
        for c in "aZ09 -_.'\"\\/ÉüßΩ日本語🙂\u{A0}\u{200D}\u{2065}\u{2070}".chars() {
            assert!(!is_unprintable(c), "{c:?}");
        }
    }
}
