//! Point-in-time data: every version of a predictions or odds object that
//! linecast sees is kept (its bytes archived once, its release recorded
//! once), and the slates can be asked as of an instant, and a game's
//! history read across the kept releases.
//!
//! Owns which versions are kept, the digest, which release an instant
//! falls in, retention and a game's opening and closing release. Must not
//! know HTTP, SQL or object_store (the ports do).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use chrono::{DateTime, Duration, DurationRound, Utc};
use linecast_domain::artifacts::PredictionRow;
use linecast_domain::time::et_instant;
use linecast_domain::{ModelColumn, ModelType, SeasonLabel, Sport, read_game_id};
use linecast_grading::calibration::{ClvFrom, PriceMoves};
use sha2::{Digest, Sha256};

use crate::ports::releases::{IndexedGame, KeptRelease, ReleaseArchive, ReleaseLog, Series};
use crate::services::clv::ClvScan;
use crate::services::game_index;
use crate::services::ledger::Ledger;
use crate::services::slate::{OddsSlate, PredictionSlate, served_models, served_slate_at};
use crate::{AccountsError, ArtifactStore, Deps, Derived, ObjectVersion, StoreError};

/// How long an instance trusts its copy of a series' releases before it
/// reads the log again (releases recorded by another instance, or imported,
/// show within this long; its own are seen at once).
pub const INDEX_TTL: Duration = Duration::seconds(60);

/// A kept release could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("release log: {0}")]
    Log(#[from] AccountsError),
}

/// Why an `as_of` read has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsOfError {
    /// The instant is after now.
    #[error("as_of is in the future")]
    Future,
    /// No kept release was published at or before the instant; `first` is
    /// when history starts (`None`: nothing kept yet).
    #[error("no release kept before the instant")]
    BeforeHistory { first: Option<DateTime<Utc>> },
    #[error(transparent)]
    Release(#[from] ReleaseError),
}

impl From<StoreError> for AsOfError {
    fn from(e: StoreError) -> Self {
        Self::Release(ReleaseError::Store(e))
    }
}

/// Why a game's history has no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// Not of the game id form.
    #[error("malformed game id")]
    Malformed,
    /// No kept release of the market carried the game.
    #[error("no kept release carries the game")]
    Unknown,
    #[error(transparent)]
    Release(#[from] ReleaseError),
}

/// The SHA-256 of `bytes`, lowercase hex: a kept release's digest.
pub fn digest(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// One release that carried a game, with the game's row in it.
#[derive(Debug, Clone)]
pub struct GameRelease {
    pub release: KeptRelease,
    pub row: PredictionRow,
    /// The model columns that release served (IMPLIED and its own).
    pub models: Vec<ModelColumn>,
    /// In a game's history: the release was published at or after the
    /// game's scheduled start (as the latest release carrying the game
    /// states it). Such a release is listed, never the closing. Always
    /// `false` in the history export's rows (not judged there).
    pub after_start: bool,
}

/// A game's kept history in one market, oldest first.
#[derive(Debug, Clone)]
pub struct GameHistory {
    pub sport: Sport,
    pub model_type: ModelType,
    pub game_id: String,
    pub entries: Vec<GameRelease>,
    /// The first release that carried the game.
    pub opening: GameRelease,
    /// Index into `entries` of the closing release: the last not
    /// `after_start` (published before the game's scheduled start, its
    /// latest stated start when the start moved); `None` when every kept
    /// release came after the start.
    pub closing: Option<usize>,
}

impl GameHistory {
    pub fn closing(&self) -> Option<&GameRelease> {
        self.closing.and_then(|i| self.entries.get(i))
    }
}

/// A value and the instant it was read.
type ReadAt<T> = (DateTime<Utc>, T);
/// Price moves and the generation of kept releases they came from.
/// A season's CLV scan of one series, carried forward release by release:
/// the generation it last answered, how many of the series' releases it
/// has read and the last of them (a new generation that extends that
/// prefix is read from there on; anything else, a backfill or retention,
/// is read again from the start), and the moves it answered per `from`.
#[derive(Clone)]
struct ScanOf {
    generation: String,
    read: usize,
    last: Option<(DateTime<Utc>, String)>,
    scan: ClvScan,
    moves: HashMap<ClvFrom, Arc<PriceMoves>>,
}

/// Which game's history a plan is of (see [`Releases::game_history_plan`]).
#[derive(Debug, Clone)]
pub struct HistoryOf {
    pub game_id: String,
    pub model_type: ModelType,
}

/// What a history export is made from.
#[derive(Debug, Clone)]
pub struct HistoryPlan {
    pub sport: Sport,
    pub model_type: ModelType,
    pub season: Option<SeasonLabel>,
    pub releases: Arc<Vec<KeptRelease>>,
}

/// The kept releases and the reads over them.
pub struct Releases {
    log: Arc<dyn ReleaseLog>,
    archive: Arc<dyn ReleaseArchive>,
    store: Arc<dyn ArtifactStore>,
    retention: Option<Duration>,
    /// Versions (key and version) already kept, or found broken: a round
    /// reads only the versions it has not met.
    met: Mutex<HashSet<(String, String)>>,
    /// Each series' releases as last read from the log, and when.
    index: Mutex<HashMap<Series, ReadAt<Arc<Vec<KeptRelease>>>>>,
    /// Each series and season's CLV scan and its price moves per `from`.
    moves: Mutex<HashMap<(Series, SeasonLabel), ScanOf>>,
    /// The predictions series whose every recorded release is known to be
    /// in the index of games (a game's history reads the index, not the
    /// archive). Releases are indexed before they are recorded, so a
    /// series stays complete once it is.
    indexed: Mutex<HashSet<Series>>,
    /// Each sport's scan of its named books' kept releases: each game and
    /// book's last row before the start (`services::books`).
    pub(crate) book_scans: Mutex<HashMap<Sport, crate::services::book_scan::BooksScan>>,
    /// The public ledger, sealed before retention forgets anything (a
    /// release is forgotten only once a sealed day lists it).
    ledger: Option<Arc<Ledger>>,
}

impl std::fmt::Debug for Releases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Releases")
            .field("retention", &self.retention)
            .finish_non_exhaustive()
    }
}

impl Releases {
    /// `retention`: how long a release is kept (`None`: for ever).
    pub fn new(
        log: Arc<dyn ReleaseLog>,
        archive: Arc<dyn ReleaseArchive>,
        store: Arc<dyn ArtifactStore>,
        retention: Option<Duration>,
    ) -> Self {
        Self {
            log,
            archive,
            store,
            retention,
            met: Mutex::new(HashSet::new()),
            index: Mutex::new(HashMap::new()),
            moves: Mutex::new(HashMap::new()),
            indexed: Mutex::new(HashSet::new()),
            book_scans: Mutex::new(HashMap::new()),
            ledger: None,
        }
    }

    /// Seals `ledger`'s due days at each retention round, before anything
    /// is forgotten, and forgets no release the ledger does not list yet.
    #[must_use]
    pub fn with_ledger(mut self, ledger: Arc<Ledger>) -> Self {
        self.ledger = Some(ledger);
        self
    }

    /// Keeps every predictions and odds version among `versions` (what the
    /// watcher listed) that this instance has not kept yet: its bytes read
    /// once, archived once, its release recorded once. A version that fails
    /// to be kept is tried again next round; a broken one is logged and
    /// skipped (it is no release a client could have read). Returns the
    /// releases this call recorded.
    pub async fn keep_versions(&self, versions: &[ObjectVersion]) -> Vec<KeptRelease> {
        self.keep_round(versions)
            .await
            .into_iter()
            .filter_map(|(release, new)| new.then_some(release))
            .collect()
    }

    /// [`Self::keep_versions`], returning every release this round met for
    /// the first time with whether this call recorded it (`false`: another
    /// instance had): what the round's events are told of their release,
    /// the same on every instance.
    pub async fn keep_round(&self, versions: &[ObjectVersion]) -> Vec<(KeptRelease, bool)> {
        let mut met = Vec::new();
        for listed in versions {
            let Some(series) = Series::of_key(&listed.key) else {
                continue;
            };
            if self.has_met(listed) {
                continue;
            }
            match self.keep_current(series, listed).await {
                Ok(Some((release, new))) => {
                    if new {
                        tracing::info!(
                            series = %series.code(), published_at = %release.published_at,
                            digest = %release.digest, games = release.game_count, "release kept"
                        );
                    }
                    met.push((release, new));
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(object = %listed.key, error = %e, "release not kept; tried again next round"),
            }
        }
        met
    }

    fn has_met(&self, version: &ObjectVersion) -> bool {
        self.met
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&(version.key.clone(), version.version.clone()))
    }

    fn meet(&self, version: &ObjectVersion) {
        self.met
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((version.key.clone(), version.version.clone()));
    }

    async fn keep_current(
        &self,
        series: Series,
        listed: &ObjectVersion,
    ) -> Result<Option<(KeptRelease, bool)>, ReleaseError> {
        let (read, bytes) = self.archive.current(&listed.key).await?;
        if self.has_met(&read) {
            self.meet(listed);
            return Ok(None);
        }
        match self.keep(series, read.last_modified, bytes).await {
            Ok((release, new)) => {
                self.meet(listed);
                self.meet(&read);
                Ok(Some((release, new)))
            }
            Err(ReleaseError::Store(StoreError::Corrupt {
                object,
                row,
                column,
                reason,
            })) => {
                tracing::warn!(%object, row, %column, %reason, "a broken version is not kept");
                self.meet(listed);
                self.meet(&read);
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// Keeps `bytes` as the version of `series` published at
    /// `published_at` (the watcher's reads, backfill and the demo's past
    /// week): checked against the data contract, archived under its digest
    /// and recorded. Returns the release and whether this call recorded it.
    pub async fn keep(
        &self,
        series: Series,
        published_at: DateTime<Utc>,
        bytes: Bytes,
    ) -> Result<(KeptRelease, bool), ReleaseError> {
        // The precision both databases keep, so a release reads back equal.
        let published_at = published_at
            .duration_trunc(Duration::microseconds(1))
            .unwrap_or(published_at);
        let digest = digest(&bytes);
        let archive_key = series.archive_key(&digest);
        let (game_count, games) = match series {
            Series::Predictions(sport, model_type) => {
                let table = self
                    .archive
                    .read_predictions(sport, model_type, &series.key(), &bytes)?;
                let games = game_index::index_table(&table);
                (u32::try_from(games.len()).unwrap_or(u32::MAX), games)
            }
            Series::Odds(_) | Series::Books(_) => {
                (self.archive.count_games(series, &series.key(), &bytes)?, Vec::new())
            }
        };
        let release = KeptRelease {
            series,
            published_at,
            digest,
            game_count,
            size: bytes.len() as u64,
        };
        // Bytes first, then its games: a recorded release always has its
        // bytes and its index rows.
        self.archive.keep(&archive_key, bytes).await?;
        if !games.is_empty() {
            self.log.index_games(&release, &games).await?;
        }
        let new = self.log.record(&release).await?;
        if new {
            tracing::debug!(object = %archive_key, %published_at, games = game_count, "release kept");
        }
        self.index
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&series);
        Ok((release, new))
    }

    /// The artifact store the current versions are read from.
    pub(crate) fn store(&self) -> &dyn ArtifactStore {
        self.store.as_ref()
    }

    /// The archive of kept releases' bytes.
    pub(crate) fn archive(&self) -> &dyn ReleaseArchive {
        self.archive.as_ref()
    }

    /// Every kept release of `series`, oldest first (the log read at most
    /// once per [`INDEX_TTL`]).
    pub async fn series(&self, series: Series, now: DateTime<Utc>) -> Result<Arc<Vec<KeptRelease>>, ReleaseError> {
        if let Some((read_at, releases)) = self.index.lock().unwrap_or_else(PoisonError::into_inner).get(&series)
            && now - *read_at < INDEX_TTL
            && *read_at <= now
        {
            return Ok(Arc::clone(releases));
        }
        let releases = Arc::new(self.log.releases(series).await?);
        self.index
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(series, (now, Arc::clone(&releases)));
        Ok(releases)
    }

    /// The release of `series` current at `instant`: the last published at
    /// or before it.
    pub async fn at(
        &self,
        series: Series,
        instant: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<KeptRelease, AsOfError> {
        if instant > now {
            return Err(AsOfError::Future);
        }
        let releases = self.series(series, now).await?;
        let after = releases.partition_point(|r| r.published_at <= instant);
        match after.checked_sub(1).and_then(|i| releases.get(i)) {
            Some(release) => Ok(release.clone()),
            None => Err(AsOfError::BeforeHistory {
                first: releases.first().map(|r| r.published_at),
            }),
        }
    }

    /// `/predictions` as it answered at `instant`: the release current
    /// then, the slate judged at that instant.
    pub async fn predictions_at(
        &self,
        sport: Sport,
        model_type: ModelType,
        upcoming_only: bool,
        instant: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Derived<PredictionSlate>, AsOfError> {
        let release = self.at(Series::Predictions(sport, model_type), instant, now).await?;
        let predictions = self.archive.kept_predictions(&release).await?;
        let slate_date = if upcoming_only {
            served_slate_at(self.store.as_ref(), sport, instant).await?
        } else {
            linecast_domain::time::et_date(instant)
        };
        let slate = PredictionSlate {
            sport,
            model_type,
            predictions,
            slate_date,
            upcoming_only,
            release: Some(release),
        };
        let deps = slate.deps();
        Ok(Derived::new(slate, deps))
    }

    /// `/odds` as it answered at `instant`.
    pub async fn odds_at(
        &self,
        sport: Sport,
        instant: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Derived<OddsSlate>, AsOfError> {
        let release = self.at(Series::Odds(sport), instant, now).await?;
        let odds = self.archive.kept_odds(&release).await?;
        let slate_date = served_slate_at(self.store.as_ref(), sport, instant).await?;
        let deps = Deps::new()
            .object(&odds.version)
            .param("slate", slate_date)
            .release(&release);
        let slate = OddsSlate {
            sport,
            odds,
            slate_date,
            release: Some(release),
            judged_at: instant,
        };
        let deps = deps.param("started", slate.started_count());
        Ok(Derived::new(slate, deps))
    }

    /// What a game's history depends on, read without its rows: the kept
    /// releases of its series (their count and the newest, from the log
    /// read at most once per [`INDEX_TTL`], at once after this instance
    /// keeps one). A body rendered for these deps is the game's history
    /// until they change, so a cached history is answered without reading
    /// the game's rows. A game id not of the id form is `Malformed`.
    pub async fn game_history_plan(
        &self,
        game_id: &str,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<Derived<HistoryOf>, HistoryError> {
        let (sport, _) = read_game_id(game_id).ok_or(HistoryError::Malformed)?;
        let series = Series::Predictions(sport, model_type);
        let releases = self.series(series, now).await?;
        Ok(Derived::new(
            HistoryOf {
                game_id: game_id.to_owned(),
                model_type,
            },
            kept_deps(series, &releases),
        ))
    }

    /// Every kept release of `model_type`'s predictions that carried
    /// `game_id`, oldest first, each marked `after_start` or not, with its
    /// opening and closing release; its deps are those of
    /// [`Releases::game_history_plan`]. Reads the game's rows of the index
    /// of games (one indexed read; an id no release carried is `Unknown`
    /// without reading the archive); a series not yet wholly indexed (kept
    /// before the index existed, see [`Releases::index_series`]) is read
    /// from the archive, release by release.
    pub async fn game_history(
        &self,
        game_id: &str,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<Derived<GameHistory>, HistoryError> {
        let (sport, _) = read_game_id(game_id).ok_or(HistoryError::Malformed)?;
        let series = Series::Predictions(sport, model_type);
        let releases = self.series(series, now).await?;
        let mut entries = if self.is_indexed(series).await? {
            let rows = self
                .log
                .game_releases(series, game_id)
                .await
                .map_err(ReleaseError::from)?;
            let mut entries = Vec::with_capacity(rows.len());
            for (release, game) in rows {
                entries.push(indexed_entry(release, &game)?);
            }
            entries
        } else {
            self.scanned_history(&releases, game_id).await?
        };
        if entries.is_empty() {
            return Err(HistoryError::Unknown);
        }
        mark_after_start(&mut entries);
        let opening = entries[0].clone();
        let closing = closing_index(&entries);
        Ok(Derived::new(
            GameHistory {
                sport,
                model_type,
                game_id: game_id.to_owned(),
                entries,
                opening,
                closing,
            },
            kept_deps(series, &releases),
        ))
    }

    /// A game's entries read from every kept release's archived bytes (a
    /// series not yet wholly indexed).
    async fn scanned_history(&self, releases: &[KeptRelease], game_id: &str) -> Result<Vec<GameRelease>, ReleaseError> {
        let mut entries = Vec::new();
        for release in releases {
            let table = self.archive.kept_predictions(release).await?;
            if let Some(row) = table.value.rows.iter().find(|r| r.game_id.as_str() == game_id) {
                entries.push(GameRelease {
                    release: release.clone(),
                    row: row.clone(),
                    models: served_models(&table.value.models_present),
                    after_start: false,
                });
            }
        }
        Ok(entries)
    }

    /// Whether every recorded release of `series` is in the index of games
    /// (asked of the log until it is, then remembered).
    async fn is_indexed(&self, series: Series) -> Result<bool, ReleaseError> {
        if self
            .indexed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&series)
        {
            return Ok(true);
        }
        let complete = self.log.unindexed(series).await?.is_empty();
        if complete {
            self.indexed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(series);
        }
        Ok(complete)
    }

    /// Indexes the games of every recorded release of `series` not yet in
    /// the index (releases kept before it existed), reading their archived
    /// bytes; returns how many releases it indexed. Idempotent: a release
    /// indexed meanwhile by another instance gives the same rows.
    pub async fn index_series(&self, series: Series) -> Result<usize, ReleaseError> {
        if !matches!(series, Series::Predictions(..)) {
            return Ok(0);
        }
        let pending = self.log.unindexed(series).await?;
        for release in &pending {
            let table = self.archive.kept_predictions(release).await?;
            let games: Vec<IndexedGame> = game_index::index_table(&table.value);
            self.log.index_games(release, &games).await?;
        }
        self.indexed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(series);
        Ok(pending.len())
    }

    /// [`Releases::index_series`] of every predictions series; returns how
    /// many releases it indexed.
    pub async fn index_all(&self) -> Result<usize, ReleaseError> {
        let mut indexed = 0;
        for series in Series::all().filter(|s| matches!(s, Series::Predictions(..))) {
            indexed += self.index_series(series).await?;
        }
        Ok(indexed)
    }

    /// What a bulk history export of `model_type`'s predictions is made
    /// from: the kept releases now, and the season asked for (`None`: all).
    /// The body's key comes from these; the releases are read only when
    /// it is not cached ([`Releases::history_rows`]).
    pub async fn history_export(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: Option<SeasonLabel>,
        now: DateTime<Utc>,
    ) -> Result<Derived<HistoryPlan>, ReleaseError> {
        let series = Series::Predictions(sport, model_type);
        let releases = self.series(series, now).await?;
        let deps = Deps::new()
            .param("series", series.code())
            .param(
                "kept",
                format_args!(
                    "{}@{}",
                    releases.len(),
                    releases.last().map_or(0, |r| r.published_at.timestamp_micros())
                ),
            )
            .param("season", season.map_or_else(|| "all".to_owned(), |s| s.to_string()));
        Ok(Derived::new(
            HistoryPlan {
                sport,
                model_type,
                season,
                releases,
            },
            deps,
        ))
    }

    /// The rows of the `i`th kept release of `plan` (oldest first): its
    /// games by date, ET time and teams; with a season, only the games of
    /// that season. An export is written release by release, so it holds
    /// one release's rows at a time, never the whole history.
    pub async fn history_release_rows(&self, plan: &HistoryPlan, i: usize) -> Result<Vec<GameRelease>, ReleaseError> {
        let Some(release) = plan.releases.get(i) else {
            return Ok(Vec::new());
        };
        let table = self.archive.kept_predictions(release).await?;
        let models = served_models(&table.value.models_present);
        let mut games: Vec<&PredictionRow> = table
            .value
            .rows
            .iter()
            .filter(|r| {
                plan.season
                    .is_none_or(|s| SeasonLabel::containing(plan.sport, r.key.date) == s)
            })
            .collect();
        games.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(games
            .into_iter()
            .map(|row| GameRelease {
                release: release.clone(),
                row: row.clone(),
                models: models.clone(),
                after_start: false,
            })
            .collect())
    }

    /// The model columns any exported row of `plan` was served with (the
    /// served models of every release with a row in the export), in
    /// catalog order: the export's columns, known before its first row.
    pub async fn history_models(&self, plan: &HistoryPlan) -> Result<Vec<ModelColumn>, ReleaseError> {
        let mut seen: HashSet<ModelColumn> = HashSet::new();
        for release in plan.releases.iter() {
            let table = self.archive.kept_predictions(release).await?;
            let exported = table.value.rows.iter().any(|r| {
                plan.season
                    .is_none_or(|s| SeasonLabel::containing(plan.sport, r.key.date) == s)
            });
            if exported {
                seen.extend(served_models(&table.value.models_present));
            }
        }
        Ok(ModelColumn::ALL.iter().copied().filter(|c| seen.contains(c)).collect())
    }

    /// Each game of `season` in `model_type`'s kept releases with its pick
    /// and first price (at its opening, or at its standing forecast with
    /// `from` forecast) and its closing price, as [`ClvScan`] reads them,
    /// and the generation of the releases they came from. Computed once
    /// per generation, season and `from`; a new release is read alone, the
    /// scan of those before it carried forward.
    pub async fn price_moves(
        &self,
        sport: Sport,
        model_type: ModelType,
        season: SeasonLabel,
        from: ClvFrom,
        now: DateTime<Utc>,
    ) -> Result<(Arc<PriceMoves>, String), ReleaseError> {
        let series = Series::Predictions(sport, model_type);
        let releases = self.series(series, now).await?;
        let generation = format!(
            "{}@{}",
            releases.len(),
            releases.last().map_or(0, |r| r.published_at.timestamp_micros())
        );
        let key_of = |r: &KeptRelease| (r.published_at, r.digest.clone());
        let known = self
            .moves
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(series, season))
            .cloned();
        let mut state = match known {
            Some(known) if known.generation == generation => {
                if let Some(moves) = known.moves.get(&from) {
                    return Ok((Arc::clone(moves), generation));
                }
                known
            }
            // The releases it read are still the first ones: carried on.
            Some(known)
                if known.read <= releases.len()
                    && known.last == known.read.checked_sub(1).map(|i| key_of(&releases[i])) =>
            {
                ScanOf {
                    moves: HashMap::new(),
                    ..known
                }
            }
            _ => ScanOf {
                generation: String::new(),
                read: 0,
                last: None,
                scan: ClvScan::new(model_type),
                moves: HashMap::new(),
            },
        };
        for release in &releases[state.read..] {
            let table = self.archive.kept_predictions(release).await?;
            for row in table
                .value
                .rows
                .iter()
                .filter(|r| SeasonLabel::containing(sport, r.key.date) == season)
            {
                state.scan.see(release.published_at, row);
            }
        }
        state.read = releases.len();
        state.last = releases.last().map(key_of);
        state.generation.clone_from(&generation);
        let moves = Arc::new(state.scan.moves(from));
        state.moves.insert(from, Arc::clone(&moves));
        self.moves
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((series, season), state);
        Ok((moves, generation))
    }

    /// The games of `release` whose row differs from the same series'
    /// release before it (a game new to it included), in the release's
    /// order; every game of the first release of a series. What a
    /// `release.published` webhook names as `game_ids_changed`.
    pub async fn changed_games(&self, release: &KeptRelease) -> Result<Vec<String>, ReleaseError> {
        let kept = self.log.releases(release.series).await?;
        let previous = kept
            .iter()
            .filter(|r| r.published_at < release.published_at)
            .max_by_key(|r| r.published_at);
        let archive = self.archive.as_ref();
        Ok(match release.series {
            Series::Predictions(..) => {
                let now = archive.kept_predictions(release).await?;
                let before = match previous {
                    Some(p) => Some(archive.kept_predictions(p).await?),
                    None => None,
                };
                changed_ids(
                    now.value.rows.iter().map(|r| (r.game_id.as_str(), r)),
                    before
                        .as_ref()
                        .map(|b| -> HashMap<&str, _> { b.value.rows.iter().map(|r| (r.game_id.as_str(), r)).collect() })
                        .as_ref(),
                )
            }
            Series::Odds(_) => {
                let now = archive.kept_odds(release).await?;
                let before = match previous {
                    Some(p) => Some(archive.kept_odds(p).await?),
                    None => None,
                };
                changed_ids(
                    now.value.iter().map(|r| (r.game_id.as_str(), r)),
                    before
                        .as_ref()
                        .map(|b| -> HashMap<&str, _> { b.value.iter().map(|r| (r.game_id.as_str(), r)).collect() })
                        .as_ref(),
                )
            }
            Series::Books(_) => {
                // A game changed when any of its books' rows did.
                let now = archive.kept_books(release).await?;
                let before = match previous {
                    Some(p) => Some(archive.kept_books(p).await?),
                    None => None,
                };
                let rows = |rows: &[linecast_domain::artifacts::BookRow]| {
                    let mut by_game: Vec<(String, Vec<linecast_domain::artifacts::BookRow>)> = Vec::new();
                    for row in rows {
                        match by_game.iter_mut().find(|(id, _)| id == row.game_id.as_str()) {
                            Some((_, books)) => books.push(row.clone()),
                            None => by_game.push((row.game_id.as_str().to_owned(), vec![row.clone()])),
                        }
                    }
                    by_game
                };
                let now_games = rows(&now.value);
                let before_games = before.as_ref().map(|b| rows(&b.value));
                changed_ids(
                    now_games.iter().map(|(id, books)| (id.as_str(), books)),
                    before_games
                        .as_ref()
                        .map(|b| b.iter().map(|(id, books)| (id.as_str(), books)).collect())
                        .as_ref(),
                )
            }
        })
    }

    /// Seals the ledger's due days (with a ledger), then forgets the
    /// releases older than the retention (none without one), but none the
    /// ledger does not list yet, and deletes the archived bytes no kept
    /// release names any more. The ledger keeps its lists: forgetting a
    /// release or its bytes changes no day.
    pub async fn prune(&self, now: DateTime<Utc>) -> Result<usize, ReleaseError> {
        if let Some(ledger) = &self.ledger {
            ledger.seal(now).await?;
        }
        let Some(retention) = self.retention else {
            return Ok(0);
        };
        let cutoff = match &self.ledger {
            Some(ledger) => ledger.retention_cutoff(now - retention, now).await?,
            None => now - retention,
        };
        let forgotten = self.log.forget_before(cutoff).await?;
        let mut touched: HashSet<Series> = HashSet::new();
        for release in &forgotten {
            touched.insert(release.series);
        }
        self.index.lock().unwrap_or_else(PoisonError::into_inner).clear();
        for series in touched {
            let kept: HashSet<String> = self.log.releases(series).await?.into_iter().map(|r| r.digest).collect();
            let orphans: HashSet<&str> = forgotten
                .iter()
                .filter(|r| r.series == series && !kept.contains(&r.digest))
                .map(|r| r.digest.as_str())
                .collect();
            for digest in orphans {
                self.archive.delete(&series.archive_key(digest)).await?;
            }
        }
        Ok(forgotten.len())
    }
}

/// A game's history is a function of its series' kept releases: their
/// count and the newest (releases are only added at the end, or pruned
/// from the start, or backfilled, each of which changes one of the two).
fn kept_deps(series: Series, releases: &[KeptRelease]) -> Deps {
    Deps::new().param("series", series.code()).param(
        "kept",
        format_args!(
            "{}@{}",
            releases.len(),
            releases.last().map_or(0, |r| r.published_at.timestamp_micros())
        ),
    )
}

/// A history entry from the game's index row.
fn indexed_entry(release: KeptRelease, game: &IndexedGame) -> Result<GameRelease, ReleaseError> {
    let (row, present) = game_index::decode(&game.game_id, &game.row).ok_or_else(|| {
        ReleaseError::Store(StoreError::Corrupt {
            object: release.series.archive_key(&release.digest),
            row: usize::try_from(game.ordinal).unwrap_or(usize::MAX).saturating_add(1),
            column: "index".to_owned(),
            reason: "the indexed row is not an encoded row".to_owned(),
        })
    })?;
    Ok(GameRelease {
        release,
        row,
        models: served_models(&present),
        after_start: false,
    })
}

/// Marks each entry (oldest first) `after_start` when its release was
/// published at or after the game's scheduled start as the latest entry
/// states it (a start that moved is judged at its latest time; a start
/// that is no ET instant counts as passed).
fn mark_after_start(entries: &mut [GameRelease]) {
    let start = entries
        .last()
        .and_then(|e| et_instant(e.row.key.date, e.row.key.time_est));
    for entry in entries {
        entry.after_start = start.is_none_or(|start| entry.release.published_at >= start);
    }
}

/// The closing release: the last entry published before the game's start
/// (not `after_start`).
fn closing_index(entries: &[GameRelease]) -> Option<usize> {
    entries.iter().rposition(|e| !e.after_start)
}

/// The ids of `now`'s games whose row is not in `before` as it is (a game
/// new to it included), once each, in `now`'s order; every game when there
/// is no `before`.
fn changed_ids<'a, R: PartialEq + 'a>(
    now: impl Iterator<Item = (&'a str, &'a R)>,
    before: Option<&HashMap<&'a str, &'a R>>,
) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for (id, row) in now {
        let same = before.and_then(|b| b.get(id)).is_some_and(|old| *old == row);
        if !same && !ids.iter().any(|i| i == id) {
            ids.push(id.to_owned());
        }
    }
    ids
}
