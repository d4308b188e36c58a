//! The public ledger of releases: each UTC day's kept releases, sealed once
//! the day is over with a root chaining it to the day before
//! (docs/decisions.md, "Public ledger").
//!
//! Owns when days are sealed (before any read that needs them, and before
//! retention forgets a release), what a day that has not been sealed
//! answers, and how far retention may go without leaving a release
//! unlisted. The chain rule is `linecast_ledger`; where sealed days are
//! kept is the `LedgerBook` port. Must not know HTTP or SQL.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, NaiveDate, Utc};
use linecast_ledger::{Day, Entry, GENESIS, last_sealable, order, plan, root, start};

use crate::ports::ledger::{DayRoot, LedgerBook};
use crate::{AccountsError, Deps, Derived};

/// How many times a sealing starts over after another instance sealed a
/// day first (each start reads what that instance sealed).
const SEAL_ATTEMPTS: usize = 5;

/// How many sealed days an instance holds in memory (a sealed day never
/// changes; past this many the held ones are dropped and read again).
const HELD_DAYS: usize = 64;

/// Why a ledger read has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// The date is after today (UTC).
    #[error("the date is after today")]
    Future,
    /// A past date the ledger does not reach: before its first day, or no
    /// release kept yet (`first`: `None`).
    #[error("no ledger day for the date")]
    BeforeLedger { first: Option<NaiveDate> },
    #[error("ledger: {0}")]
    Book(#[from] AccountsError),
}

/// A day of the ledger as a read answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LedgerDay {
    /// A sealed day: its lists and root never change.
    Sealed(Arc<Day>),
    /// Today, or yesterday within `linecast_ledger::SEAL_AFTER` of its
    /// end: the releases published in it so far, in ledger order; no root
    /// yet (late releases are listed when it is sealed).
    Open { date: NaiveDate, releases: Vec<Entry> },
}

/// The ledger over its book.
pub struct Ledger {
    book: Arc<dyn LedgerBook>,
    /// The last day this instance knows to be sealed: until the next day
    /// is due, a sealing asks nothing of the database.
    sealed_through: Mutex<Option<NaiveDate>>,
    /// Sealed days read, by date.
    held: Mutex<HashMap<NaiveDate, Arc<Day>>>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").finish_non_exhaustive()
    }
}

impl Ledger {
    pub fn new(book: Arc<dyn LedgerBook>) -> Self {
        Self {
            book,
            sealed_through: Mutex::new(None),
            held: Mutex::new(HashMap::new()),
        }
    }

    /// Seals every day due at `now` (`linecast_ledger::plan`) that is not
    /// sealed yet; returns how many this call sealed. Two instances may
    /// seal at once: a day is written once, and the instance that finds it
    /// sealed starts over from what was sealed.
    pub async fn seal(&self, now: DateTime<Utc>) -> Result<usize, AccountsError> {
        let due = last_sealable(now);
        if self.known_sealed(due) {
            return Ok(0);
        }
        let mut sealed = 0;
        for _ in 0..SEAL_ATTEMPTS {
            let last = self.book.last_sealed().await?;
            if last.as_ref().is_some_and(|(date, _)| *date >= due) {
                self.mark_sealed(due);
                return Ok(sealed);
            }
            let Some(after_due) = due.succ_opt() else {
                return Ok(sealed);
            };
            let pending = self.book.unlisted(None, start(after_due)).await?;
            let days = plan(last.as_ref().map(|(d, r)| (*d, r.as_str())), pending, now);
            if days.is_empty() {
                // Nothing kept yet: the first release starts the ledger.
                return Ok(sealed);
            }
            let mut raced = false;
            for day in &days {
                if self.book.seal(day).await? {
                    tracing::info!(
                        date = %day.date, root = %day.root, releases = day.releases.len(),
                        late = day.late.len(), "ledger day sealed"
                    );
                    sealed += 1;
                } else {
                    raced = true;
                    break;
                }
            }
            if !raced {
                self.mark_sealed(due);
                return Ok(sealed);
            }
        }
        Err(AccountsError::Unavailable(
            "ledger: another instance kept sealing the same days".to_owned(),
        ))
    }

    fn known_sealed(&self, due: NaiveDate) -> bool {
        self.sealed_through
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|through| through >= due)
    }

    fn mark_sealed(&self, due: NaiveDate) {
        let mut through = self.sealed_through.lock().unwrap_or_else(PoisonError::into_inner);
        *through = Some(through.map_or(due, |t| t.max(due)));
    }

    /// The ledger's `date` at `now`: sealed (every day due is sealed
    /// first), or open (today, or yesterday in the hour after its end).
    /// After today is `Future`; a past day before the first sealed one is
    /// `BeforeLedger`.
    pub async fn day(&self, date: NaiveDate, now: DateTime<Utc>) -> Result<Derived<LedgerDay>, LedgerError> {
        if date > now.date_naive() {
            return Err(LedgerError::Future);
        }
        self.seal(now).await?;
        if date > last_sealable(now) {
            let end = date.succ_opt().map_or(DateTime::<Utc>::MAX_UTC, start);
            let mut releases = self.book.unlisted(Some(start(date)), end).await?;
            order(&mut releases);
            // The open day's content, hashed as a root of its own would be.
            let deps = Deps::new().param("ledger_open", format_args!("{date}@{}", root(GENESIS, &releases, &[])));
            return Ok(Derived::new(LedgerDay::Open { date, releases }, deps));
        }
        let day = self.sealed_day(date).await?;
        match day {
            Some(day) => {
                let deps = Deps::new().param("ledger_day", format_args!("{date}@{}", day.root));
                Ok(Derived::new(LedgerDay::Sealed(day), deps))
            }
            None => Err(LedgerError::BeforeLedger {
                first: self.book.roots().await?.first().map(|r| r.date),
            }),
        }
    }

    async fn sealed_day(&self, date: NaiveDate) -> Result<Option<Arc<Day>>, AccountsError> {
        if let Some(day) = self.held.lock().unwrap_or_else(PoisonError::into_inner).get(&date) {
            return Ok(Some(Arc::clone(day)));
        }
        let Some(day) = self.book.day(date).await? else {
            return Ok(None);
        };
        let day = Arc::new(day);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if held.len() >= HELD_DAYS {
            held.clear();
        }
        held.insert(date, Arc::clone(&day));
        Ok(Some(day))
    }

    /// Every sealed day's root, oldest first, after sealing the days due
    /// at `now`.
    pub async fn roots(&self, now: DateTime<Utc>) -> Result<Derived<Vec<DayRoot>>, LedgerError> {
        self.seal(now).await?;
        let roots = self.book.roots().await?;
        // Days are only added, each chaining the last: the count and the
        // newest root name the list.
        let deps = Deps::new().param(
            "ledger_roots",
            format_args!("{}@{}", roots.len(), roots.last().map_or(GENESIS, |r| r.root.as_str())),
        );
        Ok(Derived::new(roots, deps))
    }

    /// How far retention may forget (releases published before the
    /// instant returned): `cutoff`, or the publication instant of the
    /// oldest release still unlisted when that is earlier (a late release
    /// waiting for the next day to be sealed), after sealing what is due.
    /// A release is forgotten only once the ledger lists it.
    pub async fn retention_cutoff(
        &self,
        cutoff: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, AccountsError> {
        self.seal(now).await?;
        let unlisted = self.book.unlisted(None, cutoff).await?;
        Ok(unlisted
            .iter()
            .map(|e| e.published_at)
            .min()
            .map_or(cutoff, |oldest| oldest.min(cutoff)))
    }
}

#[cfg(test)]
mod tests;
