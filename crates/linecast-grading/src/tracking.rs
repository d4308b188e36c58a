//! Model tracking: where the season's probabilities came from, season and
//! trailing snapshots, a weekly rolling-4W series, a recent hit/miss matrix
//! and provenance counts.

use std::collections::BTreeMap;

use chrono::{Days, NaiveDate};
use linecast_domain::{GameKey, ModelType, SeasonRow, Sport};

use crate::daily::{DailyTallies, PerModel, WinPct, per_model};
use crate::grade::{GradedRow, grade_rows};
use crate::model::{MODEL_COUNT, Model};
use crate::tally::WinLoss;
use crate::window::{Window, latest_decided};

/// Weekly points with fewer graded picks than this show a null rate.
pub const MIN_WEEKLY_SAMPLE: usize = 10;
/// Rows of the `recent_games` matrix.
pub const RECENT_GAMES: usize = 20;
/// Provenance key for rows without `model_probability_source`.
pub const PROVENANCE_NONE: &str = "none";

/// Where the season's probabilities came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ForecastSource {
    /// Every predicted game was recorded before it started.
    Live,
    /// Every predicted game was reconstructed out of sample (`walk_forward`
    /// or `reconstructed_oos`).
    WalkForward,
    /// Both kinds occur.
    Mixed,
}

impl ForecastSource {
    /// The kind of one provenance value (`model_probability_source` or
    /// `forecast_source`): `live` is [`ForecastSource::Live`], `walk_forward`
    /// and `reconstructed_oos` are [`ForecastSource::WalkForward`], anything
    /// else is unknown. The one home of that mapping (tracking's `source`,
    /// calibration's `source` filter).
    pub fn classify(value: &str) -> Option<Self> {
        match value {
            "live" => Some(ForecastSource::Live),
            "walk_forward" | "reconstructed_oos" => Some(ForecastSource::WalkForward),
            _ => None,
        }
    }
}

/// `snapshot`: season, last 4 weeks and last week per model.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TrackingSnapshot {
    pub season: PerModel<WinPct>,
    pub last_4w: PerModel<WinPct>,
    pub last_1w: PerModel<WinPct>,
}

/// One point of the weekly rolling-4W series.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WeeklyPoint {
    /// Last day of the 28-day window.
    pub week_ending: NaiveDate,
    /// `win_pct` is null below [`MIN_WEEKLY_SAMPLE`].
    pub models: PerModel<WinPct>,
}

/// One graded game of the hit/miss matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentGame {
    pub key: GameKey,
    /// 1 hit, 0 miss, null when the model made no graded pick.
    pub hits: PerModel<Option<u8>>,
}

#[cfg(feature = "serde")]
impl serde::Serialize for RecentGame {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(5))?;
        map.serialize_entry("date", &self.key.date_string())?;
        map.serialize_entry("time_est", &self.key.time_string())?;
        map.serialize_entry("away_team", &*self.key.away_team)?;
        map.serialize_entry("home_team", &*self.key.home_team)?;
        map.serialize_entry("hits", &self.hits)?;
        map.end()
    }
}

/// The model-tracking record of one season (top-level `sport`, `model`,
/// `season` and `grading` are the caller's).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Tracking {
    /// `None` when no in-scope row carries a known source.
    pub source: Option<ForecastSource>,
    /// Models with at least one graded pick, in [`Model::ALL`] order.
    pub models: Vec<Model>,
    /// Graded games.
    pub total_games: usize,
    /// In-scope games that pushed.
    pub ungraded_pushes: usize,
    pub first_game_date: Option<NaiveDate>,
    pub last_game_date: Option<NaiveDate>,
    pub min_weekly_sample: usize,
    pub snapshot: TrackingSnapshot,
    /// Oldest first, one point every 7 days ending on the latest decided date.
    pub weekly: Vec<WeeklyPoint>,
    /// The latest graded games, newest first.
    pub recent_games: Vec<RecentGame>,
    /// Count of each `model_probability_source` value over in-scope rows;
    /// rows without one count under [`PROVENANCE_NONE`].
    pub provenance: BTreeMap<String, usize>,
    /// In-scope rows of the season: equals the results `total`.
    pub archive_games: usize,
}

/// Grades `rows` and builds the tracking record.
pub fn track(rows: &[SeasonRow], sport: Sport, model_type: ModelType) -> Tracking {
    let graded = grade_rows(rows, sport, model_type);
    track_graded(rows, &graded)
}

fn source_kind(row: &SeasonRow) -> Option<ForecastSource> {
    let p = &row.provenance;
    ForecastSource::classify(p.forecast_source.as_deref().or(p.model_probability_source.as_deref())?)
}

/// Builds the tracking record from rows graded by [`crate::grade_rows`].
pub fn track_graded(rows: &[SeasonRow], graded: &[GradedRow]) -> Tracking {
    let scoped = || rows.iter().zip(graded).filter(|(_, g)| g.in_scope);
    let daily = DailyTallies::new(rows, graded);
    let end = latest_decided(rows, graded);

    let (mut live, mut walk) = (false, false);
    let mut provenance = BTreeMap::new();
    for (row, _) in scoped() {
        match source_kind(row) {
            Some(ForecastSource::Live) => live = true,
            Some(_) => walk = true,
            None => {}
        }
        let kind = row
            .provenance
            .model_probability_source
            .as_deref()
            .unwrap_or(PROVENANCE_NONE);
        *provenance.entry(kind.to_owned()).or_insert(0usize) += 1;
    }
    let source = match (live, walk) {
        (true, true) => Some(ForecastSource::Mixed),
        (true, false) => Some(ForecastSource::Live),
        (false, true) => Some(ForecastSource::WalkForward),
        (false, false) => None,
    };

    let season = daily.sum(Window {
        start: NaiveDate::MIN,
        end: NaiveDate::MAX,
    });
    let window_sum = |w: Option<Window>| w.map_or([WinLoss::default(); MODEL_COUNT], |w| daily.sum(w));
    let snapshot = TrackingSnapshot {
        season: per_model(&season, 1),
        last_4w: per_model(&window_sum(end.map(Window::four_weeks)), 1),
        last_1w: per_model(&window_sum(end.map(Window::one_week)), 1),
    };

    let mut weekly = Vec::new();
    if let (Some(end), Some(first)) = (end, daily.dates().first().copied()) {
        let mut week_ending = end;
        while week_ending >= first {
            let models = per_model(&daily.sum(Window::four_weeks(week_ending)), MIN_WEEKLY_SAMPLE);
            weekly.push(WeeklyPoint { week_ending, models });
            let Some(prev) = week_ending.checked_sub_days(Days::new(7)) else {
                break;
            };
            week_ending = prev;
        }
        weekly.reverse();
    }

    let mut recent: Vec<(&SeasonRow, &GradedRow)> = scoped().filter(|(_, g)| g.graded).collect();
    recent.sort_by(|a, b| b.0.key.cmp(&a.0.key));
    let models: Vec<Model> = Model::ALL.into_iter().filter(|m| season[m.index()].n() > 0).collect();
    let recent_games = recent
        .into_iter()
        .take(RECENT_GAMES)
        .map(|(row, g)| RecentGame {
            key: row.key.clone(),
            hits: PerModel(models.iter().map(|m| (*m, g.hit(*m).map(u8::from))).collect()),
        })
        .collect();

    let dates = || scoped().map(|(r, _)| r.key.date);
    Tracking {
        source,
        total_games: graded.iter().filter(|g| g.graded).count(),
        models,
        ungraded_pushes: scoped().filter(|(_, g)| g.push == Some(true)).count(),
        first_game_date: dates().min(),
        last_game_date: dates().max(),
        min_weekly_sample: MIN_WEEKLY_SAMPLE,
        snapshot,
        weekly,
        recent_games,
        provenance,
        archive_games: scoped().count(),
    }
}
