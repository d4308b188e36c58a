//! Builds every game of one season of one league: schedule, scores, its
//! market run through the releases (`market.rs`), provenance, the awkward
//! cases and the view of the season as of `today`.
//!
//! A season row is written from the game's standing forecast and close (the
//! last release before its start, or the release at "now" for a game not
//! yet started); its openers are the game's first release.
//!
//! Awkward cases, by game index `i` within the season (so every league and
//! season of every profile carries them; see also `crate` docs):
//! - `i % 53 == 7`: no line at all.
//! - `i % 41 == 5`: one-sided prices (away money line, away spread price and
//!   under price empty).
//! - `i % 29 == 3`: placeholder zero openers (`0` in every `open_*` column).
//! - `i % 47 == 11`: no prediction (model columns and forecast provenance empty).
//! - `i % 173 == 90` (before today): postponed, no final.
//! - `i % 67 == 40` final, current season: `settlement_status=disputed`.
//!
//! Pushes are not forced: finals are drawn around the true margin and total,
//! so they land on integral lines at their natural rate.

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::GameStatus;
use linecast_domain::time::et_instant;
use linecast_domain::{GameKey, Lines, ModelProbs, ModelType, Provenance, SeasonLabel, Sport};

use crate::calendar::{late_slot, plus, season_first_day};
use crate::market::{Market, Path, grid_floor, release_name, rfc3339, run};
use crate::rng::{Rng, fnv};
use crate::schedule::{LeagueSize, Phase, season_schedule};
use crate::sim::{league, scores};
use crate::teams::roster;

/// Live forecasts before this date were backfilled from retained releases;
/// some rows found none and carry no run or publication time.
const LIVE_RETAINED_SINCE: (i32, u32, u32) = (2026, 10, 3);

/// One game as every artifact sees it.
#[derive(Debug, Clone)]
pub(crate) struct Game {
    pub key: GameKey,
    pub season: SeasonLabel,
    pub phase: Phase,
    pub home: usize,
    pub away: usize,
    pub status: GameStatus,
    pub home_score: Option<u32>,
    pub away_score: Option<u32>,
    pub lines: Lines,
    /// Per model type, in `ModelType::ALL` order; `None` without a prediction.
    pub models: [Option<ModelProbs>; 3],
    pub quote_source: Option<&'static str>,
    pub settlement: Option<&'static str>,
    pub provenance: Provenance,
    pub rest_days: u32,
    pub travel_km: u32,
    /// In the season store (played, or dated today or tomorrow).
    pub in_store: bool,
    /// The true home win probability, for prediction-market prices.
    pub home_win: f64,
    /// The game's run through the releases, kept for the games the kept
    /// window can carry (latest season, recent dates); `None` otherwise.
    pub path: Option<Path>,
}

/// Where a season sits in the generated history.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SeasonPlace {
    pub year: i32,
    /// 0 for the latest season, 1 for the one before, ...
    pub back: u32,
    pub oldest: u32,
}

/// Model types whose predictions carry the AI column.
pub(crate) fn has_ai(sport: Sport, model_type: ModelType) -> bool {
    model_type == ModelType::WonOnPoints && matches!(sport, Sport::Mlb | Sport::Nba | Sport::Nfl | Sport::Ncaab)
}

pub(crate) fn model_index(model_type: ModelType) -> usize {
    ModelType::ALL.iter().position(|m| *m == model_type).unwrap_or(0)
}

/// Team strength (margin) and offense (total) ratings for one season: a
/// lasting team component plus a season component.
fn ratings(seed: u64, sport: Sport, year: i32, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut strength = Vec::with_capacity(n);
    let mut offense = Vec::with_capacity(n);
    let mut season = Rng::stream(seed, &format!("ratings/{sport}/{year}"));
    for team in &roster(sport, n)[..n] {
        let mut lasting = Rng::stream(seed, &format!("team/{sport}/{}", team.0));
        strength.push(0.7 * lasting.normal() + 0.6 * season.normal());
        offense.push(0.5 * lasting.normal() + 0.5 * season.normal());
    }
    (strength, offense)
}

pub(crate) fn release_id(sport: Sport, date: NaiveDate) -> String {
    format!("{sport}-{}-r1", date.format("%Y-%m-%d"))
}

pub(crate) fn build_season(
    sport: Sport,
    place: SeasonPlace,
    size: LeagueSize,
    seed: u64,
    today: NaiveDate,
    now: DateTime<Utc>,
) -> Vec<Game> {
    let SeasonPlace { year, back, .. } = place;
    let label = SeasonLabel::starting(sport, year);
    let (strength, offense) = ratings(seed, sport, year, size.teams);
    let mut rng = Rng::stream(seed, &format!("season/{sport}/{year}"));
    let mut slots = season_schedule(sport, year, size, &strength, today, &mut rng);
    if back == 0 {
        // One late start on today's slate.
        let todays: Vec<usize> = (0..slots.len()).filter(|i| slots[*i].date == today).collect();
        if let [_, .., last] = todays.as_slice() {
            slots[*last].time = late_slot(sport).max(slots[*last].time);
        }
    }
    let lg = league(sport);
    let midpoint = slots.get(slots.len() / 2).map_or(today, |s| s.date);
    let table = roster(sport, size.teams);
    let mut last_played: Vec<Option<NaiveDate>> = vec![None; size.teams];
    let mut games = Vec::with_capacity(slots.len());
    let release_now = grid_floor(now);
    let keep_paths_from = plus(crate::et_date(now - crate::market::KEPT_WINDOW), -1);
    for (i, slot) in slots.iter().enumerate() {
        let damp = if slot.phase == Phase::Preseason { 0.5 } else { 1.0 };
        let margin = ((strength[slot.home] - strength[slot.away]) * lg.rating_scale + lg.home_edge) * damp;
        let total = lg.base_total + (offense[slot.home] + offense[slot.away]) * lg.total_scale * 0.5;
        let open_margin = margin + rng.normal() * lg.margin_sd * 0.12;
        let open_total = total + rng.normal() * lg.total_sd * 0.1;
        let (home_score, away_score) = scores(sport, margin, total, &mut rng);
        let live = back == 0 || (back == 1 && slot.date >= midpoint);
        let with_prediction = i % 47 != 11;
        let start = et_instant(slot.date, slot.time).unwrap_or_else(|| crate::market::planned_now(slot.date));
        let mut ai = [false; 3];
        for mt in ModelType::ALL {
            ai[model_index(*mt)] = back == 0 && live && has_ai(sport, *mt) && rng.chance(0.9);
        }
        let market = Market {
            sport,
            margin,
            total,
            open_margin,
            open_total,
            start,
            predicted: with_prediction,
            ai,
            no_line: i % 53 == 7,
            one_sided: i % 41 == 5,
        };
        let path = run(&market, &mut Rng::stream(seed, &format!("market/{sport}/{year}/{i}")));
        // The standing forecast and close: the last release before the
        // start, or the release at "now" for a game not started yet.
        let standing_at = release_now.min(path.instant(path.snaps.len() - 1)).max(path.entry);
        let standing = path.at(standing_at).cloned().unwrap_or_else(|| path.snaps[0].clone());
        let opening = &path.snaps[0].lines;
        let mut l = standing.lines;
        l.open_home_money_line = opening.home_money_line;
        l.open_away_money_line = opening.away_money_line;
        l.open_home_point_spread = opening.home_point_spread;
        l.open_away_point_spread = opening.away_point_spread;
        l.open_over_under = opening.over_under;
        let openers = [
            &mut l.open_home_money_line,
            &mut l.open_away_money_line,
            &mut l.open_home_point_spread,
            &mut l.open_away_point_spread,
            &mut l.open_over_under,
        ];
        if i % 29 == 3 {
            // The pipeline's placeholder when it missed the opener.
            for f in openers {
                if f.is_some() {
                    *f = Some(0.0);
                }
            }
        } else if slot.phase == Phase::Preseason && rng.chance(0.4) {
            // Preseason markets often open late: no real opener.
            for f in openers {
                *f = None;
            }
        }
        let models = standing.models;
        let provenance = if with_prediction {
            provenance(sport, label, place, live, slot.date, today, i, seed, standing_at)
        } else {
            Provenance::default()
        };
        let key = GameKey::new(slot.date, slot.time, table[slot.away].0, table[slot.home].0);
        let mut path = (back == 0 && slot.date >= keep_paths_from).then_some(path);
        if let Some(p) = path.as_mut() {
            let game = format!(
                "{} {} {}@{}",
                key.date_string(),
                key.time_string(),
                key.away_team,
                key.home_team
            );
            p.books = crate::books::run_books(&market, p, seed, &game);
        }
        let rest_days = last_played[slot.home].map_or(7, |d| (slot.date - d).num_days().clamp(0, 9) as u32);
        last_played[slot.home] = Some(slot.date);
        last_played[slot.away] = Some(slot.date);
        let postponed = i % 173 == 90;
        games.push(Game {
            key,
            season: label,
            phase: slot.phase,
            home: slot.home,
            away: slot.away,
            status: if postponed {
                GameStatus::Postponed
            } else {
                GameStatus::Final
            },
            home_score: (!postponed).then_some(home_score),
            away_score: (!postponed).then_some(away_score),
            quote_source: if l.home_money_line.is_none() && l.home_point_spread.is_none() {
                None
            } else if start > now {
                Some("pregame_snapshot")
            } else {
                Some("closing")
            },
            settlement: (!postponed).then_some(if back == 0 && i % 67 == 40 {
                "disputed"
            } else {
                "settled"
            }),
            lines: l,
            models,
            provenance,
            rest_days,
            travel_km: (fnv(&format!("{}{}", table[slot.home].0, table[slot.away].0)) % 4200 + 40) as u32,
            in_store: true,
            home_win: crate::sim::phi(margin / lg.margin_sd),
            path,
        });
    }
    if back == 0 {
        as_of_today(&mut games, today, now);
    }
    games
}

/// Forecast provenance of a game with a prediction.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site; the inputs are all plain facts about the game"
)]
fn provenance(
    sport: Sport,
    label: SeasonLabel,
    place: SeasonPlace,
    live: bool,
    date: NaiveDate,
    today: NaiveDate,
    i: usize,
    seed: u64,
    standing_at: DateTime<Utc>,
) -> Provenance {
    let mut p = Provenance::default();
    if live {
        p.model_probability_source = Some("live".into());
        p.forecast_source = Some("live".into());
        let retained = NaiveDate::from_ymd_opt(LIVE_RETAINED_SINCE.0, LIVE_RETAINED_SINCE.1, LIVE_RETAINED_SINCE.2)
            .unwrap_or(today);
        let backfilled = date >= retained || !fnv(&format!("{seed}{sport}{i}")).is_multiple_of(4);
        if backfilled {
            p.forecast_run = Some(release_name(sport, standing_at).into());
            p.forecast_published_at = Some(rfc3339(standing_at).into());
        }
    } else if place.back >= 6 || (place.back >= 2 && place.back == place.oldest) {
        p.model_probability_source = Some("reconstructed_oos".into());
        p.forecast_source = Some("walk_forward".into());
        p.forecast_run = Some(format!("bt-{sport}-{label}-oos").into());
        p.model_training_through = Some(
            plus(season_first_day(sport, label.start_year()), -1)
                .format("%Y-%m-%d")
                .to_string()
                .into(),
        );
        p.model_reconstruction_method = Some("expanding_window_refit".into());
    } else {
        p.model_probability_source = Some("walk_forward".into());
        p.forecast_source = Some("walk_forward".into());
        p.forecast_run = Some(format!("bt-{sport}-2026-09-wf3").into());
    }
    p
}

/// The latest season as of `today`: nothing from today on is final, games
/// after tomorrow are only on the score tape, yesterday's finals are still
/// settling and one of them has no final yet.
fn as_of_today(games: &mut [Game], today: NaiveDate, now: DateTime<Utc>) {
    let tomorrow = plus(today, 1);
    let yesterday = plus(today, -1);
    for g in games.iter_mut().filter(|g| g.key.date >= today) {
        g.status = GameStatus::Scheduled;
        g.home_score = None;
        g.away_score = None;
        g.settlement = None;
        g.in_store = g.key.date <= tomorrow;
        let started = g.path.as_ref().is_some_and(|p| p.start <= now);
        if g.quote_source.is_some() && !started {
            g.quote_source = Some("pregame_snapshot");
        }
    }
    let yesterdays: Vec<usize> = games
        .iter()
        .enumerate()
        .filter(|(_, g)| g.key.date == yesterday && g.status == GameStatus::Final)
        .map(|(i, _)| i)
        .collect();
    match yesterdays.as_slice() {
        [] => {
            if let Some(g) = games
                .iter_mut()
                .rev()
                .find(|g| g.status == GameStatus::Final && g.key.date < today)
            {
                g.settlement = Some("provisional");
            }
        }
        ix => {
            games[ix[0]].settlement = Some("pending");
            if let Some(i) = ix.get(1) {
                games[*i].settlement = Some("provisional");
            }
            if ix.len() >= 3 {
                // The feed has not sent this late game's final yet.
                let g = &mut games[ix[ix.len() - 1]];
                g.status = GameStatus::Scheduled;
                g.home_score = None;
                g.away_score = None;
                g.settlement = None;
            }
        }
    }
}
