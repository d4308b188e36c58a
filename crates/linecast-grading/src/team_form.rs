//! Team form: each team's record in the market from its own side —
//! moneyline wins, spread covers, and for totals the overs of its games.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use linecast_domain::{GameKey, ModelType, SeasonRow, Side, Sport};

use crate::grade::in_scope;
use crate::market::{Decision, decide};
use crate::tally::round_to;

/// Length of `last_10`.
pub const LAST_N: usize = 10;

/// One team's form.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TeamForm {
    pub team: String,
    /// Decided games (pushes are no result and are not counted).
    pub games: usize,
    pub wins: usize,
    pub losses: usize,
    /// wins / games, 0 to 1 with 3 decimals.
    pub win_pct: f64,
    /// The last (up to) 10 results, 1 win / 0 loss, oldest first and the
    /// most recent game last.
    pub last_10: Vec<u8>,
    /// Current run: `W` or `L` then its length, e.g. `W3`.
    pub streak: String,
    /// The team's next game on the score tape, if any.
    pub next_game_date: Option<NaiveDate>,
}

/// Whether `team_side` (home or away) won in this market, `None` on a push.
/// Totals have no team side: both teams "win" when the game goes over.
fn team_result(decision: Decision, model_type: ModelType, team_side: Side) -> Option<bool> {
    let Decision::Won(winner) = decision else { return None };
    Some(match model_type {
        ModelType::OverUnder => winner == Side::Positive,
        ModelType::WonOnPoints | ModelType::WonOnSpread => winner == team_side,
    })
}

/// Team form over the in-scope decided games of a season, teams sorted by
/// slug. Teams with no decided game are left out. `next_game_date` is asked
/// for each listed team (e.g. a lookup in the game-score tape).
pub fn team_form(
    rows: &[SeasonRow],
    sport: Sport,
    model_type: ModelType,
    next_game_date: impl Fn(&str) -> Option<NaiveDate>,
) -> Vec<TeamForm> {
    let mut games: Vec<(&GameKey, Decision)> = rows
        .iter()
        .filter(|r| in_scope(r, sport))
        .filter_map(|r| decide(r, model_type).map(|d| (&r.key, d)))
        .collect();
    games.sort_by(|a, b| a.0.cmp(b.0));

    let mut results: BTreeMap<&str, Vec<u8>> = BTreeMap::new();
    for (key, decision) in games {
        for (team, side) in [(&key.home_team, Side::Positive), (&key.away_team, Side::Negative)] {
            if let Some(won) = team_result(decision, model_type, side) {
                results.entry(&**team).or_default().push(u8::from(won));
            }
        }
    }

    results
        .into_iter()
        .map(|(team, seq)| {
            let wins: usize = seq.iter().map(|r| usize::from(*r)).sum();
            let games = seq.len();
            let last = seq.last().copied().unwrap_or(0);
            let run = seq.iter().rev().take_while(|r| **r == last).count();
            TeamForm {
                team: team.to_owned(),
                games,
                wins,
                losses: games - wins,
                win_pct: round_to(wins as f64 / games as f64, 3),
                last_10: seq[games.saturating_sub(LAST_N)..].to_vec(),
                streak: format!("{}{run}", if last == 1 { 'W' } else { 'L' }),
                next_game_date: next_game_date(team),
            }
        })
        .collect()
}
