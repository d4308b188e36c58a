//! The sixteen strategies: their ids, display names, signal labels and the
//! side each rule bets. It owns no accounting and no game data.

use linecast_domain::Side;

/// Which per-game signal a pure rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalKind {
    /// How the line moved from the opener to the recorded line.
    LineMove,
    /// BLEND minus IMPLIED.
    ModelEdge,
}

/// One pure rule: the signal sign it fires on and whether it follows or fades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    pub kind: SignalKind,
    /// Fires on a positive (`Side::Positive`) or negative signal.
    pub fires_on: Side,
    /// True to back (follow) the side the signal points to, false to fade it.
    pub follow: bool,
}

impl Rule {
    /// The side this rule bets when it fires. Following a positive signal
    /// and fading a negative one both bet the positive side.
    pub const fn bet_side(self) -> Side {
        if self.follow {
            self.fires_on
        } else {
            self.fires_on.opposite()
        }
    }

    /// The two-letter code: `pb`, `pf`, `nb` or `nf`.
    pub const fn code(self) -> &'static str {
        match (self.fires_on, self.follow) {
            (Side::Positive, true) => "pb",
            (Side::Positive, false) => "pf",
            (Side::Negative, true) => "nb",
            (Side::Negative, false) => "nf",
        }
    }

    /// `Follow` or `Fade`, as in the display names.
    pub const fn verb(self) -> &'static str {
        if self.follow { "Follow" } else { "Fade" }
    }

    /// `+` or `-`: the signal sign the rule fires on.
    pub const fn sign(self) -> &'static str {
        match self.fires_on {
            Side::Positive => "+",
            Side::Negative => "-",
        }
    }
}

/// A strategy: one pure rule, or a hybrid of a line-move rule and a
/// model-edge rule that bet the same side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrategyDef {
    Pure(Rule),
    Hybrid { line: Rule, edge: Rule },
}

/// A strategy with its public identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strategy {
    pub id: &'static str,
    pub name: &'static str,
    pub signal: &'static str,
    pub def: StrategyDef,
}

const fn rule(kind: SignalKind, fires_on: Side, follow: bool) -> Rule {
    Rule { kind, fires_on, follow }
}

use Side::{Negative as N, Positive as P};
use SignalKind::{LineMove as L, ModelEdge as E};

const LINE_PB: Rule = rule(L, P, true);
const LINE_PF: Rule = rule(L, P, false);
const LINE_NB: Rule = rule(L, N, true);
const LINE_NF: Rule = rule(L, N, false);
const EDGE_PB: Rule = rule(E, P, true);
const EDGE_PF: Rule = rule(E, P, false);
const EDGE_NB: Rule = rule(E, N, true);
const EDGE_NF: Rule = rule(E, N, false);

const fn pure(id: &'static str, name: &'static str, signal: &'static str, r: Rule) -> Strategy {
    Strategy {
        id,
        name,
        signal,
        def: StrategyDef::Pure(r),
    }
}

const fn hybrid(id: &'static str, name: &'static str, line: Rule, edge: Rule) -> Strategy {
    Strategy {
        id,
        name,
        signal: "Hybrid",
        def: StrategyDef::Hybrid { line, edge },
    }
}

/// All sixteen strategies in catalog order: the eight pure rules, then the
/// eight hybrids (positive-side pairs first).
pub const STRATEGIES: [Strategy; 16] = [
    pure("line-pb", "Follow +Line Move", "Line", LINE_PB),
    pure("line-pf", "Fade +Line Move", "Line", LINE_PF),
    pure("line-nb", "Follow -Line Move", "Line", LINE_NB),
    pure("line-nf", "Fade -Line Move", "Line", LINE_NF),
    pure("edge-pb", "Follow +Edge", "Δ Edge", EDGE_PB),
    pure("edge-pf", "Fade +Edge", "Δ Edge", EDGE_PF),
    pure("edge-nb", "Follow -Edge", "Δ Edge", EDGE_NB),
    pure("edge-nf", "Fade -Edge", "Δ Edge", EDGE_NF),
    hybrid("hybrid-pb-pb", "Follow +Move AND Follow +Edge", LINE_PB, EDGE_PB),
    hybrid("hybrid-pb-nf", "Follow +Move AND Fade -Edge", LINE_PB, EDGE_NF),
    hybrid("hybrid-nf-pb", "Fade -Move AND Follow +Edge", LINE_NF, EDGE_PB),
    hybrid("hybrid-nf-nf", "Fade -Move AND Fade -Edge", LINE_NF, EDGE_NF),
    hybrid("hybrid-pf-pf", "Fade +Move AND Fade +Edge", LINE_PF, EDGE_PF),
    hybrid("hybrid-pf-nb", "Fade +Move AND Follow -Edge", LINE_PF, EDGE_NB),
    hybrid("hybrid-nb-pf", "Follow -Move AND Fade +Edge", LINE_NB, EDGE_PF),
    hybrid("hybrid-nb-nb", "Follow -Move AND Follow -Edge", LINE_NB, EDGE_NB),
];

const IDS: [&str; 16] = {
    let mut ids = [""; 16];
    let mut i = 0;
    while i < STRATEGIES.len() {
        ids[i] = STRATEGIES[i].id;
        i += 1;
    }
    ids
};

/// The sixteen strategy ids in catalog order.
pub fn strategy_ids() -> &'static [&'static str] {
    &IDS
}

/// The strategy with this id.
pub fn find(id: &str) -> Option<&'static Strategy> {
    STRATEGIES.iter().find(|s| s.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &Strategy) -> Vec<Rule> {
        match s.def {
            StrategyDef::Pure(r) => vec![r],
            StrategyDef::Hybrid { line, edge } => vec![line, edge],
        }
    }

    #[test]
    fn there_are_eight_pure_rules_and_eight_hybrids_with_unique_ids() {
        let pure = STRATEGIES
            .iter()
            .filter(|s| matches!(s.def, StrategyDef::Pure(_)))
            .count();
        assert_eq!(pure, 8);
        assert_eq!(STRATEGIES.len() - pure, 8);
        let mut ids: Vec<_> = strategy_ids().to_vec();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 16);
    }

    #[test]
    fn every_hybrid_pairs_a_line_rule_and_an_edge_rule_that_bet_the_same_side() {
        for s in &STRATEGIES {
            if let StrategyDef::Hybrid { line, edge } = s.def {
                assert_eq!(line.kind, SignalKind::LineMove, "{}", s.id);
                assert_eq!(edge.kind, SignalKind::ModelEdge, "{}", s.id);
                assert_eq!(line.bet_side(), edge.bet_side(), "{}", s.id);
                assert_eq!(s.id, format!("hybrid-{}-{}", line.code(), edge.code()));
                assert_eq!(s.signal, "Hybrid");
            }
        }
    }

    #[test]
    fn the_hybrids_are_exactly_all_same_side_pairs() {
        let rules = [LINE_PB, LINE_PF, LINE_NB, LINE_NF];
        let edges = [EDGE_PB, EDGE_PF, EDGE_NB, EDGE_NF];
        let mut same_side = 0;
        for l in rules {
            for e in edges {
                let listed = STRATEGIES
                    .iter()
                    .any(|s| s.def == StrategyDef::Hybrid { line: l, edge: e });
                assert_eq!(listed, l.bet_side() == e.bet_side(), "{} {}", l.code(), e.code());
                same_side += usize::from(listed);
            }
        }
        assert_eq!(same_side, 8);
    }

    #[test]
    fn pure_ids_names_and_signal_labels_follow_the_codes() {
        for s in STRATEGIES.iter().take(8) {
            let r = parts(s)[0];
            let prefix = if r.kind == SignalKind::LineMove { "line" } else { "edge" };
            assert_eq!(s.id, format!("{prefix}-{}", r.code()));
            let noun = if r.kind == SignalKind::LineMove {
                "Line Move"
            } else {
                "Edge"
            };
            assert_eq!(s.name, format!("{} {}{noun}", r.verb(), r.sign()));
            assert_eq!(
                s.signal,
                if r.kind == SignalKind::LineMove {
                    "Line"
                } else {
                    "Δ Edge"
                }
            );
        }
    }

    #[test]
    fn hybrid_names_read_move_and_edge() {
        for s in STRATEGIES.iter().skip(8) {
            let [l, e] = parts(s)[..] else {
                panic!("hybrid has two parts")
            };
            assert_eq!(
                s.name,
                format!("{} {}Move AND {} {}Edge", l.verb(), l.sign(), e.verb(), e.sign())
            );
        }
    }

    #[test]
    fn follow_bets_the_signal_side_and_fade_the_other() {
        assert_eq!(LINE_PB.bet_side(), Side::Positive);
        assert_eq!(LINE_PF.bet_side(), Side::Negative);
        assert_eq!(LINE_NB.bet_side(), Side::Negative);
        assert_eq!(LINE_NF.bet_side(), Side::Positive);
    }

    #[test]
    fn unknown_ids_are_not_found() {
        assert!(find("line-pb").is_some());
        assert!(find("line-xx").is_none());
    }
}
