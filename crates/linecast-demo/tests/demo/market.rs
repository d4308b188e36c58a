//! The demo's past: every predictions and odds release of the kept window is
//! a market that could have happened, and the season rows are the releases'
//! standing forecasts and closes. Expected values are worked out from the
//! released bytes with plain arithmetic, never with the generator's rules.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use linecast_demo::{GenOptions, Profile, window_releases};
use linecast_domain::Sport;
use linecast_domain::time::et_instant;

use crate::{Table, fixture_options, fixture_store, tables};

/// One series' releases: instant → table.
type Series = BTreeMap<DateTime<Utc>, Table>;

fn by_series(opts: &GenOptions, sport: Sport) -> BTreeMap<String, Series> {
    let mut out: BTreeMap<String, Series> = BTreeMap::new();
    for (key, at, bytes) in window_releases(opts, sport) {
        // The books release has a row per game and book (`books.rs` checks it).
        if key.starts_with("books/") {
            continue;
        }
        out.entry(key).or_default().insert(at, Table::parse(&bytes));
    }
    out
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// A game's identity within a series.
fn game_of(t: &Table, r: &[String]) -> (String, String, String, String) {
    (
        t.get(r, "date").to_owned(),
        t.get(r, "time_est").to_owned(),
        t.get(r, "away_team").to_owned(),
        t.get(r, "home_team").to_owned(),
    )
}

fn start_of(game: &(String, String, String, String)) -> DateTime<Utc> {
    let date = NaiveDate::parse_from_str(&game.0, "%Y-%m-%d").unwrap();
    let time = NaiveTime::parse_from_str(&game.1, "%H:%M:%S").unwrap();
    et_instant(date, time).unwrap()
}

fn day_end_of(game: &(String, String, String, String)) -> DateTime<Utc> {
    let date = NaiveDate::parse_from_str(&game.0, "%Y-%m-%d").unwrap();
    // The ET day after the game's own ends (yesterday's games stay on the
    // slate served until today's run completes).
    et_instant(date.succ_opt().unwrap().succ_opt().unwrap(), NaiveTime::MIN).unwrap()
}

fn is_model_column(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

/// Checks every rule of a believable past over one league's window and
/// returns how many releases it read.
fn check_window(sport: Sport, series: &BTreeMap<String, Series>, now: DateTime<Utc>) -> usize {
    let mut read = 0;
    assert_eq!(series.len(), 4, "{sport}: three predictions series and the odds");
    let fixed = matches!(sport, Sport::Mlb | Sport::Nhl);
    for (key, releases) in series {
        // 21 days every two hours, both ends included, on the UTC grid.
        assert_eq!(releases.len(), 21 * 12 + 1, "{key}");
        let instants: Vec<_> = releases.keys().copied().collect();
        for w in instants.windows(2) {
            assert_eq!(w[1] - w[0], Duration::hours(2), "{key}");
        }
        assert!(instants.iter().all(|t| t.timestamp() % 7200 == 0), "{key}");
        let last = instants[instants.len() - 1];
        assert!(last <= now && now - last < Duration::hours(2), "{key}: {last} at {now}");

        // Per game: the release instants carrying it and its row there.
        let mut rows: BTreeMap<_, BTreeMap<DateTime<Utc>, Vec<String>>> = BTreeMap::new();
        for (at, t) in releases {
            read += 1;
            for r in &t.rows {
                let game = game_of(t, r);
                for (i, name) in t.header.iter().enumerate() {
                    let cell = &r[i];
                    if cell.is_empty() {
                        continue;
                    }
                    if name.ends_with("point_spread") && fixed && !name.starts_with("open_") {
                        assert!(cell == "1.5" || cell == "-1.5", "{key} {at} {game:?}: {name}={cell}");
                    }
                    if name.ends_with("_line") {
                        let price: f64 = cell.parse().unwrap();
                        assert!(price <= -100.0 || price >= 100.0, "{key} {at} {game:?}: {name}={cell}");
                    }
                    if is_model_column(name) {
                        let p: f64 = cell.parse().unwrap();
                        assert!((0.0..=1.0).contains(&p), "{key} {at} {game:?}: {name}={cell}");
                    }
                }
                if let Some(blend) = t.col("BLEND").map(|c| r[c].parse::<f64>().unwrap()) {
                    let parts: Vec<f64> = t
                        .header
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| is_model_column(h) && *h != "BLEND")
                        .filter_map(|(i, _)| r[i].parse().ok())
                        .collect();
                    let lo = parts.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = parts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    assert!(
                        lo <= blend && blend <= hi,
                        "{key} {at} {game:?}: BLEND {blend} outside {parts:?}"
                    );
                    if (blend - 0.5).abs() < 1e-9 {
                        assert!(lo <= 0.5 && hi >= 0.5, "{key} {at} {game:?}: 0.5 beside {parts:?}");
                    }
                }
                assert!(
                    rows.entry(game).or_default().insert(*at, r.clone()).is_none(),
                    "{key} {at}: a game twice in one release"
                );
            }
        }
        let first = instants[0];
        for (game, seen) in &rows {
            let start = start_of(game);
            let end = day_end_of(game);
            let entered = *seen.keys().next().unwrap();
            // In every release from its entry until the day after its own ends, and no other.
            for at in &instants {
                let expected = *at >= entered && *at < end;
                assert_eq!(seen.contains_key(at), expected, "{key} {game:?} at {at}");
            }
            if entered > first {
                let ahead = start - entered;
                assert!(
                    ahead >= Duration::hours(46) && ahead <= Duration::hours(56),
                    "{key} {game:?}: entered {ahead} before its start"
                );
            }
            // Frozen at the start: every later release repeats the last
            // pre-start one, cell for cell.
            let close = seen.iter().rfind(|(at, _)| **at < start);
            let Some((close_at, close_row)) = close else {
                // Only a game that started before the window opened has no
                // pre-start release in it.
                assert!(
                    entered == first && start <= first,
                    "{key} {game:?}: no pre-start release"
                );
                continue;
            };
            for (at, row) in seen.iter().filter(|(at, _)| **at >= start) {
                assert_eq!(
                    row, close_row,
                    "{key} {game:?}: {at} differs from its close at {close_at}"
                );
            }
        }
    }
    read
}

#[test]
fn every_release_of_the_fixture_window_is_a_market_that_could_have_happened() {
    let opts = fixture_options();
    // The fixtures' planned "now": 17:00 UTC on today.
    let now = utc("2026-11-15T17:00:00Z");
    let mut read = 0;
    for sport in Sport::ALL {
        let series = by_series(&opts, *sport);
        read += check_window(*sport, &series, now);
        // Today's objects are the newest release, byte for byte.
        for (key, at, bytes) in window_releases(&opts, *sport).into_iter().rev().take(5) {
            assert_eq!(at, utc("2026-11-15T16:00:00Z"));
            assert!(fixture_store()[&key] == bytes, "{key} is not the newest release");
        }
    }
    assert_eq!(read, 6 * 4 * 253);
    // The game sets move: within the last week, nba's odds releases carry
    // several different slates.
    let nba = by_series(&opts, Sport::Nba);
    let odds = &nba["odds/nba.csv"];
    let sets: BTreeSet<BTreeSet<_>> = odds
        .values()
        .rev()
        .take(84)
        .map(|t| t.rows.iter().map(|r| game_of(t, r)).collect())
        .collect();
    assert!(sets.len() >= 7, "{} distinct slates in a week", sets.len());
    // mlb is out of season: its releases carry no game at all.
    let mlb = by_series(&opts, Sport::Mlb);
    assert!(mlb["odds/mlb.csv"].values().rev().take(12).all(|t| t.rows.is_empty()));
}

#[test]
fn a_demo_window_on_the_wall_clock_keeps_every_nhl_puck_line_at_one_and_a_half() {
    let now = utc("2026-11-21T15:47:12Z");
    let opts = GenOptions {
        today: NaiveDate::from_ymd_opt(2026, 11, 21).unwrap(),
        seed: linecast_demo::DEMO_SEED,
        profile: Profile::Demo,
        not_after: Some(now),
    };
    let series = by_series(&opts, Sport::Nhl);
    assert_eq!(check_window(Sport::Nhl, &series, now), 4 * 253);
    let odds = &series["odds/nhl.csv"];
    assert_eq!(*odds.keys().last().unwrap(), utc("2026-11-21T14:00:00Z"));
    let priced: usize = odds
        .values()
        .map(|t| {
            t.rows
                .iter()
                .filter(|r| !t.get(r, "home_point_spread").is_empty())
                .count()
        })
        .sum();
    assert!(priced > 1000, "{priced} puck lines checked");
}

/// The line columns a season row and a release share.
fn shared_lines(store: &Table, release: &Table) -> Vec<String> {
    release
        .header
        .iter()
        .filter(|h| h.ends_with("_line") || h.ends_with("point_spread") || *h == "over_under")
        .filter(|h| !h.starts_with("open_") && store.col(h).is_some())
        .cloned()
        .collect()
}

#[test]
fn season_rows_are_the_standing_forecast_and_the_close_of_the_kept_releases() {
    let opts = fixture_options();
    let now = utc("2026-11-15T17:00:00Z");
    let mut checked = 0;
    let mut openers = 0;
    for sport in Sport::ALL {
        let series = by_series(&opts, *sport);
        let odds = &series[&format!("odds/{sport}.csv")];
        let first = *odds.keys().next().unwrap();
        for (key, store) in tables(fixture_store(), &format!("seasons/{sport}/")) {
            if !key.ends_with("2026-27.csv") && !key.ends_with("/2026.csv") {
                continue;
            }
            let model_type = key.split('/').nth(2).unwrap();
            let predictions = &series[&format!("predictions/{sport}/{model_type}.csv")];
            for r in &store.rows {
                let game = game_of(&store, r);
                let start = start_of(&game);
                if start <= first || start > now || store.get(r, "forecast_source") != "live" {
                    continue;
                }
                let published = store.get(r, "forecast_published_at");
                if published.is_empty() {
                    continue;
                }
                let priced =
                    !store.get(r, "home_money_line").is_empty() || !store.get(r, "home_point_spread").is_empty();
                if priced {
                    assert_eq!(store.get(r, "quote_source"), "closing", "{key} {game:?}");
                }
                let at = utc(published);
                assert!(
                    at < start && start - at <= Duration::hours(2),
                    "{key} {game:?}: {at} vs {start}"
                );
                assert_eq!(
                    store.get(r, "forecast_run"),
                    format!("{sport}-{}", at.format("%Y%m%dT%H%MZ")),
                    "{key} {game:?}"
                );
                let release = &predictions[&at];
                let row = release
                    .rows
                    .iter()
                    .find(|x| game_of(release, x) == game)
                    .unwrap_or_else(|| panic!("{key} {game:?}: not in the release at {at}"));
                assert_eq!(store.get(r, "BLEND"), release.get(row, "BLEND"), "{key} {game:?}");
                assert_eq!(store.get(r, "CATB"), release.get(row, "CATB"), "{key} {game:?}");
                let close = &odds[&at];
                let close_row = close.rows.iter().find(|x| game_of(close, x) == game).unwrap();
                for name in shared_lines(&store, close) {
                    assert_eq!(
                        store.get(r, &name),
                        close.get(close_row, &name),
                        "{key} {game:?} {name}"
                    );
                }
                // The openers: the first release that carried the game.
                let opening = odds.iter().find(|(_, t)| t.rows.iter().any(|x| game_of(t, x) == game));
                if let Some((opened, t)) = opening
                    && *opened > first
                {
                    let o = t.rows.iter().find(|x| game_of(t, x) == game).unwrap();
                    for (open, current) in [
                        ("open_home_money_line", "home_money_line"),
                        ("open_away_money_line", "away_money_line"),
                        ("open_home_point_spread", "home_point_spread"),
                        ("open_over_under", "over_under"),
                    ] {
                        let cell = store.get(r, open);
                        if !cell.is_empty() && cell != "0" {
                            assert_eq!(cell, t.get(o, current), "{key} {game:?} {open}");
                            openers += 1;
                        }
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} season rows checked");
    assert!(openers > 100, "{openers} openers checked");
}

#[test]
fn pushes_happen_at_natural_rates_and_only_on_lines_the_market_could_post() {
    let s = fixture_store();
    let (mut integral, mut pushes) = (0_u32, 0_u32);
    for (key, t) in tables(s, "seasons/") {
        if !key.contains("/won_on_points/") {
            continue;
        }
        for r in &t.rows {
            let (Some(h), Some(a)) = (t.num(r, "home_score"), t.num(r, "away_score")) else {
                continue;
            };
            // (line, the final's value on it): a total against the sum, a
            // home spread against the away-minus-home margin.
            for (line, final_value) in [(t.num(r, "over_under"), h + a), (t.num(r, "home_point_spread"), a - h)] {
                let Some(line) = line.filter(|l| l.fract() == 0.0) else {
                    continue;
                };
                integral += 1;
                if line == final_value {
                    pushes += 1;
                }
            }
            // A spread sits on the money-line favourite's side.
            if let (Some(hm), Some(am), Some(sp)) = (
                t.num(r, "home_money_line"),
                t.num(r, "away_money_line"),
                t.num(r, "home_point_spread"),
            ) {
                let implied = |x: f64| if x < 0.0 { -x / (100.0 - x) } else { 100.0 / (x + 100.0) };
                let (ph, pa) = (implied(hm), implied(am));
                if (ph - pa).abs() >= 0.04 {
                    assert_eq!(ph > pa, sp < 0.0, "{key} {r:?}");
                }
            }
        }
    }
    let share = f64::from(pushes) / f64::from(integral);
    assert!(pushes > 0, "no push on {integral} integral lines");
    assert!(share < 0.12, "{pushes} pushes on {integral} integral lines");
}
