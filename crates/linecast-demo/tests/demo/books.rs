//! The named books' releases (`books/{sport}.csv`, issue 77): each book's
//! prices are a believable market of their own, near the other books',
//! timed like a real book's. Expectations are worked out here from the
//! released bytes with plain arithmetic (multiplicative de-vig by hand),
//! never with the generator's or `linecast-books`' rules.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use linecast_demo::window_releases;
use linecast_domain::Sport;
use linecast_domain::artifacts::keys::books as books_key;
use linecast_domain::time::et_instant;

use crate::{Table, fixture_options, fixture_store, small, tables};

const HEADER: &str = "match_id,date,time_est,away_team,home_team,book,book_title,away_point_spread,\
away_point_spread_line,home_point_spread,home_point_spread_line,away_money_line,home_money_line,\
over_under,over_line,under_line,last_update";

/// The catalogue, in the order the rows list a game's books.
const BOOKS: [(&str, &str); 7] = [
    ("sharpline", "Sharpline"),
    ("eastline", "Eastline"),
    ("harborbet", "Harbor Bet"),
    ("meadowbet", "Meadow Bet"),
    ("northbook", "Northbook"),
    ("riverline", "Riverline"),
    ("summitodds", "Summit Odds"),
];

const PRICES: [&str; 6] = [
    "away_point_spread_line",
    "home_point_spread_line",
    "away_money_line",
    "home_money_line",
    "over_line",
    "under_line",
];

/// The implied probability of an American price: -150 → 150/250, +130 → 100/230.
fn implied(price: f64) -> f64 {
    if price < 0.0 {
        -price / (100.0 - price)
    } else {
        100.0 / (price + 100.0)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    }
}

fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

type GameId = (String, String, String, String);

fn game_of(t: &Table, r: &[String]) -> GameId {
    (
        t.get(r, "date").to_owned(),
        t.get(r, "time_est").to_owned(),
        t.get(r, "away_team").to_owned(),
        t.get(r, "home_team").to_owned(),
    )
}

fn start_of(game: &GameId) -> DateTime<Utc> {
    let date = NaiveDate::parse_from_str(&game.0, "%Y-%m-%d").unwrap();
    let time = NaiveTime::parse_from_str(&game.1, "%H:%M:%S").unwrap();
    et_instant(date, time).unwrap()
}

/// Whether an odds row carries any price or line.
fn has_lines(t: &Table, r: &[String]) -> bool {
    t.header.iter().enumerate().any(|(i, h)| {
        h != "last_updated" && (h.ends_with("_line") || h.ends_with("spread") || h == "over_under") && !r[i].is_empty()
    })
}

/// Every books object of a store's "today", as `(key, table)`.
fn today_books(store: &BTreeMap<String, Vec<u8>>) -> Vec<(String, Table)> {
    tables(store, "books/").map(|(k, t)| (k.clone(), t)).collect()
}

#[test]
fn the_hand_de_vig_is_the_textbook_one() {
    assert!((implied(-150.0) - 0.6).abs() < 1e-12);
    assert!((implied(130.0) - 100.0 / 230.0).abs() < 1e-12);
    let (qh, qa) = (implied(-150.0), implied(130.0));
    assert!((qh / (qh + qa) - 0.58).abs() < 0.001, "{}", qh / (qh + qa));
}

#[test]
fn every_sport_has_a_books_object_with_the_contract_header() {
    let store = fixture_store();
    for sport in Sport::ALL {
        let key = books_key(*sport);
        assert_eq!(key, format!("books/{sport}.csv"));
        let bytes = &store[&key];
        let text = std::str::from_utf8(bytes).unwrap();
        assert_eq!(text.lines().next().unwrap(), HEADER, "{key}");
    }
    // nba has games today in the fixture: every one of them is priced by books.
    assert!(Table::parse(&store["books/nba.csv"]).rows.len() > 20);
}

#[test]
fn each_book_s_no_vig_money_line_is_near_the_consensus_and_the_sharp_book_is_cheapest() {
    let stores = [fixture_store().clone(), small(42, "2026-11-21")];
    let (mut games, mut near) = (0_usize, 0_usize);
    let mut far = Vec::new();
    // book → overrounds of its money-line rows.
    let mut overrounds: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for store in &stores {
        for (key, t) in today_books(store) {
            let mut by_game: BTreeMap<String, Vec<(String, f64)>> = BTreeMap::new();
            for r in &t.rows {
                let (Some(home), Some(away)) = (t.num(r, "home_money_line"), t.num(r, "away_money_line")) else {
                    continue;
                };
                let (qh, qa) = (implied(home), implied(away));
                overrounds
                    .entry(t.get(r, "book").to_owned())
                    .or_default()
                    .push(qh + qa - 1.0);
                by_game
                    .entry(t.get(r, "match_id").to_owned())
                    .or_default()
                    .push((t.get(r, "book").to_owned(), qh / (qh + qa)));
            }
            for (id, books) in by_game {
                if books.len() < 3 {
                    continue;
                }
                games += 1;
                let consensus = median(books.iter().map(|(_, p)| *p).collect());
                let off: Vec<_> = books.iter().filter(|(_, p)| (p - consensus).abs() > 0.03).collect();
                if off.is_empty() {
                    near += 1;
                } else {
                    far.push(format!("{key} {id}: consensus {consensus:.3}, {off:?}"));
                }
            }
        }
    }
    assert!(games >= 50, "{games} games with three books or more");
    assert!(
        near as f64 >= 0.95 * games as f64,
        "{near} of {games} games have every book within 0.03 of the consensus: {far:#?}"
    );
    let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let means: BTreeMap<&str, f64> = overrounds.iter().map(|(b, v)| (b.as_str(), mean(v))).collect();
    assert_eq!(means.len(), 7, "{means:?}");
    let sharp = means["sharpline"];
    assert!((0.015..=0.03).contains(&sharp), "sharpline's mean overround {sharp}");
    for (book, m) in &means {
        if *book != "sharpline" {
            assert!(
                *m > sharp,
                "{book}'s mean overround {m} not above the sharp book's {sharp}"
            );
            assert!((0.035..=0.07).contains(m), "{book}'s mean overround {m}");
        }
    }
}

/// One sport's window: series key → instant → table.
fn window(sport: Sport) -> BTreeMap<String, BTreeMap<DateTime<Utc>, Table>> {
    let mut out: BTreeMap<String, BTreeMap<DateTime<Utc>, Table>> = BTreeMap::new();
    for (key, at, bytes) in window_releases(&fixture_options(), sport) {
        if key.starts_with("books/") || key.starts_with("odds/") {
            out.entry(key).or_default().insert(at, Table::parse(&bytes));
        }
    }
    out
}

#[test]
fn every_books_release_of_the_window_quotes_believable_timed_and_frozen_prices() {
    let (mut rows_read, mut changes, mut repeats, mut frozen, mut late_entries) = (0, 0, 0, 0, 0);
    let (mut full_boards, mut settled_boards) = (0_usize, 0_usize);
    for sport in Sport::ALL {
        let fixed = matches!(sport, Sport::Mlb | Sport::Nhl);
        let series = window(*sport);
        let books = &series[&books_key(*sport)];
        let odds = &series[&format!("odds/{sport}.csv")];
        assert_eq!(books.len(), 21 * 12 + 1, "{sport}");
        let first = *books.keys().next().unwrap();
        let last = *books.keys().last().unwrap();
        // Today's object is the newest release, byte for byte.
        let newest = window_releases(&fixture_options(), *sport)
            .into_iter()
            .rfind(|(k, _, _)| k.starts_with("books/"))
            .unwrap();
        assert_eq!(newest.1, last);
        assert!(fixture_store()[&books_key(*sport)] == newest.2, "{sport}");

        // (game, book) → instant → row; game → first odds release.
        let mut seen: BTreeMap<(GameId, String), BTreeMap<DateTime<Utc>, Vec<String>>> = BTreeMap::new();
        let mut entered: BTreeMap<GameId, DateTime<Utc>> = BTreeMap::new();
        for (at, o) in odds {
            for r in &o.rows {
                entered.entry(game_of(o, r)).or_insert(*at);
            }
        }
        for (at, t) in books {
            assert_eq!(t.header.join(","), HEADER, "{sport} {at}");
            let o = &odds[at];
            // Games in the odds release's order, books in catalogue order.
            let odds_games: Vec<GameId> = o
                .rows
                .iter()
                .filter(|r| has_lines(o, r))
                .map(|r| game_of(o, r))
                .collect();
            let mut book_games: Vec<GameId> = Vec::new();
            let mut per_game: BTreeMap<GameId, Vec<usize>> = BTreeMap::new();
            for r in &t.rows {
                rows_read += 1;
                let game = game_of(t, r);
                if book_games.last() != Some(&game) {
                    book_games.push(game.clone());
                }
                let key = BOOKS.iter().position(|(k, _)| *k == t.get(r, "book")).unwrap();
                assert_eq!(t.get(r, "book_title"), BOOKS[key].1);
                per_game.entry(game.clone()).or_default().push(key);
                let orow = o.rows.iter().find(|x| game_of(o, x) == game).unwrap();
                assert_eq!(t.get(r, "match_id"), o.get(orow, "match_id"), "{sport} {at} {game:?}");
                for name in PRICES {
                    if let Some(price) = t.num(r, name) {
                        assert!(
                            price <= -100.0 || price >= 100.0,
                            "{sport} {at} {game:?}: {name}={price}"
                        );
                    }
                    // The market's missing sides are missing at every book.
                    if o.get(orow, name).is_empty() {
                        assert!(t.get(r, name).is_empty(), "{sport} {at} {game:?}: {name}");
                    }
                }
                if let (Some(h), Some(a)) = (t.num(r, "home_point_spread"), t.num(r, "away_point_spread")) {
                    assert_eq!(h, -a, "{sport} {at} {game:?}");
                    if fixed {
                        assert!(h == 1.5 || h == -1.5, "{sport} {at} {game:?}: spread {h}");
                    } else {
                        assert_eq!((h * 2.0).fract(), 0.0, "{sport} {at} {game:?}: spread {h}");
                    }
                }
                let updated = t.get(r, "last_update");
                assert!(updated.ends_with('Z') && updated.len() == 20, "{updated}");
                let updated = utc(updated);
                let start = start_of(&game);
                assert!(updated <= *at && updated < start, "{sport} {at} {game:?}: {updated}");
                assert_eq!(updated.timestamp() % 7200, 0);
                seen.entry((game, t.get(r, "book").to_owned()))
                    .or_default()
                    .insert(*at, r.clone());
            }
            assert_eq!(book_games, odds_games, "{sport} {at}: the games with lines, in order");
            for (game, keys) in &per_game {
                assert!(keys.windows(2).all(|w| w[0] < w[1]), "{sport} {at} {game:?}: {keys:?}");
                assert_eq!(
                    keys[0], 0,
                    "{sport} {at} {game:?}: the sharp book quotes from the entry"
                );
                // Every book has entered 12 hours after the game did.
                if entered[game] > first && *at - entered[game] >= Duration::hours(12) {
                    settled_boards += 1;
                    assert!((6..=7).contains(&keys.len()), "{sport} {at} {game:?}: {keys:?}");
                    if keys.len() == 7 {
                        full_boards += 1;
                    }
                }
            }
        }

        for ((game, book), rows) in &seen {
            let start = start_of(game);
            let opened = *rows.keys().next().unwrap();
            let game_entry = entered[game];
            if game_entry > first {
                let late = opened - game_entry;
                assert!(
                    late >= Duration::zero() && late <= Duration::hours(12),
                    "{sport} {game:?} {book}: {late}"
                );
                if book == "sharpline" {
                    assert_eq!(late, Duration::zero());
                } else if late > Duration::zero() {
                    late_entries += 1;
                }
                assert_eq!(utc(&rows[&opened][16]), opened, "{sport} {game:?} {book}: first quote");
            }
            // Quoted in every release from its first one to the game's last.
            let last_seen = *rows.keys().last().unwrap();
            assert_eq!((last_seen - opened).num_hours() % 2, 0);
            assert_eq!(
                rows.len() as i64,
                (last_seen - opened).num_hours() / 2 + 1,
                "{sport} {game:?} {book}"
            );
            // Before the start: last_update moves exactly when a price does.
            let before: Vec<_> = rows.iter().filter(|(at, _)| **at < start).collect();
            for w in before.windows(2) {
                let ((_, a), (at, b)) = (w[0], w[1]);
                let (prices_a, prices_b) = (&a[7..16], &b[7..16]);
                if prices_a == prices_b {
                    repeats += 1;
                    assert_eq!(a[16], b[16], "{sport} {game:?} {book} {at}");
                } else {
                    changes += 1;
                    assert_eq!(utc(&b[16]), *at, "{sport} {game:?} {book} {at}");
                }
            }
            // From the start on: the last pre-start row, cell for cell.
            let Some((close_at, close)) = before.last() else {
                assert!(opened == first && start <= first, "{sport} {game:?} {book}");
                continue;
            };
            for (at, row) in rows.iter().filter(|(at, _)| **at >= start) {
                assert_eq!(row, *close, "{sport} {game:?} {book}: {at} differs from {close_at}");
                frozen += 1;
            }
        }
    }
    assert!(rows_read > 5_000, "{rows_read} rows read");
    assert!(changes > 1000 && repeats > 1000, "{changes} changes, {repeats} repeats");
    assert!(frozen > 1000, "{frozen} frozen rows");
    assert!(late_entries > 100, "{late_entries} books entered after the game");
    assert!(
        full_boards as f64 >= 0.8 * settled_boards as f64 && settled_boards > 1000,
        "{full_boards} of {settled_boards} boards with all seven books"
    );
}

#[test]
fn a_game_without_lines_has_no_book_and_one_book_sometimes_leaves_out_the_total() {
    let (mut unlined, mut no_total, mut totals) = (0, 0, 0);
    for sport in Sport::ALL {
        let series = window(*sport);
        let books = &series[&books_key(*sport)];
        for (at, o) in &series[&format!("odds/{sport}.csv")] {
            let t = &books[at];
            for r in o.rows.iter().filter(|r| !has_lines(o, r)) {
                unlined += 1;
                let id = o.get(r, "match_id");
                assert!(t.rows.iter().all(|x| t.get(x, "match_id") != id), "{sport} {at} {id}");
            }
            for r in &t.rows {
                if t.get(r, "over_under").is_empty() {
                    assert_eq!(t.get(r, "book"), "northbook", "{sport} {at}");
                    assert!(t.get(r, "over_line").is_empty() && t.get(r, "under_line").is_empty());
                    no_total += 1;
                } else {
                    totals += 1;
                }
            }
        }
    }
    assert!(unlined > 0, "no game without lines in the window");
    let share = f64::from(no_total) / f64::from(no_total + totals);
    assert!(
        no_total > 0 && share < 0.05,
        "{no_total} rows without a total of {}",
        no_total + totals
    );
}

#[test]
fn over_the_window_each_book_s_no_vig_money_line_stays_near_the_consensus() {
    // Every sixth release (every 12 hours) of the fixture's kept window.
    let (mut games, mut near) = (0_usize, 0_usize);
    for sport in Sport::ALL {
        let series = window(*sport);
        for (_, t) in series[&books_key(*sport)].iter().step_by(6) {
            let mut by_game: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for r in &t.rows {
                let (Some(h), Some(a)) = (t.num(r, "home_money_line"), t.num(r, "away_money_line")) else {
                    continue;
                };
                let (qh, qa) = (implied(h), implied(a));
                by_game
                    .entry(t.get(r, "match_id").to_owned())
                    .or_default()
                    .push(qh / (qh + qa));
            }
            for ps in by_game.into_values().filter(|ps| ps.len() >= 3) {
                games += 1;
                let consensus = median(ps.clone());
                if ps.iter().all(|p| (p - consensus).abs() <= 0.03) {
                    near += 1;
                }
            }
        }
    }
    assert!(games >= 300, "{games} games");
    assert!(
        near as f64 >= 0.95 * games as f64,
        "{near} of {games} games near the consensus"
    );
}
