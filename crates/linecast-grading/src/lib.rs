//! Grading rules shared by results, summary, model tracking, team form,
//! rolling curves, density grids, calibration and strategies.
//!
//! Pure: no async runtime, no I/O, no web types; time is an argument. The
//! `serde` feature adds `Serialize` to every payload type, with the public
//! key spellings (`win %`, `home % 1W`, `ev roi season`, ...).
//!
//! Everything starts from [`grade_row`]: it decides whether a row is in
//! scope (professional leagues: regular season and postseason only), how the
//! market settled, each model's pick and hit, and the first ungraded reason.
//! The aggregates only ever count what it graded, so a summary always equals
//! regrading the results rows.
//!
//! ```
//! use chrono::{NaiveDate, NaiveTime};
//! use linecast_domain::{GameKey, ModelColumn, ModelType, SeasonLabel, SeasonRow, SeasonType, Sport};
//! use linecast_grading::{Model, Pick, grade_row, summarize};
//! use linecast_domain::Side;
//!
//! let key = GameKey::new(
//!     NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
//!     NaiveTime::from_hms_opt(19, 30, 0).unwrap(),
//!     "boston_celtics",
//!     "new_york_knicks",
//! );
//! let mut row = SeasonRow {
//!     key,
//!     game_id: "nba-20261120-boston_celtics-new_york_knicks".into(),
//!     season: SeasonLabel::starting(Sport::Nba, 2026),
//!     season_type: SeasonType::Regular,
//!     away_score: Some(101.0),
//!     home_score: Some(110.0),
//!     stored_outcome: None,
//!     lines: Default::default(),
//!     models: Default::default(),
//!     quote_source: None,
//!     settlement_status: Some("settled".into()),
//!     provenance: Default::default(),
//!     extras: Vec::new(),
//! };
//! row.lines.home_money_line = Some(-150.0);
//! row.lines.away_money_line = Some(130.0);
//! row.models.set(ModelColumn::Blend, Some(0.62));
//!
//! let graded = grade_row(&row, Sport::Nba, ModelType::WonOnPoints);
//! assert!(graded.graded);
//! assert_eq!(graded.outcome, Some(1));
//! assert_eq!(graded.pick(Model::Column(ModelColumn::Blend)), Some(Pick::Side(Side::Positive)));
//! assert_eq!(graded.hit(Model::Column(ModelColumn::Blend)), Some(true));
//!
//! let summary = summarize(&[row], Sport::Nba, ModelType::WonOnPoints);
//! let blend = &summary.entries[1]; // IMPLIED first, then BLEND
//! assert_eq!(blend.model, Model::Column(ModelColumn::Blend));
//! let fields = blend.fields();
//! assert_eq!(fields[5].0, "win %");
//! assert!(fields.iter().any(|(k, _)| *k == "home % 1W"));
//! ```

pub mod calibration;
pub mod daily;
pub mod density;
pub mod ev;
pub mod grade;
pub mod interval;
pub mod market;
pub mod model;
pub mod rolling;
pub mod scorecard;
pub mod settlement;
pub mod signal;
pub mod summary;
pub mod tally;
pub mod team_form;
pub mod tracking;
pub mod window;

pub use calibration::{
    CALIBRATION_RULES, Calibration, CalibrationSource, Clv, ClvBases, ClvFrom, ClvReason, ClvUnit, ModelCalibration,
    ReliabilityBin, Skill, calibrate, calibrate_graded, calibration_grading_rules,
};
pub use daily::{PerModel, WinPct};
pub use density::{Density, DensityCell, density};
pub use grade::{ENSEMBLE_QUORUM, GradedRow, Pick, UngradedReason, grade_row, grade_rows, in_scope, pick_for};
pub use market::{Decision, decide, implied, line_posted, push, side_prices};
pub use model::Model;
pub use rolling::{Rolling, RollingPoint, RollingSeason, rolling};
pub use signal::line_move;
pub use summary::{FieldValue, GRADING_RULES, Summary, SummaryEntry, summarize, summarize_graded};
pub use team_form::{TeamForm, team_form};
pub use tracking::{ForecastSource, Tracking, track, track_graded};
pub use window::Window;

#[cfg(test)]
mod tests;
