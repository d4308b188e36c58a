//! Counts as people read them: digits in groups of three with a comma
//! (`199,578`), the way the portal prints every count (its pages and its
//! charts' labels, titles and summaries). Machine-readable output (the
//! API's JSON, a CSV) never goes through here.

/// `n` with a comma between groups of three digits: `199578` is `199,578`,
/// `1000` is `1,000`, `999` stays `999`.
pub fn grouped(n: u64) -> String {
    group_digits(&n.to_string())
}

/// `text`, a whole number written in decimal (an optional `-`, then
/// digits), with a comma between groups of three digits; any other text is
/// returned as it is.
pub fn group_digits(text: &str) -> String {
    let (sign, digits) = text.strip_prefix('-').map_or(("", text), |d| ("-", d));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + digits.len() / 3);
    out.push_str(sign);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_in_threes_with_commas() {
        for (n, text) in [
            (0, "0"),
            (7, "7"),
            (999, "999"),
            (1000, "1,000"),
            (10_000, "10,000"),
            (199_578, "199,578"),
            (200_000, "200,000"),
            (1_234_567, "1,234,567"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(grouped(n), text);
        }
        assert_eq!(group_digits("-1234"), "-1,234");
        for other in ["", "-", "12.5", "n/a", "1,000"] {
            assert_eq!(group_digits(other), other);
        }
    }
}
