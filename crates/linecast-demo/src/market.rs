//! The demo's market run forward in time: predictions and odds are released
//! every [`RELEASE_EVERY`] on a fixed UTC grid; a game enters the releases
//! about [`ENTERS_BEFORE`] its start and leaves when the ET day after its
//! own ends ([`day_end`]). Between
//! entry and start its market view and each model's probability drift
//! (deterministically, from the game's own random stream); from its start on
//! every release carries its last pre-start values. Today's predictions and
//! odds objects are the release at "now" of the same run, and the API's demo
//! keeps every release of the last [`KEPT_WINDOW`] ([`crate::window_releases`]).

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, SecondsFormat, Utc};
use linecast_books::book::Book;
use linecast_domain::time::et_instant;
use linecast_domain::{Lines, ModelProbs, ModelType, Sport};

use crate::calendar::plus;
use crate::rng::Rng;
use crate::sim::{MODEL_BIAS, ai_logit, latent_logit, league, market_lines, round_half, side_probability};

/// Time between two releases of a series (every series on the same grid).
pub const RELEASE_EVERY: Duration = Duration::hours(2);
/// How far back the API's demo keeps releases from "now".
pub const KEPT_WINDOW: Duration = Duration::days(21);
/// A game enters the releases this long before its start, plus up to
/// [`ENTRY_JITTER_HOURS`] earlier.
pub const ENTERS_BEFORE: Duration = Duration::hours(48);
/// Extra hours (0 to this, per game) a game may enter before [`ENTERS_BEFORE`].
pub const ENTRY_JITTER_HOURS: u32 = 6;
/// The fixtures' planned "now" (no wall clock): this UTC time on `today`
/// (noon in New York in November).
pub const PLANNED_NOW_UTC: (u32, u32) = (17, 0);

/// The latest grid instant at or before `t` (the grid counts
/// [`RELEASE_EVERY`] from the Unix epoch, so 00:00, 02:00, ... UTC).
pub fn grid_floor(t: DateTime<Utc>) -> DateTime<Utc> {
    let every = RELEASE_EVERY.num_seconds();
    DateTime::from_timestamp(t.timestamp().div_euclid(every) * every, 0).unwrap_or(t)
}

/// The fixtures' planned "now" on `today` ([`PLANNED_NOW_UTC`]).
pub fn planned_now(today: NaiveDate) -> DateTime<Utc> {
    let (h, m) = PLANNED_NOW_UTC;
    today
        .and_hms_opt(h, m, 0)
        .map_or_else(|| DateTime::<Utc>::UNIX_EPOCH, |t| t.and_utc())
}

/// "Now" of a generation: the wall clock it was asked for, or the planned one.
pub fn now_of(opts: &crate::GenOptions) -> DateTime<Utc> {
    opts.not_after.unwrap_or_else(|| planned_now(opts.today))
}

/// Every release instant of the kept window at `now`, oldest first: the
/// grid instants in `[grid_floor(now) - KEPT_WINDOW, grid_floor(now)]`.
pub fn window_instants(now: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    let last = grid_floor(now);
    let mut t = last - KEPT_WINDOW;
    let mut out = Vec::new();
    while t <= last {
        out.push(t);
        t += RELEASE_EVERY;
    }
    out
}

/// The instant a game leaves the releases: when the ET day after its own
/// ends, so yesterday's games stay on the slate that is served until
/// today's run completes (data contract: predictions carry yesterday,
/// today and tomorrow).
pub(crate) fn day_end(date: NaiveDate) -> DateTime<Utc> {
    et_instant(plus(date, 2), NaiveTime::MIN).unwrap_or_else(|| planned_now(plus(date, 2)))
}

/// The name of the release published at `t` (a season row's `forecast_run`).
pub(crate) fn release_name(sport: Sport, t: DateTime<Utc>) -> String {
    format!("{sport}-{}", t.format("%Y%m%dT%H%MZ"))
}

/// `t` as RFC 3339 (a season row's `forecast_published_at`).
pub(crate) fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A game's values in one release.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    /// Current lines (no openers).
    pub lines: Lines,
    /// Per model type, in `ModelType::ALL` order; `None` without a prediction.
    pub models: [Option<ModelProbs>; 3],
    /// The market's view behind the lines: expected home margin and total
    /// (what the named books price around, `books.rs`).
    pub view: (f64, f64),
}

/// A game's run through the releases: one snapshot per grid instant from
/// its entry up to the last one before its start.
#[derive(Debug, Clone)]
pub(crate) struct Path {
    pub entry: DateTime<Utc>,
    pub start: DateTime<Utc>,
    pub snaps: Vec<Snapshot>,
    /// Each named book's quotes of the game, in catalogue order (empty
    /// without lines, or for a path the generator does not keep).
    pub books: Vec<BookRun>,
}

impl Path {
    /// The snapshot index a release at `t` carries (the last pre-start one
    /// from the start on); `None` before the entry.
    pub(crate) fn index_at(&self, t: DateTime<Utc>) -> Option<usize> {
        if t < self.entry || self.snaps.is_empty() {
            return None;
        }
        let k = (t - self.entry).num_seconds() / RELEASE_EVERY.num_seconds();
        Some(usize::try_from(k).unwrap_or(usize::MAX).min(self.snaps.len() - 1))
    }

    pub(crate) fn at(&self, t: DateTime<Utc>) -> Option<&Snapshot> {
        self.index_at(t).map(|k| &self.snaps[k])
    }

    /// The release instant of snapshot `k`.
    pub(crate) fn instant(&self, k: usize) -> DateTime<Utc> {
        self.entry + RELEASE_EVERY * i32::try_from(k).unwrap_or(i32::MAX)
    }

    /// Whether a release at `t` carries the game (dated `date`).
    pub(crate) fn carries(&self, t: DateTime<Utc>, date: NaiveDate) -> bool {
        t >= self.entry && t < day_end(date)
    }
}

/// What a game's market run starts from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Market {
    pub sport: Sport,
    /// True expected home margin and total.
    pub margin: f64,
    pub total: f64,
    /// The market's view at the opening release.
    pub open_margin: f64,
    pub open_total: f64,
    pub start: DateTime<Utc>,
    /// The game has a prediction (`false`: none in any release).
    pub predicted: bool,
    /// Per model type: the game carries the AI column.
    pub ai: [bool; 3],
    /// No line at all in any release.
    pub no_line: bool,
    /// Away money line, away spread price and under price never posted.
    pub one_sided: bool,
}

/// How far the market's margin and total move per release, as shares of
/// the league's final-margin and final-total spread, and how strongly they
/// are pulled toward the truth.
const MARGIN_STEP: f64 = 0.025;
const TOTAL_STEP: f64 = 0.02;
const PULL: f64 = 0.04;
/// Each model's offset: its bias plus a lasting per-game read, then a drift
/// that reverts toward it (`DRIFT_KEEP`) with steps of `DRIFT_STEP` (logit).
const DRIFT_KEEP: f64 = 0.85;
const DRIFT_STEP: f64 = 0.04;

/// Runs a game's market from its entry to its start.
pub(crate) fn run(m: &Market, rng: &mut Rng) -> Path {
    let lg = league(m.sport);
    let jitter = Duration::hours(i64::from(rng.below(ENTRY_JITTER_HOURS as usize + 1) as u32));
    let entry = grid_floor(m.start - ENTERS_BEFORE - jitter);
    let reference = (round_half(-m.open_margin), round_half(m.open_total));
    let mut lasting = [[0.0; 7]; 3];
    for per_model in &mut lasting {
        for (j, slot) in per_model.iter_mut().enumerate() {
            let (bias, noise) = MODEL_BIAS.get(j).map_or((0.0, 0.08), |(_, b, n)| (*b, *n));
            *slot = bias + noise * rng.normal();
        }
    }
    let mut drift = [[0.0; 7]; 3];
    let (mut mm, mut mt) = (m.open_margin, m.open_total);
    let mut snaps = Vec::new();
    let mut t = entry;
    while t < m.start || snaps.is_empty() {
        if !snaps.is_empty() {
            mm += lg.margin_sd * MARGIN_STEP * rng.normal() + PULL * (m.margin - mm);
            mt += lg.total_sd * TOTAL_STEP * rng.normal() + PULL * (m.total - mt);
        }
        let mut lines = market_lines(m.sport, mm, mt);
        if m.no_line {
            lines = Lines::default();
        }
        if m.one_sided {
            lines.away_money_line = None;
            lines.away_point_spread_line = None;
            lines.under_line = None;
        }
        let mut models = [None, None, None];
        if m.predicted {
            for (mi, mt_) in ModelType::ALL.iter().enumerate() {
                let p_true = side_probability(m.sport, *mt_, &lines, m.margin, m.total, reference);
                let p_market = side_probability(m.sport, *mt_, &lines, mm, mt, reference);
                let mut offsets = [0.0; 7];
                for j in 0..7 {
                    drift[mi][j] = DRIFT_KEEP * drift[mi][j] + DRIFT_STEP * rng.normal();
                    offsets[j] = lasting[mi][j] + drift[mi][j];
                }
                let ai = m.ai[mi].then(|| ai_logit(p_true, p_market));
                models[mi] = Some(crate::sim::model_probs(latent_logit(p_true, p_market), ai, &offsets));
            }
        }
        snaps.push(Snapshot {
            lines,
            models,
            view: (mm, mt),
        });
        t += RELEASE_EVERY;
    }
    Path {
        entry,
        start: m.start,
        snaps,
        books: Vec::new(),
    }
}

/// A book's prices at one release and the release they last changed at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Quote {
    pub lines: Lines,
    pub updated: DateTime<Utc>,
}

/// One book's quotes of one game: `quotes[i]` is its quote at the path's
/// snapshot `first + i`.
#[derive(Debug, Clone)]
pub(crate) struct BookRun {
    pub book: &'static Book,
    pub first: usize,
    pub quotes: Vec<Quote>,
}

impl BookRun {
    /// The quote at the path's snapshot `k`; `None` before the book entered.
    pub(crate) fn at(&self, k: usize) -> Option<&Quote> {
        k.checked_sub(self.first).and_then(|i| self.quotes.get(i))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn the_grid_is_every_two_hours_from_midnight_utc_whatever_the_clock() {
        assert_eq!(grid_floor(utc("2026-11-15T17:59:59Z")), utc("2026-11-15T16:00:00Z"));
        assert_eq!(grid_floor(utc("2026-11-15T16:00:00Z")), utc("2026-11-15T16:00:00Z"));
        assert_eq!(grid_floor(utc("2026-11-15T00:00:01Z")), utc("2026-11-15T00:00:00Z"));
        let w = window_instants(utc("2026-11-15T17:03:00Z"));
        assert_eq!(w.len(), 21 * 12 + 1);
        assert_eq!(w[0], utc("2026-10-25T16:00:00Z"));
        assert_eq!(w[w.len() - 1], utc("2026-11-15T16:00:00Z"));
        assert_eq!(
            planned_now(NaiveDate::from_ymd_opt(2026, 11, 15).unwrap()),
            utc("2026-11-15T17:00:00Z")
        );
    }

    #[test]
    fn a_game_leaves_when_the_new_york_day_after_its_own_ends_and_freezes_at_its_start() {
        // 19:00 ET on 2026-11-15 is 00:00 UTC on the 16th; the 16th (ET)
        // ends at 05:00 UTC on the 17th.
        assert_eq!(
            day_end(NaiveDate::from_ymd_opt(2026, 11, 15).unwrap()),
            utc("2026-11-17T05:00:00Z")
        );
        let m = Market {
            sport: Sport::Nhl,
            margin: 0.3,
            total: 6.0,
            open_margin: 0.2,
            open_total: 6.1,
            start: utc("2026-11-16T00:00:00Z"),
            predicted: true,
            ai: [false; 3],
            no_line: false,
            one_sided: false,
        };
        let path = run(&m, &mut Rng::new(3));
        let last = path.instant(path.snaps.len() - 1);
        assert_eq!(
            last,
            utc("2026-11-15T22:00:00Z"),
            "the last release strictly before the start"
        );
        assert!(path.entry <= utc("2026-11-14T00:00:00Z") && path.entry >= utc("2026-11-13T18:00:00Z"));
        let after = path.at(utc("2026-11-16T04:00:00Z")).unwrap();
        assert_eq!(after.lines, path.snaps[path.snaps.len() - 1].lines);
        assert!(path.carries(
            utc("2026-11-16T04:00:00Z"),
            NaiveDate::from_ymd_opt(2026, 11, 15).unwrap()
        ));
        assert!(path.carries(
            utc("2026-11-17T04:00:00Z"),
            NaiveDate::from_ymd_opt(2026, 11, 15).unwrap()
        ));
        assert!(!path.carries(
            utc("2026-11-17T06:00:00Z"),
            NaiveDate::from_ymd_opt(2026, 11, 15).unwrap()
        ));
        assert!(path.at(path.entry - RELEASE_EVERY).is_none());
    }
}
