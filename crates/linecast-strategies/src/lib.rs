//! Betting-strategy leaderboards: the sixteen line-move and model-edge rules,
//! `legacy_v1` and `recorded_v2` accounting, ranking and game-by-game replay.
//!
//! Pure: no async, no I/O, no clock. The HTTP layer picks the season's rows,
//! adds `season` and `last_updated`, and caches the results per season
//! generation.
//!
//! Decisions the spec leaves open, written down here:
//! - Candidates are the rows with a final score and a posted line (as in
//!   grading); professional leagues consider regular-season and postseason rows
//!   only; legacy_v1 also needs the stored outcome column. Other rows are not
//!   counted anywhere.
//! - Each rule puts each candidate in exactly one bucket, checked in order:
//!   `missing_signal` / `pass` (the signal), `missing_or_invalid_price` (a
//!   bet needs a price to be placed), `unverified_final` (recorded_v2 only:
//!   `settlement_status` other than `settled`), else a bet.
//! - A hybrid passes when either parent passes; otherwise it is
//!   `missing_signal` when either parent lacks its signal; otherwise both
//!   parents bet the same side and so does the hybrid.
//! - Units and profits have 4 decimals, `win_pct` and `roi` 2 decimals;
//!   `win_pct` is 0 with no decisive bet, `roi` is null with no stake.
//!
//! ```
//! use linecast_domain::{ModelType, Sport};
//! use linecast_strategies::{Accounting, leaderboard, replay, strategy_ids};
//!
//! let board = leaderboard(&[], Sport::Nba, ModelType::WonOnSpread, Accounting::RecordedV2);
//! assert_eq!(board.strategies.len(), 16);
//! assert_eq!(board.strategies[0].roi, None);
//! assert!(replay(&[], Sport::Nba, ModelType::WonOnSpread, Accounting::RecordedV2, "line-pb").is_ok());
//! assert!(replay(&[], Sport::Nba, ModelType::WonOnSpread, Accounting::RecordedV2, "nope").is_err());
//! assert_eq!(strategy_ids().len(), 16);
//! ```

mod accounting;
mod catalog;
mod engine;
mod output;
mod replay;
pub mod signal;

use linecast_domain::{ModelType, SeasonRow, Sport};

pub use accounting::{Accounting, Exclusion, Outcome};
pub use catalog::{Rule, STRATEGIES, SignalKind, Strategy, StrategyDef, strategy_ids};
pub use engine::MIN_SAMPLE;
pub use output::{Entry, ExcludedRow, Exclusions, Leaderboard, Replay, ReplayGame, UnknownStrategy};

use engine::Season;

/// The ranked leaderboard of all sixteen strategies over `rows` (one season).
pub fn leaderboard(rows: &[SeasonRow], sport: Sport, model_type: ModelType, accounting: Accounting) -> Leaderboard {
    let season = Season::prepare(rows, sport, model_type, accounting);
    board(&season, sport)
}

fn board(season: &Season<'_>, sport: Sport) -> Leaderboard {
    let mut strategies: Vec<Entry> = STRATEGIES.iter().map(|s| season.entry(s)).collect();
    engine::rank(&mut strategies);
    Leaderboard {
        sport: sport.code(),
        market: season.model_type.public_market().code(),
        min_sample: MIN_SAMPLE,
        accounting: season.accounting,
        price_basis: season.accounting.price_basis(season.model_type),
        strategies,
    }
}

/// One strategy's bets game by game (oldest first) with its leaderboard
/// entry, rank included, and every candidate it did not bet in
/// `excluded_rows` (drop them with [`Replay::without_excluded`]).
pub fn replay(
    rows: &[SeasonRow],
    sport: Sport,
    model_type: ModelType,
    accounting: Accounting,
    strategy_id: &str,
) -> Result<Replay, UnknownStrategy> {
    let strategy = catalog::find(strategy_id).ok_or_else(|| UnknownStrategy {
        id: strategy_id.to_owned(),
        valid: strategy_ids(),
    })?;
    let season = Season::prepare(rows, sport, model_type, accounting);
    let walk = replay::walk(&season, strategy);
    // The entry comes from the leaderboard for its rank; the walk folded the
    // same verdicts with the same tally, so the totals are the same.
    let board = board(&season, sport);
    let mut entry = walk.tally.entry(strategy, accounting);
    entry.rank = board
        .strategies
        .iter()
        .find(|e| e.id == strategy.id)
        .and_then(|e| e.rank);
    debug_assert!(board.strategies.contains(&entry));
    Ok(Replay {
        sport: board.sport,
        market: board.market,
        min_sample: MIN_SAMPLE,
        accounting,
        price_basis: board.price_basis,
        strategy: entry,
        games_considered: season.games.len() as u32,
        games: walk.games,
        excluded_rows: Some(walk.excluded),
    })
}
