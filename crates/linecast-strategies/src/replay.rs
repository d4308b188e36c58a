//! Builds a strategy's replay: every bet oldest first with its running units,
//! and every candidate game it did not bet with the reason.

use linecast_domain::row::real_opener;
use linecast_domain::{ModelType, SeasonRow, Side};

use crate::accounting::Outcome;
use crate::catalog::Strategy;
use crate::engine::{Season, Tally, Verdict};
use crate::output::{ExcludedRow, ReplayGame};

/// The bets and exclusions of one strategy, and the tally folded along them.
pub struct Walk {
    pub games: Vec<ReplayGame>,
    pub excluded: Vec<ExcludedRow>,
    pub tally: Tally,
}

pub fn walk(season: &Season<'_>, strategy: &Strategy) -> Walk {
    let mt = season.model_type;
    let mut tally = Tally::default();
    let mut games = Vec::new();
    let mut excluded = Vec::new();
    for (c, verdict) in season.verdicts(strategy) {
        tally.add(&verdict);
        let key = &c.row.key;
        match verdict {
            Verdict::Bet(bet) => {
                let (open_line, close_line) = lines(c.row, mt, bet.side);
                games.push(ReplayGame {
                    game_id: c.row.game_id.clone(),
                    date: key.date_string(),
                    time_est: key.time_string(),
                    away_team: key.away_team.clone(),
                    home_team: key.home_team.clone(),
                    // Candidates always have a final score.
                    away_score: c.row.away_score.unwrap_or_default(),
                    home_score: c.row.home_score.unwrap_or_default(),
                    side: mt.side_label(bet.side),
                    price: bet.price.value(),
                    open_line,
                    close_line,
                    won: match bet.outcome {
                        Outcome::Win => Some(true),
                        Outcome::Loss => Some(false),
                        Outcome::Push => None,
                    },
                    outcome: bet.outcome,
                    profit_units: bet.profit,
                    running_units: tally.units,
                });
            }
            Verdict::Excluded { side, reason } => excluded.push(ExcludedRow {
                game_id: c.row.game_id.clone(),
                date: key.date_string(),
                time_est: key.time_string(),
                away_team: key.away_team.clone(),
                home_team: key.home_team.clone(),
                side: side.map(|s| mt.side_label(s)),
                reason,
            }),
        }
    }
    Walk { games, excluded, tally }
}

/// The side bet's (opening, recorded) line: its money line, its spread (the
/// away spread falls back to the negated home spread) or the total.
fn lines(row: &SeasonRow, mt: ModelType, side: Side) -> (Option<f64>, Option<f64>) {
    let l = &row.lines;
    match (mt, side) {
        (ModelType::WonOnPoints, Side::Positive) => (real_opener(l.open_home_money_line), l.home_money_line),
        (ModelType::WonOnPoints, Side::Negative) => (real_opener(l.open_away_money_line), l.away_money_line),
        (ModelType::WonOnSpread, Side::Positive) => (real_opener(l.open_home_point_spread), l.home_point_spread),
        (ModelType::WonOnSpread, Side::Negative) => (
            real_opener(l.open_away_point_spread).or_else(|| real_opener(l.open_home_point_spread).map(|h| -h)),
            l.away_point_spread.or_else(|| l.home_point_spread.map(|h| -h)),
        ),
        (ModelType::OverUnder, _) => (real_opener(l.open_over_under), l.over_under),
    }
}
