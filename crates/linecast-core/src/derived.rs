//! A value read from the store together with everything it depends on.
//!
//! A core read method returns a [`Derived`]: the value and its [`Deps`],
//! written down where the data is read (each object version, the slate or ET
//! date, the choices the method made such as the season it picked). Two
//! reads with equal deps give equal values, so whoever caches what a value
//! renders to can key it by the deps alone and never serve stale bytes: an
//! input cannot be forgotten by a caller, because the caller never lists
//! them.
//!
//! Must not know how values are rendered or cached (the API's read pipeline
//! does that).

use std::fmt::{Display, Write as _};

use crate::ObjectVersion;

/// Separates the inputs of a [`Deps`]: a byte no key, version, date or
/// parameter contains.
const SEPARATOR: char = '\u{1f}';

/// What a value depends on, as one canonical string: the inputs in the
/// order they were read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Deps(String);

impl Deps {
    /// No input yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// One version of one object (its key and version).
    #[must_use]
    pub fn object(self, version: &ObjectVersion) -> Self {
        self.input("object", format_args!("{}@{}", version.key, version.version))
    }

    /// An object the read looked for and did not find (its absence shapes
    /// the value, e.g. names falling back to slugs).
    #[must_use]
    pub fn absent(self, what: impl Display) -> Self {
        self.input("absent", what)
    }

    /// A value the read computed or chose (a season, a slate date, a page
    /// plan's offset) under `name`.
    #[must_use]
    pub fn param(self, name: &str, value: impl Display) -> Self {
        self.input(name, value)
    }

    /// The kept release a past read (`as_of`) resolved to, by what names
    /// it: its digest (the bytes) and its publication instant (the answer
    /// names it, and equal bytes may be published twice). Whatever instant
    /// was asked for, the reads that resolved to one release share this.
    #[must_use]
    pub fn release(self, release: &crate::ports::releases::KeptRelease) -> Self {
        self.input(
            "release",
            format_args!("{}@{}", release.digest, release.published_at.timestamp_micros()),
        )
    }

    /// Every input of `other`, after this one's.
    #[must_use]
    pub fn and(mut self, other: &Deps) -> Self {
        self.0.push_str(&other.0);
        self
    }

    /// The canonical form (for a cache key).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn input(mut self, name: &str, value: impl Display) -> Self {
        let _ = write!(self.0, "{SEPARATOR}{name}={value}");
        self
    }
}

impl Display for Deps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A value and what it depends on.
#[derive(Debug, Clone)]
pub struct Derived<T> {
    pub value: T,
    pub deps: Deps,
}

impl<T> Derived<T> {
    pub fn new(value: T, deps: Deps) -> Self {
        Self { value, deps }
    }

    /// A value computed from this one alone, with `extra` inputs added
    /// (what the computation chose, e.g. an accounting).
    pub fn map<U>(self, extra: impl FnOnce(Deps) -> Deps, f: impl FnOnce(T) -> U) -> Derived<U> {
        Derived {
            value: f(self.value),
            deps: extra(self.deps),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    fn version(key: &str, v: &str) -> ObjectVersion {
        ObjectVersion {
            key: key.to_owned(),
            version: v.to_owned(),
            last_modified: Utc.timestamp_opt(0, 0).single().unwrap_or_default(),
            size: 1,
        }
    }

    #[test]
    fn deps_differ_when_any_input_differs_and_not_otherwise() {
        let base = || Deps::new().object(&version("a.csv", "1")).param("season", "2025-26");
        assert_eq!(base(), base());
        assert_ne!(
            base(),
            Deps::new().object(&version("a.csv", "2")).param("season", "2025-26")
        );
        assert_ne!(
            base(),
            Deps::new().object(&version("b.csv", "1")).param("season", "2025-26")
        );
        assert_ne!(base(), base().param("slate", "2026-11-15"));
        assert_ne!(
            base(),
            Deps::new().object(&version("a.csv", "1")).param("season", "2024-25")
        );
        // A parameter is named: the same value under another name differs.
        assert_ne!(
            Deps::new().param("slate", "2026-11-15"),
            Deps::new().param("today", "2026-11-15")
        );
        assert_ne!(Deps::new().absent("teams/nba.csv"), Deps::new());
    }

    /// A release is named by its bytes and its publication: equal bytes
    /// published twice are two releases (the answer names its instant).
    #[test]
    fn a_release_is_its_digest_and_its_publication() {
        use crate::ports::releases::{KeptRelease, Series};
        use linecast_domain::{ModelType, Sport};
        let release = |digest: &str, second: i64| KeptRelease {
            series: Series::Predictions(Sport::Nba, ModelType::WonOnPoints),
            published_at: Utc.timestamp_opt(second, 0).single().unwrap_or_default(),
            digest: digest.to_owned(),
            game_count: 1,
            size: 1,
        };
        assert_eq!(
            Deps::new().release(&release("ab", 10)),
            Deps::new().release(&release("ab", 10))
        );
        assert_ne!(
            Deps::new().release(&release("ab", 10)),
            Deps::new().release(&release("ab", 11))
        );
        assert_ne!(
            Deps::new().release(&release("ab", 10)),
            Deps::new().release(&release("cd", 10))
        );
    }

    #[test]
    fn inputs_cannot_run_into_each_other() {
        // "ab" + "c" and "a" + "bc" are different reads.
        assert_ne!(
            Deps::new().param("x", "ab").param("y", "c"),
            Deps::new().param("x", "a").param("y", "bc")
        );
        let joined = Deps::new().param("x", 1).and(&Deps::new().param("y", 2));
        assert_eq!(joined, Deps::new().param("x", 1).param("y", 2));
    }
}
