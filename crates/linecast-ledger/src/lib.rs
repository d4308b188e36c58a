//! The public ledger of releases: every kept release listed in the UTC day
//! it was published, each day sealed once with a root that hashes its
//! list and the previous day's root, so the days form a chain
//! (docs/payloads.md, "Ledger"; docs/decisions.md, "Public ledger").
//!
//! Owns the rule: which day lists a release, the order within a day, the
//! exact bytes a root hashes, when a day is sealed and which days a sealing
//! at an instant produces. Pure: no I/O, no clock (the instant comes in as
//! an argument); where days are kept is core's port.
//!
//! ```
//! use linecast_ledger::{Day, Entry, GENESIS};
//! let entry = Entry {
//!     published_at: "2026-11-12T09:30:00Z".parse().unwrap(),
//!     series: "nfl/odds".to_owned(),
//!     digest: "c".repeat(64),
//! };
//! assert_eq!(entry.line(), format!("2026-11-12T09:30:00Z\tnfl/odds\t{}\n", "c".repeat(64)));
//! let day = Day::seal("2026-11-12".parse().unwrap(), GENESIS, vec![entry], Vec::new());
//! assert!(day.verifies());
//! ```

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use sha2::{Digest, Sha256};

/// The previous root of the first day sealed: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// How long after its end a UTC day is sealed: a release published just
/// before midnight is recorded within a watch round or two, and must be
/// listed in its own day, not as late in the next.
pub const SEAL_AFTER: Duration = Duration::hours(1);

/// One kept release as the ledger lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The release's publication instant (microseconds, as the release log
    /// keeps it).
    pub published_at: DateTime<Utc>,
    /// The series code: `{sport}/predictions/{model_type}` or `{sport}/odds`.
    pub series: String,
    /// SHA-256 of the release's bytes, lowercase hex.
    pub digest: String,
}

impl Entry {
    /// The entry's line in the bytes a root hashes:
    /// `{published_at}\t{series}\t{digest}\n`, `published_at` written with
    /// every digit (`linecast_domain::time::exact`), as payloads write it.
    pub fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\n",
            linecast_domain::time::exact(self.published_at),
            self.series,
            self.digest
        )
    }

    /// The UTC day the entry was published in.
    pub fn day(&self) -> NaiveDate {
        self.published_at.date_naive()
    }
}

/// Orders a day's list: by publication instant, then series code, then
/// digest (a total order: two releases of one series never share an
/// instant).
pub fn order(entries: &mut [Entry]) {
    entries.sort_by(|a, b| (a.published_at, &a.series, &a.digest).cmp(&(b.published_at, &b.series, &b.digest)));
}

/// The root of a day: SHA-256, lowercase hex, of the previous root's 64 hex
/// characters, a newline, then the line of each release, then the line of
/// each late release, in the order given (an empty day hashes the previous
/// root and the newline alone).
pub fn root(previous: &str, releases: &[Entry], late: &[Entry]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(previous.as_bytes());
    hasher.update(b"\n");
    for entry in releases.iter().chain(late) {
        hasher.update(entry.line().as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// A sealed day: its two lists in ledger order, the root it chains from and
/// its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    pub date: NaiveDate,
    /// The root of the day before (the previous day sealed), or [`GENESIS`].
    pub previous: String,
    pub root: String,
    /// The releases published in this UTC day.
    pub releases: Vec<Entry>,
    /// Releases published in an earlier day, recorded after that day was
    /// sealed (a late backfill): listed here, the first day sealed after
    /// they were recorded, so no sealed root changes.
    pub late: Vec<Entry>,
}

impl Day {
    /// Seals `date` after `previous`: both lists ordered, the root computed.
    pub fn seal(date: NaiveDate, previous: &str, mut releases: Vec<Entry>, mut late: Vec<Entry>) -> Self {
        order(&mut releases);
        order(&mut late);
        Self {
            date,
            previous: previous.to_owned(),
            root: root(previous, &releases, &late),
            releases,
            late,
        }
    }

    /// Whether the root is the hash of the previous root and the lists as
    /// they stand (what a customer checks).
    pub fn verifies(&self) -> bool {
        root(&self.previous, &self.releases, &self.late) == self.root
    }

    /// Lines hashed: releases and late ones.
    pub fn count(&self) -> usize {
        self.releases.len() + self.late.len()
    }
}

/// The first instant of `date` (UTC midnight).
pub fn start(date: NaiveDate) -> DateTime<Utc> {
    date.and_time(NaiveTime::MIN).and_utc()
}

/// The last day sealed at `now`: the last whose end is at least
/// [`SEAL_AFTER`] before `now`.
pub fn last_sealable(now: DateTime<Utc>) -> NaiveDate {
    (now - SEAL_AFTER - Duration::days(1)).date_naive()
}

/// The days a sealing at `now` seals, oldest first, after `last` (the last
/// day sealed and its root; `None` before the first), from `pending`: the
/// kept releases not yet listed. Every day from the one after `last` (or,
/// for the first sealing, the day of the oldest pending release) through
/// [`last_sealable`] is sealed, a day without releases over the empty list,
/// so a day once past never gains a root later. A pending release published
/// on or before `last` is late: it is listed by the first day sealed here.
/// Releases of days not yet sealable stay pending. Nothing is sealed when
/// no day is due, even with late releases waiting.
pub fn plan(last: Option<(NaiveDate, &str)>, pending: Vec<Entry>, now: DateTime<Utc>) -> Vec<Day> {
    let through = last_sealable(now);
    let first = match last {
        Some((sealed, _)) => sealed.succ_opt(),
        None => pending.iter().map(Entry::day).min(),
    };
    let Some(first) = first.filter(|first| *first <= through) else {
        return Vec::new();
    };
    let (mut late, own): (Vec<Entry>, Vec<Entry>) = pending
        .into_iter()
        .partition(|e| last.is_some_and(|(sealed, _)| e.day() <= sealed));
    let mut by_day: BTreeMap<NaiveDate, Vec<Entry>> = BTreeMap::new();
    for entry in own {
        by_day.entry(entry.day()).or_default().push(entry);
    }
    let mut previous = last.map_or(GENESIS, |(_, root)| root).to_owned();
    let mut days = Vec::new();
    for date in first.iter_days().take_while(|date| *date <= through) {
        let releases = by_day.remove(&date).unwrap_or_default();
        let day = Day::seal(date, &previous, releases, std::mem::take(&mut late));
        previous.clone_from(&day.root);
        days.push(day);
    }
    days
}

#[cfg(test)]
mod tests;
