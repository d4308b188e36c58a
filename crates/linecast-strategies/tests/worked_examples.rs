//! Hand-worked seasons, one per market. Each season has a push, a missing or
//! invalid price, an unverified final, a one-sided price, a zero line move, a
//! placeholder or missing opener, and a game where only one hybrid parent
//! fires. The expected figures are worked out in the comments.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::G;
use linecast_domain::{ModelType, SeasonRow, SeasonType, Sport};
use linecast_strategies::{Accounting, Entry, Exclusion, Exclusions, Outcome, leaderboard, replay};

fn entry(rows: &[SeasonRow], mt: ModelType, acc: Accounting, id: &str) -> Entry {
    let board = leaderboard(rows, Sport::Nba, mt, acc);
    let e = board.strategies.into_iter().find(|e| e.id == id).unwrap();
    // The replay's entry is the leaderboard's, field for field.
    assert_eq!(replay(rows, Sport::Nba, mt, acc, id).unwrap().strategy, e);
    e
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[track_caller]
fn check(e: &Entry, (wins, losses, pushes): (u32, u32, u32), units: f64, roi: Option<f64>, win_pct: f64) {
    assert_eq!((e.wins, e.losses), (wins, losses), "{}", e.id);
    assert_eq!(e.pushes.unwrap_or(0), pushes, "{}", e.id);
    assert_eq!(e.n, wins + losses);
    assert!(close(e.units, units), "{} units {} != {units}", e.id, e.units);
    match (e.roi, roi) {
        (Some(got), Some(want)) => assert!(close(got, want), "{} roi {got} != {want}", e.id),
        (got, want) => assert_eq!(got, want, "{}", e.id),
    }
    assert!(close(e.win_pct, win_pct), "{} win_pct {} != {win_pct}", e.id, e.win_pct);
}

#[expect(clippy::unnecessary_wraps, reason = "compared with Entry::exclusions, an Option")]
fn ex(pass: u32, missing_signal: u32, missing_or_invalid_price: u32, unverified_final: u32) -> Option<Exclusions> {
    Some(Exclusions {
        pass,
        missing_signal,
        missing_or_invalid_price,
        unverified_final,
    })
}

/// Moneyline. Line move = implied(home ML) − implied(open home ML).
fn moneyline_season() -> Vec<SeasonRow> {
    vec![
        // 1: −125 vs open −120: move +0.0101. IMPLIED(−125/+130) 0.5610, BLEND 0.7: edge +.
        //    Home wins: home at −125 pays 0.8.
        G::final_score(1, 90.0, 100.0)
            .ml(Some(-125.0), Some(130.0), Some(-120.0))
            .blend(Some(0.7))
            .stored(1),
        // 2: tie (a moneyline push). +110 vs open +120: move +0.0216; IMPLIED 0.4573, BLEND 0.6: edge +.
        G::final_score(2, 100.0, 100.0)
            .ml(Some(110.0), Some(-130.0), Some(120.0))
            .blend(Some(0.6))
            .stored(0),
        // 3: one-sided price (no away ML): move +0.0667, no IMPLIED so no edge. Home loses at −200.
        G::final_score(3, 95.0, 90.0)
            .ml(Some(-200.0), None, Some(-150.0))
            .blend(Some(0.6))
            .stored(0),
        // 4: provisional final. −110 vs open +100: move +0.0238; IMPLIED 0.5, BLEND 0.6: edge +. Home wins.
        G::final_score(4, 90.0, 100.0)
            .ml(Some(-110.0), Some(-110.0), Some(100.0))
            .blend(Some(0.6))
            .status(Some("provisional"))
            .stored(1),
        // 5: zero line move (−120 both). IMPLIED(−120/+100) 0.5217, BLEND 0.4: edge −. Away wins at +100.
        G::final_score(5, 100.0, 90.0)
            .ml(Some(-120.0), Some(100.0), Some(-120.0))
            .blend(Some(0.4))
            .stored(0),
        // 6: placeholder opener 0 and no BLEND: both signals missing.
        G::final_score(6, 90.0, 100.0)
            .ml(Some(-150.0), Some(130.0), Some(0.0))
            .stored(1),
        // 7: +150 vs open +200: move +0.0667; IMPLIED(+150/−170) 0.3885, BLEND 0.3: edge −.
        //    Only the line parent of hybrid-pb-pb fires. Home wins at +150 (pays 1.5).
        G::final_score(7, 90.0, 100.0)
            .ml(Some(150.0), Some(-170.0), Some(200.0))
            .blend(Some(0.3))
            .stored(1),
        // Not candidates: no final; a preseason game of a professional league.
        G::new(8, None, None)
            .ml(Some(-125.0), Some(105.0), Some(-110.0))
            .blend(Some(0.7)),
        G::final_score(9, 90.0, 100.0)
            .ml(Some(-125.0), Some(105.0), Some(-110.0))
            .blend(Some(0.7))
            .season_type(SeasonType::Preseason)
            .stored(1),
    ]
    .into_iter()
    .map(|g| g.0)
    .collect()
}

#[test]
fn moneyline_follow_positive_line_move_counts_a_push_a_pass_a_missing_signal_and_an_unverified_final() {
    let rows = moneyline_season();
    let e = entry(&rows, ModelType::WonOnPoints, Accounting::RecordedV2, "line-pb");
    // Bets 1 (+0.8), 2 (push), 3 (−1), 7 (+1.5): units 1.3 over 4 stakes.
    check(&e, (2, 1, 1), 1.3, Some(32.5), 66.67);
    assert_eq!(e.record, "2-1-1");
    assert_eq!(e.exclusions, ex(1, 1, 0, 1));
    assert_eq!(e.candidates, Some(7));
}

#[test]
fn moneyline_fade_positive_line_move_excludes_the_side_without_a_price() {
    let rows = moneyline_season();
    let e = entry(&rows, ModelType::WonOnPoints, Accounting::RecordedV2, "line-pf");
    // Away on 1 (−1), 2 (push), 7 (−1); game 3 has no away price, game 4 is provisional.
    check(&e, (0, 2, 1), -2.0, Some(-66.67), 0.0);
    assert_eq!(e.exclusions, ex(1, 1, 1, 1));
}

#[test]
fn moneyline_hybrid_that_fires_on_one_parent_only_passes() {
    let rows = moneyline_season();
    let e = entry(&rows, ModelType::WonOnPoints, Accounting::RecordedV2, "hybrid-pb-pb");
    // Bets 1 (+0.8) and 2 (push); 3 and 6 lack a signal; 5 and 7 pass; 4 is provisional.
    check(&e, (1, 0, 1), 0.8, Some(40.0), 100.0);
    assert_eq!(e.exclusions, ex(2, 2, 0, 1));
    let r = replay(
        &rows,
        Sport::Nba,
        ModelType::WonOnPoints,
        Accounting::RecordedV2,
        "hybrid-pb-pb",
    )
    .unwrap();
    let excluded = r.excluded_rows.unwrap();
    let seven = excluded.iter().find(|x| x.home_team == "home_7").unwrap();
    assert_eq!((seven.reason, seven.side), (Exclusion::Pass, None));
}

#[test]
fn moneyline_follow_negative_edge_bets_the_zero_line_move_game() {
    let rows = moneyline_season();
    let e = entry(&rows, ModelType::WonOnPoints, Accounting::RecordedV2, "edge-nb");
    // Away on 5 at +100 (+1) and on 7 at −170 (−1).
    check(&e, (1, 1, 0), 0.0, Some(0.0), 50.0);
    assert_eq!(e.exclusions, ex(3, 2, 0, 0));
}

#[test]
fn moneyline_legacy_reads_the_stored_outcome_and_ignores_finality() {
    let rows = moneyline_season();
    let e = entry(&rows, ModelType::WonOnPoints, Accounting::LegacyV1, "line-pb");
    // 1 win +0.8; 2 stored 0 reads as a home loss −1; 3 loss −1; 4 win at −110 +0.9091; 7 win +1.5.
    check(&e, (3, 2, 0), 1.2091, Some(24.18), 60.0);
    assert_eq!(e.record, "3-2");
    assert_eq!((e.pushes, e.candidates, e.exclusions), (None, None, None));
}

#[test]
fn moneyline_replay_lists_bets_oldest_first_with_running_units() {
    let rows = moneyline_season();
    let r = replay(
        &rows,
        Sport::Nba,
        ModelType::WonOnPoints,
        Accounting::RecordedV2,
        "line-pb",
    )
    .unwrap();
    assert_eq!(r.games_considered, 7);
    let summary: Vec<_> = r
        .games
        .iter()
        .map(|g| {
            (
                g.home_team.as_str(),
                g.side,
                g.price,
                g.won,
                g.outcome,
                g.profit_units,
                g.running_units,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            ("home_1", "home", -125.0, Some(true), Outcome::Win, 0.8, 0.8),
            ("home_2", "home", 110.0, None, Outcome::Push, 0.0, 0.8),
            ("home_3", "home", -200.0, Some(false), Outcome::Loss, -1.0, -0.2),
            ("home_7", "home", 150.0, Some(true), Outcome::Win, 1.5, 1.3),
        ]
    );
    assert_eq!(
        (r.games[0].open_line, r.games[0].close_line),
        (Some(-120.0), Some(-125.0))
    );
    let reasons: Vec<_> = r
        .excluded_rows
        .unwrap()
        .iter()
        .map(|x| (x.home_team.to_string(), x.side, x.reason))
        .collect();
    assert_eq!(
        reasons,
        vec![
            ("home_4".to_owned(), Some("home"), Exclusion::UnverifiedFinal),
            ("home_5".to_owned(), None, Exclusion::Pass),
            ("home_6".to_owned(), None, Exclusion::MissingSignal),
        ]
    );
}

#[test]
fn college_leagues_count_preseason_rows_that_professional_leagues_skip() {
    let rows = moneyline_season();
    let pro = replay(
        &rows,
        Sport::Nba,
        ModelType::WonOnPoints,
        Accounting::RecordedV2,
        "line-pb",
    )
    .unwrap();
    let college = replay(
        &rows,
        Sport::Ncaab,
        ModelType::WonOnPoints,
        Accounting::RecordedV2,
        "line-pb",
    )
    .unwrap();
    assert_eq!((pro.games_considered, college.games_considered), (7, 8));
}

/// Spread. Line move = open home spread − home spread.
fn spread_season() -> Vec<SeasonRow> {
    vec![
        // 1: −3 → −5 (+2); IMPLIED(−125/−105) 0.5203, BLEND 0.6: edge +. 110-100 covers −5: +0.8.
        G::final_score(1, 100.0, 110.0)
            .spread(Some(-3.0), Some(-5.0), Some(-125.0), Some(-105.0))
            .blend(Some(0.6))
            .stored(1),
        // 2: −2 → −4 (+2); edge + (0.55 vs 0.5). 104-100 lands on −4: push.
        G::final_score(2, 100.0, 104.0)
            .spread(Some(-2.0), Some(-4.0), Some(-110.0), Some(-110.0))
            .blend(Some(0.55))
            .stored(0),
        // 3: −1 → −3 (+2); no home price (one-sided, so no edge). 100-90 covers.
        G::final_score(3, 90.0, 100.0)
            .spread(Some(-1.0), Some(-3.0), None, Some(-110.0))
            .blend(Some(0.55))
            .stored(1),
        // 4: −6 → −7 (+1); edge +; pending.
        G::final_score(4, 90.0, 100.0)
            .spread(Some(-6.0), Some(-7.0), Some(-110.0), Some(-110.0))
            .blend(Some(0.55))
            .status(Some("pending"))
            .stored(1),
        // 5: −3 → −3: zero move; edge +.
        G::final_score(5, 90.0, 100.0)
            .spread(Some(-3.0), Some(-3.0), Some(-110.0), Some(-110.0))
            .blend(Some(0.55))
            .stored(1),
        // 6: placeholder opener 0, no BLEND.
        G::final_score(6, 90.0, 100.0)
            .spread(Some(0.0), Some(-2.0), Some(-110.0), Some(-110.0))
            .stored(1),
        // 7: +2 → +1 (+1); IMPLIED(−105/−115) 0.4892, BLEND 0.4: edge −. 102-100 at +1 misses: −1.
        G::final_score(7, 102.0, 100.0)
            .spread(Some(2.0), Some(1.0), Some(-105.0), Some(-115.0))
            .blend(Some(0.4))
            .stored(0),
    ]
    .into_iter()
    .map(|g| g.0)
    .collect()
}

#[test]
fn spread_follow_positive_line_move_settles_at_the_recorded_spread_price() {
    let rows = spread_season();
    let e = entry(&rows, ModelType::WonOnSpread, Accounting::RecordedV2, "line-pb");
    // 1 (+0.8), 2 (push), 7 (−1): −0.2 over 3 stakes.
    check(&e, (1, 1, 1), -0.2, Some(-6.67), 50.0);
    assert_eq!(e.exclusions, ex(1, 1, 1, 1));
    assert_eq!(e.candidates, Some(7));
}

/// An away bet's lines are the away spreads; a row that recorded only the
/// home spread gives the away side its negation (payloads.md: `open_line`
/// and `close_line` are "the side's opening and recorded ... spread").
#[test]
fn a_spread_fade_bets_the_away_side_at_the_negated_home_spread() {
    let mut rows = spread_season();
    rows[0].lines.away_point_spread = None;
    rows[0].lines.open_away_point_spread = None;
    let r = replay(
        &rows,
        Sport::Nba,
        ModelType::WonOnSpread,
        Accounting::RecordedV2,
        "line-pf",
    )
    .unwrap();
    // Game 1 moved −3 → −5 for home (+2): fading it bets the away side,
    // which opened at +3 and was recorded at +5.
    let first = &r.games[0];
    assert_eq!((first.home_team.as_str(), first.side), ("home_1", "away"));
    assert_eq!((first.open_line, first.close_line), (Some(3.0), Some(5.0)));
}

/// With enough bets to be ranked, a replay's entry carries its own rank
/// from the leaderboard ("the leaderboard entry, identical to it (rank
/// included)"), for every strategy.
#[test]
fn a_replay_carries_its_own_strategys_leaderboard_rank() {
    // 96 moneyline games (48 per pure rule, past the minimum sample of 30);
    // the move, the edge and the winner cycle with
    // different periods, so the strategies' records differ.
    let rows: Vec<SeasonRow> = (1..=96_u64)
        .map(|i| {
            let home_wins = i % 3 != 0;
            let (away, home) = if home_wins { (90.0, 100.0) } else { (100.0, 90.0) };
            let (close, open) = if i % 2 == 0 { (-130.0, -120.0) } else { (-110.0, -120.0) };
            let blend = if i % 5 < 2 { 0.3 } else { 0.8 };
            G::final_score(i, away, home)
                .ml(Some(close), Some(110.0), Some(open))
                .blend(Some(blend))
                .stored(u8::from(home_wins))
                .0
        })
        .collect();
    let board = leaderboard(&rows, Sport::Nba, ModelType::WonOnPoints, Accounting::RecordedV2);
    let ranks: std::collections::BTreeSet<u32> = board.strategies.iter().filter_map(|e| e.rank).collect();
    assert!(ranks.len() >= 2, "the fixture ranks several strategies: {ranks:?}");
    for e in &board.strategies {
        let r = replay(&rows, Sport::Nba, ModelType::WonOnPoints, Accounting::RecordedV2, e.id).unwrap();
        assert_eq!(r.strategy.rank, e.rank, "{}", e.id);
        assert_eq!(&r.strategy, e);
    }
}

#[test]
fn spread_hybrids_bet_only_when_both_signals_agree() {
    let rows = spread_season();
    let both = entry(&rows, ModelType::WonOnSpread, Accounting::RecordedV2, "hybrid-pb-pb");
    // 1 (+0.8) and 2 (push); 7 has a negative edge and passes.
    check(&both, (1, 0, 1), 0.8, Some(40.0), 100.0);
    assert_eq!(both.exclusions, ex(2, 2, 0, 1));
    let fade_edge = entry(&rows, ModelType::WonOnSpread, Accounting::RecordedV2, "hybrid-pb-nf");
    // Only 7 (line +, edge −): home at −105 loses.
    check(&fade_edge, (0, 1, 0), -1.0, Some(-100.0), 0.0);
    assert_eq!(fade_edge.exclusions, ex(4, 2, 0, 0));
}

#[test]
fn spread_legacy_assumes_minus_110_and_reads_a_stored_push_as_a_home_loss() {
    let rows = spread_season();
    let e = entry(&rows, ModelType::WonOnSpread, Accounting::LegacyV1, "line-pb");
    // 1, 3, 4 win at −110 (+0.9091 each); 2 (stored 0) and 7 lose: 0.7273 over 5.
    check(&e, (3, 2, 0), 0.7273, Some(14.55), 60.0);
    let r = replay(
        &rows,
        Sport::Nba,
        ModelType::WonOnSpread,
        Accounting::LegacyV1,
        "line-pb",
    )
    .unwrap();
    assert!(r.games.iter().all(|g| close(g.price, -110.0)));
    assert_eq!(r.games[0].open_line, Some(-3.0));
}

/// Totals. Line move = total − open total.
fn totals_season() -> Vec<SeasonRow> {
    vec![
        // 1: 8.5 → 9 (+0.5); 11 goes over; over at −115 pays 0.8696, under −105 loses.
        G::final_score(1, 5.0, 6.0)
            .total(Some(8.5), Some(9.0), Some(-115.0), Some(-105.0))
            .stored(1),
        // 2: 7.5 → 8; 8 is a push.
        G::final_score(2, 4.0, 4.0)
            .total(Some(7.5), Some(8.0), Some(-110.0), Some(-110.0))
            .stored(0),
        // 3: 9 → 9.5; over price 0 is invalid (one-sided); 8 goes under at −120 (+0.8333).
        G::final_score(3, 5.0, 3.0)
            .total(Some(9.0), Some(9.5), Some(0.0), Some(-120.0))
            .stored(0),
        // 4: 8 → 8.5; unknown settlement status.
        G::final_score(4, 5.0, 5.0)
            .total(Some(8.0), Some(8.5), Some(-110.0), Some(-110.0))
            .status(None)
            .stored(1),
        // 5: 9 → 9: zero move.
        G::final_score(5, 5.0, 5.0)
            .total(Some(9.0), Some(9.0), Some(-110.0), Some(-110.0))
            .stored(1),
        // 6: no opener.
        G::final_score(6, 5.0, 5.0)
            .total(None, Some(9.0), Some(-110.0), Some(-110.0))
            .stored(1),
        // 7: 8 → 9 (+1); BLEND 0.45 vs IMPLIED 0.5: edge −. 7 goes under: over −1, under +0.9091.
        G::final_score(7, 3.0, 4.0)
            .total(Some(8.0), Some(9.0), Some(-110.0), Some(-110.0))
            .blend(Some(0.45))
            .stored(0),
    ]
    .into_iter()
    .map(|g| g.0)
    .collect()
}

#[test]
fn totals_follow_positive_line_move_treats_a_placeholder_price_as_missing() {
    let rows = totals_season();
    let e = entry(&rows, ModelType::OverUnder, Accounting::RecordedV2, "line-pb");
    // 1 (+0.8696), 2 (push), 7 (−1): −0.1304 over 3.
    check(&e, (1, 1, 1), -0.1304, Some(-4.35), 50.0);
    assert_eq!(e.exclusions, ex(1, 1, 1, 1));
}

#[test]
fn totals_fade_positive_line_move_bets_the_under_on_the_same_games() {
    let rows = totals_season();
    let e = entry(&rows, ModelType::OverUnder, Accounting::RecordedV2, "line-pf");
    // 1 (−1), 2 (push), 3 (+0.8333), 7 (+0.9091): 0.7424 over 4.
    check(&e, (2, 1, 1), 0.7424, Some(18.56), 66.67);
    assert_eq!(e.exclusions, ex(1, 1, 0, 1));
}

#[test]
fn totals_hybrid_with_one_parent_firing_passes_and_edges_need_blend() {
    let rows = totals_season();
    let e = entry(&rows, ModelType::OverUnder, Accounting::RecordedV2, "hybrid-pb-pb");
    // Only game 7 has BLEND, and its edge is negative: a pass; 5 passes on its zero
    // move. The others lack BLEND and their line parent fires or lacks an opener.
    check(&e, (0, 0, 0), 0.0, None, 0.0);
    assert_eq!(e.exclusions, ex(2, 5, 0, 0));
    assert!(!e.ranked);
    assert_eq!(e.rank, None);
}

#[test]
fn unknown_strategy_ids_are_refused_with_the_valid_list() {
    let err = replay(&[], Sport::Nba, ModelType::OverUnder, Accounting::RecordedV2, "line-xx").unwrap_err();
    assert_eq!(err.valid.len(), 16);
    assert!(err.to_string().contains("hybrid-nb-nb"));
}

#[test]
fn serialized_entries_use_the_contract_field_names() {
    let rows = moneyline_season();
    let v2 = serde_json::to_value(leaderboard(
        &rows,
        Sport::Nba,
        ModelType::WonOnPoints,
        Accounting::RecordedV2,
    ))
    .unwrap();
    assert_eq!(v2["accounting"], "recorded_v2");
    assert_eq!(v2["market"], "moneyline");
    assert_eq!(v2["min_sample"], 30);
    assert!(v2["price_basis"].as_str().unwrap().contains("recorded"));
    let first = v2["strategies"][0].as_object().unwrap();
    let keys: Vec<_> = first.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "id",
            "name",
            "signal",
            "rank",
            "wins",
            "losses",
            "record",
            "win_pct",
            "roi",
            "n",
            "ranked",
            "units",
            "pushes",
            "candidates",
            "exclusions"
        ]
    );
    let ex = first["exclusions"].as_object().unwrap();
    assert_eq!(
        ex.keys().collect::<Vec<_>>(),
        ["pass", "missing_signal", "missing_or_invalid_price", "unverified_final"]
    );
    let legacy = serde_json::to_value(leaderboard(
        &rows,
        Sport::Nba,
        ModelType::WonOnPoints,
        Accounting::LegacyV1,
    ))
    .unwrap();
    assert_eq!(legacy["accounting"], "legacy_v1");
    assert!(legacy["strategies"][0].get("exclusions").is_none());
    let r = serde_json::to_value(
        replay(
            &rows,
            Sport::Nba,
            ModelType::WonOnPoints,
            Accounting::RecordedV2,
            "line-pb",
        )
        .unwrap(),
    )
    .unwrap();
    let g = &r["games"][1];
    assert_eq!(
        (g["price"].to_string(), g["won"].clone(), g["outcome"].clone()),
        ("110".to_owned(), serde_json::Value::Null, "push".into())
    );
    assert_eq!(r["games"][0]["home_score"].to_string(), "100");
    assert_eq!(r["games"][0]["date"], "2025-11-02");
    assert_eq!(r["games"][0]["time_est"], "19:30:00");
    assert_eq!(r["excluded_rows"][0]["reason"], "unverified_final");
}
