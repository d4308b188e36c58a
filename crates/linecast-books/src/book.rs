//! Sportsbooks: the validated book key, a book's name and whether it is the
//! sharp (low-margin) reference, and the demo's catalogue of invented books.
//!
//! Owns the key's format and the catalogue; knows nothing of prices.

use std::borrow::Cow;
use std::fmt;

/// The longest book key, in bytes.
pub const MAX_KEY_LEN: usize = 32;

/// A key that is not 1 to 32 characters of `a-z`, `0-9` and `_`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid book key {0:?}: 1 to 32 characters of a-z, 0-9 and _")]
pub struct InvalidBookKey(pub String);

/// A book's stable key, as in The Odds API's `bookmakers[].key`: 1 to 32
/// characters of lowercase ASCII letters, digits and `_`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BookKey(Cow<'static, str>);

/// Whether `key` is a valid book key (usable in constants).
pub const fn is_valid_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_KEY_LEN {
        return false;
    }
    let mut rest = bytes;
    while let [c, tail @ ..] = rest {
        if !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_') {
            return false;
        }
        rest = tail;
    }
    true
}

impl BookKey {
    /// Validates a key; no case folding or trimming (`"NorthBook"` is refused).
    pub fn parse(key: &str) -> Result<Self, InvalidBookKey> {
        if is_valid_key(key) {
            Ok(Self(Cow::Owned(key.to_owned())))
        } else {
            Err(InvalidBookKey(key.to_owned()))
        }
    }

    /// A key known when compiling; an invalid one fails the build (in a
    /// constant) or panics.
    pub const fn from_static(key: &'static str) -> Self {
        assert!(is_valid_key(key), "invalid book key");
        Self(Cow::Borrowed(key))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BookKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The key of the single unnamed book linecast served before named books:
/// every legacy price belongs to it (configurable later).
pub const PRIMARY: BookKey = BookKey::from_static("primary");

/// A sportsbook: its key, its display title (The Odds API's `title`) and
/// whether it is the sharp book whose close CLV is measured against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book {
    /// The stable key.
    pub key: BookKey,
    /// The display name.
    pub title: &'static str,
    /// The low-margin reference book.
    pub sharp: bool,
}

const fn book(key: &'static str, title: &'static str, sharp: bool) -> Book {
    Book {
        key: BookKey::from_static(key),
        title,
        sharp,
    }
}

/// The demo's simulated books: seven invented names (no real sportsbook's
/// trademark), exactly one sharp, in the order the API lists them (the
/// sharp book first, then by key).
pub static CATALOGUE: [Book; 7] = [
    book("sharpline", "Sharpline", true),
    book("eastline", "Eastline", false),
    book("harborbet", "Harbor Bet", false),
    book("meadowbet", "Meadow Bet", false),
    book("northbook", "Northbook", false),
    book("riverline", "Riverline", false),
    book("summitodds", "Summit Odds", false),
];

/// The catalogue's sharp book.
pub fn sharp_book() -> &'static Book {
    // The catalogue is a constant with its sharp book first (a test pins it).
    &CATALOGUE[0]
}

/// The catalogue's book with this key, if any.
pub fn find(key: &str) -> Option<&'static Book> {
    CATALOGUE.iter().find(|book| book.key.as_str() == key)
}
