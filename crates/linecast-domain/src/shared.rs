//! [`SharedStr`]: an immutable string that equal values share. The parsers
//! intern team names and repeated text cells per artifact, so a season of
//! thousands of rows holds each team name, source and run id once.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable, cheaply cloned string. Reads like a `String` (`as_str`,
/// deref to `str`, equality with `&str` and `String`, `Display`), so code
/// written against owned names keeps compiling; clones share one
/// allocation.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SharedStr(Arc<str>);

/// A team slug (`GameKey::away_team`, `GameKey::home_team`).
pub type TeamName = SharedStr;

/// A text cell of a season store (quote source, settlement status, provenance).
pub type Text = SharedStr;

impl SharedStr {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `self` and `other` share one allocation (not only equal text).
    pub fn shares(&self, other: &SharedStr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for SharedStr {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Lets maps keyed by names be queried with a `&str`: the hash and order
/// of a `SharedStr` are those of its text.
impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SharedStr {
    fn from(value: &str) -> Self {
        Self(Arc::from(value))
    }
}

impl From<String> for SharedStr {
    fn from(value: String) -> Self {
        Self(Arc::from(value))
    }
}

impl From<&String> for SharedStr {
    fn from(value: &String) -> Self {
        Self(Arc::from(value.as_str()))
    }
}

impl From<Arc<str>> for SharedStr {
    fn from(value: Arc<str>) -> Self {
        Self(value)
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn a_shared_string_compares_hashes_and_prints_as_its_text() {
        let name = SharedStr::from("padres");
        let owned = String::from("padres");
        assert!(name == "padres" && name == *"padres" && name == owned);
        assert_eq!(name.to_string(), "padres");
        assert_eq!(format!("{name:?}"), "\"padres\"");
        let map: HashMap<SharedStr, u8> = [(name.clone(), 1)].into();
        assert_eq!(map.get("padres"), Some(&1));
        let (a, b) = (SharedStr::from("a"), SharedStr::from("b"));
        assert!(a < b);
        assert!(name.shares(&name.clone()));
        assert!(!name.shares(&SharedStr::from("padres")));
    }
}
