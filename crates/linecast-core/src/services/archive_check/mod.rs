//! The graded record checked against the archive: each live result row
//! names the predictions release its forecast came from
//! (`forecast_published_at`); this module finds that kept release and says
//! whether it carried the game, before the start, with the row's BLEND.
//!
//! Owns the matching rule (which kept release an instant written with
//! fewer digits names), the BLEND comparison and the per-season cache of
//! checks (one per season generation and kept-release generation). Must
//! not know HTTP, SQL or how a row is written (the API's presentation and
//! the admin CLI do).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Duration, Utc};
use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::time::et_instant;
use linecast_domain::{GameId, ModelColumn, ModelType, SeasonLabel, SeasonRow, Sport};
use linecast_grading::GradedRow;
use linecast_grading::calibration::{
    Calibration, CalibrationSource, ClvFrom, ForecastPrices, Inputs, LeftOut, calibrate_graded_with,
};

use crate::ports::releases::{KeptRelease, ReleaseArchive, Series};
use crate::services::history::{History, SeasonData};
use crate::services::releases::{ReleaseError, Releases};
use crate::{Deps, Derived};

pub mod row;

pub use row::{ArchiveCheck, RowCheck};

/// The instant `text` (RFC 3339) states and the unit of its last written
/// digit: `2026-11-14T12:00:00Z` is to the second, `…:00.25Z` to the
/// hundredth. `None` when it is not an RFC 3339 instant.
pub fn written_instant(text: &str) -> Option<(DateTime<Utc>, Duration)> {
    let instant = DateTime::parse_from_rfc3339(text).ok()?.with_timezone(&Utc);
    let time = text.get(text.find(['T', 't', ' '])?..)?;
    let digits = time
        .find('.')
        .map_or(0, |dot| time[dot + 1..].bytes().take_while(u8::is_ascii_digit).count());
    let nanos = 10_i64.checked_pow(9_u32.checked_sub(u32::try_from(digits).ok()?)?)?;
    Some((instant, Duration::nanoseconds(nanos)))
}

/// The kept release an instant written as `text` names: among `kept`
/// (oldest first), the latest published in `[t, t + unit)`, where `t` is
/// the instant written and `unit` one unit of its last digit, i.e. the
/// latest whose `published_at` cut to the written precision equals it.
pub fn named_release<'a>(kept: &'a [KeptRelease], text: &str) -> Option<&'a KeptRelease> {
    let (instant, unit) = written_instant(text)?;
    let end = instant + unit;
    let after = kept.partition_point(|r| r.published_at < end);
    kept[..after].last().filter(|r| r.published_at >= instant)
}

/// Two BLENDs are the same when they are equal at the 4 decimal places the
/// stores write (both rounded half away from zero to 4 places, then
/// compared within 1e-9); two empty cells are the same, an empty cell and
/// a value are not.
pub fn same_blend(row: Option<f64>, release: Option<f64>) -> bool {
    let four = |p: f64| (p * 10_000.0).round();
    match (row, release) {
        (None, None) => true,
        (Some(a), Some(b)) => (four(a) - four(b)).abs() < 1e-9,
        _ => false,
    }
}

/// What the named release holds of a game.
#[derive(Debug, Clone, Copy)]
enum Carried {
    /// The release does not carry the game.
    No,
    /// It carries it, with this BLEND (`None`: an empty cell) and this
    /// no-vig probability of the positive side (`None`: a price missing).
    With(Option<f64>, Option<f64>),
}

/// The check of `row` given the release it names (`None`: none kept at its
/// instant) and what that release holds of the game.
fn judge(row: &SeasonRow, named: Option<&Arc<KeptRelease>>, carried: Carried) -> RowCheck {
    let Some(release) = named else {
        return RowCheck::alone(ArchiveCheck::NotKept);
    };
    let before_start = et_instant(row.key.date, row.key.time_est).is_some_and(|start| release.published_at < start);
    let (carries, release_blend, release_no_vig) = match carried {
        Carried::No => (false, None, None),
        Carried::With(blend, no_vig) => (true, blend, no_vig),
    };
    let matched = before_start && carries && same_blend(row.models.get(ModelColumn::Blend), release_blend);
    RowCheck {
        check: if matched {
            ArchiveCheck::Matched
        } else {
            ArchiveCheck::Mismatch
        },
        release: Some(Arc::clone(release)),
        carried: carries,
        release_blend,
        release_no_vig,
    }
}

/// Whether `row` is a live forecast (the only rows checked).
fn is_live(row: &SeasonRow) -> bool {
    row.provenance.forecast_source.as_deref() == Some("live")
}

/// The release `row` names, if it is live with a `forecast_published_at`.
fn named_by<'a>(row: &SeasonRow, kept: &'a [KeptRelease]) -> Option<&'a KeptRelease> {
    let written = row.provenance.forecast_published_at.as_deref()?;
    named_release(kept, written.trim())
}

/// The checks of one season generation against one generation of kept
/// releases, aligned with the season's served rows.
#[derive(Debug)]
pub struct SeasonChecks {
    /// The kept releases' generation the checks were made against.
    pub generation: String,
    /// One per served row, in [`SeasonData::served_rows`] order.
    pub rows: Vec<RowCheck>,
}

impl SeasonChecks {
    /// The served rows of `data` (the season these checks were made for)
    /// with their grades and checks, oldest first.
    pub fn served<'a>(
        &'a self,
        data: &'a SeasonData,
    ) -> impl Iterator<Item = (&'a SeasonRow, &'a GradedRow, &'a RowCheck)> + 'a {
        data.served_rows()
            .zip(&self.rows)
            .map(|((row, graded), check)| (row, graded, check))
    }

    /// How many rows have each check, in [`ArchiveCheck::ALL`] order.
    pub fn counts(&self) -> [usize; 4] {
        ArchiveCheck::ALL.map(|check| self.rows.iter().filter(|r| r.check == check).count())
    }
}

/// The kept predictions releases of one series as read now, and their
/// generation (count and newest instant: releases are only added at the
/// end or pruned from the start).
#[derive(Debug, Clone)]
pub struct Kept {
    pub series: Series,
    pub releases: Arc<Vec<KeptRelease>>,
    pub generation: String,
}

/// A check could not be made: the release log or an archived release could
/// not be read (a missing archived release included). Never an empty or
/// partial check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("archive check: {0}")]
pub struct CheckError(#[from] pub ReleaseError);

type Key = (Sport, ModelType, SeasonLabel);
/// A release the rows name, and its games' BLENDs.
type Named = (Arc<KeptRelease>, HashMap<GameId, (Option<f64>, Option<f64>)>);
/// The season version and kept generation a season's checks were made for.
type Held = (String, String, Arc<SeasonChecks>);

/// The archive checks of graded seasons, computed once per (season
/// generation, kept-release generation).
pub struct ArchiveChecks {
    releases: Arc<Releases>,
    archive: Arc<dyn ReleaseArchive>,
    cache: Mutex<HashMap<Key, Held>>,
    /// The last calibration of each choice, with the deps it was made
    /// for: made once per season, kept-release and price generation.
    calibrations: Mutex<HashMap<CalibrationKey, (Deps, Arc<Calibration>)>>,
}

type CalibrationKey = (Sport, ModelType, SeasonLabel, CalibrationSource, ClvFrom);

impl std::fmt::Debug for ArchiveChecks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveChecks").finish_non_exhaustive()
    }
}

impl ArchiveChecks {
    pub fn new(releases: Arc<Releases>, archive: Arc<dyn ReleaseArchive>) -> Self {
        Self {
            releases,
            archive,
            cache: Mutex::new(HashMap::new()),
            calibrations: Mutex::new(HashMap::new()),
        }
    }

    /// The kept predictions releases of `sport` and `model_type` now.
    pub async fn kept(&self, sport: Sport, model_type: ModelType, now: DateTime<Utc>) -> Result<Kept, CheckError> {
        let series = Series::Predictions(sport, model_type);
        let releases = self.releases.series(series, now).await?;
        let generation = format!(
            "{}@{}",
            releases.len(),
            releases.last().map_or(0, |r| r.published_at.timestamp_micros())
        );
        Ok(Kept {
            series,
            releases,
            generation,
        })
    }

    /// The checks of `data`'s served rows against `kept` (its own sport and
    /// model type's releases). Only the releases the rows name are read,
    /// each once.
    pub async fn season(&self, data: &SeasonData, kept: &Kept) -> Result<Arc<SeasonChecks>, CheckError> {
        let key = (data.sport, data.model_type, data.season);
        if let Some((version, generation, checks)) = self.cache.lock().unwrap_or_else(PoisonError::into_inner).get(&key)
            && *version == data.version.version
            && *generation == kept.generation
        {
            return Ok(Arc::clone(checks));
        }
        // Each named release (shared by the rows naming it) with its games
        // and BLENDs, read once per release.
        let mut carried: HashMap<(String, DateTime<Utc>), Named> = HashMap::new();
        for (row, _) in data.served_rows() {
            if !is_live(row) {
                continue;
            }
            let Some(release) = named_by(row, &kept.releases) else {
                continue;
            };
            let id = (release.digest.clone(), release.published_at);
            if carried.contains_key(&id) {
                continue;
            }
            let table = self
                .archive
                .kept_predictions(release)
                .await
                .map_err(ReleaseError::from)?;
            let games = table
                .value
                .rows
                .iter()
                .map(|r| {
                    let (pos, neg) = r.lines.side_prices(data.model_type);
                    (
                        r.game_id.clone(),
                        (r.models.get(ModelColumn::Blend), no_vig_from_raw(pos, neg)),
                    )
                })
                .collect();
            carried.insert(id, (Arc::new(release.clone()), games));
        }
        let rows = data
            .served_rows()
            .map(|(row, _)| {
                if !is_live(row) {
                    return RowCheck::alone(ArchiveCheck::NotApplicable);
                }
                let named =
                    named_by(row, &kept.releases).and_then(|r| carried.get(&(r.digest.clone(), r.published_at)));
                let carried = named
                    .and_then(|(_, games)| games.get(&row.game_id).copied())
                    .map_or(Carried::No, |(blend, no_vig)| Carried::With(blend, no_vig));
                judge(row, named.map(|(release, _)| release), carried)
            })
            .collect();
        let checks = Arc::new(SeasonChecks {
            generation: kept.generation.clone(),
            rows,
        });
        self.cache.lock().unwrap_or_else(PoisonError::into_inner).insert(
            key,
            (
                data.version.version.clone(),
                kept.generation.clone(),
                Arc::clone(&checks),
            ),
        );
        Ok(checks)
    }
}

impl ArchiveChecks {
    /// Calibration of the chosen season over the rows of `source` (the one
    /// use case of the calibration route and the portal), with both CLV
    /// bases (the kept releases' price moves from
    /// [`Releases::price_moves`]) and each model's skill at its forecast's
    /// own release, which the checks find. `verified`
    /// reads only the served rows whose check is `matched`, and counts the
    /// graded rows it left out by their check. Depends on the season's
    /// generation, the kept releases' (the checks) and the prices'.
    #[expect(
        clippy::too_many_arguments,
        reason = "the calibration route's choice, each a plain query value, and the instant"
    )]
    pub async fn calibration(
        &self,
        history: &History,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        source: CalibrationSource,
        from: ClvFrom,
        now: DateTime<Utc>,
    ) -> Result<Derived<(Arc<SeasonData>, Arc<Calibration>)>, ReleaseError> {
        let checked = self
            .checked_calibration(history, sport, model_type, named, source, from, now)
            .await?;
        Ok(checked.map(|deps| deps, |(data, calibration, _)| (data, calibration)))
    }

    /// [`Self::calibration`] with the archive checks it was made from (the
    /// same read of the kept releases, so a caller that also reads the
    /// checks sees the rows the calibration saw).
    #[expect(
        clippy::too_many_arguments,
        reason = "the calibration route's choice, each a plain query value, and the instant"
    )]
    pub async fn checked_calibration(
        &self,
        history: &History,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        source: CalibrationSource,
        from: ClvFrom,
        now: DateTime<Utc>,
    ) -> Result<Derived<(Arc<SeasonData>, Arc<Calibration>, Arc<SeasonChecks>)>, ReleaseError> {
        // A season without a store is the season's error (a 404), not the
        // archive's: `ReleaseError` keeps the store's own kind.
        let Derived { value: data, deps } = history.chosen_season(sport, model_type, named, now).await?;
        let kept = self.kept(sport, model_type, now).await.map_err(|e| e.0)?;
        let checks = self.season(&data, &kept).await.map_err(|e| e.0)?;
        let (moves, generation) = self
            .releases
            .price_moves(sport, model_type, data.season, from, now)
            .await?;
        let (closes, closes_generation) = self.releases.book_closes(sport, model_type, now).await?;
        let prices = (!moves.is_empty()).then_some(moves.as_ref());
        let deps = deps
            .param("source", source.code())
            .param("archive", &kept.generation)
            .param(
                "prices",
                if prices.is_some() {
                    generation
                } else {
                    "none".to_owned()
                },
            )
            .param("clv_from", from.code())
            .param("book_closes", &closes_generation);
        let key = (sport, model_type, data.season, source, from);
        let stamp = deps.clone();
        if let Some((held, calibration)) = self
            .calibrations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            && *held == stamp
        {
            return Ok(Derived::new((data, Arc::clone(calibration), checks), deps));
        }
        // The named books' closes join the moves they measure the same
        // picks to (CLV against the sharp and the consensus close).
        let joined = (!closes.is_empty()).then(|| {
            let mut joined = moves.as_ref().clone();
            for (game, price) in &mut joined {
                if let Some(close) = closes.get(game) {
                    price.sharp_closing = close.sharp;
                    price.consensus_closing = close.consensus;
                }
            }
            joined
        });
        let prices = joined.as_ref().or(prices);
        let (matched, left_out) = matched_rows(&data, &checks);
        let at_forecast = forecast_prices(&data, &checks);
        let calibration = Arc::new(calibrate_graded_with(
            &data.table.rows,
            &data.graded,
            sport,
            model_type,
            source,
            Inputs {
                prices,
                at_forecast: Some(&at_forecast),
                verified: Some((&matched, left_out)),
            },
        ));
        self.calibrations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, (stamp, Arc::clone(&calibration)));
        Ok(Derived::new((data, calibration, checks), deps))
    }
}

/// The market in each matched row's own release: the no-vig probability
/// of the positive side there, by game id (rows whose release lacks a
/// price are left out).
fn forecast_prices(data: &SeasonData, checks: &SeasonChecks) -> ForecastPrices {
    checks
        .served(data)
        .filter(|(_, _, check)| check.check == ArchiveCheck::Matched)
        .filter_map(|(row, _, check)| Some((row.game_id.clone(), check.release_no_vig?)))
        .collect()
}

/// Which rows of `data.table` the archive matched (aligned with its rows),
/// and the graded served rows it did not, by check.
fn matched_rows(data: &SeasonData, checks: &SeasonChecks) -> (Vec<bool>, LeftOut) {
    let mut kept = vec![false; data.table.rows.len()];
    let mut left_out = LeftOut::default();
    for (index, check) in data.order.iter().zip(&checks.rows) {
        match check.check {
            ArchiveCheck::Matched => kept[*index] = true,
            _ if !data.graded[*index].graded => {}
            ArchiveCheck::Mismatch => left_out.mismatch += 1,
            ArchiveCheck::NotKept => left_out.not_kept += 1,
            ArchiveCheck::NotApplicable => left_out.not_applicable += 1,
        }
    }
    (kept, left_out)
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    fn release(digest: &str, at: DateTime<Utc>) -> KeptRelease {
        KeptRelease {
            series: Series::Predictions(Sport::Nba, ModelType::WonOnPoints),
            published_at: at,
            digest: digest.to_owned(),
            game_count: 1,
            size: 1,
        }
    }

    fn micros(h: u32, m: u32, s: u32, us: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 14, h, m, s).unwrap() + Duration::microseconds(i64::from(us))
    }

    #[test]
    fn the_written_precision_is_the_unit_of_the_last_digit() {
        let (at, unit) = written_instant("2026-11-14T12:00:04Z").unwrap();
        assert_eq!((at, unit), (micros(12, 0, 4, 0), Duration::seconds(1)));
        let (at, unit) = written_instant("2026-11-14T12:00:04.460Z").unwrap();
        assert_eq!((at, unit), (micros(12, 0, 4, 460_000), Duration::milliseconds(1)));
        let (at, unit) = written_instant("2026-11-14T12:00:04.460357Z").unwrap();
        assert_eq!((at, unit), (micros(12, 0, 4, 460_357), Duration::microseconds(1)));
        // 07:00:04 at -05:00 is 12:00:04Z.
        let (at, unit) = written_instant("2026-11-14T07:00:04.5-05:00").unwrap();
        assert_eq!((at, unit), (micros(12, 0, 4, 500_000), Duration::milliseconds(100)));
        assert_eq!(written_instant("2026-11-14 noon"), None);
        assert_eq!(written_instant(""), None);
    }

    /// Releases at 12:00:04.460357, 12:00:04.900000 and 12:00:05.000001:
    /// "12:00:04Z" covers [12:00:04, 12:00:05) and names the second (the
    /// latest in it); "12:00:04.4Z" covers [.4, .5) and names the first;
    /// the exact instants name themselves; "12:00:03Z" and "12:00:04.47Z"
    /// name none.
    #[test]
    fn an_instant_names_the_latest_release_within_one_unit_of_its_last_digit() {
        let kept = [
            release("a", micros(12, 0, 4, 460_357)),
            release("b", micros(12, 0, 4, 900_000)),
            release("c", micros(12, 0, 5, 1)),
        ];
        let named = |text: &str| named_release(&kept, text).map(|r| r.digest.as_str());
        assert_eq!(named("2026-11-14T12:00:04Z"), Some("b"));
        assert_eq!(named("2026-11-14T12:00:04.4Z"), Some("a"));
        assert_eq!(named("2026-11-14T12:00:04.460357Z"), Some("a"));
        assert_eq!(named("2026-11-14T12:00:04.46Z"), Some("a"));
        assert_eq!(named("2026-11-14T12:00:05.000001Z"), Some("c"));
        assert_eq!(named("2026-11-14T12:00:05Z"), Some("c"));
        assert_eq!(named("2026-11-14T12:00:03Z"), None);
        assert_eq!(named("2026-11-14T12:00:04.47Z"), None);
        assert_eq!(named("2026-11-14T12:00:05.000000Z"), None);
        assert_eq!(named_release(&[], "2026-11-14T12:00:04Z"), None);
    }

    #[test]
    fn blends_are_the_same_when_equal_at_four_places() {
        assert!(same_blend(Some(0.6123), Some(0.6123)));
        assert!(same_blend(Some(0.61234), Some(0.6123)));
        assert!(same_blend(Some(0.61226), Some(0.6123)));
        assert!(!same_blend(Some(0.6123), Some(0.6124)));
        assert!(!same_blend(Some(0.61236), Some(0.6123)));
        assert!(same_blend(None, None));
        assert!(!same_blend(Some(0.5), None));
        assert!(!same_blend(None, Some(0.5)));
    }

    #[test]
    fn only_a_matched_row_has_a_digest() {
        let r = release("d1", micros(12, 0, 0, 0));
        let mut check = RowCheck {
            check: ArchiveCheck::Matched,
            release: Some(Arc::new(r)),
            carried: true,
            release_blend: Some(0.5),
            release_no_vig: None,
        };
        assert_eq!(check.forecast_digest(), Some("d1"));
        check.check = ArchiveCheck::Mismatch;
        assert_eq!(check.forecast_digest(), None);
    }
}
