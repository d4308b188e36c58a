//! The two per-game signals, positive toward the home or over side: line move
//! (opener to recorded line) and model edge (BLEND minus IMPLIED).
//!
//! A signal is `None` when an input is missing; the caller turns that into a
//! `missing_signal` exclusion. It knows nothing about bets or accounting.

use linecast_domain::{ModelColumn, ModelType, SeasonRow, Side};
/// The Line Move signal. Its one home is [`linecast_grading::signal`]
/// (calibration signs it by each model's pick); this path stays for embedders.
pub use linecast_grading::signal::line_move;

use crate::catalog::{Rule, SignalKind};

/// Signals this close to zero are treated as zero: recomputed probabilities
/// carry float noise, and a move of 1e-9 is no move.
const ZERO: f64 = 1e-9;

/// BLEND minus IMPLIED, with IMPLIED recomputed as the no-vig probability of
/// both recorded prices (so a one-sided price has no edge).
pub fn model_edge(row: &SeasonRow, model_type: ModelType) -> Option<f64> {
    let blend = row.models.get(ModelColumn::Blend)?;
    Some(blend - linecast_grading::implied(row, model_type)?)
}

/// Both signals of one game, computed once and shared by every rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    pub line: Option<f64>,
    pub edge: Option<f64>,
}

impl Signals {
    pub fn of(row: &SeasonRow, model_type: ModelType) -> Self {
        Self {
            line: line_move(row, model_type),
            edge: model_edge(row, model_type),
        }
    }

    fn get(self, kind: SignalKind) -> Option<f64> {
        match kind {
            SignalKind::LineMove => self.line,
            SignalKind::ModelEdge => self.edge,
        }
    }
}

/// What one pure rule does with a game's signals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Firing {
    /// The rule fires and bets this side.
    Bet(Side),
    /// The signal is zero or points the other way.
    Pass,
    /// An input of the signal is missing.
    MissingSignal,
}

/// Applies a pure rule to a game's signals.
pub fn fire(rule: Rule, signals: Signals) -> Firing {
    let Some(value) = signals.get(rule.kind) else {
        return Firing::MissingSignal;
    };
    let sign = if value > ZERO {
        Side::Positive
    } else if value < -ZERO {
        Side::Negative
    } else {
        return Firing::Pass;
    };
    if sign == rule.fires_on {
        Firing::Bet(rule.bet_side())
    } else {
        Firing::Pass
    }
}

/// Applies a hybrid: it bets only when both parents bet (always the same side,
/// by construction of the catalog).
///
/// Exclusion reasons combine as follows: when either parent passes, the
/// hybrid passes, because a parent known not to fire settles the question
/// whatever the other signal is; only when neither passes and at least one
/// parent lacks its signal is the hybrid `missing_signal`.
pub fn fire_both(line: Firing, edge: Firing) -> Firing {
    match (line, edge) {
        (Firing::Pass, _) | (_, Firing::Pass) => Firing::Pass,
        (Firing::MissingSignal, _) | (_, Firing::MissingSignal) => Firing::MissingSignal,
        (Firing::Bet(a), Firing::Bet(b)) if a == b => Firing::Bet(a),
        // Unreachable with the catalog's same-side pairs; a disagreement is no bet.
        (Firing::Bet(_), Firing::Bet(_)) => Firing::Pass,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::catalog::{STRATEGIES, StrategyDef};

    fn rule(kind: SignalKind, fires_on: Side, follow: bool) -> Rule {
        Rule { kind, fires_on, follow }
    }

    #[test]
    fn zero_and_opposite_signals_pass_and_missing_signals_are_reported() {
        let pb = rule(SignalKind::LineMove, Side::Positive, true);
        assert_eq!(
            fire(
                pb,
                Signals {
                    line: Some(0.0),
                    edge: None
                }
            ),
            Firing::Pass
        );
        assert_eq!(
            fire(
                pb,
                Signals {
                    line: Some(-1.0),
                    edge: None
                }
            ),
            Firing::Pass
        );
        assert_eq!(
            fire(
                pb,
                Signals {
                    line: None,
                    edge: Some(1.0)
                }
            ),
            Firing::MissingSignal
        );
        assert_eq!(
            fire(
                pb,
                Signals {
                    line: Some(0.5),
                    edge: None
                }
            ),
            Firing::Bet(Side::Positive)
        );
        let nf = rule(SignalKind::ModelEdge, Side::Negative, false);
        assert_eq!(
            fire(
                nf,
                Signals {
                    line: None,
                    edge: Some(-0.02)
                }
            ),
            Firing::Bet(Side::Positive)
        );
    }

    #[test]
    fn a_parent_that_passes_outranks_a_missing_signal_in_a_hybrid() {
        assert_eq!(fire_both(Firing::Pass, Firing::MissingSignal), Firing::Pass);
        assert_eq!(
            fire_both(Firing::MissingSignal, Firing::Bet(Side::Positive)),
            Firing::MissingSignal
        );
        assert_eq!(
            fire_both(Firing::Bet(Side::Negative), Firing::Bet(Side::Negative)),
            Firing::Bet(Side::Negative)
        );
        assert_eq!(fire_both(Firing::Bet(Side::Negative), Firing::Pass), Firing::Pass);
    }

    /// "Signals this close to zero are treated as zero": a move or edge of
    /// exactly 1e-9 either way, or anything inside, is no signal for any
    /// rule; just past it, the rule fires.
    #[test]
    fn a_signal_at_the_zero_band_is_no_signal_and_just_past_it_fires() {
        for kind in [SignalKind::LineMove, SignalKind::ModelEdge] {
            let at = |v: f64| match kind {
                SignalKind::LineMove => Signals {
                    line: Some(v),
                    edge: None,
                },
                SignalKind::ModelEdge => Signals {
                    line: None,
                    edge: Some(v),
                },
            };
            for fires_on in [Side::Positive, Side::Negative] {
                for follow in [true, false] {
                    let r = rule(kind, fires_on, follow);
                    for v in [0.0, 1e-9, -1e-9, 5e-10, -5e-10] {
                        assert_eq!(fire(r, at(v)), Firing::Pass, "{r:?} at {v}");
                    }
                    let past = match fires_on {
                        Side::Positive => 2e-9,
                        Side::Negative => -2e-9,
                    };
                    assert_eq!(fire(r, at(past)), Firing::Bet(r.bet_side()), "{r:?} at {past}");
                    assert_eq!(fire(r, at(-past)), Firing::Pass, "{r:?} at {}", -past);
                }
            }
        }
    }

    /// Hybrids require "both signals to agree": parents that bet opposite
    /// sides make no bet, in either order.
    #[test]
    fn a_hybrid_whose_parents_bet_opposite_sides_passes() {
        assert_eq!(
            fire_both(Firing::Bet(Side::Positive), Firing::Bet(Side::Negative)),
            Firing::Pass
        );
        assert_eq!(
            fire_both(Firing::Bet(Side::Negative), Firing::Bet(Side::Positive)),
            Firing::Pass
        );
        assert_eq!(
            fire_both(Firing::Bet(Side::Positive), Firing::Bet(Side::Positive)),
            Firing::Bet(Side::Positive)
        );
    }

    #[test]
    fn catalog_hybrids_never_see_parents_disagree() {
        for s in &STRATEGIES {
            if let StrategyDef::Hybrid { line, edge } = s.def {
                for l in [-1.0, 1.0] {
                    for e in [-1.0, 1.0] {
                        let sig = Signals {
                            line: Some(l),
                            edge: Some(e),
                        };
                        if let (Firing::Bet(a), Firing::Bet(b)) = (fire(line, sig), fire(edge, sig)) {
                            assert_eq!(a, b, "{}", s.id);
                        }
                    }
                }
            }
        }
    }
}
