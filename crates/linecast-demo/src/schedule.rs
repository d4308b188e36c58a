//! Builds one season's schedule: who plays whom, on which date, at which
//! Eastern time, in which phase. Daily leagues (mlb, nba, nhl, ncaab) pair
//! teams day by day; weekly leagues (nfl, ncaaf) pair them week by week. The
//! postseason is series (mlb, nba, nhl) or single games (nfl, college).

use chrono::{Datelike, NaiveDate, NaiveTime, Weekday};
use linecast_domain::Sport;

use crate::calendar::{Calendar, Span, calendar, daily_times, hm, plus};
use crate::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Preseason,
    Regular,
    Postseason,
}

impl Phase {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Phase::Preseason => "preseason",
            Phase::Regular => "regular",
            Phase::Postseason => "postseason",
        }
    }
}

/// One scheduled game; team fields index the league's team table.
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub date: NaiveDate,
    pub time: NaiveTime,
    pub phase: Phase,
    pub home: usize,
    pub away: usize,
}

/// How big a league's season is in a profile.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeagueSize {
    pub teams: usize,
    /// Regular-season games per team (daily leagues only).
    pub games_per_team: f64,
    /// Preseason games per team (daily leagues) or preseason weeks (nfl).
    pub preseason: f64,
    /// Teams in the postseason bracket (a power of two).
    pub playoff_teams: usize,
    /// Share of college football teams playing in a full week (weeks 1-13).
    pub college_week_share: f64,
    /// NFL byes: every team exactly one, four teams a week in weeks 6-13
    /// (272 games with 32 teams); otherwise two teams a week in weeks 6-14.
    pub nfl_one_bye_each: bool,
}

/// Builds the schedule of the season starting in `year`, sorted by date and time.
/// `today` only matters inside the season that contains it: daily leagues
/// always play a few games yesterday, today and tomorrow, so a small league
/// still has a slate to serve.
pub(crate) fn season_schedule(
    sport: Sport,
    year: i32,
    size: LeagueSize,
    ratings: &[f64],
    today: NaiveDate,
    rng: &mut Rng,
) -> Vec<Slot> {
    let cal = calendar(sport, year);
    let mut out = Vec::new();
    match sport {
        Sport::Nfl => nfl_regular(&cal, size, rng, &mut out),
        Sport::Ncaaf => ncaaf_regular(&cal, size, rng, &mut out),
        _ => {
            if let Some(pre) = cal.preseason {
                daily(
                    sport,
                    pre,
                    size.teams,
                    size.preseason,
                    Phase::Preseason,
                    today,
                    rng,
                    &mut out,
                );
            }
            daily(
                sport,
                cal.regular,
                size.teams,
                size.games_per_team,
                Phase::Regular,
                today,
                rng,
                &mut out,
            );
        }
    }
    let seeds = seeding(ratings, size.playoff_teams);
    match sport {
        Sport::Mlb | Sport::Nba | Sport::Nhl => {
            series_postseason(sport, cal.postseason_start, &seeds, ratings, rng, &mut out);
        }
        _ => single_elimination(sport, cal.postseason_start, &seeds, ratings, rng, &mut out),
    }
    if sport == Sport::Ncaaf {
        bowls(cal.postseason_start, size.teams, &seeds, rng, &mut out);
    }
    out.sort_by_key(|a| (a.date, a.time, a.away, a.home));
    out
}

fn time_of(t: (u32, u32)) -> NaiveTime {
    hm(t.0, t.1)
}

/// Pairs teams day by day so each plays about `per_team` games in `span`.
#[expect(
    clippy::too_many_arguments,
    reason = "private helper; the arguments are the plain facts of one phase"
)]
fn daily(
    sport: Sport,
    span: Span,
    teams: usize,
    per_team: f64,
    phase: Phase,
    today: NaiveDate,
    rng: &mut Rng,
    out: &mut Vec<Slot>,
) {
    let per_day = teams as f64 * per_team / (2.0 * span.len() as f64);
    let mut order: Vec<usize> = (0..teams).collect();
    for (day_ix, date) in span.days().enumerate() {
        let mut games = per_day.floor() as usize + usize::from(rng.chance(per_day.fract()));
        if (date - today).num_days().abs() <= 1 {
            games = games.max(3);
        }
        games = games.min(teams / 2);
        if games == 0 {
            continue;
        }
        rng.shuffle(&mut order);
        // Doubleheaders: mlb makes up rainouts by playing the same pair twice
        // in one day. Day 12 of every regular season always has one so each
        // profile carries the case.
        let doubleheader = sport == Sport::Mlb && phase == Phase::Regular && (day_ix == 12 || rng.chance(0.02));
        for g in 0..games {
            let (home, away) = (order[2 * g], order[2 * g + 1]);
            if doubleheader && g == 0 {
                out.push(Slot {
                    date,
                    time: hm(13, 5),
                    phase,
                    home,
                    away,
                });
                out.push(Slot {
                    date,
                    time: hm(18, 10),
                    phase,
                    home,
                    away,
                });
                continue;
            }
            let time = time_of(rng.weighted(daily_times(sport, date)));
            out.push(Slot {
                date,
                time,
                phase,
                home,
                away,
            });
        }
    }
}

fn nfl_regular(cal: &Calendar, size: LeagueSize, rng: &mut Rng, out: &mut Vec<Slot>) {
    let mut order: Vec<usize> = (0..size.teams).collect();
    let weeks = size.preseason.round() as i64;
    for w in 0..weeks {
        let thursday = plus(cal.regular.start, -7 * (weeks - w));
        rng.shuffle(&mut order);
        for g in 0..size.teams / 2 {
            let (offset, time) = *rng.pick(&[
                (0, hm(19, 0)),
                (0, hm(20, 0)),
                (2, hm(13, 0)),
                (2, hm(19, 0)),
                (2, hm(16, 0)),
                (3, hm(13, 0)),
                (3, hm(16, 0)),
            ]);
            out.push(Slot {
                date: plus(thursday, offset),
                time,
                phase: Phase::Preseason,
                home: order[2 * g],
                away: order[2 * g + 1],
            });
        }
    }
    // One bye each: the teams, shuffled once, split into eight bye groups.
    let bye_groups: Vec<Vec<usize>> = if size.nfl_one_bye_each {
        let mut bye_order: Vec<usize> = (0..size.teams).collect();
        rng.shuffle(&mut bye_order);
        bye_order
            .chunks(size.teams.div_ceil(8).max(1))
            .map(<[usize]>::to_vec)
            .collect()
    } else {
        Vec::new()
    };
    for w in 0..18 {
        let thursday = plus(cal.regular.start, 7 * w);
        rng.shuffle(&mut order);
        let byes = if size.nfl_one_bye_each {
            let group = usize::try_from(w - 5).ok().and_then(|g| bye_groups.get(g));
            let group = group.map_or(&[][..], Vec::as_slice);
            // Stable: the teams on bye go last, the rest keep their shuffled order.
            order.sort_by_key(|t| group.contains(t));
            group.len()
        } else if (5..=13).contains(&w) && size.teams >= 16 {
            2
        } else {
            0
        };
        let games = (size.teams - byes) / 2;
        let sunday_games = games.saturating_sub(if w >= 15 && games >= 8 { 4 } else { 2 });
        let mut sunday_ix = 0;
        for g in 0..games {
            let (offset, time) = match g {
                0 => (0, hm(20, 15)),
                1 => (4, hm(20, 15)),
                2 | 3 if w >= 15 && games >= 8 => (2, if g == 2 { hm(16, 30) } else { hm(20, 0) }),
                _ => {
                    sunday_ix += 1;
                    // The last Sunday game is the night game.
                    (
                        3,
                        if sunday_ix == sunday_games {
                            hm(20, 20)
                        } else {
                            time_of(rng.weighted(daily_times(Sport::Nfl, thursday)))
                        },
                    )
                }
            };
            out.push(Slot {
                date: plus(thursday, offset),
                time,
                phase: Phase::Regular,
                home: order[2 * g],
                away: order[2 * g + 1],
            });
        }
    }
}

fn ncaaf_regular(cal: &Calendar, size: LeagueSize, rng: &mut Rng, out: &mut Vec<Slot>) {
    let mut order: Vec<usize> = (0..size.teams).collect();
    for w in 0..=14 {
        let saturday = plus(cal.regular.start, 7 * w);
        let share = match w {
            0 | 14 => 0.25,
            _ => size.college_week_share,
        };
        rng.shuffle(&mut order);
        let games = ((size.teams as f64 * share / 2.0).round() as usize).max(1);
        for g in 0..games {
            let roll = rng.unit();
            let (date, time) = if roll < 0.06 {
                (plus(saturday, -2), hm(19, 30))
            } else if roll < 0.12 {
                (plus(saturday, -1), hm(20, 0))
            } else {
                (saturday, time_of(rng.weighted(daily_times(Sport::Ncaaf, saturday))))
            };
            out.push(Slot {
                date,
                time,
                phase: Phase::Regular,
                home: order[2 * g],
                away: order[2 * g + 1],
            });
        }
    }
}

/// The `n` best-rated teams, best first.
fn seeding(ratings: &[f64], n: usize) -> Vec<usize> {
    let mut ix: Vec<usize> = (0..ratings.len()).collect();
    ix.sort_by(|a, b| ratings[*b].total_cmp(&ratings[*a]).then(a.cmp(b)));
    ix.truncate(n.min(ratings.len()));
    ix
}

fn higher_wins(a: usize, b: usize, ratings: &[f64], rng: &mut Rng) -> bool {
    let p = 1.0 / (1.0 + (-(ratings[a] - ratings[b]) * 1.2).exp());
    rng.chance(p)
}

/// Best-of series with the 2-2-1-1-1 home pattern; rounds are played in parallel.
fn series_postseason(
    sport: Sport,
    start: NaiveDate,
    seeds: &[usize],
    ratings: &[f64],
    rng: &mut Rng,
    out: &mut Vec<Slot>,
) {
    let mut alive = seeds.to_vec();
    let mut round_start = start;
    let mut round = 0;
    while alive.len() >= 2 {
        let best_of = if sport == Sport::Mlb && round == 0 && alive.len() >= 8 {
            5
        } else {
            7
        };
        let mut next = Vec::new();
        let mut longest = 0;
        for s in 0..alive.len() / 2 {
            let (top, low) = (alive[s], alive[alive.len() - 1 - s]);
            let need = best_of / 2 + 1;
            let (mut wt, mut wl, mut g) = (0, 0, 0);
            while wt < need && wl < need {
                let top_home = matches!(g, 0 | 1 | 4 | 6);
                let date = plus(round_start, [0, 1, 3, 4, 6, 8, 10][g]);
                let time = time_of(rng.weighted(daily_times(sport, date)));
                let (home, away) = if top_home { (top, low) } else { (low, top) };
                out.push(Slot {
                    date,
                    time,
                    phase: Phase::Postseason,
                    home,
                    away,
                });
                if higher_wins(top, low, ratings, rng) {
                    wt += 1;
                } else {
                    wl += 1;
                }
                g += 1;
            }
            longest = longest.max([0, 1, 3, 4, 6, 8, 10][g - 1]);
            next.push(if wt == need { top } else { low });
        }
        alive = next;
        round_start = plus(round_start, longest + 2);
        round += 1;
    }
}

/// Day offsets from the postseason start of each single-game round, final last.
fn round_days(sport: Sport) -> &'static [&'static [i64]] {
    match sport {
        Sport::Nfl => &[&[0, 1, 2], &[7, 8], &[15], &[29]],
        Sport::Ncaab => &[&[0, 1], &[2, 3], &[7, 8], &[16], &[18]],
        _ => &[&[3], &[15], &[33]],
    }
}

fn single_elimination(
    sport: Sport,
    start: NaiveDate,
    seeds: &[usize],
    ratings: &[f64],
    rng: &mut Rng,
    out: &mut Vec<Slot>,
) {
    let all = round_days(sport);
    let rounds = (seeds.len().max(2).ilog2() as usize).min(all.len());
    let mut alive = seeds.to_vec();
    for days in &all[all.len() - rounds..] {
        let mut next = Vec::new();
        for s in 0..alive.len() / 2 {
            let (top, low) = (alive[s], alive[alive.len() - 1 - s]);
            let date = plus(start, days[s % days.len()]);
            let slots = [hm(12, 15), hm(16, 30), hm(20, 15), hm(14, 45), hm(19, 10), hm(21, 40)];
            let time = if date.weekday() == Weekday::Mon && sport == Sport::Nfl {
                hm(20, 15)
            } else {
                slots[(s / days.len()) % slots.len()]
            };
            out.push(Slot {
                date,
                time,
                phase: Phase::Postseason,
                home: top,
                away: low,
            });
            next.push(if higher_wins(top, low, ratings, rng) { top } else { low });
        }
        alive = next;
    }
}

/// College bowl games between teams outside the playoff bracket.
fn bowls(start: NaiveDate, teams: usize, seeds: &[usize], rng: &mut Rng, out: &mut Vec<Slot>) {
    let mut pool: Vec<usize> = (0..teams).filter(|t| !seeds.contains(t)).collect();
    rng.shuffle(&mut pool);
    let count = (teams * 3 / 5).saturating_sub(seeds.len()) / 2;
    for b in 0..count.max(1).min(pool.len() / 2) {
        let date = plus(start, rng.below(15) as i64);
        let time = *rng.pick(&[hm(12, 0), hm(15, 30), hm(19, 30), hm(20, 0)]);
        out.push(Slot {
            date,
            time,
            phase: Phase::Postseason,
            home: pool[2 * b],
            away: pool[2 * b + 1],
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn size(teams: usize) -> LeagueSize {
        LeagueSize {
            teams,
            games_per_team: 20.0,
            preseason: 2.0,
            playoff_teams: 4,
            college_week_share: 0.85,
            nfl_one_bye_each: false,
        }
    }

    #[test]
    fn no_team_plays_twice_at_the_same_time_and_keys_are_unique() {
        for sport in Sport::ALL {
            let ratings: Vec<f64> = (0..8).map(f64::from).collect();
            let games = season_schedule(*sport, 2025, size(8), &ratings, NaiveDate::MIN, &mut Rng::new(3));
            assert!(!games.is_empty(), "{sport}");
            let mut keys: Vec<_> = games.iter().map(|g| (g.date, g.time, g.away, g.home)).collect();
            keys.dedup();
            assert_eq!(keys.len(), games.len(), "{sport}");
            for g in &games {
                assert_ne!(g.home, g.away);
                let clash = games
                    .iter()
                    .filter(|o| o.date == g.date && o.time == g.time && (o.home == g.home || o.away == g.home))
                    .count();
                assert_eq!(clash, 1, "{sport} {g:?}");
            }
        }
    }

    #[test]
    fn every_mlb_regular_season_has_a_doubleheader() {
        let ratings = vec![0.0; 8];
        let games = season_schedule(Sport::Mlb, 2025, size(8), &ratings, NaiveDate::MIN, &mut Rng::new(9));
        let dh = games.windows(2).any(|w| {
            w[0].date == w[1].date && w[0].home == w[1].home && w[0].away == w[1].away && w[0].time != w[1].time
        });
        assert!(dh);
    }

    #[test]
    fn professional_leagues_have_a_preseason_and_every_league_a_postseason() {
        for sport in Sport::ALL {
            let games = season_schedule(*sport, 2025, size(8), &[0.0; 8], NaiveDate::MIN, &mut Rng::new(1));
            assert_eq!(
                games.iter().any(|g| g.phase == Phase::Preseason),
                sport.is_professional(),
                "{sport}"
            );
            assert!(games.iter().any(|g| g.phase == Phase::Postseason), "{sport}");
        }
    }
}
