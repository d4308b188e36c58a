//! Byte ranges of a file body (RFC 9110 §14): what part of the selected
//! representation a `Range` header asks for. Only one range is served; a
//! header this does not understand, or one asking for several ranges, is
//! ignored (the whole body is a valid answer to any `Range`).

/// What a `Range` header asks of a body of `len` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// No usable range: send the whole body (200).
    Whole,
    /// Bytes `first..=last` (206).
    Part { first: u64, last: u64 },
    /// A well-formed range that lies wholly past the end (416).
    Unsatisfiable,
}

/// Reads `header` (`bytes=0-99`, `bytes=100-`, `bytes=-100`) for a body of
/// `len` bytes.
pub fn ask(header: &str, len: u64) -> Ask {
    let Some(spec) = header.trim().strip_prefix("bytes=") else {
        return Ask::Whole;
    };
    let spec = spec.trim();
    if spec.contains(',') {
        return Ask::Whole;
    }
    let Some((first, last)) = spec.split_once('-') else {
        return Ask::Whole;
    };
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        // `bytes=-N`: the last N bytes.
        return match number(last) {
            None => Ask::Whole,
            Some(0) => Ask::Unsatisfiable,
            Some(_) if len == 0 => Ask::Unsatisfiable,
            Some(suffix) => Ask::Part {
                first: len.saturating_sub(suffix),
                last: len - 1,
            },
        };
    }
    let Some(first) = number(first) else {
        return Ask::Whole;
    };
    let last = if last.is_empty() {
        None
    } else {
        match number(last) {
            Some(last) if last >= first => Some(last),
            _ => return Ask::Whole,
        }
    };
    if first >= len {
        return Ask::Unsatisfiable;
    }
    Ask::Part {
        first,
        last: last.map_or(len - 1, |l| l.min(len - 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_an_open_and_a_suffix_range_name_the_bytes_rfc_9110_gives_them() {
        assert_eq!(ask("bytes=0-99", 1000), Ask::Part { first: 0, last: 99 });
        assert_eq!(ask("bytes=990-2000", 1000), Ask::Part { first: 990, last: 999 });
        assert_eq!(ask("bytes=500-", 1000), Ask::Part { first: 500, last: 999 });
        assert_eq!(ask("bytes=-100", 1000), Ask::Part { first: 900, last: 999 });
        assert_eq!(ask("bytes=-5000", 1000), Ask::Part { first: 0, last: 999 });
        assert_eq!(ask(" bytes=7-7 ", 8), Ask::Part { first: 7, last: 7 });
    }

    #[test]
    fn a_range_past_the_end_is_unsatisfiable_and_anything_else_unusable_is_the_whole_body() {
        assert_eq!(ask("bytes=1000-", 1000), Ask::Unsatisfiable);
        assert_eq!(ask("bytes=1000-1005", 1000), Ask::Unsatisfiable);
        assert_eq!(ask("bytes=-0", 1000), Ask::Unsatisfiable);
        for whole in [
            "",
            "bytes=",
            "bytes=-",
            "bytes=5-1",
            "bytes=0-1,5-9",
            "items=0-9",
            "bytes=a-9",
            "bytes=+1-9",
            "bytes=1-9x",
        ] {
            assert_eq!(ask(whole, 1000), Ask::Whole, "{whole:?}");
        }
    }
}
