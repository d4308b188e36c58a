//! `MemoryReleaseLog` and `MemoryArchive`: the release log (with its index
//! of games) and the archive in memory. The archive reads bytes as the
//! table registered for them (`register`), so a test chooses every row by
//! hand; it counts its reads of kept releases (`reads`). The log is also
//! the ledger's book (`LedgerBook`), as the database adapter is.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use bytes::Bytes;
use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::{BookRow, OddsRow, PredictionTable};
use linecast_domain::{ModelType, Sport};

use crate::ports::ledger::{Day, DayRoot, Entry, LedgerBook};
use crate::ports::releases::{IndexedGame, KeptRelease, ReleaseArchive, ReleaseLog, Series};
use crate::services::releases::digest;
use crate::{AccountsError, ObjectVersion, StoreError, Versioned};

type IndexKey = (Series, String, i64);

#[derive(Default)]
struct LogInner {
    releases: BTreeMap<(Series, i64), KeptRelease>,
    games: BTreeMap<IndexKey, IndexedGame>,
    /// Sealed ledger days.
    days: BTreeMap<NaiveDate, Day>,
}

/// The release log and its index of games, in memory; counts its reads of
/// a game's index rows (`game_reads`).
#[derive(Default)]
pub struct MemoryReleaseLog {
    inner: Mutex<LogInner>,
    game_reads: AtomicU64,
}

impl MemoryReleaseLog {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LogInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every index row, in key order: (series, game id, instant in
    /// microseconds) and the row.
    pub fn index_rows(&self) -> Vec<(IndexKey, IndexedGame)> {
        self.lock().games.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    /// How many times a game's index rows were read.
    pub fn game_reads(&self) -> u64 {
        self.game_reads.load(Ordering::SeqCst)
    }

    /// Forgets every index row (a log kept before the index existed).
    pub fn drop_index(&self) {
        self.lock().games.clear();
    }
}

#[async_trait]
impl ReleaseLog for MemoryReleaseLog {
    async fn record(&self, release: &KeptRelease) -> Result<bool, AccountsError> {
        let key = (release.series, release.published_at.timestamp_micros());
        let mut inner = self.lock();
        if inner.releases.contains_key(&key) {
            return Ok(false);
        }
        inner.releases.insert(key, release.clone());
        Ok(true)
    }

    async fn releases(&self, series: Series) -> Result<Vec<KeptRelease>, AccountsError> {
        Ok(self
            .lock()
            .releases
            .values()
            .filter(|r| r.series == series)
            .cloned()
            .collect())
    }

    async fn forget_before(&self, before: DateTime<Utc>) -> Result<Vec<KeptRelease>, AccountsError> {
        let cutoff = before.timestamp_micros();
        let mut inner = self.lock();
        let old: Vec<KeptRelease> = inner
            .releases
            .values()
            .filter(|r| r.published_at.timestamp_micros() < cutoff)
            .cloned()
            .collect();
        inner.releases.retain(|(_, at), _| *at >= cutoff);
        inner.games.retain(|(_, _, at), _| *at >= cutoff);
        Ok(old)
    }

    async fn index_games(&self, release: &KeptRelease, games: &[IndexedGame]) -> Result<(), AccountsError> {
        let mut inner = self.lock();
        for game in games {
            inner
                .games
                .entry((
                    release.series,
                    game.game_id.clone(),
                    release.published_at.timestamp_micros(),
                ))
                .or_insert_with(|| game.clone());
        }
        Ok(())
    }

    async fn game_releases(
        &self,
        series: Series,
        game_id: &str,
    ) -> Result<Vec<(KeptRelease, IndexedGame)>, AccountsError> {
        self.game_reads.fetch_add(1, Ordering::SeqCst);
        let inner = self.lock();
        Ok(inner
            .games
            .iter()
            .filter(|((s, id, _), _)| *s == series && id == game_id)
            .filter_map(|((s, _, at), game)| Some((inner.releases.get(&(*s, *at))?.clone(), game.clone())))
            .collect())
    }

    async fn unindexed(&self, series: Series) -> Result<Vec<KeptRelease>, AccountsError> {
        let inner = self.lock();
        Ok(inner
            .releases
            .values()
            .filter(|r| r.series == series && r.game_count > 0)
            .filter(|r| {
                let at = r.published_at.timestamp_micros();
                !inner.games.keys().any(|(s, _, t)| *s == series && *t == at)
            })
            .cloned()
            .collect())
    }
}

fn entry(release: &KeptRelease) -> Entry {
    Entry {
        published_at: release.published_at,
        series: release.series.code(),
        digest: release.digest.clone(),
    }
}

impl LogInner {
    fn listed(&self, series: &str, at: DateTime<Utc>) -> bool {
        self.days
            .values()
            .flat_map(|d| d.releases.iter().chain(&d.late))
            .any(|e| e.series == series && e.published_at == at)
    }
}

#[async_trait]
impl LedgerBook for MemoryReleaseLog {
    async fn last_sealed(&self) -> Result<Option<(NaiveDate, String)>, AccountsError> {
        Ok(self.lock().days.values().next_back().map(|d| (d.date, d.root.clone())))
    }

    async fn unlisted(&self, from: Option<DateTime<Utc>>, before: DateTime<Utc>) -> Result<Vec<Entry>, AccountsError> {
        let inner = self.lock();
        let mut out: Vec<Entry> = inner
            .releases
            .values()
            .filter(|r| r.published_at < before && from.is_none_or(|from| r.published_at >= from))
            .filter(|r| !inner.listed(&r.series.code(), r.published_at))
            .map(entry)
            .collect();
        out.sort_by_key(|e| e.published_at);
        Ok(out)
    }

    async fn seal(&self, day: &Day) -> Result<bool, AccountsError> {
        let mut inner = self.lock();
        if inner.days.contains_key(&day.date) {
            return Ok(false);
        }
        inner.days.insert(day.date, day.clone());
        Ok(true)
    }

    async fn day(&self, date: NaiveDate) -> Result<Option<Day>, AccountsError> {
        Ok(self.lock().days.get(&date).cloned())
    }

    async fn roots(&self) -> Result<Vec<DayRoot>, AccountsError> {
        Ok(self
            .lock()
            .days
            .values()
            .map(|d| DayRoot {
                date: d.date,
                previous: d.previous.clone(),
                root: d.root.clone(),
                releases: u32::try_from(d.releases.len()).unwrap_or(u32::MAX),
                late: u32::try_from(d.late.len()).unwrap_or(u32::MAX),
            })
            .collect())
    }
}

/// The archive in memory: bytes are read as the table registered for them.
#[derive(Default)]
pub struct MemoryArchive {
    tables: Mutex<HashMap<String, Arc<PredictionTable>>>,
    kept: Mutex<HashMap<String, Bytes>>,
    reads: AtomicU64,
}

impl MemoryArchive {
    pub fn new() -> Self {
        Self::default()
    }

    /// `bytes` will read as `table`.
    pub fn register(&self, bytes: &[u8], table: PredictionTable) {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(digest(bytes), Arc::new(table));
    }

    /// Kept releases read so far (`kept_predictions`, `kept_odds`).
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::SeqCst)
    }

    /// The archive keys written, sorted.
    pub fn kept_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    }

    fn table(&self, digest: &str, object: &str) -> Result<Arc<PredictionTable>, StoreError> {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(digest)
            .cloned()
            .ok_or_else(|| StoreError::Corrupt {
                object: object.to_owned(),
                row: 0,
                column: String::new(),
                reason: "no table registered for these bytes".to_owned(),
            })
    }
}

#[async_trait]
impl ReleaseArchive for MemoryArchive {
    async fn current(&self, key: &str) -> Result<(ObjectVersion, Bytes), StoreError> {
        Err(StoreError::NotFound { object: key.to_owned() })
    }

    async fn keep(&self, key: &str, bytes: Bytes) -> Result<(), StoreError> {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key.to_owned())
            .or_insert(bytes);
        Ok(())
    }

    async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner).remove(key);
        Ok(())
    }

    fn count_games(&self, _series: Series, object: &str, bytes: &[u8]) -> Result<u32, StoreError> {
        let table = self.table(&digest(bytes), object)?;
        Ok(u32::try_from(table.rows.len()).unwrap_or(u32::MAX))
    }

    fn read_predictions(
        &self,
        _sport: Sport,
        _model_type: ModelType,
        object: &str,
        bytes: &[u8],
    ) -> Result<PredictionTable, StoreError> {
        Ok(self.table(&digest(bytes), object)?.as_ref().clone())
    }

    async fn kept_predictions(&self, release: &KeptRelease) -> Result<Versioned<PredictionTable>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let key = release.series.archive_key(&release.digest);
        if !self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(&key)
        {
            return Err(StoreError::NotFound { object: key });
        }
        let table = self.table(&release.digest, &key)?;
        Ok(Versioned::unmeasured(
            ObjectVersion {
                key,
                version: release.digest.clone(),
                last_modified: release.published_at,
                size: release.size,
            },
            table,
        ))
    }

    async fn kept_odds(&self, release: &KeptRelease) -> Result<Versioned<Vec<OddsRow>>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        Err(StoreError::NotFound {
            object: release.series.archive_key(&release.digest),
        })
    }

    async fn kept_books(&self, release: &KeptRelease) -> Result<Versioned<Vec<BookRow>>, StoreError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        Err(StoreError::NotFound {
            object: release.series.archive_key(&release.digest),
        })
    }
}
