//! Runs strategies over a season: prepares the candidate games once, turns
//! each (strategy, game) into a verdict, and folds verdicts into a tally.
//!
//! The leaderboard and the replay both fold the same verdict sequence with
//! the same `Tally`, so their totals cannot disagree.

use linecast_domain::{ModelType, SeasonRow, Side, Sport};

use crate::accounting::{Accounting, Candidate, Exclusion, Outcome, Settled, candidate, round2, round4, settle};
use crate::catalog::{Strategy, StrategyDef};
use crate::output::{Entry, Exclusions};
use crate::signal::{Firing, Signals, fire, fire_both};

/// The ranking minimum sample (decisive bets).
pub const MIN_SAMPLE: u32 = 30;

/// The candidate games of a season, oldest first, with their signals.
pub struct Season<'a> {
    pub model_type: ModelType,
    pub accounting: Accounting,
    pub games: Vec<(Candidate<'a>, Signals)>,
}

impl<'a> Season<'a> {
    pub fn prepare(rows: &'a [SeasonRow], sport: Sport, model_type: ModelType, accounting: Accounting) -> Self {
        let mut games: Vec<_> = rows
            .iter()
            .filter_map(|row| candidate(row, sport, model_type, accounting))
            .map(|c| (c, Signals::of(c.row, model_type)))
            .collect();
        // Stable, and the game key orders by date, then ET time, then teams.
        games.sort_by(|a, b| a.0.row.key.cmp(&b.0.row.key));
        Self {
            model_type,
            accounting,
            games,
        }
    }

    /// The verdict of every candidate game for one strategy, oldest first.
    pub fn verdicts<'s>(&'s self, strategy: &'s Strategy) -> impl Iterator<Item = (Candidate<'a>, Verdict)> + 's {
        self.games
            .iter()
            .map(move |(c, signals)| (*c, self.verdict(strategy, *c, *signals)))
    }

    fn verdict(&self, strategy: &Strategy, c: Candidate<'_>, signals: Signals) -> Verdict {
        let firing = match strategy.def {
            StrategyDef::Pure(rule) => fire(rule, signals),
            StrategyDef::Hybrid { line, edge } => fire_both(fire(line, signals), fire(edge, signals)),
        };
        match firing {
            Firing::Pass => Verdict::Excluded {
                side: None,
                reason: Exclusion::Pass,
            },
            Firing::MissingSignal => Verdict::Excluded {
                side: None,
                reason: Exclusion::MissingSignal,
            },
            Firing::Bet(side) => match settle(c, side, self.model_type, self.accounting) {
                Ok(bet) => Verdict::Bet(bet),
                Err(reason) => Verdict::Excluded {
                    side: Some(side),
                    reason,
                },
            },
        }
    }

    /// A strategy's entry, unranked.
    pub fn entry(&self, strategy: &Strategy) -> Entry {
        let mut tally = Tally::default();
        for (_, v) in self.verdicts(strategy) {
            tally.add(&v);
        }
        tally.entry(strategy, self.accounting)
    }
}

/// What one strategy does with one candidate game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    Bet(Settled),
    Excluded { side: Option<Side>, reason: Exclusion },
}

/// Running totals of a strategy's verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    pub wins: u32,
    pub losses: u32,
    pub pushes: u32,
    /// Sum of the per-bet (already rounded) profits, kept at 4 decimals.
    pub units: f64,
    pub exclusions: Exclusions,
}

impl Tally {
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Bet(bet) => {
                match bet.outcome {
                    Outcome::Win => self.wins += 1,
                    Outcome::Loss => self.losses += 1,
                    Outcome::Push => self.pushes += 1,
                }
                // Each profit has 4 decimals, so rounding the sum only drops float noise.
                self.units = round4(self.units + bet.profit);
            }
            Verdict::Excluded { reason, .. } => {
                let slot = match reason {
                    Exclusion::Pass => &mut self.exclusions.pass,
                    Exclusion::MissingSignal => &mut self.exclusions.missing_signal,
                    Exclusion::MissingOrInvalidPrice => &mut self.exclusions.missing_or_invalid_price,
                    Exclusion::UnverifiedFinal => &mut self.exclusions.unverified_final,
                };
                *slot += 1;
            }
        }
    }

    pub fn entry(&self, strategy: &Strategy, accounting: Accounting) -> Entry {
        let n = self.wins + self.losses;
        // Pushes return the stake but were staked; legacy_v1 has none.
        let stakes = n + self.pushes;
        let v2 = accounting == Accounting::RecordedV2;
        Entry {
            id: strategy.id,
            name: strategy.name,
            signal: strategy.signal,
            rank: None,
            wins: self.wins,
            losses: self.losses,
            record: if v2 {
                format!("{}-{}-{}", self.wins, self.losses, self.pushes)
            } else {
                format!("{}-{}", self.wins, self.losses)
            },
            win_pct: if n == 0 {
                0.0
            } else {
                round2(f64::from(self.wins) / f64::from(n) * 100.0)
            },
            roi: (stakes > 0).then(|| round2(self.units / f64::from(stakes) * 100.0)),
            n,
            ranked: n >= MIN_SAMPLE,
            units: self.units,
            pushes: v2.then_some(self.pushes),
            candidates: v2.then_some(stakes + self.exclusions.total()),
            exclusions: v2.then_some(self.exclusions),
        }
    }
}

/// Orders entries: ranked by ROI descending (ties: larger n, then id), then
/// the unranked by n descending (ties: id); ranks the ranked 1, 2, ...
pub fn rank(entries: &mut [Entry]) {
    entries.sort_by(|a, b| match (a.ranked, b.ranked) {
        (true, true) => {
            let roi = |e: &Entry| e.roi.unwrap_or(f64::NEG_INFINITY);
            roi(b).total_cmp(&roi(a)).then(b.n.cmp(&a.n)).then(a.id.cmp(b.id))
        }
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => b.n.cmp(&a.n).then(a.id.cmp(b.id)),
    });
    let mut next = 1;
    for e in entries.iter_mut() {
        e.rank = e.ranked.then(|| {
            next += 1;
            next - 1
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::STRATEGIES;

    fn entry(id: &'static str, n: u32, roi: Option<f64>) -> Entry {
        let mut e = Tally::default().entry(&STRATEGIES[0], Accounting::RecordedV2);
        e.id = id;
        e.n = n;
        e.roi = roi;
        e.ranked = n >= MIN_SAMPLE;
        e
    }

    #[test]
    fn ranked_strategies_come_first_by_roi_and_unranked_follow_by_sample_size() {
        let mut es = vec![
            entry("a", 10, Some(50.0)),
            entry("b", 40, Some(-3.0)),
            entry("c", 30, Some(5.0)),
            entry("d", 29, Some(9.0)),
            entry("e", 0, None),
            entry("f", 31, Some(5.0)),
        ];
        rank(&mut es);
        let order: Vec<_> = es.iter().map(|e| (e.id, e.rank)).collect();
        assert_eq!(
            order,
            vec![
                ("f", Some(1)),
                ("c", Some(2)),
                ("b", Some(3)),
                ("d", None),
                ("a", None),
                ("e", None)
            ]
        );
    }

    #[test]
    fn an_empty_tally_has_null_roi_and_zero_win_pct() {
        let e = Tally::default().entry(&STRATEGIES[0], Accounting::RecordedV2);
        assert_eq!(e.roi, None);
        assert!(e.win_pct.abs() < f64::EPSILON);
        assert_eq!(e.record, "0-0-0");
        assert!(!e.ranked);
    }
}
