//! linecast demo data: a deterministic generator that writes every object of
//! `docs/data-contract.md` for all six leagues and three model types, and
//! helpers to put it on disk. The server runs it in demo mode (an empty
//! embedded store on first start), the admin CLI's `fixtures` command writes
//! it, and the test suites use it as their data.
//!
//! The same [`GenOptions`] always give byte-identical objects: randomness
//! comes from a PRNG defined in this crate, seeded per league and season,
//! nothing iterates a hash map, numbers have fixed formats and every
//! timestamp is derived from game dates and the release grid, never from the
//! clock ("now" is [`GenOptions::not_after`], or a planned time on `today`).
//!
//! # Deliberate awkward cases
//! Every profile carries each of these in at least one league:
//! - **doubleheaders**: mlb, day 12 of every regular season plus ~2% of days
//!   (same teams, 13:05 and 18:10 ET) (`schedule.rs`);
//! - **pushes** on integral totals and spreads where a final lands on the
//!   line, at their natural rate (finals are drawn around the true margin and
//!   total, never set on the line), and rare NFL ties (a moneyline push)
//!   (`sim.rs`);
//! - **no final**: `i % 173 == 90` postponed (long seasons: mlb, nba, nhl in
//!   small); yesterday's last game still `scheduled` when a league played
//!   three or more games yesterday; today's and tomorrow's games unsettled;
//! - **no line** (`i % 53 == 7`), **one-sided prices** (`i % 41 == 5`: away
//!   money line, away spread price and under price empty);
//! - **placeholder zero openers**: `i % 29 == 3`, in season stores (the
//!   releases print the real opener); preseason rows also lack openers at
//!   times;
//! - **preseason rows**: mlb, nba, nhl, nfl (`season_type=preseason`);
//! - **provenance**: the latest season is `live`; the one before is
//!   `walk_forward` in its first half and `live` after; older seasons are
//!   `walk_forward`, and the oldest (and any six or more back) are
//!   `reconstructed_oos` with `model_training_through` and
//!   `model_reconstruction_method`. Live rows before 2026-10-03 lack
//!   `forecast_run`/`forecast_published_at` one time in four;
//! - **settlement**: yesterday's first final `pending`, second `provisional`
//!   (or the latest final `provisional` for a league out of season), and
//!   `disputed` at `i % 67 == 40` of the latest season;
//! - **no prediction** (`i % 47 == 11`): empty model and forecast columns,
//!   and no row in any predictions release;
//! - **BLEND of 0.5** only where it happens: BLEND is the mean of the
//!   components, so only when they straddle 0.5;
//! - **a past that could have happened**: predictions and odds releases
//!   every two hours on a fixed UTC grid (`market.rs`); games enter about two
//!   days before their start, leave when the ET day after their own ends and are frozen from
//!   their start; an out-of-season league's releases carry no rows;
//! - **unknown columns** `home_rest_days`, `travel_km` in every season store
//!   and in `predictions/nba/won_on_spread.csv`;
//! - **AI column** only in the won_on_points predictions of mlb, nba, nfl and
//!   ncaab and in their latest season stores, with some rows empty;
//! - **off-day manifests** for a league without games that day (mlb in
//!   November); a held game in today's manifest of the first league with games.

mod artifacts;
mod books;
mod calendar;
mod csvw;
pub mod market;
mod rng;
mod schedule;
mod season;
mod sim;
mod teams;

use std::io;
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::keys;
use linecast_domain::{ModelType, SeasonLabel, Sport};

pub use linecast_domain::time::et_date;

use crate::artifacts::League;
use crate::schedule::LeagueSize;
use crate::season::{SeasonPlace, build_season};

/// How much history to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Full leagues, the latest season plus the ten before it.
    Demo,
    /// Eight teams per league and fewer games, the latest season plus two:
    /// the committed test fixture (about 3 MB).
    Small,
    /// Every league at real size, the latest season plus the ten before it,
    /// for benchmarks: the professional leagues as in `Demo` (which already
    /// has their real team counts and 162/82/82 games), the NFL with 272
    /// regular-season games (every team one bye), college football at FBS
    /// size (134 teams, about 850 games) and college basketball at
    /// Division I size (362 teams, about 5,800 games, a 32-team
    /// tournament). College rosters beyond the real tables are generated
    /// schools (see `teams.rs`).
    Full,
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "demo" => Ok(Profile::Demo),
            "small" => Ok(Profile::Small),
            "full" => Ok(Profile::Full),
            other => Err(format!("unknown profile '{other}'; allowed: demo, small, full")),
        }
    }
}

/// Inputs of [`generate`]; the output is a pure function of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenOptions {
    /// Today's America/New_York date: the latest season runs up to it.
    pub today: NaiveDate,
    pub seed: u64,
    pub profile: Profile,
    /// The wall clock when the data is generated for a running server: no
    /// generated instant (release times, odds updates, market captures,
    /// forecast publications) lies after it, so a freshness check never
    /// computes a negative age, and today's predictions and odds are the
    /// market run's release at it. `None` keeps the planned times and the
    /// planned "now" ([`market::planned_now`], 17:00 UTC on `today`).
    pub not_after: Option<DateTime<Utc>>,
}

/// `at`, or `not_after` when `at` lies after it.
pub(crate) fn capped(at: DateTime<Utc>, not_after: Option<DateTime<Utc>>) -> DateTime<Utc> {
    not_after.map_or(at, |cap| at.min(cap))
}

impl Profile {
    fn previous_seasons(self) -> u32 {
        match self {
            Profile::Demo | Profile::Full => 10,
            Profile::Small => 2,
        }
    }

    fn size(self, sport: Sport) -> LeagueSize {
        let all = teams::teams(sport).len();
        let (teams, games_per_team, preseason, playoff_teams) = match (self, sport) {
            (Profile::Demo | Profile::Full, Sport::Mlb) => (all, 162.0, 20.0, 8),
            (Profile::Demo | Profile::Full, Sport::Nba | Sport::Nhl) => (all, 82.0, 5.0, 16),
            (Profile::Demo | Profile::Full, Sport::Nfl) => (all, 17.0, 3.0, 16),
            (Profile::Demo, Sport::Ncaaf) => (all, 12.0, 0.0, 8),
            (Profile::Demo, Sport::Ncaab) => (all, 30.0, 0.0, 16),
            (Profile::Full, Sport::Ncaaf) => (FULL_NCAAF_TEAMS, 12.0, 0.0, 8),
            (Profile::Full, Sport::Ncaab) => (FULL_NCAAB_TEAMS, 32.0, 0.0, 32),
            (Profile::Small, Sport::Mlb) => (8, 24.0, 3.0, 4),
            (Profile::Small, Sport::Nba | Sport::Nhl) => (8, 20.0, 2.0, 4),
            (Profile::Small, Sport::Nfl) => (8, 17.0, 1.0, 4),
            (Profile::Small, Sport::Ncaaf) => (8, 12.0, 0.0, 4),
            (Profile::Small, Sport::Ncaab) => (8, 14.0, 0.0, 4),
        };
        let full = self == Profile::Full;
        LeagueSize {
            teams,
            games_per_team,
            preseason,
            playoff_teams,
            // FBS teams play about 12.7 games a season here (850 games).
            college_week_share: if full { 0.94 } else { 0.85 },
            nfl_one_bye_each: full,
        }
    }
}

/// FBS football teams in the `full` profile.
const FULL_NCAAF_TEAMS: usize = 134;
/// Division I basketball teams in the `full` profile.
const FULL_NCAAB_TEAMS: usize = 362;

/// The latest season of `sport` that has begun by `today` (the one
/// containing today, or the one before when today's has not started).
pub fn latest_season(sport: Sport, today: NaiveDate) -> SeasonLabel {
    let containing = SeasonLabel::containing(sport, today);
    if calendar::season_first_day(sport, containing.start_year()) <= today {
        containing
    } else {
        containing.previous()
    }
}

/// How many times [`generate`] calls `progress`, for a progress bar.
pub fn planned_steps(opts: &GenOptions) -> u64 {
    let sports = Sport::ALL.len() as u64;
    sports * (u64::from(opts.profile.previous_seasons()) + 1) + sports + 1
}

/// Generates every object of the data contract, sorted by key. `progress`
/// is called once per step with a short description of the step done.
pub fn generate(opts: &GenOptions, progress: &mut dyn FnMut(&str)) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut holder_found = false;
    for sport in Sport::ALL {
        let league = build_league(opts, *sport, opts.profile.previous_seasons(), progress);
        let sport = &league.sport;
        let now = league.release_now;
        out.push((keys::teams(*sport), artifacts::teams(&league)));
        out.push((keys::scores(*sport), artifacts::scores(&league)));
        out.push((keys::odds(*sport), artifacts::odds(&league, now)));
        out.push((keys::books(*sport), artifacts::books(&league, now)));
        for mt in ModelType::ALL {
            out.push((
                keys::predictions(*sport, *mt),
                artifacts::predictions(&league, *mt, now),
            ));
            for games in &league.seasons {
                if let Some(first) = games.first() {
                    out.push((
                        keys::season(*sport, *mt, first.season),
                        artifacts::season_store(games, *mt),
                    ));
                }
            }
        }
        if sport.has_prediction_market() {
            out.push((keys::markets(*sport), artifacts::markets(&league)));
        }
        let plays_today = league.latest().iter().any(|g| g.key.date == opts.today);
        out.extend(artifacts::releases(&league, plays_today && !holder_found));
        holder_found |= plays_today;
        for (file, bytes) in artifacts::datasets(&league) {
            out.push((keys::dataset(*sport, &file), bytes));
        }
        progress(&format!("{sport} artifacts"));
    }
    out.push((keys::PRODUCT_CATALOG.to_owned(), artifacts::catalog()));
    progress("product catalog");
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The latest season and `previous` seasons before it of one league.
fn build_league(opts: &GenOptions, sport: Sport, previous: u32, progress: &mut dyn FnMut(&str)) -> League {
    let now = market::now_of(opts);
    let latest = latest_season(sport, opts.today);
    let oldest = opts.profile.previous_seasons();
    let seasons: Vec<_> = (0..=previous)
        .map(|back| {
            let year = latest.start_year() - back as i32;
            let games = build_season(
                sport,
                SeasonPlace { year, back, oldest },
                opts.profile.size(sport),
                opts.seed,
                opts.today,
                now,
            );
            progress(&format!("{sport} {}", SeasonLabel::starting(sport, year)));
            games
        })
        .collect();
    League {
        sport,
        teams: opts.profile.size(sport).teams,
        seasons,
        today: opts.today,
        not_after: opts.not_after,
        release_now: market::grid_floor(now),
    }
}

/// Every predictions, odds and books release of `sport` in the kept window
/// at "now" ([`market::window_instants`]) as `(key, published_at, bytes)`,
/// oldest first (the five series of an instant in key order). The newest
/// is, byte for byte, the object [`generate`] writes for the same options.
pub fn window_releases(opts: &GenOptions, sport: Sport) -> Vec<(String, DateTime<Utc>, Vec<u8>)> {
    let league = build_league(opts, sport, 0, &mut |_| {});
    let mut out = Vec::new();
    for t in market::window_instants(market::now_of(opts)) {
        for mt in ModelType::ALL {
            out.push((
                keys::predictions(sport, *mt),
                t,
                artifacts::predictions(&league, *mt, t),
            ));
        }
        out.push((keys::odds(sport), t, artifacts::odds(&league, t)));
        out.push((keys::books(sport), t, artifacts::books(&league, t)));
    }
    out.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Writes objects under `dir`, each through a temporary file renamed into
/// place so a reader never sees a half-written object.
pub fn write_dir(dir: &Path, objects: &[(String, Vec<u8>)]) -> io::Result<()> {
    for (key, bytes) in objects {
        let path = dir.join(key);
        let parent = path.parent().unwrap_or(dir);
        std::fs::create_dir_all(parent)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = parent.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(())
}

/// Seed of the demo store the server generates on first run.
pub const DEMO_SEED: u64 = 42;

/// The options of the demo store generated at `now` (the server's first run).
pub fn demo_options(now: DateTime<Utc>) -> GenOptions {
    GenOptions {
        today: et_date(now),
        seed: DEMO_SEED,
        profile: Profile::Demo,
        not_after: Some(now),
    }
}

/// Generates the demo profile for `today` into `dir` when it is missing or
/// empty; returns whether it generated. A non-empty directory is left alone.
pub fn ensure_demo_store(dir: &Path, now: DateTime<Utc>) -> io::Result<bool> {
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        return Ok(false);
    }
    let objects = generate(&demo_options(now), &mut |_| {});
    write_dir(dir, &objects)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use std::collections::BTreeSet;
    use std::ops::RangeInclusive;

    use super::*;
    use crate::rng::Rng;
    use crate::schedule::{Phase, season_schedule};

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
    }

    /// `(sport, teams, regular-season games)` of the `full` profile.
    fn full_ranges() -> [(Sport, RangeInclusive<usize>, RangeInclusive<usize>); 6] {
        [
            (Sport::Mlb, 30..=30, 2_400..=2_470),
            (Sport::Nba, 30..=30, 1_200..=1_260),
            (Sport::Nhl, 32..=32, 1_280..=1_345),
            (Sport::Nfl, 32..=32, 272..=272),
            (Sport::Ncaaf, 130..=136, 820..=880),
            (Sport::Ncaab, 350..=370, 5_600..=6_000),
        ]
    }

    #[test]
    fn the_full_profile_plans_every_season_at_real_league_size() {
        assert_eq!("full".parse::<Profile>(), Ok(Profile::Full));
        assert_eq!(Profile::Full.previous_seasons() + 1, 11);
        for (sport, teams, regular) in full_ranges() {
            let size = Profile::Full.size(sport);
            assert!(teams.contains(&size.teams), "{sport}: {} teams", size.teams);
            let roster = teams::roster(sport, size.teams);
            assert_eq!(roster.len(), size.teams, "{sport}: every team is named");
            let latest = latest_season(sport, today());
            for back in 0..=Profile::Full.previous_seasons() {
                let year = latest.start_year() - back as i32;
                let ratings: Vec<f64> = (0..size.teams).map(|t| (t % 7) as f64 / 7.0).collect();
                let mut rng = Rng::stream(DEMO_SEED, &format!("season/{sport}/{year}"));
                let games = season_schedule(sport, year, size, &ratings, today(), &mut rng);
                let count = |phase| games.iter().filter(|g| g.phase == phase).count();
                let n = count(Phase::Regular);
                assert!(regular.contains(&n), "{sport} {year}: {n} regular-season games");
                assert!(count(Phase::Postseason) > 0, "{sport} {year}: a postseason");
                let playing: BTreeSet<usize> = games.iter().flat_map(|g| [g.home, g.away]).collect();
                assert_eq!(playing.len(), size.teams, "{sport} {year}: every team plays");
            }
        }
    }

    #[test]
    fn full_nfl_seasons_give_every_team_seventeen_games_and_one_bye() {
        let size = Profile::Full.size(Sport::Nfl);
        let games = season_schedule(Sport::Nfl, 2025, size, &[0.0; 32], today(), &mut Rng::new(5));
        let mut per_team = [0_usize; 32];
        for g in games.iter().filter(|g| g.phase == Phase::Regular) {
            per_team[g.home] += 1;
            per_team[g.away] += 1;
        }
        assert!(per_team.iter().all(|n| *n == 17), "{per_team:?}");
    }

    #[test]
    fn demo_and_small_keep_their_sizes() {
        for sport in Sport::ALL {
            let demo = Profile::Demo.size(*sport);
            assert_eq!(demo.teams, teams::teams(*sport).len(), "{sport}");
            assert_eq!(Profile::Small.size(*sport).teams, 8, "{sport}");
            for p in [Profile::Demo, Profile::Small] {
                assert!((p.size(*sport).college_week_share - 0.85).abs() < f64::EPSILON);
                assert!(!p.size(*sport).nfl_one_bye_each);
            }
        }
        assert_eq!(Profile::Demo.size(Sport::Ncaab).teams, 48);
        assert_eq!(Profile::Demo.size(Sport::Ncaaf).teams, 40);
    }

    #[test]
    fn a_full_ncaab_season_names_every_team_in_its_teams_object() {
        let size = Profile::Full.size(Sport::Ncaab);
        let latest = latest_season(Sport::Ncaab, today());
        let place = SeasonPlace {
            year: latest.start_year() - 1,
            back: 1,
            oldest: 10,
        };
        let now = market::planned_now(today());
        let games = build_season(Sport::Ncaab, place, size, DEMO_SEED, today(), now);
        let league = League {
            sport: Sport::Ncaab,
            teams: size.teams,
            seasons: vec![games],
            today: today(),
            not_after: None,
            release_now: market::grid_floor(now),
        };
        let teams_csv = String::from_utf8(artifacts::teams(&league)).unwrap();
        let slugs: BTreeSet<&str> = teams_csv.lines().skip(1).filter_map(|l| l.split(',').next()).collect();
        assert_eq!(slugs.len(), size.teams);
        let games = &league.seasons[0];
        let regular = games.iter().filter(|g| g.phase == Phase::Regular).count();
        assert!((5_600..=6_000).contains(&regular), "{regular}");
        for g in games {
            assert!(slugs.contains(g.key.home_team.as_str()) && slugs.contains(g.key.away_team.as_str()));
        }
        let store = artifacts::season_store(games, ModelType::WonOnPoints);
        let rows = String::from_utf8(store).unwrap().lines().count() - 1;
        assert_eq!(rows, games.iter().filter(|g| g.in_store).count());
    }
}
