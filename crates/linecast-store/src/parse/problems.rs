//! Where parsers put what is wrong with an object: either only the first
//! problem (serving, where one is enough to refuse the object) or every
//! problem (validation).

use linecast_core::StoreError;

/// Column reported for a problem that concerns a whole row or object.
pub const WHOLE: &str = "*";

/// The problems found in one object.
#[derive(Debug)]
pub struct Problems {
    object: String,
    collect_all: bool,
    found: Vec<StoreError>,
}

impl Problems {
    /// Keeps the first problem; parsers stop reading after it.
    pub fn first_only(object: &str) -> Self {
        Self {
            object: object.to_owned(),
            collect_all: false,
            found: Vec::new(),
        }
    }

    /// Keeps every problem; parsers read the whole object.
    pub fn collect_all(object: &str) -> Self {
        Self {
            object: object.to_owned(),
            collect_all: true,
            found: Vec::new(),
        }
    }

    pub fn object(&self) -> &str {
        &self.object
    }

    /// Records a problem. In first-only mode later problems are dropped.
    pub fn push(&mut self, row: usize, column: &str, reason: impl Into<String>) {
        if self.collect_all || self.found.is_empty() {
            self.found.push(StoreError::Corrupt {
                object: self.object.clone(),
                row,
                column: column.to_owned(),
                reason: reason.into(),
            });
        }
    }

    /// True when a parser should stop reading.
    pub fn stop(&self) -> bool {
        !self.collect_all && !self.found.is_empty()
    }

    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The value when the object had no problem, else the first problem.
    pub fn into_result<T>(self, value: Option<T>) -> Result<T, StoreError> {
        match (self.found.into_iter().next(), value) {
            (Some(first), _) => Err(first),
            (None, Some(value)) => Ok(value),
            (None, None) => Err(StoreError::Corrupt {
                object: self.object,
                row: 0,
                column: WHOLE.to_owned(),
                reason: "object could not be parsed".to_owned(),
            }),
        }
    }

    pub fn into_vec(self) -> Vec<StoreError> {
        self.found
    }
}
