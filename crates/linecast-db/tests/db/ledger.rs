//! The ledger's book: a day is sealed once, with its entries, whichever
//! instance comes first; its releases leave the unlisted set; retention
//! forgetting the releases leaves the sealed days as they were.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use linecast_core::ports::ledger::{Day, Entry, LedgerBook};
use linecast_core::ports::releases::{KeptRelease, ReleaseLog, Series};
use linecast_db::SeaAccounts;
use linecast_domain::{ModelType, Sport};

const ML: Series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
const ODDS: Series = Series::Odds(Sport::Nba);

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn release(series: Series, when: &str, digest: char) -> KeptRelease {
    KeptRelease {
        series,
        published_at: at(when),
        digest: digest.to_string().repeat(64),
        game_count: 3,
        size: 100,
    }
}

fn entry(r: &KeptRelease) -> Entry {
    Entry {
        published_at: r.published_at,
        series: r.series.code(),
        digest: r.digest.clone(),
    }
}

fn day(date: &str, previous: &str, releases: Vec<Entry>, late: Vec<Entry>) -> Day {
    Day {
        date: date.parse::<NaiveDate>().unwrap(),
        previous: previous.to_owned(),
        root: "f".repeat(64),
        releases,
        late,
    }
}

pub async fn a_day_is_sealed_once_with_its_entries_and_retention_leaves_it_whole(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let a = release(ML, "2026-11-12T14:00:00.123456Z", 'a');
    let b = release(ODDS, "2026-11-12T09:30:00Z", 'b');
    let c = release(ODDS, "2026-11-13T10:00:00Z", 'c');
    for r in [&a, &b, &c] {
        assert!(db.record(r).await.unwrap());
    }
    assert_eq!(db.last_sealed().await.unwrap(), None);
    let before_13 = at("2026-11-13T00:00:00Z");
    assert_eq!(db.unlisted(None, before_13).await.unwrap(), [entry(&b), entry(&a)]);
    assert_eq!(
        db.unlisted(Some(before_13), at("2026-11-14T00:00:00Z")).await.unwrap(),
        [entry(&c)]
    );
    let twelfth = day("2026-11-12", &"0".repeat(64), vec![entry(&b), entry(&a)], Vec::new());
    assert!(db.seal(&twelfth).await.unwrap());
    let again = day("2026-11-12", &"0".repeat(64), Vec::new(), Vec::new());
    assert!(!db.seal(&again).await.unwrap(), "a sealed day is never rewritten");
    assert_eq!(db.day(twelfth.date).await.unwrap(), Some(twelfth.clone()));
    assert_eq!(
        db.last_sealed().await.unwrap(),
        Some((twelfth.date, twelfth.root.clone()))
    );
    assert!(db.unlisted(None, before_13).await.unwrap().is_empty(), "listed");
    // A late release and the 13th's own.
    let late = release(ML, "2026-11-12T20:00:00Z", 'd');
    assert!(db.record(&late).await.unwrap());
    let thirteenth = day("2026-11-13", &twelfth.root, vec![entry(&c)], vec![entry(&late)]);
    assert!(db.seal(&thirteenth).await.unwrap());
    assert_eq!(db.day(thirteenth.date).await.unwrap(), Some(thirteenth.clone()));
    let roots = db.roots().await.unwrap();
    assert_eq!(roots.len(), 2);
    assert_eq!((roots[1].releases, roots[1].late), (1, 1));
    assert_eq!(roots[1].previous, twelfth.root);
    // Retention forgets every release: the sealed days stay as they were.
    db.forget_before(at("2026-11-14T00:00:00Z")).await.unwrap();
    assert_eq!(db.day(twelfth.date).await.unwrap(), Some(twelfth));
    assert_eq!(db.day(thirteenth.date).await.unwrap(), Some(thirteenth));
    assert_eq!(db.day("2026-11-14".parse().unwrap()).await.unwrap(), None);
}

pub async fn instances_sealing_one_day_at_once_write_it_once(url: String) {
    let first = Arc::new(SeaAccounts::connect(&url).await.unwrap());
    let second = Arc::new(SeaAccounts::connect(&url).await.unwrap());
    let kept = release(ML, "2026-11-12T14:00:00Z", 'a');
    assert!(first.record(&kept).await.unwrap());
    let one = day("2026-11-12", &"0".repeat(64), vec![entry(&kept)], Vec::new());
    let (by_first, by_second) = tokio::join!(first.seal(&one), second.seal(&one));
    let (by_first, by_second) = (by_first.unwrap(), by_second.unwrap());
    assert!(by_first ^ by_second, "exactly one seals it: {by_first} {by_second}");
    assert_eq!(second.day(one.date).await.unwrap(), Some(one));
}
