//! One generation of one season store, graded: the rows, their grades and
//! served order, and every per-season aggregate (summary, tracking,
//! leaderboards, replays) computed once on first use (calibration, which
//! also reads the archive's checks, is `ArchiveChecks::calibration`'s). Knows
//! nothing of the cache that holds it ([`super::History`]) nor of how its
//! rows are written (the API renders them once per generation).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use chrono::NaiveDate;
use linecast_domain::artifacts::SeasonTable;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::window::is_decided;
use linecast_grading::{GradedRow, Summary, Tracking, grade_rows, summarize_graded, track_graded};
use linecast_strategies::{Accounting, Leaderboard, Replay, UnknownStrategy, leaderboard};

use super::rows::{self, ServedColumn};
use crate::{Deps, ObjectVersion, Versioned};

/// Memory per byte of CSV once a season is parsed, graded and aggregated,
/// used as the weight only where heap sizes are not measured (a program
/// without the counting allocator of `linecast-heap`, such as core's tests).
const WEIGHT_PER_OBJECT_BYTE: u64 = 8;

/// One generation of one season store, graded.
pub struct SeasonData {
    pub sport: Sport,
    pub model_type: ModelType,
    pub season: SeasonLabel,
    pub version: ObjectVersion,
    pub table: Arc<SeasonTable>,
    /// Aligned with `table.rows`.
    pub graded: Vec<GradedRow>,
    /// Indices of the rows served (in scope: professional preseason rows are
    /// left out), oldest first by (date, time, teams).
    pub order: Vec<usize>,
    summary: OnceLock<Arc<Summary>>,
    tracking: OnceLock<Arc<Tracking>>,
    strategies: [OnceLock<Arc<Leaderboard>>; 2],
    /// Keyed by accounting, strategy id and whether excluded rows are kept.
    replays: Mutex<HashMap<(usize, String, bool), Arc<Replay>>>,
    /// Measured heap of the parsed table and the grading, then of every
    /// aggregate as it is computed; `None` when not measured.
    heap_bytes: Option<AtomicU64>,
}

impl std::fmt::Debug for SeasonData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeasonData")
            .field("season", &self.season)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl SeasonData {
    pub(super) fn build(
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        artifact: Versioned<SeasonTable>,
    ) -> Self {
        let table = artifact.value;
        let ((graded, order), grading_bytes) = linecast_heap::measured(|| {
            let graded = grade_rows(&table.rows, sport, model_type);
            let mut order: Vec<usize> = (0..table.rows.len()).filter(|i| graded[*i].in_scope).collect();
            order.sort_by(|a, b| table.rows[*a].key.cmp(&table.rows[*b].key));
            (graded, order)
        });
        let heap_bytes = artifact
            .heap_bytes
            .zip(grading_bytes)
            .map(|(t, g)| AtomicU64::new(t.saturating_add(g)));
        Self {
            sport,
            model_type,
            season,
            version: artifact.version,
            table,
            graded,
            order,
            summary: OnceLock::new(),
            tracking: OnceLock::new(),
            strategies: [OnceLock::new(), OnceLock::new()],
            replays: Mutex::new(HashMap::new()),
            heap_bytes,
        }
    }

    /// Runs `f` (an aggregate being computed) and adds the heap it keeps
    /// to this season's weight.
    fn weighed<T>(&self, f: impl FnOnce() -> T) -> T {
        let (out, bytes) = linecast_heap::measured(f);
        if let (Some(total), Some(bytes)) = (&self.heap_bytes, bytes) {
            total.fetch_add(bytes, Ordering::Relaxed);
        }
        out
    }

    /// What every value computed from this season depends on: the season
    /// store's key and version (the key names the sport, model type and
    /// season).
    pub fn deps(&self) -> Deps {
        Deps::new().object(&self.version)
    }

    /// Memory held for this season: the parsed rows, the grading and the
    /// aggregates computed so far, as measured (else estimated from the
    /// object size).
    pub fn weight(&self) -> u64 {
        let heap = match &self.heap_bytes {
            Some(measured) => measured.load(Ordering::Relaxed),
            None => self.version.size.saturating_mul(WEIGHT_PER_OBJECT_BYTE),
        };
        heap.saturating_add(4096)
    }

    /// Rows served by `/results`: in scope, every row of the season.
    pub fn total(&self) -> usize {
        self.order.len()
    }

    /// The date of the latest game played against a posted line (a final
    /// and a line; a push counts): what makes a season `current_season`.
    pub fn latest_played(&self) -> Option<NaiveDate> {
        self.order
            .iter()
            .filter(|i| self.graded[**i].decision.is_some())
            .map(|i| self.table.rows[*i].key.date)
            .max()
    }

    /// The date of the latest decided game (a final and a line, not a
    /// push): what keeps a season `live`.
    pub fn latest_decided(&self) -> Option<NaiveDate> {
        self.order
            .iter()
            .filter(|i| is_decided(&self.graded[**i]))
            .map(|i| self.table.rows[*i].key.date)
            .max()
    }

    pub fn first_date(&self) -> Option<NaiveDate> {
        self.order.first().map(|i| self.table.rows[*i].key.date)
    }

    pub fn last_date(&self) -> Option<NaiveDate> {
        self.order.last().map(|i| self.table.rows[*i].key.date)
    }

    pub fn summary(&self) -> Arc<Summary> {
        self.summary
            .get_or_init(|| {
                self.weighed(|| Arc::new(summarize_graded(&self.table.rows, &self.graded, self.model_type)))
            })
            .clone()
    }

    pub fn tracking(&self) -> Arc<Tracking> {
        self.tracking
            .get_or_init(|| self.weighed(|| Arc::new(track_graded(&self.table.rows, &self.graded))))
            .clone()
    }

    pub fn strategies(&self, accounting: Accounting) -> Arc<Leaderboard> {
        let slot = match accounting {
            Accounting::LegacyV1 => &self.strategies[0],
            Accounting::RecordedV2 => &self.strategies[1],
        };
        slot.get_or_init(|| {
            self.weighed(|| Arc::new(leaderboard(&self.table.rows, self.sport, self.model_type, accounting)))
        })
        .clone()
    }

    /// One strategy's replay (with excluded rows), computed once per
    /// generation, accounting and strategy.
    pub fn replay(&self, accounting: Accounting, strategy_id: &str) -> Result<Arc<Replay>, UnknownStrategy> {
        let slot = (accounting as usize, strategy_id.to_owned(), true);
        if let Some(hit) = self.cached_replay(&slot) {
            return Ok(hit);
        }
        let replay = Arc::new(self.weighed(|| {
            linecast_strategies::replay(&self.table.rows, self.sport, self.model_type, accounting, strategy_id)
        })?);
        Ok(self.cache_replay(slot, replay))
    }

    /// The replay without `excluded_rows`, also cached, so a request without
    /// `include_excluded` copies nothing.
    pub fn replay_without_excluded(
        &self,
        accounting: Accounting,
        strategy_id: &str,
    ) -> Result<Arc<Replay>, UnknownStrategy> {
        let slot = (accounting as usize, strategy_id.to_owned(), false);
        if let Some(hit) = self.cached_replay(&slot) {
            return Ok(hit);
        }
        let full = self.replay(accounting, strategy_id)?;
        let trimmed = self.weighed(|| Arc::new((*full).clone().without_excluded()));
        Ok(self.cache_replay(slot, trimmed))
    }

    fn cached_replay(&self, slot: &(usize, String, bool)) -> Option<Arc<Replay>> {
        self.replays.lock().ok().and_then(|m| m.get(slot).cloned())
    }

    fn cache_replay(&self, slot: (usize, String, bool), replay: Arc<Replay>) -> Arc<Replay> {
        if let Ok(mut m) = self.replays.lock() {
            m.insert(slot, replay.clone());
        }
        replay
    }

    /// The columns of every served row, in served order.
    pub fn served_columns(&self) -> Vec<ServedColumn<'_>> {
        rows::served_columns(&self.table, self.model_type)
    }

    /// The served rows with their grades, oldest first.
    pub fn served_rows(&self) -> impl ExactSizeIterator<Item = (&linecast_domain::SeasonRow, &GradedRow)> + '_ {
        self.order.iter().map(|i| (&self.table.rows[*i], &self.graded[*i]))
    }
}
