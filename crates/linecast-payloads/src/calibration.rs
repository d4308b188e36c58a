//! The calibration payload (`/models/{sport}/{model_type}/calibration`):
//! its JSON shape and schemas. The numbers are `linecast_grading::calibration`'s,
//! computed once per season generation and source by core. The reliability
//! diagram (`format=svg`) is drawn by the HTTP shell.

use linecast_core::services::history::SeasonData;
use linecast_grading::calibration::{Calibration, CalibrationSource, ModelCalibration};
use serde::Serialize;
use utoipa::ToSchema;

use crate::schema::CalibrationRules;
use crate::time::rfc3339;

/// How well a model's probabilities match outcomes on one season: proper
/// scores, reliability bins, skill against the no-vig market and
/// closing-line value, per model.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CalibrationResponse {
    pub sport: String,
    pub model_type: String,
    pub season: String,
    /// `all`, `live` or `reconstructed`: which rows were read.
    #[schema(value_type = CalibrationSourceCode)]
    pub source: &'static str,
    /// Reliability bins per model (always 10, of width 0.1).
    pub bins: usize,
    /// Graded games of the source (the population before each model's own
    /// filter).
    pub games: usize,
    /// Publication time of the season store.
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// IMPLIED, BLEND, AI, CATB, RF, LGB, LOGR, XGB, XT, each only when it has
    /// a probability on at least one graded game.
    #[schema(value_type = Vec<ModelCalibrationShape>)]
    pub models: Vec<ModelCalibration>,
    /// The grading rules, with one per calibration definition.
    pub grading: CalibrationRules,
}

impl CalibrationResponse {
    pub fn new(data: &SeasonData, source: CalibrationSource, calibration: &Calibration) -> Self {
        Self {
            sport: data.sport.code().to_owned(),
            model_type: data.model_type.code().to_owned(),
            season: data.season.to_string(),
            source: source.code(),
            bins: calibration.bins,
            games: calibration.games,
            last_updated: rfc3339(data.version.last_modified),
            models: calibration.models.clone(),
            grading: CalibrationRules,
        }
    }
}

/// The `source` values.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CalibrationSourceCode {
    All,
    Live,
    Reconstructed,
}

/// The `format` values: the JSON payload or the SVG reliability diagram.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CalibrationFormatCode {
    Json,
    Svg,
}

/// One model's calibration, as `linecast_grading` serializes it.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ModelCalibration)]
pub struct ModelCalibrationShape {
    /// The model column: IMPLIED, BLEND, AI, CATB, RF, LGB, LOGR, XGB or XT.
    pub model: String,
    /// Graded games where the model has a probability of the positive side.
    pub n: usize,
    /// Mean of (p − y)², 6 decimals.
    pub brier: f64,
    /// −mean(y ln p + (1 − y) ln(1 − p)), p clipped to [1e-15, 1 − 1e-15]; 6 decimals.
    pub log_loss: f64,
    /// Always 10 bins of width 0.1: bin k holds k/10 ≤ p < (k+1)/10 (p = 1 in the last).
    pub reliability_bins: Vec<ReliabilityBinShape>,
    /// Σ n_k (p̄_k − ō_k)² / n; 6 decimals.
    pub reliability: f64,
    /// Σ n_k (ō_k − ō)² / n; 6 decimals.
    pub resolution: f64,
    /// ō (1 − ō); 6 decimals.
    pub uncertainty: f64,
    /// Expected calibration error Σ n_k |p̄_k − ō_k| / n; 6 decimals.
    pub ece: f64,
    /// Against IMPLIED on the games both priced; null on the IMPLIED entry.
    #[schema(required = true)]
    pub skill_vs_market: Option<SkillShape>,
    /// Games where both this model and IMPLIED have a probability: the
    /// games the comparison with the market used (IMPLIED: its own `n`).
    pub n_paired: usize,
    pub clv: ClvShape,
}

/// One reliability bin; an empty bin has n = 0 and nulls. 4 decimals.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ReliabilityBin)]
pub struct ReliabilityBinShape {
    pub lower: f64,
    pub upper: f64,
    pub n: usize,
    /// Mean forecast in the bin.
    #[schema(required = true)]
    pub mean_predicted: Option<f64>,
    /// Share of the bin's games whose positive side won.
    #[schema(required = true)]
    pub observed_rate: Option<f64>,
    /// Wilson 95% interval of the observed rate (z = 1.959963984540054).
    #[schema(required = true)]
    pub ci_low: Option<f64>,
    #[schema(required = true)]
    pub ci_high: Option<f64>,
}

/// Skill against the no-vig market over the paired games. 4 decimals; a
/// metric is null when n is 0 or the market's score is 0.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Skill)]
pub struct SkillShape {
    pub n: usize,
    /// 1 − Brier(model) / Brier(IMPLIED).
    #[schema(required = true)]
    pub brier_skill: Option<f64>,
    /// 1 − log loss(model) / log loss(IMPLIED).
    #[schema(required = true)]
    pub log_loss_skill: Option<f64>,
}

/// Closing-line value of the model's picks (p ≠ 0.5), signed by the pick,
/// 4 decimals. `basis` says what it was measured on: `kept_releases`, the
/// move of the no-vig probability of the picked side from the game's first
/// kept release to its closing release (probability points, every market);
/// `result_rows`, the season rows' Line Move (open to close line), used for
/// seasons without kept releases.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Clv)]
pub struct ClvShape {
    pub n: usize,
    /// Mean CLV; null when n is 0.
    #[schema(required = true)]
    pub mean: Option<f64>,
    /// Share of picks with CLV > 0; null when n is 0.
    #[schema(required = true)]
    pub positive_share: Option<f64>,
    /// `probability_points` (× 100: on kept releases, and for moneyline
    /// on result rows) or `points` (spread and totals on result rows).
    #[schema(value_type = ClvUnitCode)]
    pub unit: String,
    /// `kept_releases` or `result_rows`.
    #[schema(value_type = ClvBasisCode)]
    pub basis: String,
}

/// The CLV units.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClvUnitCode {
    ProbabilityPoints,
    Points,
}

/// What a CLV figure was measured on.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClvBasisCode {
    KeptReleases,
    ResultRows,
}
