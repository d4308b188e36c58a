//! The per-model summary: counts, win rates overall, by side and over the
//! 1W/4W windows, the EV system (`ev roi *`) and its +10% backtest (`bt *`).

use chrono::NaiveDate;
use linecast_domain::{ModelType, SeasonRow, Side, Sport};

use crate::ev::{BT_MIN_EV, ev_bet};
use crate::grade::{GradedRow, Pick, UngradedReason, grade_rows, probability};
use crate::market::Decision;
use crate::model::{MODEL_COUNT, Model};
use crate::tally::{EvTally, WinLoss, round_to};
use crate::window::{Window, latest_decided};

/// A summary of one season for one model type.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub model_type: ModelType,
    /// Latest decided game's date: the end of the 1W and 4W windows.
    pub window_end: Option<NaiveDate>,
    /// One entry per model with at least one graded pick, in [`Model::ALL`] order.
    pub entries: Vec<SummaryEntry>,
}

/// One model's summary. Render it with [`SummaryEntry::fields`] (or serde,
/// behind the `serde` feature) to get the public key spellings.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryEntry {
    pub model: Model,
    pub model_type: ModelType,
    pub season: WinLoss,
    pub one_week: WinLoss,
    pub four_weeks: WinLoss,
    /// Graded games where the model had a probability but picked no side.
    pub abstained: usize,
    pub ev_season: EvTally,
    pub ev_one_week: EvTally,
    pub ev_four_weeks: EvTally,
    pub bt_bets: usize,
    pub bt_wins: usize,
    pub bt_losses: usize,
    pub bt_units: f64,
}

/// A value of a rendered summary field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldValue {
    Text(&'static str),
    Count(usize),
    /// A number, or JSON null.
    Number(Option<f64>),
}

#[cfg(feature = "serde")]
impl serde::Serialize for FieldValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            FieldValue::Text(t) => s.serialize_str(t),
            FieldValue::Count(n) => s.serialize_u64(n as u64),
            FieldValue::Number(Some(x)) => s.serialize_f64(x),
            FieldValue::Number(None) => s.serialize_none(),
        }
    }
}

/// Side-rate keys in output order: `<pos> %`, `<neg> %`, `<pos> % 1W`,
/// `<pos> % 4W`, `<neg> % 1W`, `<neg> % 4W`.
const fn side_keys(model_type: ModelType) -> [&'static str; 6] {
    match model_type {
        ModelType::OverUnder => [
            "over %",
            "under %",
            "over % 1W",
            "over % 4W",
            "under % 1W",
            "under % 4W",
        ],
        ModelType::WonOnPoints | ModelType::WonOnSpread => {
            ["home %", "away %", "home % 1W", "home % 4W", "away % 1W", "away % 4W"]
        }
    }
}

impl SummaryEntry {
    /// The entry as ordered `(key, value)` pairs with the exact public key
    /// spellings of DESIGN "Summary entry keys".
    pub fn fields(&self) -> Vec<(&'static str, FieldValue)> {
        use FieldValue::{Count, Number, Text};
        let s = &self.season;
        let [pos, neg, pos_1w, pos_4w, neg_1w, neg_4w] = side_keys(self.model_type);
        vec![
            ("model", Text(self.model.name())),
            ("total_games", Count(s.n())),
            ("wins", Count(s.wins)),
            ("losses", Count(s.losses)),
            ("abstained", Count(self.abstained)),
            ("win %", Number(s.win_pct())),
            ("fade %", Number(crate::tally::percent(s.losses, s.n()))),
            ("win % 1W", Number(self.one_week.win_pct())),
            ("win % 4W", Number(self.four_weeks.win_pct())),
            (pos, Number(s.side_pct(Side::Positive))),
            (neg, Number(s.side_pct(Side::Negative))),
            (pos_1w, Number(self.one_week.side_pct(Side::Positive))),
            (pos_4w, Number(self.four_weeks.side_pct(Side::Positive))),
            (neg_1w, Number(self.one_week.side_pct(Side::Negative))),
            (neg_4w, Number(self.four_weeks.side_pct(Side::Negative))),
            ("ev roi", Number(self.ev_season.roi())),
            ("ev roi 1W", Number(self.ev_one_week.roi())),
            ("ev roi 4W", Number(self.ev_four_weeks.roi())),
            ("ev roi season", Number(self.ev_season.roi())),
            ("bt bets", Count(self.bt_bets)),
            ("bt wins", Count(self.bt_wins)),
            ("bt losses", Count(self.bt_losses)),
            ("bt units", Number(Some(round_to(self.bt_units, 4)))),
        ]
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SummaryEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let fields = self.fields();
        let mut map = s.serialize_map(Some(fields.len()))?;
        for (k, v) in &fields {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

fn empty_entry(model: Model, model_type: ModelType) -> SummaryEntry {
    SummaryEntry {
        model,
        model_type,
        season: WinLoss::default(),
        one_week: WinLoss::default(),
        four_weeks: WinLoss::default(),
        abstained: 0,
        ev_season: EvTally::default(),
        ev_one_week: EvTally::default(),
        ev_four_weeks: EvTally::default(),
        bt_bets: 0,
        bt_wins: 0,
        bt_losses: 0,
        bt_units: 0.0,
    }
}

/// Grades `rows` and summarizes them. See [`summarize_graded`].
pub fn summarize(rows: &[SeasonRow], sport: Sport, model_type: ModelType) -> Summary {
    let graded = grade_rows(rows, sport, model_type);
    summarize_graded(rows, &graded, model_type)
}

/// Summarizes rows already graded by [`crate::grade_rows`] (`graded[i]`
/// grades `rows[i]`).
///
/// - Win counts use graded rows where the model picked a side.
/// - `ev roi` uses every in-scope game with a final and a line (pushes
///   included: a push returns the stake) with the model's probability and
///   both recorded prices, except rows ungraded as `no_prediction`: a row no
///   real model picked belongs to nobody's record, IMPLIED's included.
///   ENSEMBLE has no probability of its own, so its EV fields are null and
///   `bt *` zero.
pub fn summarize_graded(rows: &[SeasonRow], graded: &[GradedRow], model_type: ModelType) -> Summary {
    let window_end = latest_decided(rows, graded);
    let w1 = window_end.map(Window::one_week);
    let w4 = window_end.map(Window::four_weeks);
    let mut entries: Vec<SummaryEntry> = Model::ALL.iter().map(|m| empty_entry(*m, model_type)).collect();

    for (row, g) in rows.iter().zip(graded) {
        let (Some(decision), true) = (g.decision, g.in_scope) else {
            continue;
        };
        let counts_for_ev = g.ungraded_reason != Some(UngradedReason::NoPrediction);
        let date = row.key.date;
        let in_1w = w1.is_some_and(|w| w.contains(date));
        let in_4w = w4.is_some_and(|w| w.contains(date));
        for (i, e) in entries.iter_mut().enumerate() {
            let model = Model::ALL[i];
            if g.graded {
                match (g.pick(model), g.hit(model)) {
                    (Some(Pick::Side(side)), Some(hit)) => {
                        e.season.record(side, hit);
                        if in_1w {
                            e.one_week.record(side, hit);
                        }
                        if in_4w {
                            e.four_weeks.record(side, hit);
                        }
                    }
                    (Some(Pick::Abstain), _) => e.abstained += 1,
                    _ => {}
                }
            }
            if !counts_for_ev {
                continue;
            }
            let Some(p) = probability(row, model_type, model) else {
                continue;
            };
            let Some(bet) = ev_bet(row, model_type, p, decision) else {
                continue;
            };
            e.ev_season.record(bet.units);
            if in_1w {
                e.ev_one_week.record(bet.units);
            }
            if in_4w {
                e.ev_four_weeks.record(bet.units);
            }
            if bet.ev >= BT_MIN_EV - 1e-12 {
                e.bt_bets += 1;
                e.bt_units += bet.units;
                match decision {
                    Decision::Won(w) if w == bet.side => e.bt_wins += 1,
                    Decision::Won(_) => e.bt_losses += 1,
                    Decision::Push => {}
                }
            }
        }
    }
    debug_assert_eq!(entries.len(), MODEL_COUNT);
    entries.retain(|e| e.season.n() > 0);
    Summary {
        model_type,
        window_end,
        entries,
    }
}

/// The grading rules, served as the `grading` object by summary and
/// tracking: each entry is (rule name, the rule in one sentence), in the
/// order they apply. Clients iterate it as a map.
pub const GRADING_RULES: &[(&str, &str)] = &[
    (
        "graded_game",
        "A game grades only with a final score and a line the market posted.",
    ),
    ("push", "A push (a final exactly on the line) grades no model."),
    (
        "settlement",
        "A final whose settlement_status is disputed, pending or provisional is graded as recorded, like a settled \
one, in results, calibration, summary and tracking; each of the three counts such graded finals by status in \
unsettled. Only recorded_v2 strategies leave them out.",
    ),
    (
        "pick",
        "A model picks the side its probability favors: above 0.5 the home or over side, below 0.5 the away or \
under side, exactly 0.5 no pick.",
    ),
    (
        "implied",
        "IMPLIED is the no-vig probability of both recorded prices; a game priced on one side only gives no \
IMPLIED pick.",
    ),
    (
        "ensemble",
        "ENSEMBLE picks a side when at least 5 of CATB, RF, LGB, LOGR, XGB and XT pick it.",
    ),
    (
        "game_types",
        "Professional leagues include regular-season and postseason games only; college leagues include every game.",
    ),
    (
        "ungraded",
        "Ungraded rows are left out when counting hits; a row where no model other than IMPLIED picks a side \
(no_prediction) belongs to no model's record, IMPLIED's included.",
    ),
    (
        "windows",
        "1W and 4W are the 7 and 28 days ending on the latest decided game's date (a final, a line, not a push).",
    ),
    (
        "ev_roi",
        "ev roi bets one unit on the side with the higher expected value at its recorded price on every game with a \
final, a line, the model's probability and both prices, except no_prediction rows; a push returns the stake; \
it reports the mean return in percent.",
    ),
    (
        "bt",
        "bt counts the same bets taken only when that expected value is at least +10%; bt units is their sum.",
    ),
];
