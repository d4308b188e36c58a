//! Properties of the strategies over arbitrary seasons: rows with missing,
//! placeholder and invalid lines, missing BLEND, unverified finals, pushes
//! and non-competitive season types, for every market and accounting.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::G;
use linecast_domain::{ModelType, SeasonRow, SeasonType, Sport};
use linecast_strategies::{
    Accounting, Exclusion, Outcome, Replay, STRATEGIES, StrategyDef, leaderboard, replay, strategy_ids,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

const MARKETS: [ModelType; 3] = [ModelType::WonOnPoints, ModelType::WonOnSpread, ModelType::OverUnder];

fn price() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        4 => (100i32..400).prop_map(|p| Some(f64::from(p))),
        4 => (-400i32..=-100).prop_map(|p| Some(f64::from(p))),
        1 => Just(None),
        1 => Just(Some(0.0)),
        1 => Just(Some(50.0)),
    ]
}

fn half_points(lo: i32, hi: i32) -> impl Strategy<Value = Option<f64>> {
    prop_oneof![8 => (lo..hi).prop_map(|h| Some(f64::from(h) / 2.0)), 1 => Just(None), 1 => Just(Some(0.0))]
}

prop_compose! {
    fn row(i: u64)(
        away in prop::option::weighted(0.9, 0u8..12),
        home in prop::option::weighted(0.9, 0u8..12),
        ml in (price(), price(), price()),
        spread in (half_points(-8, 8), half_points(-8, 8), price(), price()),
        total in (half_points(8, 24), half_points(8, 24), price(), price()),
        blend in prop::option::weighted(0.8, prop_oneof![Just(0.5), 0.2f64..0.8]),
        status in prop_oneof![6 => Just(Some("settled")), 1 => Just(Some("pending")), 1 => Just(None)],
        stored in prop::option::weighted(0.9, 0u8..2),
        preseason in prop::bool::weighted(0.1),
    ) -> SeasonRow {
        let mut g = G::new(i, away.map(f64::from), home.map(f64::from))
            .ml(ml.0, ml.1, ml.2)
            .spread(spread.0, spread.1, spread.2, spread.3)
            .total(total.0, total.1, total.2, total.3)
            .blend(blend)
            .status(status);
        if let Some(s) = stored {
            g = g.stored(s);
        }
        if preseason {
            g = g.season_type(SeasonType::Preseason);
        }
        g.0
    }
}

fn season() -> impl Strategy<Value = Vec<SeasonRow>> {
    (0usize..40).prop_flat_map(|n| (0..n as u64).map(row).collect::<Vec<_>>())
}

type Key = (String, linecast_domain::TeamName);

/// game key -> (side, reason) of everything a replay did with a game; the
/// reason is `None` for a bet.
fn fate(r: &Replay) -> BTreeMap<Key, (Option<&'static str>, Option<Exclusion>)> {
    let mut m = BTreeMap::new();
    for g in &r.games {
        m.insert((g.date.clone(), g.home_team.clone()), (Some(g.side), None));
    }
    for x in r.excluded_rows.as_ref().unwrap() {
        m.insert((x.date.clone(), x.home_team.clone()), (x.side, Some(x.reason)));
    }
    m
}

fn bets(r: &Replay) -> BTreeSet<Key> {
    r.games.iter().map(|g| (g.date.clone(), g.home_team.clone())).collect()
}

fn all(rows: &[SeasonRow], mt: ModelType, acc: Accounting) -> BTreeMap<&'static str, Replay> {
    strategy_ids()
        .iter()
        .map(|id| (*id, replay(rows, Sport::Nba, mt, acc, id).unwrap()))
        .collect()
}

fn opposite(side: &str) -> &'static str {
    match side {
        "home" => "away",
        "away" => "home",
        "over" => "under",
        _ => "over",
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A strategy and its mirror (follow vs fade on the same signal) fire on
    /// exactly the same games, on opposite sides: they pass and lack a signal
    /// on the same games, and where one fires the other fires too. Only price
    /// and finality, which depend on the side, may then exclude one of them.
    #[test]
    fn a_strategy_and_its_mirror_fire_on_the_same_games_on_opposite_sides(rows in season()) {
        for mt in MARKETS {
            for acc in Accounting::ALL {
                let rs = all(&rows, mt, acc);
                for (follow, fade) in [("line-pb", "line-pf"), ("line-nb", "line-nf"), ("edge-pb", "edge-pf"), ("edge-nb", "edge-nf")] {
                    let (a, b) = (fate(&rs[follow]), fate(&rs[fade]));
                    prop_assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
                    for (k, (side_a, why_a)) in &a {
                        let (side_b, why_b) = b[k];
                        match (side_a, side_b) {
                            (Some(x), Some(y)) => prop_assert_eq!(opposite(x), y),
                            (None, None) => prop_assert_eq!(*why_a, why_b),
                            _ => prop_assert!(false, "{follow}/{fade} disagree on firing for {k:?}"),
                        }
                    }
                    // With the same price on both sides (legacy spreads and totals), the bets coincide.
                    if acc == Accounting::LegacyV1 && mt != ModelType::WonOnPoints {
                        prop_assert_eq!(bets(&rs[follow]), bets(&rs[fade]));
                    }
                }
            }
        }
    }

    /// Every candidate game is, for each rule, exactly one of: bet, passed or
    /// excluded for one reason; the counts add up to `candidates` and to
    /// `games_considered`, and non-candidates appear nowhere.
    #[test]
    fn every_game_is_bet_passed_or_excluded_by_each_rule(rows in season()) {
        for mt in MARKETS {
            for acc in Accounting::ALL {
                for r in all(&rows, mt, acc).values() {
                    let excluded = r.excluded_rows.as_ref().unwrap();
                    prop_assert_eq!(r.games.len() + excluded.len(), r.games_considered as usize);
                    prop_assert_eq!(fate(r).len(), r.games_considered as usize);
                    let e = &r.strategy;
                    if acc == Accounting::RecordedV2 {
                        prop_assert_eq!(e.candidates, Some(r.games_considered));
                        let ex = e.exclusions.unwrap();
                        prop_assert_eq!(ex.total() as usize, excluded.len());
                        for (reason, count) in [
                            (Exclusion::Pass, ex.pass),
                            (Exclusion::MissingSignal, ex.missing_signal),
                            (Exclusion::MissingOrInvalidPrice, ex.missing_or_invalid_price),
                            (Exclusion::UnverifiedFinal, ex.unverified_final),
                        ] {
                            prop_assert_eq!(excluded.iter().filter(|x| x.reason == reason).count(), count as usize);
                        }
                    } else {
                        prop_assert!(excluded.iter().all(|x| x.reason != Exclusion::UnverifiedFinal));
                    }
                    let with_final = rows.iter().filter(|r| r.has_final()).count();
                    prop_assert!(r.games_considered as usize <= with_final);
                }
            }
        }
    }

    /// A hybrid bets only games that both of its parents bet, on the same side.
    #[test]
    fn a_hybrids_bets_are_a_subset_of_each_parents_bets(rows in season()) {
        for mt in MARKETS {
            for acc in Accounting::ALL {
                let rs = all(&rows, mt, acc);
                for s in &STRATEGIES {
                    let StrategyDef::Hybrid { line, edge } = s.def else { continue };
                    let hybrid = fate(&rs[s.id]);
                    for parent in [format!("line-{}", line.code()), format!("edge-{}", edge.code())] {
                        let p = fate(&rs[parent.as_str()]);
                        for (k, (side, why)) in &hybrid {
                            if why.is_none() {
                                prop_assert_eq!(p[k], (*side, None), "{} bets {:?} but {} does not", s.id, k, parent);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Units equal the sum of the replay's profit_units and the last
    /// running_units; W, L and P equal the replay's outcomes; ROI is null
    /// exactly when nothing was staked.
    #[test]
    fn units_equal_the_sum_of_the_replays_profits(rows in season()) {
        for mt in MARKETS {
            for acc in Accounting::ALL {
                for r in all(&rows, mt, acc).values() {
                    let sum: f64 = r.games.iter().map(|g| g.profit_units).sum();
                    prop_assert!((sum - r.strategy.units).abs() < 1e-6);
                    prop_assert_eq!(r.games.last().map_or(0.0, |g| g.running_units).to_bits(), r.strategy.units.to_bits());
                    let count = |o: Outcome| r.games.iter().filter(|g| g.outcome == o).count() as u32;
                    prop_assert_eq!((count(Outcome::Win), count(Outcome::Loss)), (r.strategy.wins, r.strategy.losses));
                    prop_assert_eq!(r.strategy.pushes.unwrap_or(0), count(Outcome::Push));
                    prop_assert_eq!(r.strategy.roi.is_none(), r.games.is_empty());
                    prop_assert!(r.games.windows(2).all(|w| (&w[0].date, &w[0].time_est) <= (&w[1].date, &w[1].time_est)));
                }
            }
        }
    }

    /// The replay's strategy entry equals the leaderboard entry field for
    /// field, rank included, and the leaderboard is ordered by the ranking rule.
    #[test]
    fn replay_totals_equal_the_leaderboard_entry(rows in season()) {
        for mt in MARKETS {
            for acc in Accounting::ALL {
                let board = leaderboard(&rows, Sport::Nba, mt, acc);
                prop_assert_eq!(board.strategies.len(), 16);
                for e in &board.strategies {
                    let r = replay(&rows, Sport::Nba, mt, acc, e.id).unwrap();
                    prop_assert_eq!(&r.strategy, e);
                }
                let ranks: Vec<_> = board.strategies.iter().filter_map(|e| e.rank).collect();
                prop_assert_eq!(ranks, (1..).take(board.strategies.iter().filter(|e| e.ranked).count()).collect::<Vec<u32>>());
            }
        }
    }
}

/// A season large enough for ranked strategies: the ranking sorts the ranked
/// by ROI descending ahead of the unranked by n descending.
#[test]
fn a_long_season_ranks_by_roi_then_lists_the_unranked_by_sample() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let rows: Vec<SeasonRow> = (0..400u64)
        .map(|i| row(i).new_tree(&mut runner).unwrap().current())
        .collect();
    for mt in MARKETS {
        let board = leaderboard(&rows, Sport::Nba, mt, Accounting::RecordedV2);
        let ranked: Vec<_> = board.strategies.iter().take_while(|e| e.ranked).collect();
        assert!(!ranked.is_empty(), "{mt}: some strategy should reach 30 decisive bets");
        assert!(ranked.windows(2).all(|w| w[0].roi >= w[1].roi));
        let unranked = &board.strategies[ranked.len()..];
        assert!(unranked.iter().all(|e| !e.ranked && e.rank.is_none()));
        assert!(unranked.windows(2).all(|w| w[0].n >= w[1].n));
    }
}
