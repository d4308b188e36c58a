//! The ledger's use case over the in-memory book: sealing, late releases,
//! open days, racing instances and retention. Expected roots are computed
//! here with `sha2` from the documented bytes, never with
//! `linecast_ledger`'s own functions.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use linecast_domain::{ModelType, Sport};
use sha2::{Digest, Sha256};

use super::{Ledger, LedgerDay, LedgerError};
use crate::ports::ledger::LedgerBook;
use crate::ports::releases::{KeptRelease, ReleaseLog, Series};
use crate::services::releases::Releases;
use crate::testing::{MemoryArchive, MemoryReleaseLog, MemoryStore};

const ML: Series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
const ODDS: Series = Series::Odds(Sport::Nba);

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn date(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn release(series: Series, when: &str, digest: char) -> KeptRelease {
    KeptRelease {
        series,
        published_at: at(when),
        digest: digest.to_string().repeat(64),
        game_count: 1,
        size: 10,
    }
}

/// The root as docs/payloads.md states it, from `(published_at text,
/// series, digest)` triples in ledger order.
fn expected_root(previous: &str, lines: &[(&str, Series, char)]) -> String {
    let mut text = format!("{previous}\n");
    for (when, series, digest) in lines {
        text.push_str(when);
        text.push('\t');
        text.push_str(&series.code());
        text.push('\t');
        text.push_str(&digest.to_string().repeat(64));
        text.push('\n');
    }
    hex::encode(Sha256::digest(text.as_bytes()))
}

async fn three_days(log: &MemoryReleaseLog) {
    for r in [
        release(ML, "2026-11-12T14:00:00.123456Z", 'a'),
        release(ODDS, "2026-11-12T14:00:00.123456Z", 'b'),
        release(ODDS, "2026-11-12T09:30:00Z", 'c'),
        release(ML, "2026-11-14T00:00:00Z", 'e'),
        release(ODDS, "2026-11-15T10:00:00Z", 'f'),
    ] {
        assert!(log.record(&r).await.unwrap());
    }
}

fn sealed(day: &LedgerDay) -> &linecast_ledger::Day {
    match day {
        LedgerDay::Sealed(day) => day,
        LedgerDay::Open { .. } => panic!("{day:?} is open"),
    }
}

#[tokio::test]
async fn every_past_day_is_sealed_with_a_root_chaining_the_one_before() {
    let log = Arc::new(MemoryReleaseLog::new());
    three_days(&log).await;
    let ledger = Ledger::new(log.clone());
    let now = at("2026-11-15T12:00:00Z");
    let r12 = expected_root(
        &"0".repeat(64),
        &[
            ("2026-11-12T09:30:00Z", ODDS, 'c'),
            ("2026-11-12T14:00:00.123456Z", ODDS, 'b'),
            ("2026-11-12T14:00:00.123456Z", ML, 'a'),
        ],
    );
    let r13 = expected_root(&r12, &[]);
    let r14 = expected_root(&r13, &[("2026-11-14T00:00:00Z", ML, 'e')]);
    let roots = ledger.roots(now).await.unwrap().value;
    let got: Vec<(NaiveDate, &str, &str)> = roots
        .iter()
        .map(|r| (r.date, r.previous.as_str(), r.root.as_str()))
        .collect();
    let zeros = "0".repeat(64);
    assert_eq!(
        got,
        [
            (date("2026-11-12"), zeros.as_str(), r12.as_str()),
            (date("2026-11-13"), r12.as_str(), r13.as_str()),
            (date("2026-11-14"), r13.as_str(), r14.as_str())
        ]
    );
    let day = ledger.day(date("2026-11-12"), now).await.unwrap().value;
    let digests: Vec<&str> = sealed(&day).releases.iter().map(|e| &e.digest[..1]).collect();
    assert_eq!(digests, ["c", "b", "a"]);
    // Today is open: what was published so far, no root.
    let today = ledger.day(date("2026-11-15"), now).await.unwrap().value;
    let LedgerDay::Open { releases, .. } = today else {
        panic!("{today:?}")
    };
    assert_eq!(releases.len(), 1);
    assert_eq!(
        ledger.day(date("2026-11-16"), now).await.unwrap_err(),
        LedgerError::Future
    );
    assert_eq!(
        ledger.day(date("2026-11-11"), now).await.unwrap_err(),
        LedgerError::BeforeLedger {
            first: Some(date("2026-11-12"))
        }
    );
}

#[tokio::test]
async fn a_release_recorded_after_its_day_was_sealed_is_late_in_the_next_day_and_no_root_moves() {
    let log = Arc::new(MemoryReleaseLog::new());
    three_days(&log).await;
    let ledger = Ledger::new(log.clone());
    let before = ledger.roots(at("2026-11-15T12:00:00Z")).await.unwrap().value;
    // A backfill of the 13th, recorded on the 15th.
    assert!(log.record(&release(ML, "2026-11-13T08:00:00Z", 'd')).await.unwrap());
    let next = at("2026-11-16T01:00:00Z");
    let after = ledger.roots(next).await.unwrap().value;
    assert_eq!(after[..3], before[..], "a sealed root never changes");
    let r15 = expected_root(
        &before[2].root,
        &[("2026-11-15T10:00:00Z", ODDS, 'f'), ("2026-11-13T08:00:00Z", ML, 'd')],
    );
    assert_eq!(
        (after[3].date, after[3].root.as_str()),
        (date("2026-11-15"), r15.as_str())
    );
    assert_eq!((after[3].releases, after[3].late), (1, 1));
    let thirteenth = ledger.day(date("2026-11-13"), next).await.unwrap().value;
    assert!(sealed(&thirteenth).releases.is_empty(), "the 13th stays as sealed");
}

#[tokio::test]
async fn instances_sealing_at_once_agree_on_every_day() {
    let log = Arc::new(MemoryReleaseLog::new());
    three_days(&log).await;
    let (a, b) = (Ledger::new(log.clone()), Ledger::new(log.clone()));
    let now = at("2026-11-15T12:00:00Z");
    let (x, y) = tokio::join!(a.seal(now), b.seal(now));
    assert_eq!(x.unwrap() + y.unwrap(), 3, "each day sealed once");
    assert_eq!(a.roots(now).await.unwrap().value, b.roots(now).await.unwrap().value);
    // Once sealed through the due day, an instance asks nothing again.
    assert_eq!(a.seal(now).await.unwrap(), 0);
}

#[tokio::test]
async fn retention_forgets_only_listed_releases_and_leaves_the_ledger_whole() {
    let log = Arc::new(MemoryReleaseLog::new());
    three_days(&log).await;
    let ledger = Arc::new(Ledger::new(log.clone()));
    let now = at("2026-11-15T12:00:00Z");
    let before = ledger.roots(now).await.unwrap().value;
    // Recorded after the 14th was sealed: unlisted until the 15th is.
    assert!(log.record(&release(ODDS, "2026-11-13T08:00:00Z", 'd')).await.unwrap());
    let releases = Releases::new(
        log.clone(),
        Arc::new(MemoryArchive::new()),
        Arc::new(MemoryStore::new()),
        Some(Duration::hours(12)),
    )
    .with_ledger(ledger.clone());
    // The cutoff (the 15th at 00:00) would forget the late release: it stops before it.
    assert_eq!(releases.prune(now).await.unwrap(), 3);
    let kept: Vec<DateTime<Utc>> = log
        .releases(ODDS)
        .await
        .unwrap()
        .iter()
        .map(|r| r.published_at)
        .collect();
    assert_eq!(kept, [at("2026-11-13T08:00:00Z"), at("2026-11-15T10:00:00Z")]);
    assert_eq!(ledger.roots(now).await.unwrap().value, before);
    let twelfth = ledger.day(date("2026-11-12"), now).await.unwrap().value;
    assert_eq!(sealed(&twelfth).releases.len(), 3, "forgotten releases stay listed");
    assert!(sealed(&twelfth).verifies());
    // Once listed (the 15th sealed), it may go.
    let later = at("2026-11-16T02:00:00Z");
    assert_eq!(releases.prune(later).await.unwrap(), 3);
    assert!(log.unlisted(None, later).await.unwrap().is_empty());
    assert_eq!(ledger.roots(later).await.unwrap().value[..3], before[..]);
}
