//! Per-row grading: scope (game types), outcome, push, IMPLIED, each
//! model's pick and hit, and the first ungraded reason that applies.
//!
//! Every aggregate (summary, tracking, team form, rolling, density) reads
//! these results, so the rules live here and nowhere else.

use linecast_domain::{ModelColumn, ModelType, SeasonRow, Side, Sport};

use crate::market::{Decision, decide, implied};
use crate::model::{MODEL_COUNT, Model};

/// Minimum number of the six individual models that must pick the same side
/// for ENSEMBLE to pick it.
pub const ENSEMBLE_QUORUM: usize = 5;

/// A model's call on one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pick {
    /// The side the probability favours.
    Side(Side),
    /// Probability exactly 0.5 (or, for ENSEMBLE, no side reached the quorum).
    Abstain,
}

impl Pick {
    /// The picked side, if any.
    pub const fn side(self) -> Option<Side> {
        match self {
            Pick::Side(s) => Some(s),
            Pick::Abstain => None,
        }
    }
}

/// Why a row did not grade, in the order the rules are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum UngradedReason {
    /// No final score (either score missing).
    NoFinal,
    /// The market posted no line (see [`crate::line_posted`]).
    NoLine,
    /// The final landed exactly on the line: no model grades.
    Push,
    /// No model picked a side: no probability at all, or every available
    /// probability exactly 0.5. IMPLIED alone never makes a row graded,
    /// because it is the market, not a prediction.
    NoPrediction,
}

impl UngradedReason {
    /// The public value (`no_final`, `no_line`, `push`, `no_prediction`).
    pub const fn as_str(self) -> &'static str {
        match self {
            UngradedReason::NoFinal => "no_final",
            UngradedReason::NoLine => "no_line",
            UngradedReason::Push => "push",
            UngradedReason::NoPrediction => "no_prediction",
        }
    }
}

/// Grading of one season-store row for one model type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradedRow {
    /// False for a professional-league row that is neither regular season nor
    /// postseason (e.g. preseason). Such a row is outside the season for
    /// every payload: results should not serve it (`total` excludes it) and
    /// no aggregate counts it. It gets `graded = false`, `ungraded_reason =
    /// None` (the four public reasons describe in-scope rows only) and no
    /// hits; outcome, push, IMPLIED and picks are still computed as facts.
    pub in_scope: bool,
    /// How the market settled; `None` without a final or a line.
    pub decision: Option<Decision>,
    /// `push`: true on the line, false when decided, `None` without a final or line.
    pub push: Option<bool>,
    /// Recomputed outcome column: 1 when the positive side won, 0 otherwise
    /// (a push reads 0); `None` without a final or line.
    pub outcome: Option<u8>,
    /// Recomputed IMPLIED: no-vig probability of the positive side from both
    /// recorded prices; `None` with one side only.
    pub implied: Option<f64>,
    /// True when at least one model graded the game (has a hit).
    pub graded: bool,
    /// First reason that applies when an in-scope row is not graded.
    pub ungraded_reason: Option<UngradedReason>,
    picks: [Option<Pick>; MODEL_COUNT],
    hits: [Option<bool>; MODEL_COUNT],
}

impl GradedRow {
    /// The model's pick; `None` when it has no probability for this game.
    pub fn pick(&self, model: Model) -> Option<Pick> {
        self.picks[model.index()]
    }

    /// Whether the model's pick won: `Some` only on a graded row where the
    /// model picked a side.
    pub fn hit(&self, model: Model) -> Option<bool> {
        self.hits[model.index()]
    }
}

/// True when the row's game type is graded for the sport: professional
/// leagues grade regular season and postseason only, college grades all.
pub fn in_scope(row: &SeasonRow, sport: Sport) -> bool {
    !sport.is_professional() || row.season_type.is_competitive()
}

/// The pick a probability makes: above 0.5 the positive side, below the
/// negative side, exactly 0.5 no pick. Non-finite values are no probability.
pub fn pick_for(p: f64) -> Option<Pick> {
    if !p.is_finite() {
        return None;
    }
    Some(if p > 0.5 {
        Pick::Side(Side::Positive)
    } else if p < 0.5 {
        Pick::Side(Side::Negative)
    } else {
        Pick::Abstain
    })
}

/// The probability a model grades with on this row: the recomputed IMPLIED
/// for IMPLIED, the stored column otherwise, `None` for ENSEMBLE (it has
/// no probability of its own).
pub fn probability(row: &SeasonRow, model_type: ModelType, model: Model) -> Option<f64> {
    match model {
        Model::Column(ModelColumn::Implied) => implied(row, model_type),
        Model::Column(c) => row.models.get(c).filter(|p| p.is_finite()),
        Model::Ensemble => None,
    }
}

/// ENSEMBLE's pick from the six individual picks: the side at least
/// [`ENSEMBLE_QUORUM`] of them pick; `Abstain` otherwise; `None` when no
/// individual model has a probability.
pub fn ensemble_pick(individual: impl IntoIterator<Item = Option<Pick>>) -> Option<Pick> {
    let (mut any, mut pos, mut neg) = (false, 0usize, 0usize);
    for pick in individual.into_iter().flatten() {
        any = true;
        match pick {
            Pick::Side(Side::Positive) => pos += 1,
            Pick::Side(Side::Negative) => neg += 1,
            Pick::Abstain => {}
        }
    }
    if !any {
        None
    } else if pos >= ENSEMBLE_QUORUM {
        Some(Pick::Side(Side::Positive))
    } else if neg >= ENSEMBLE_QUORUM {
        Some(Pick::Side(Side::Negative))
    } else {
        Some(Pick::Abstain)
    }
}

/// Grades one row under the shared grading rules.
pub fn grade_row(row: &SeasonRow, sport: Sport, model_type: ModelType) -> GradedRow {
    let in_scope = in_scope(row, sport);
    let decision = decide(row, model_type);
    let implied = implied(row, model_type);

    let mut picks = [None; MODEL_COUNT];
    for model in Model::ALL {
        if model != Model::Ensemble {
            picks[model.index()] = probability(row, model_type, model).and_then(pick_for);
        }
    }
    picks[Model::Ensemble.index()] =
        ensemble_pick(ModelColumn::INDIVIDUAL.iter().map(|c| picks[Model::Column(*c).index()]));

    let winner = match decision {
        Some(Decision::Won(side)) if in_scope => Some(side),
        _ => None,
    };
    let mut hits = [None; MODEL_COUNT];
    if let Some(winner) = winner {
        for (hit, pick) in hits.iter_mut().zip(picks) {
            *hit = pick.and_then(Pick::side).map(|s| s == winner);
        }
    }
    let implied_ix = Model::Column(ModelColumn::Implied).index();
    let graded = hits.iter().enumerate().any(|(i, h)| i != implied_ix && h.is_some());
    if !graded {
        // IMPLIED alone never grades a row (see `UngradedReason::NoPrediction`).
        hits[implied_ix] = None;
    }

    let ungraded_reason = if graded || !in_scope {
        None
    } else if !row.has_final() {
        Some(UngradedReason::NoFinal)
    } else {
        Some(match decision {
            None => UngradedReason::NoLine,
            Some(Decision::Push) => UngradedReason::Push,
            Some(Decision::Won(_)) => UngradedReason::NoPrediction,
        })
    };

    GradedRow {
        in_scope,
        decision,
        push: decision.map(|d| d == Decision::Push),
        outcome: decision.map(|d| u8::from(d == Decision::Won(Side::Positive))),
        implied,
        graded,
        ungraded_reason,
        picks,
        hits,
    }
}

/// Grades every row, in input order.
pub fn grade_rows(rows: &[SeasonRow], sport: Sport, model_type: ModelType) -> Vec<GradedRow> {
    rows.iter().map(|r| grade_row(r, sport, model_type)).collect()
}
