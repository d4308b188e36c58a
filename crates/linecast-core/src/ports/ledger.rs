//! The public ledger's record: the sealed days (each one's root, the root
//! it chains from and the releases it lists), kept beside the release log
//! in the accounts database. A sealed day is written once, in one
//! transaction, and never rewritten; retention forgets kept releases, never
//! a listed entry. The chain rule itself is `linecast_ledger`.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};

pub use linecast_ledger::{Day, Entry};

use crate::AccountsError;

/// A sealed day as the list of roots shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayRoot {
    pub date: NaiveDate,
    /// The root of the day before, or `linecast_ledger::GENESIS`.
    pub previous: String,
    pub root: String,
    /// Releases published that day.
    pub releases: u32,
    /// Releases of earlier days recorded late, listed by this day.
    pub late: u32,
}

#[async_trait]
pub trait LedgerBook: Send + Sync {
    /// The last sealed day and its root (`None` before the first sealing).
    async fn last_sealed(&self) -> Result<Option<(NaiveDate, String)>, AccountsError>;
    /// The recorded releases published in `[from, before)` (from the first
    /// without `from`) that no sealed day lists, oldest first.
    async fn unlisted(&self, from: Option<DateTime<Utc>>, before: DateTime<Utc>) -> Result<Vec<Entry>, AccountsError>;
    /// Seals `day` once, its row and its entries in one transaction:
    /// `true` when this call sealed it; `false`, writing nothing, when the
    /// day was already sealed (by this or another instance).
    async fn seal(&self, day: &Day) -> Result<bool, AccountsError>;
    /// A sealed day with its two lists (in ledger order); `None` when the
    /// day is not sealed.
    async fn day(&self, date: NaiveDate) -> Result<Option<Day>, AccountsError>;
    /// Every sealed day's root, oldest first.
    async fn roots(&self) -> Result<Vec<DayRoot>, AccountsError>;
}
