//! The crate's rules pinned from issue 77's numbers and values worked out
//! independently (each with its python3 one-liner), written out literally
//! and never computed with the crate's own functions or constants.
#![allow(clippy::unwrap_used)]

mod best;
mod book;
mod close;
mod clv;
mod consensus;
mod devig;

use chrono::{DateTime, Utc};
use linecast_domain::odds::AmericanOdds;

/// The instant `secs` seconds after the epoch.
fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 0).unwrap()
}

/// A valid American price.
fn odds(value: f64) -> AmericanOdds {
    AmericanOdds::new(value).unwrap()
}

/// `actual` equals `expected` within `tol`.
#[track_caller]
fn near(actual: f64, expected: f64, tol: f64) {
    assert!(
        (actual - expected).abs() <= tol,
        "{actual} is not {expected} within {tol}"
    );
}
