//! The public scorecard of one season: the calibration of the rows the
//! archive verified (`source=verified`, CLV from the opening), each model's
//! record over the same rows, and the ledger days their forecasts were
//! published on, so a reader can walk from a figure to the digests behind
//! it. One use case for the JSON route and the HTML page.
//!
//! Owns which rows a scorecard reads (the served rows whose check is
//! `matched`, the calibration's own choice) and the days it links to. The
//! figures are `linecast_grading`'s; the check is [`super::archive_check`].
//! Knows no HTTP, no account, no request log.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::{ModelColumn, ModelType, SeasonLabel, Sport};
use linecast_grading::calibration::{Calibration, CalibrationSource, ClvFrom};
use linecast_grading::scorecard::{Record, records};

use super::archive_check::{ArchiveCheck, ArchiveChecks};
use super::history::{History, SeasonData};
use super::releases::ReleaseError;
use crate::ports::releases::KeptRelease;
use crate::{Deps, Derived};

/// One season's scorecard.
#[derive(Debug)]
pub struct Scorecard {
    /// The calibration with `source=verified` and CLV from the opening:
    /// the paid route's figures for the same choice.
    pub calibration: Arc<Calibration>,
    /// Each calibrated model's record over the matched graded rows, in
    /// the calibration's model order.
    pub records: Vec<(ModelColumn, Record)>,
    /// The UTC days of the releases the matched graded rows' forecasts came
    /// from, oldest first.
    pub days: Vec<ScorecardDay>,
}

/// One UTC day of the releases behind a scorecard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScorecardDay {
    pub date: NaiveDate,
    /// Matched graded rows whose forecast's release was published that day.
    pub rows: usize,
    /// Those releases, each once, by `published_at`.
    pub releases: Vec<Arc<KeptRelease>>,
}

impl Scorecard {
    /// The record of `model` (empty when it has no probability anywhere).
    pub fn record(&self, model: ModelColumn) -> Record {
        self.records
            .iter()
            .find(|(m, _)| *m == model)
            .map(|(_, r)| *r)
            .unwrap_or_default()
    }
}

type Key = (Sport, ModelType, SeasonLabel);

/// The scorecards, made once per calibration (its deps).
pub struct Scorecards {
    checks: Arc<ArchiveChecks>,
    made: Mutex<HashMap<Key, (Deps, Arc<Scorecard>)>>,
}

impl std::fmt::Debug for Scorecards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scorecards").finish_non_exhaustive()
    }
}

impl Scorecards {
    pub fn new(checks: Arc<ArchiveChecks>) -> Self {
        Self {
            checks,
            made: Mutex::new(HashMap::new()),
        }
    }

    /// The scorecard of the chosen season (`named`, or the current one):
    /// its deps are the verified calibration's (the season's generation,
    /// the kept releases' and the prices').
    pub async fn scorecard(
        &self,
        history: &History,
        sport: Sport,
        model_type: ModelType,
        named: Option<SeasonLabel>,
        now: DateTime<Utc>,
    ) -> Result<Derived<(Arc<SeasonData>, Arc<Scorecard>)>, ReleaseError> {
        let Derived {
            value: (data, calibration, checks),
            deps,
        } = self
            .checks
            .checked_calibration(
                history,
                sport,
                model_type,
                named,
                CalibrationSource::Verified,
                ClvFrom::Opening,
                now,
            )
            .await?;
        let key = (sport, model_type, data.season);
        if let Some((held, card)) = self.made.lock().unwrap_or_else(PoisonError::into_inner).get(&key)
            && *held == deps
        {
            return Ok(Derived::new((data, Arc::clone(card)), deps));
        }
        // The matched graded rows, by index into the season table (as the
        // graded rows are), and the day each one's release was published.
        let mut matched = vec![false; data.table.rows.len()];
        let mut days: BTreeMap<NaiveDate, ScorecardDay> = BTreeMap::new();
        for (index, check) in data.order.iter().zip(&checks.rows) {
            if check.check != ArchiveCheck::Matched || !data.graded[*index].graded {
                continue;
            }
            matched[*index] = true;
            if let Some(release) = &check.release {
                let date = release.published_at.date_naive();
                let day = days.entry(date).or_insert_with(|| ScorecardDay {
                    date,
                    rows: 0,
                    releases: Vec::new(),
                });
                day.rows += 1;
                if !day.releases.iter().any(|r| Arc::ptr_eq(r, release) || **r == **release) {
                    day.releases.push(Arc::clone(release));
                }
            }
        }
        let all = records(&data.graded, |i| matched[i]);
        let records = calibration
            .models
            .iter()
            .filter_map(|m| all.iter().find(|(c, _)| *c == m.model).copied())
            .collect();
        let card = Arc::new(Scorecard {
            calibration,
            records,
            days: days
                .into_values()
                .map(|mut day| {
                    day.releases
                        .sort_by(|a, b| (a.published_at, &a.digest).cmp(&(b.published_at, &b.digest)));
                    day
                })
                .collect(),
        });
        self.made
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, (deps.clone(), Arc::clone(&card)));
        Ok(Derived::new((data, card), deps))
    }
}
