//! The calibration payload (`/models/{sport}/{model_type}/calibration`):
//! its JSON shape and schemas. The numbers are `linecast_grading::calibration`'s,
//! computed once per season generation and source by core. The reliability
//! diagram (`format=svg`) is drawn by the HTTP shell.

use linecast_core::services::history::SeasonData;
use linecast_domain::ModelColumn;
use linecast_grading::Model;
use linecast_grading::calibration::{Calibration, CalibrationSource, ClvFrom, LeftOut, ModelCalibration};
use linecast_grading::interval;
use linecast_grading::settlement::Unsettled;
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
    /// `all`, `live`, `reconstructed` or `verified`: which rows were read.
    #[schema(value_type = CalibrationSourceCode)]
    pub source: &'static str,
    /// `opening` (default) or `forecast`: the release at which
    /// `clv_bases.kept_releases` takes each model's pick and first price.
    #[schema(value_type = ClvFromCode)]
    pub clv_from: &'static str,
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
    /// How every `*_ci` interval of this payload was computed.
    pub intervals: IntervalMethod,
    /// With `source=verified`: the graded games left out because their
    /// `archive_check` is not `matched`, by check; null for other sources.
    #[schema(required = true, value_type = Option<LeftOutShape>)]
    pub left_out: Option<LeftOut>,
    /// The season's counts as calibration, summary and tracking each take
    /// them, side by side.
    pub denominators: Denominators,
    /// Of `games`, the finals whose `settlement_status` is not settled, by
    /// status: graded as recorded (the `settlement` rule), and counted.
    #[schema(value_type = UnsettledShape)]
    pub unsettled: Unsettled,
}

/// Graded finals a payload read whose settlement is not final, by
/// `settlement_status` (the `settlement` rule of `grading`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Unsettled)]
pub struct UnsettledShape {
    pub disputed: usize,
    pub pending: usize,
    pub provisional: usize,
}

/// One season's denominators, side by side: calibration's graded games of
/// the source asked, summary's graded BLEND picks and abstentions, and
/// tracking's graded games, all read from the same season generation.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Denominators {
    /// Graded games of the source asked: this payload's `games`.
    pub calibration: usize,
    /// BLEND's graded picks (wins + losses) in the season's summary.
    pub summary: usize,
    /// BLEND's graded games with a probability but no side (p = 0.5), which
    /// summary leaves out of `summary`.
    pub summary_abstained: usize,
    /// Graded games in the season's tracking (`total_games`).
    pub tracking: usize,
}

impl Denominators {
    /// The counts of `data`'s season beside `calibration`'s.
    pub fn of(data: &SeasonData, calibration: &Calibration) -> Self {
        let summary = data.summary();
        let blend = summary
            .entries
            .iter()
            .find(|e| e.model == Model::Column(ModelColumn::Blend));
        Self {
            calibration: calibration.games,
            summary: blend.map_or(0, |e| e.season.wins + e.season.losses),
            summary_abstained: blend.map_or(0, |e| e.abstained),
            tracking: data.tracking().total_games,
        }
    }
}

/// The method of the payload's 95% intervals: a percentile bootstrap over
/// games, seeded, so the same games give the same bounds.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct IntervalMethod {
    /// `bootstrap_percentile`.
    pub method: &'static str,
    /// Two-sided coverage: 0.95.
    pub level: f64,
    /// Resamples per figure: 1000.
    pub resamples: usize,
    /// SplitMix64's seed, restarted for every figure, as 16 hex digits
    /// with `0x` (a string: it exceeds 2^53, which JSON numbers in
    /// JavaScript cannot hold): `0x6c696e6563617374`.
    pub seed: &'static str,
}

impl IntervalMethod {
    pub const CURRENT: Self = Self {
        method: interval::METHOD,
        level: interval::LEVEL,
        resamples: interval::RESAMPLES,
        seed: interval::SEED_HEX,
    };
}

/// Graded games the verified source left out, by `archive_check`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = CalibrationLeftOut)]
pub struct LeftOutShape {
    /// The named release came at or after the start, did not carry the game, or carried another BLEND.
    pub mismatch: usize,
    /// No kept release at the named instant, or no `forecast_published_at`.
    pub not_kept: usize,
    /// Not a live forecast.
    pub not_applicable: usize,
}

/// A 95% interval of one figure and its games; 6 decimals.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Interval)]
pub struct IntervalShape {
    /// Games resampled (the figure's own n).
    pub n: usize,
    pub low: f64,
    pub high: f64,
}

impl CalibrationResponse {
    pub fn new(data: &SeasonData, source: CalibrationSource, from: ClvFrom, calibration: &Calibration) -> Self {
        Self {
            sport: data.sport.code().to_owned(),
            model_type: data.model_type.code().to_owned(),
            season: data.season.to_string(),
            source: source.code(),
            clv_from: from.code(),
            bins: calibration.bins,
            games: calibration.games,
            last_updated: rfc3339(data.version.last_modified),
            models: calibration.models.clone(),
            grading: CalibrationRules,
            intervals: IntervalMethod::CURRENT,
            left_out: calibration.left_out,
            denominators: Denominators::of(data, calibration),
            unsettled: calibration.unsettled,
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
    Verified,
}

/// The `from` values: where the kept releases' CLV takes its pick.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClvFromCode {
    Opening,
    Forecast,
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
    /// 95% bootstrap interval of `brier` over the model's games (see `intervals`).
    #[schema(required = true, value_type = Option<IntervalShape>)]
    pub brier_ci: Option<IntervalShape>,
    /// 95% bootstrap interval of `log_loss` over the model's games.
    #[schema(required = true, value_type = Option<IntervalShape>)]
    pub log_loss_ci: Option<IntervalShape>,
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
    /// Skill against the no-vig market in the kept release the standing
    /// forecast came from (the release its row's `forecast_published_at`
    /// names, archive check `matched`), besides `skill_vs_market` (the
    /// market at the recorded line); null on the IMPLIED entry.
    #[schema(required = true, value_type = Option<ForecastSkillShape>)]
    pub skill_at_forecast: Option<ForecastSkillShape>,
    /// Games where both this model and IMPLIED have a probability: the
    /// games the comparison with the market used (IMPLIED: its own `n`).
    pub n_paired: usize,
    /// The headline CLV: `clv_bases.kept_releases` when that basis has
    /// picks (n > 0), else `clv_bases.result_rows`; `basis` says which.
    pub clv: ClvShape,
    /// Both CLV bases, each over its own games with its own `n`.
    pub clv_bases: ClvBasesShape,
}

/// CLV on each basis; neither replaces the other.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ClvBases)]
pub struct ClvBasesShape {
    /// Pick at the game's opening release (`from=forecast`: its standing
    /// forecast's), measured to its close, over the graded games the kept
    /// releases carried before the start.
    pub kept_releases: ClvShape,
    /// The season rows' open-to-close line move, signed by the season
    /// row's pick (the standing forecast), over the graded games with a
    /// recorded move.
    pub result_rows: ClvShape,
    /// The `kept_releases` picks and first prices, measured to the sharp
    /// book's no-vig close on the named books (`books/{sport}.csv`).
    pub sharp_close: ClvShape,
    /// The same, measured to the median no-vig consensus of every named
    /// book's close.
    pub consensus_close: ClvShape,
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
    /// 95% bootstrap interval of `brier_skill`, the paired games resampled
    /// together; null when `brier_skill` is.
    #[schema(required = true)]
    pub brier_skill_ci: Option<IntervalShape>,
    /// 95% bootstrap interval of `log_loss_skill`; null when `log_loss_skill` is.
    #[schema(required = true)]
    pub log_loss_skill_ci: Option<IntervalShape>,
}

/// Skill against the no-vig market at the forecast's own release, over the
/// model's games whose release is kept, matched and priced on both sides.
/// 4 decimals, intervals 6; a metric is null when n is 0 or the market's
/// score is 0.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ForecastSkill)]
pub struct ForecastSkillShape {
    pub n: usize,
    /// 1 − Brier(model) / Brier(market at the forecast's release).
    #[schema(required = true)]
    pub brier_skill: Option<f64>,
    /// 1 − log loss(model) / log loss(market at the forecast's release).
    #[schema(required = true)]
    pub log_loss_skill: Option<f64>,
    /// 95% bootstrap interval of `brier_skill`.
    #[schema(required = true)]
    pub brier_skill_ci: Option<IntervalShape>,
    /// 95% bootstrap interval of `log_loss_skill`.
    #[schema(required = true)]
    pub log_loss_skill_ci: Option<IntervalShape>,
    /// The model's games left out: the forecast's release is not kept, its
    /// archive check is not `matched`, or it lacks a price.
    pub left_out: usize,
}

/// Closing-line value of the model's picks (p ≠ 0.5) on one basis, signed
/// by the pick, 4 decimals. `kept_releases`: the pick is the side the
/// model's probability favours at the game's opening release (or its
/// standing forecast's, `from=forecast`), and the CLV is that side's no-vig
/// probability at the close (the last kept release before the start) minus
/// at the pick's release, in probability points. `result_rows`: the season
/// row's Line Move (open to close line), signed by the season row's pick.
/// A basis without picks has `n` 0, `mean` null and a `reason`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Clv)]
pub struct ClvShape {
    pub n: usize,
    /// Mean CLV; null when n is 0.
    #[schema(required = true)]
    pub mean: Option<f64>,
    /// The 95% interval of `mean` (percentile bootstrap over the picks, as
    /// `intervals` states), 6 decimals; null when `mean` is.
    #[schema(required = true, value_type = Option<IntervalShape>)]
    pub mean_ci: Option<IntervalShape>,
    /// Share of picks with CLV > 0; null when n is 0.
    #[schema(required = true)]
    pub positive_share: Option<f64>,
    /// `probability_points` (× 100: on kept releases, and for moneyline
    /// on result rows) or `points` (spread and totals on result rows).
    #[schema(value_type = ClvUnitCode)]
    pub unit: String,
    /// `kept_releases`, `result_rows`, `sharp_close` or `consensus_close`.
    #[schema(value_type = ClvBasisCode)]
    pub basis: String,
    /// Why `mean` is null: `fixed_line` (result rows of the MLB run line or
    /// the NHL puck line, which never move), `no_kept_releases`,
    /// `no_line_move`, `no_picks` or `no_book_closes` (no named book's
    /// close); null when `mean` is a measurement.
    #[schema(required = true, value_type = Option<ClvReasonCode>)]
    pub reason: Option<String>,
}

/// Why a CLV basis has no figure.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClvReasonCode {
    FixedLine,
    NoKeptReleases,
    NoLineMove,
    NoPicks,
    NoBookCloses,
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
    SharpClose,
    ConsensusClose,
}
