//! A book's opening and close for one game, from its timeline of quotes.
//!
//! Owns which quote is the opening and which the close, and why a book
//! has none; the instants (`start`, `now`) come in as arguments.
//!
//! - **Before is strict.** Only a quote captured strictly before the
//!   scheduled start counts, as for every linecast close
//!   (docs/decisions.md): a price captured at the very instant of the start
//!   may already be in play. TheRundown's "at or before" differs at that one
//!   instant only. A quote at or after the start never counts.
//! - The **close** is the last quote before the start (the latest
//!   `captured_at`; equal instants go to the one later in the timeline, the
//!   last received), the **opening** the first (equal instants go to the
//!   earlier in the timeline).
//! - **Provisional** while `now` is before the start: the close so far may
//!   still move.
//! - **No close**, with its reason: [`NoCloseReason::NoQuotes`] when the
//!   book never quoted the game, [`NoCloseReason::NeverQuotedBeforeStart`]
//!   when all its quotes are at or after the start.

use chrono::{DateTime, Utc};

/// A value (a book's prices) as captured at an instant.
#[derive(Debug, Clone, PartialEq)]
pub struct Captured<T> {
    /// When the value was captured.
    pub captured_at: DateTime<Utc>,
    /// The value.
    pub value: T,
}

/// Why a book has no opening or close.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoCloseReason {
    /// The book has no quote for the game at all.
    NoQuotes,
    /// Every quote of the book is at or after the scheduled start.
    NeverQuotedBeforeStart,
}

impl NoCloseReason {
    /// The reason on the wire: `no_quotes`, `never_quoted_before_start`.
    pub const fn code(self) -> &'static str {
        match self {
            Self::NoQuotes => "no_quotes",
            Self::NeverQuotedBeforeStart => "never_quoted_before_start",
        }
    }
}

/// A book's close: the quote, or why there is none; provisional until the
/// start.
#[derive(Debug, Clone, PartialEq)]
pub struct Close<'a, T> {
    /// The closing quote, or why the book has none.
    pub quote: Result<&'a Captured<T>, NoCloseReason>,
    /// `now` is before the start: the close may still change.
    pub provisional: bool,
}

/// The quotes of `timeline` captured strictly before `start`, or why none.
fn before_start<T>(
    timeline: &[Captured<T>],
    start: DateTime<Utc>,
) -> Result<impl Iterator<Item = &Captured<T>>, NoCloseReason> {
    if timeline.is_empty() {
        return Err(NoCloseReason::NoQuotes);
    }
    if timeline.iter().all(|q| q.captured_at >= start) {
        return Err(NoCloseReason::NeverQuotedBeforeStart);
    }
    Ok(timeline.iter().filter(move |q| q.captured_at < start))
}

/// The close of a book's `timeline` for a game starting at `start`, as
/// known at `now`.
pub fn close<T>(timeline: &[Captured<T>], start: DateTime<Utc>, now: DateTime<Utc>) -> Close<'_, T> {
    let quote = before_start(timeline, start).map(|quotes| {
        quotes
            .max_by_key(|q| q.captured_at)
            .unwrap_or_else(|| unreachable!("before_start yields at least one quote"))
    });
    Close {
        quote,
        provisional: now < start,
    }
}

/// The opening of a book's `timeline`: its first quote before the start.
pub fn opening<T>(timeline: &[Captured<T>], start: DateTime<Utc>) -> Result<&Captured<T>, NoCloseReason> {
    before_start(timeline, start).map(|quotes| {
        quotes
            .min_by_key(|q| q.captured_at)
            .unwrap_or_else(|| unreachable!("before_start yields at least one quote"))
    })
}
