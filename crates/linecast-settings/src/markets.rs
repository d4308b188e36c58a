//! Where prices come from: the prediction markets, and the name the
//! single-book odds are served under as a book.

use linecast_books::book::BookKey;
use linecast_core::services::books::PrimaryBook;

use super::SettingsError;
use super::value::bad;

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Prices {
    pub(super) markets_source: String,
    pub(super) kalshi_base_url: Option<String>,
    pub(super) primary_book: PrimaryBook,
}

/// `LINECAST_PRIMARY_BOOK` (a book key, default `primary`) and
/// `LINECAST_PRIMARY_BOOK_TITLE` (default `Primary`, at most 64
/// printable characters): the book `odds/{sport}.csv` is served as where
/// no named books are published.
fn primary_book(env: &impl Fn(&str) -> Option<String>) -> Result<PrimaryBook, SettingsError> {
    let mut book = PrimaryBook::default();
    if let Some(key) = env("LINECAST_PRIMARY_BOOK") {
        book.key = BookKey::parse(&key).map_err(|e| bad("LINECAST_PRIMARY_BOOK", e.to_string()))?;
    }
    if let Some(title) = env("LINECAST_PRIMARY_BOOK_TITLE") {
        if title.trim().is_empty() || title.chars().count() > 64 || title.chars().any(char::is_control) {
            return Err(bad(
                "LINECAST_PRIMARY_BOOK_TITLE",
                "expected 1 to 64 printable characters".to_owned(),
            ));
        }
        book.title = title;
    }
    Ok(book)
}

/// `LINECAST_MARKETS` (`file`, the default, or `kalshi`) and
/// `LINECAST_KALSHI_BASE_URL`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Prices, SettingsError> {
    let markets_source = env("LINECAST_MARKETS").unwrap_or_else(|| "file".to_owned());
    if !matches!(markets_source.as_str(), "file" | "kalshi") {
        return Err(bad(
            "LINECAST_MARKETS",
            format!("'{markets_source}'; expected file or kalshi"),
        ));
    }
    Ok(Prices {
        markets_source,
        kalshi_base_url: env("LINECAST_KALSHI_BASE_URL"),
        primary_book: primary_book(env)?,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn markets_come_from_the_store_by_default_and_a_bad_value_names_its_variable() {
        let m = read(&env_of(&[])).unwrap();
        assert_eq!((m.markets_source.as_str(), m.kalshi_base_url), ("file", None));
        assert_eq!(
            read(&env_of(&[("LINECAST_MARKETS", "kalshi")])).unwrap().markets_source,
            "kalshi"
        );
        let m = read(&env_of(&[])).unwrap();
        assert_eq!(
            (m.primary_book.key.as_str(), m.primary_book.title.as_str()),
            ("primary", "Primary")
        );
        let m = read(&env_of(&[
            ("LINECAST_PRIMARY_BOOK", "house_book"),
            ("LINECAST_PRIMARY_BOOK_TITLE", "House Book"),
        ]))
        .unwrap();
        assert_eq!(
            (m.primary_book.key.as_str(), m.primary_book.title.as_str()),
            ("house_book", "House Book")
        );
        for (name, value) in [
            ("LINECAST_PRIMARY_BOOK", "House Book"),
            ("LINECAST_PRIMARY_BOOK", ""),
            ("LINECAST_PRIMARY_BOOK_TITLE", " "),
            ("LINECAST_PRIMARY_BOOK_TITLE", "a\nb"),
        ] {
            let err = read(&env_of(&[(name, value)])).unwrap_err();
            assert!(
                err.to_string().starts_with(&format!("invalid setting {name}:")),
                "{err}"
            );
        }
        let err = read(&env_of(&[("LINECAST_MARKETS", "polymarket")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_MARKETS: 'polymarket'; expected file or kalshi"
        );
    }
}
