//! Model quality: how well each model's probabilities are calibrated over a
//! season's graded games. Reliability bins with Wilson intervals, the Brier
//! score and its Murphy decomposition, log loss, expected calibration error,
//! skill against the no-vig market and the closing-line value of the picks.
//!
//! It owns these statistics and nothing else. Which rows count comes from
//! [`crate::grade_row`] (a graded row: an included game type, a final, a
//! posted line, no push, `ungraded_reason` null), IMPLIED from
//! [`crate::implied`], a pick from [`crate::pick_for`], the line move from
//! [`crate::signal::line_move`], the binning from
//! [`crate::density::equal_width_bin`] and rounding from the domain. It knows
//! nothing about HTTP, caching or drawing the diagram.
//!
//! Everything is computed in full precision and rounded once, when the
//! payload is built: `brier`, `log_loss`, `reliability`, `resolution`,
//! `uncertainty` and `ece` to 6 decimals, bins, skill and CLV to 4.
//!
//! Decisions the spec leaves open, written down here:
//! - Probabilities are taken as stored: the store only admits values in
//!   [0, 1], so nothing is clipped except inside the log loss.
//! - A forecast of exactly 0.5 counts in every score (it is a probability)
//!   but makes no pick, so it has no CLV.
//! - IMPLIED's CLV is computed like any model's, its pick being the side the
//!   no-vig market favours (at the pick's release on the kept releases; at
//!   the recorded line the move ends at on the result rows), so its CLV is a
//!   baseline (what following the market's favourite earns), not a
//!   forecast's skill.
//! - CLV has two bases, each over its own games and with its own `n`
//!   ([`ClvBases`]): the kept releases (pick at the opening, no look-ahead)
//!   and the result rows (pick of the season row, the standing forecast). A
//!   basis that measures nothing is null with a [`ClvReason`], never 0.
//! - The `source` filter reads `model_probability_source` only (tracking's
//!   `source` falls back from `forecast_source`); the value mapping is
//!   [`ForecastSource::classify`]. Rows without a known source are kept by
//!   `all` only.

use linecast_domain::{ModelColumn, ModelType, SeasonRow, Side, Sport, UnknownCode};

use crate::density::equal_width_bin;
use crate::grade::{GradedRow, Pick, grade_rows, pick_for, probability};
use crate::interval::{Interval, bootstrap};
use crate::model::Model;
use crate::settlement::Unsettled;
use crate::signal::line_move;
use crate::tally::round_to;
use crate::tracking::ForecastSource;

/// Number of reliability bins, each 0.1 wide.
pub const BINS: usize = 10;
/// z of the two-sided 95% Wilson interval.
pub const WILSON_Z: f64 = 1.959_963_984_540_054;
/// Log loss clips p to [`LOG_LOSS_CLIP`, 1 − `LOG_LOSS_CLIP`].
pub const LOG_LOSS_CLIP: f64 = 1e-15;
/// The models calibrated, in payload order. ENSEMBLE has no probability of
/// its own and is never listed.
pub const MODELS: [ModelColumn; 9] = [
    ModelColumn::Implied,
    ModelColumn::Blend,
    ModelColumn::Ai,
    ModelColumn::Catb,
    ModelColumn::Rf,
    ModelColumn::Lgb,
    ModelColumn::Logr,
    ModelColumn::Xgb,
    ModelColumn::Xt,
];

/// Which rows calibration reads: the `source` query value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CalibrationSource {
    /// Every row.
    #[default]
    All,
    /// Rows whose `model_probability_source` is `live`.
    Live,
    /// Rows whose `model_probability_source` is `walk_forward` or `reconstructed_oos`.
    Reconstructed,
    /// Rows whose `archive_check` is `matched`: the kept release their
    /// `forecast_published_at` names carried the game before its start
    /// with the row's BLEND. Only the archive's checks, which core makes,
    /// say which ([`calibrate_graded_with`]).
    Verified,
}

impl CalibrationSource {
    /// Every source, default first.
    pub const ALL: [CalibrationSource; 4] = [
        CalibrationSource::All,
        CalibrationSource::Live,
        CalibrationSource::Reconstructed,
        CalibrationSource::Verified,
    ];

    /// The `source` query value.
    pub const fn code(self) -> &'static str {
        match self {
            CalibrationSource::All => "all",
            CalibrationSource::Live => "live",
            CalibrationSource::Reconstructed => "reconstructed",
            CalibrationSource::Verified => "verified",
        }
    }

    /// Parses the `source` query value exactly.
    pub fn parse(value: &str) -> Result<Self, UnknownCode> {
        Self::ALL
            .into_iter()
            .find(|s| s.code() == value)
            .ok_or_else(|| UnknownCode {
                kind: "source",
                value: value.to_owned(),
                allowed: "all, live, reconstructed, verified".to_owned(),
            })
    }

    /// Whether the filter keeps `row`. [`Self::Verified`] admits every row
    /// here: the archive's `matched` marks, which core makes, decide
    /// ([`calibrate_graded_with`]; without them it keeps none).
    pub fn admits(self, row: &SeasonRow) -> bool {
        let kind = || {
            let value = row.provenance.model_probability_source.as_deref()?;
            ForecastSource::classify(value)
        };
        match self {
            // Verified: the archive's marks decide (`calibrate_graded_with`).
            CalibrationSource::All | CalibrationSource::Verified => true,
            CalibrationSource::Live => kind() == Some(ForecastSource::Live),
            CalibrationSource::Reconstructed => kind() == Some(ForecastSource::WalkForward),
        }
    }
}

/// The unit of a market's CLV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ClvUnit {
    /// Moneyline: implied-probability points (the move × 100).
    ProbabilityPoints,
    /// Spread and totals: points of the line.
    Points,
}

impl ClvUnit {
    /// The unit of `model_type`'s line move.
    pub const fn of(model_type: ModelType) -> Self {
        match model_type {
            ModelType::WonOnPoints => ClvUnit::ProbabilityPoints,
            ModelType::WonOnSpread | ModelType::OverUnder => ClvUnit::Points,
        }
    }

    /// The public value (`probability_points`, `points`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ClvUnit::ProbabilityPoints => "probability_points",
            ClvUnit::Points => "points",
        }
    }

    /// What one unit of the raw line move is worth in this unit.
    const fn scale(self) -> f64 {
        match self {
            ClvUnit::ProbabilityPoints => 100.0,
            ClvUnit::Points => 1.0,
        }
    }
}

/// One reliability bin: the forecasts with `lower ≤ p < upper` (the last bin
/// also holds p = 1). Values have 4 decimals; every `Option` is null exactly
/// when `n` is 0.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ReliabilityBin {
    pub lower: f64,
    pub upper: f64,
    pub n: usize,
    /// Mean forecast p̄ of the bin.
    pub mean_predicted: Option<f64>,
    /// Share ō of the bin's games the positive side won.
    pub observed_rate: Option<f64>,
    /// Wilson 95% interval of `observed_rate`; it contains it and lies in [0, 1].
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
}

/// Skill against the no-vig market on the paired games (the model and
/// IMPLIED both have a probability): 1 − the model's score over IMPLIED's.
/// Positive beats the market. 4 decimals.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Skill {
    /// Paired games.
    pub n: usize,
    /// Null when `n` is 0 or IMPLIED's Brier score is 0.
    pub brier_skill: Option<f64>,
    /// Null when `n` is 0 or IMPLIED's log loss is 0.
    pub log_loss_skill: Option<f64>,
    /// 95% bootstrap interval of `brier_skill` over the paired games
    /// ([`crate::interval`]), 6 decimals; null when `brier_skill` is.
    pub brier_skill_ci: Option<Interval>,
    /// 95% bootstrap interval of `log_loss_skill`, 6 decimals; null when
    /// `log_loss_skill` is.
    pub log_loss_skill_ci: Option<Interval>,
}

/// Skill against the no-vig market at the standing forecast's own release
/// (the kept release its row's `forecast_published_at` names, matched by
/// the archive): the market the forecast faced, not the close. As
/// [`Skill`], over the model's games with that price, and the count of
/// those without it.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ForecastSkill {
    /// Games with a market price at the forecast's release.
    pub n: usize,
    pub brier_skill: Option<f64>,
    pub log_loss_skill: Option<f64>,
    pub brier_skill_ci: Option<Interval>,
    pub log_loss_skill_ci: Option<Interval>,
    /// The model's games left out: the forecast's release is not kept (or
    /// its archive check is not `matched`), or it lacks a price.
    pub left_out: usize,
}

/// Closing-line value of a model's picks on one [`ClvBasis`], 4 decimals.
/// On [`ClvBasis::KeptReleases`] the pick is the model's side at the
/// game's opening release (or its standing forecast's release, with
/// [`ClvFrom::Forecast`]) and the CLV is the move of that side's no-vig
/// probability from that release to the close, in probability points; on
/// [`ClvBasis::ResultRows`] the season row's Line Move, signed by the season
/// row's pick (the standing forecast), in the market's [`ClvUnit`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Clv {
    /// Picks (p ≠ 0.5) with a move on the basis.
    pub n: usize,
    /// Mean CLV; null when `n` is 0 (then `reason` says why).
    pub mean: Option<f64>,
    /// The 95% interval of `mean`: the percentile bootstrap over the picks
    /// ([`crate::interval`]), 6 decimals; null when `mean` is.
    pub mean_ci: Option<Interval>,
    /// Share of the picks with CLV > 0, 0 to 1; null when `n` is 0.
    pub positive_share: Option<f64>,
    pub unit: ClvUnit,
    pub basis: ClvBasis,
    /// Why `mean` is null; null when it is a measurement.
    pub reason: Option<ClvReason>,
}

/// Why a basis has no CLV figure (`n` 0, `mean` null).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ClvReason {
    /// The result rows' line of this market never moves (the MLB run line
    /// and the NHL puck line stay at ±1.5): nothing to measure.
    FixedLine,
    /// No graded game of the population was carried, before its start, by
    /// a kept release with prices (kept releases basis).
    NoKeptReleases,
    /// No graded game of the population has a recorded opener and close
    /// line (result rows basis).
    NoLineMove,
    /// Games have a move, but the model picked no side on any of them
    /// (no probability at the pick's release, or exactly 0.5).
    NoPicks,
    /// No graded game of the population has a named book's close before
    /// its start (sharp and consensus close bases).
    NoBookCloses,
}

impl ClvReason {
    /// The public value.
    pub const fn as_str(self) -> &'static str {
        match self {
            ClvReason::FixedLine => "fixed_line",
            ClvReason::NoKeptReleases => "no_kept_releases",
            ClvReason::NoLineMove => "no_line_move",
            ClvReason::NoPicks => "no_picks",
            ClvReason::NoBookCloses => "no_book_closes",
        }
    }
}

/// Both CLV bases of a model, each over its own games.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ClvBases {
    pub kept_releases: Clv,
    pub result_rows: Clv,
    /// The kept releases' pick and first price, measured to the sharp
    /// book's no-vig close.
    pub sharp_close: Clv,
    /// The kept releases' pick and first price, measured to the no-vig
    /// consensus of the named books' closes.
    pub consensus_close: Clv,
}

impl ClvBases {
    /// The figure of the legacy `clv` field: the kept releases' when that
    /// basis has picks, else the result rows'.
    pub fn headline(&self) -> Clv {
        if self.kept_releases.n > 0 {
            self.kept_releases
        } else {
            self.result_rows
        }
    }
}

/// What a CLV figure was measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ClvBasis {
    /// The kept releases: the no-vig price of the picked side at the
    /// pick's release and at the game's close.
    KeptReleases,
    /// The season rows' recorded open and close lines.
    ResultRows,
    /// The kept releases' pick, measured to the sharp book's close.
    SharpClose,
    /// The kept releases' pick, measured to the books' consensus close.
    ConsensusClose,
}

/// Where the kept releases' CLV takes its pick and first price: the `from`
/// query value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ClvFrom {
    /// The game's opening: the first kept predictions release that carried it.
    #[default]
    Opening,
    /// The game's standing forecast: the last kept predictions release
    /// published before its scheduled start.
    Forecast,
}

impl ClvFrom {
    /// Every value, default first.
    pub const ALL: [ClvFrom; 2] = [ClvFrom::Opening, ClvFrom::Forecast];

    /// The `from` query value.
    pub const fn code(self) -> &'static str {
        match self {
            ClvFrom::Opening => "opening",
            ClvFrom::Forecast => "forecast",
        }
    }

    /// Parses the `from` query value exactly.
    pub fn parse(value: &str) -> Result<Self, UnknownCode> {
        Self::ALL
            .into_iter()
            .find(|s| s.code() == value)
            .ok_or_else(|| UnknownCode {
                kind: "from",
                value: value.to_owned(),
                allowed: "opening, forecast".to_owned(),
            })
    }
}

/// Whether the season rows' line of `model_type` is fixed in `sport`, so
/// its open-to-close move measures nothing: the MLB run line and the NHL
/// puck line (±1.5).
pub const fn fixed_line(sport: Sport, model_type: ModelType) -> bool {
    sport.fixed_spread().is_some() && matches!(model_type, ModelType::WonOnSpread)
}

/// One game on the kept releases: the no-vig probability of the positive
/// side at the release the pick is taken at (`opening`: the game's opening
/// release, or its standing forecast's with [`ClvFrom::Forecast`]), the
/// model columns of the game's row at that release (`models`: each
/// model's pick is the side its probability there favours; IMPLIED's is
/// `opening` itself) and the no-vig probability of the positive side at
/// the close (`closing`: the last kept release published before the start).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PriceMove {
    pub opening: f64,
    pub closing: f64,
    pub models: linecast_domain::ModelProbs,
    /// The positive side's no-vig probability at the sharp book's close
    /// (its last kept price before the start); `None` without one.
    pub sharp_closing: Option<f64>,
    /// The positive side's no-vig consensus of the named books' closes;
    /// `None` without one.
    pub consensus_closing: Option<f64>,
}

impl PriceMove {
    /// The probability `column` picks with at the pick's release.
    fn probability(&self, column: ModelColumn) -> Option<f64> {
        match column {
            ModelColumn::Implied => Some(self.opening),
            _ => self.models.get(column).filter(|p| p.is_finite()),
        }
    }
}

/// Price moves by game id, from the kept releases of one season.
pub type PriceMoves = std::collections::HashMap<linecast_domain::GameId, PriceMove>;

/// One model's calibration over its population (the graded games where it
/// has a probability of the positive side).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct ModelCalibration {
    /// Serialized as its code (`IMPLIED`, `BLEND`, ...).
    pub model: ModelColumn,
    /// Size of the population, at least 1.
    pub n: usize,
    /// Mean of (p − y)², in [0, 1].
    pub brier: f64,
    /// −mean(y ln p + (1 − y) ln(1 − p)), p clipped to [1e-15, 1 − 1e-15]; ≥ 0.
    pub log_loss: f64,
    /// 95% bootstrap interval of `brier` over the population
    /// ([`crate::interval`]), 6 decimals, with its `n`.
    pub brier_ci: Option<Interval>,
    /// 95% bootstrap interval of `log_loss`, 6 decimals, with its `n`.
    pub log_loss_ci: Option<Interval>,
    /// Always [`BINS`] bins; their `n` sum to `n`.
    pub reliability_bins: Vec<ReliabilityBin>,
    /// Σ n_k (p̄_k − ō_k)² / n.
    pub reliability: f64,
    /// Σ n_k (ō_k − ō)² / n, ō the model's mean outcome.
    pub resolution: f64,
    /// ō (1 − ō).
    pub uncertainty: f64,
    /// Σ n_k |p̄_k − ō_k| / n.
    pub ece: f64,
    /// Null on the IMPLIED entry (the market against itself).
    pub skill_vs_market: Option<Skill>,
    /// Skill against the no-vig market in the kept release the standing
    /// forecast came from; null on IMPLIED and when not measured.
    pub skill_at_forecast: Option<ForecastSkill>,
    /// Games where both this model and IMPLIED have a probability: the
    /// games the comparison with the market used (IMPLIED: its own `n`).
    pub n_paired: usize,
    /// The headline figure: [`ClvBases::headline`].
    pub clv: Clv,
    /// Both bases, each with its own `n`.
    pub clv_bases: ClvBases,
}

/// The calibration payload of one season, model type and source (the
/// caller adds `sport`, `model`, `season`, `source` and `grading`).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Calibration {
    /// Graded games after the source filter.
    pub games: usize,
    /// Number of reliability bins: [`BINS`].
    pub bins: usize,
    /// Models with a non-empty population, in [`MODELS`] order; empty when
    /// `games` is 0.
    pub models: Vec<ModelCalibration>,
    /// With [`CalibrationSource::Verified`]: the graded games left out
    /// because their archive check is not `matched`, by check; else null.
    pub left_out: Option<LeftOut>,
    /// The games read whose final is not settled, by status
    /// ([`crate::settlement`]: graded as recorded, and counted).
    pub unsettled: Unsettled,
}

/// Graded games the verified source left out, by their `archive_check`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LeftOut {
    /// The named release was published at or after the start, did not
    /// carry the game, or carried another BLEND.
    pub mismatch: usize,
    /// No kept release at the named instant, or no `forecast_published_at`.
    pub not_kept: usize,
    /// Not a live forecast.
    pub not_applicable: usize,
}

impl LeftOut {
    /// Every game left out.
    pub const fn total(&self) -> usize {
        self.mismatch + self.not_kept + self.not_applicable
    }
}

/// Grades `rows` and calibrates them. See [`calibrate_graded`].
pub fn calibrate(rows: &[SeasonRow], sport: Sport, model_type: ModelType, source: CalibrationSource) -> Calibration {
    let graded = grade_rows(rows, sport, model_type);
    calibrate_graded(rows, &graded, sport, model_type, source)
}

/// Calibrates rows already graded by [`crate::grade_rows`] (`graded[i]`
/// grades `rows[i]`): the source filter first, then the graded rows, then
/// each model's population. No kept releases: the kept releases' CLV basis
/// is null ([`ClvReason::NoKeptReleases`]).
pub fn calibrate_graded(
    rows: &[SeasonRow],
    graded: &[GradedRow],
    sport: Sport,
    model_type: ModelType,
    source: CalibrationSource,
) -> Calibration {
    calibrate_graded_priced(rows, graded, sport, model_type, source, None)
}

/// [`calibrate_graded`] with the kept releases' price moves (`None` or
/// empty: no game has kept releases). Both CLV bases are measured, each
/// over its own games: the kept releases' over the graded games in
/// `prices`, the result rows' over the graded games with a recorded move.
pub fn calibrate_graded_priced(
    rows: &[SeasonRow],
    graded: &[GradedRow],
    sport: Sport,
    model_type: ModelType,
    source: CalibrationSource,
    prices: Option<&PriceMoves>,
) -> Calibration {
    calibrate_graded_with(
        rows,
        graded,
        sport,
        model_type,
        source,
        Inputs {
            prices,
            ..Inputs::default()
        },
    )
}

/// What a calibration reads besides the season rows, each optional.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inputs<'a> {
    /// The kept releases' price moves (CLV on the kept releases).
    pub prices: Option<&'a PriceMoves>,
    /// The market at each game's standing forecast's own release (skill at
    /// forecast time); `None`: not measured (`skill_at_forecast` null).
    pub at_forecast: Option<&'a ForecastPrices>,
    /// For [`CalibrationSource::Verified`]: which rows the archive matched
    /// (`matched[i]` for `rows[i]`), and the graded rows it did not, by
    /// check. Without it the verified source reads no row.
    pub verified: Option<(&'a [bool], LeftOut)>,
}

/// The no-vig probability of the positive side in the kept release each
/// game's standing forecast came from (the release its row's
/// `forecast_published_at` names, matched by the archive), by game id.
pub type ForecastPrices = std::collections::HashMap<linecast_domain::GameId, f64>;

/// [`calibrate_graded_priced`] with every input: the verified source's
/// matched rows, the kept releases' prices and the market at each
/// forecast's own release.
pub fn calibrate_graded_with(
    rows: &[SeasonRow],
    graded: &[GradedRow],
    sport: Sport,
    model_type: ModelType,
    source: CalibrationSource,
    inputs: Inputs<'_>,
) -> Calibration {
    let matched = inputs.verified.map(|(matched, _)| matched);
    let keeps = |i: usize, row: &SeasonRow| {
        source.admits(row)
            && (source != CalibrationSource::Verified || matched.is_some_and(|m| m.get(i) == Some(&true)))
    };
    let left_out = if source == CalibrationSource::Verified {
        Some(inputs.verified.map(|(_, l)| l).unwrap_or_default())
    } else {
        None
    };
    Calibration {
        left_out,
        ..calibrate_where(
            rows,
            graded,
            sport,
            model_type,
            keeps,
            inputs.prices,
            inputs.at_forecast,
        )
    }
}

/// Calibrates the graded rows `keeps` admits (by index and row).
fn calibrate_where(
    rows: &[SeasonRow],
    graded: &[GradedRow],
    sport: Sport,
    model_type: ModelType,
    keeps: impl Fn(usize, &SeasonRow) -> bool,
    prices: Option<&PriceMoves>,
    at_forecast: Option<&ForecastPrices>,
) -> Calibration {
    let mut population: Vec<Game<'_>> = rows
        .iter()
        .zip(graded)
        .enumerate()
        .filter(|(i, (row, _))| keeps(*i, row))
        .filter_map(|(_, (row, g))| Game::of(row, g, model_type, prices, at_forecast))
        .collect();
    // The order `/results` serves the rows in (stable, by date, time and
    // teams): the intervals resample the games in it, so a reader can
    // recompute them from the served rows.
    population.sort_by(|a, b| a.row.key.cmp(&b.row.key));
    let fixed = fixed_line(sport, model_type);
    let models = MODELS
        .into_iter()
        .filter_map(|column| calibrate_model(column, &population, model_type, fixed, at_forecast.is_some()))
        .collect();
    Calibration {
        games: population.len(),
        bins: BINS,
        models,
        left_out: None,
        unsettled: Unsettled::of(population.iter().map(|g| g.row)),
    }
}

/// A graded game of the population.
struct Game<'a> {
    row: &'a SeasonRow,
    /// True when the positive side won.
    y: bool,
    implied: Option<f64>,
    /// The season row's Line Move (result rows basis).
    line_move: Option<f64>,
    /// The game on the kept releases, when they carried it before its start.
    price: Option<&'a PriceMove>,
    /// The market at the standing forecast's own release.
    at_forecast: Option<f64>,
}

impl<'a> Game<'a> {
    fn of(
        row: &'a SeasonRow,
        g: &GradedRow,
        model_type: ModelType,
        prices: Option<&'a PriceMoves>,
        at_forecast: Option<&ForecastPrices>,
    ) -> Option<Self> {
        if !g.graded {
            return None;
        }
        Some(Self {
            row,
            y: g.outcome? == 1,
            implied: g.implied,
            line_move: line_move(row, model_type),
            price: prices.and_then(|p| p.get(&row.game_id)),
            at_forecast: at_forecast.and_then(|m| m.get(&row.game_id).copied()),
        })
    }

    fn probability(&self, column: ModelColumn, model_type: ModelType) -> Option<f64> {
        match column {
            ModelColumn::Implied => self.implied,
            _ => probability(self.row, model_type, Model::Column(column)),
        }
    }
}

fn calibrate_model(
    column: ModelColumn,
    population: &[Game<'_>],
    model_type: ModelType,
    fixed: bool,
    at_forecast: bool,
) -> Option<ModelCalibration> {
    let mut forecasts = Vec::new();
    let (mut model_paired, mut market_paired) = (Vec::new(), Vec::new());
    let (mut model_at_release, mut market_at_release, mut no_release) = (Vec::new(), Vec::new(), 0);
    let (mut on_rows, mut on_releases) = (ClvTally::default(), ClvTally::default());
    let (mut on_sharp, mut on_consensus) = (ClvTally::default(), ClvTally::default());
    let row_unit = ClvUnit::of(model_type);
    for game in population {
        if let Some(price) = game.price {
            on_releases.moved = true;
            let line_move = Some(price.closing - price.opening);
            if let Some(p) = price.probability(column)
                && let Some(value) = pick_clv(p, line_move, ClvUnit::ProbabilityPoints)
            {
                on_releases.record(value);
            }
            for (tally, closing) in [
                (&mut on_sharp, price.sharp_closing),
                (&mut on_consensus, price.consensus_closing),
            ] {
                let Some(closing) = closing else { continue };
                tally.moved = true;
                if let Some(p) = price.probability(column)
                    && let Some(value) = pick_clv(p, Some(closing - price.opening), ClvUnit::ProbabilityPoints)
                {
                    tally.record(value);
                }
            }
        }
        let Some(p) = game.probability(column, model_type) else {
            continue;
        };
        let f = Forecast { p, y: game.y };
        forecasts.push(f);
        if let Some(market) = game.implied {
            model_paired.push(f);
            market_paired.push(Forecast { p: market, y: game.y });
        }
        match game.at_forecast {
            Some(market) => {
                model_at_release.push(f);
                market_at_release.push(Forecast { p: market, y: game.y });
            }
            None => no_release += 1,
        }
        if !fixed {
            on_rows.moved |= game.line_move.is_some();
            if let Some(value) = pick_clv(p, game.line_move, row_unit) {
                on_rows.record(value);
            }
        }
    }
    let scores = Scores::of(&forecasts)?;
    let skill = skill(&model_paired, &market_paired);
    let [brier_ci, log_loss_ci] = score_intervals(&forecasts);
    let [brier_skill_ci, log_loss_skill_ci] = if column == ModelColumn::Implied {
        [None, None]
    } else {
        skill_intervals(&model_paired, &market_paired)
    };
    let r6 = |ci: Option<Interval>| ci.map(|c| c.rounded(6));
    let skill_at_forecast = (at_forecast && column != ModelColumn::Implied).then(|| {
        let raw = self::skill(&model_at_release, &market_at_release);
        let [brier_ci, log_loss_ci] = skill_intervals(&model_at_release, &market_at_release);
        ForecastSkill {
            n: raw.n,
            brier_skill: raw.brier_skill.map(|s| round_to(s, 4)),
            log_loss_skill: raw.log_loss_skill.map(|s| round_to(s, 4)),
            brier_skill_ci: r6(raw.brier_skill.and(brier_ci)),
            log_loss_skill_ci: r6(raw.log_loss_skill.and(log_loss_ci)),
            left_out: no_release,
        }
    });
    let result_rows = if fixed {
        null_clv(row_unit, ClvBasis::ResultRows, ClvReason::FixedLine)
    } else {
        on_rows.rounded(row_unit, ClvBasis::ResultRows, ClvReason::NoLineMove)
    };
    let clv_bases = ClvBases {
        kept_releases: on_releases.rounded(
            ClvUnit::ProbabilityPoints,
            ClvBasis::KeptReleases,
            ClvReason::NoKeptReleases,
        ),
        result_rows,
        sharp_close: on_sharp.rounded(
            ClvUnit::ProbabilityPoints,
            ClvBasis::SharpClose,
            ClvReason::NoBookCloses,
        ),
        consensus_close: on_consensus.rounded(
            ClvUnit::ProbabilityPoints,
            ClvBasis::ConsensusClose,
            ClvReason::NoBookCloses,
        ),
    };
    Some(ModelCalibration {
        model: column,
        n: forecasts.len(),
        brier: round_to(scores.brier, 6),
        log_loss: round_to(scores.log_loss, 6),
        brier_ci: r6(brier_ci),
        log_loss_ci: r6(log_loss_ci),
        reliability_bins: scores.bins.iter().enumerate().map(|(k, b)| b.rounded(k)).collect(),
        reliability: round_to(scores.reliability, 6),
        resolution: round_to(scores.resolution, 6),
        uncertainty: round_to(scores.uncertainty, 6),
        ece: round_to(scores.ece, 6),
        skill_vs_market: (column != ModelColumn::Implied).then(|| Skill {
            n: skill.n,
            brier_skill: skill.brier_skill.map(|s| round_to(s, 4)),
            log_loss_skill: skill.log_loss_skill.map(|s| round_to(s, 4)),
            brier_skill_ci: r6(skill.brier_skill.and(brier_skill_ci)),
            log_loss_skill_ci: r6(skill.log_loss_skill.and(log_loss_skill_ci)),
        }),
        skill_at_forecast,
        n_paired: if column == ModelColumn::Implied {
            forecasts.len()
        } else {
            skill.n
        },
        clv: clv_bases.headline(),
        clv_bases,
    })
}

/// One forecast of the positive side and whether that side won.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Forecast {
    pub p: f64,
    pub y: bool,
}

impl Forecast {
    fn y(self) -> f64 {
        f64::from(u8::from(self.y))
    }

    fn squared_error(self) -> f64 {
        (self.p - self.y()).powi(2)
    }

    /// −(y ln p + (1 − y) ln(1 − p)) with p clipped to [ε, 1 − ε]: only the
    /// term of the outcome that happened is non-zero, so this is −ln of that
    /// outcome's probability clipped to [ε, 1 − ε]. The same number, but a
    /// certain miss costs exactly −ln ε: 1 − (1 − ε) in floats is not ε.
    fn log_loss(self) -> f64 {
        let happened = if self.y { self.p } else { 1.0 - self.p };
        -happened.clamp(LOG_LOSS_CLIP, 1.0 - LOG_LOSS_CLIP).ln()
    }
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Mean of (p − y)²; `None` without forecasts.
pub(crate) fn brier(forecasts: &[Forecast]) -> Option<f64> {
    mean(forecasts.iter().map(|f| f.squared_error()))
}

/// Mean log loss; `None` without forecasts.
pub(crate) fn log_loss(forecasts: &[Forecast]) -> Option<f64> {
    mean(forecasts.iter().map(|f| f.log_loss()))
}

/// The forecasts of one reliability bin, in full precision.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct BinTally {
    pub n: usize,
    pub sum_p: f64,
    pub hits: usize,
}

impl BinTally {
    fn mean_predicted(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_p / self.n as f64)
    }

    fn observed_rate(&self) -> Option<f64> {
        (self.n > 0).then(|| self.hits as f64 / self.n as f64)
    }

    fn rounded(&self, k: usize) -> ReliabilityBin {
        let r4 = |x: Option<f64>| x.map(|v| round_to(v, 4));
        let ci = wilson(self.hits, self.n);
        ReliabilityBin {
            lower: round_to(k as f64 / BINS as f64, 4),
            upper: round_to((k + 1) as f64 / BINS as f64, 4),
            n: self.n,
            mean_predicted: r4(self.mean_predicted()),
            observed_rate: r4(self.observed_rate()),
            ci_low: r4(ci.map(|c| c.0)),
            ci_high: r4(ci.map(|c| c.1)),
        }
    }
}

/// The [`BINS`] reliability bins of `forecasts`.
pub(crate) fn tally_bins(forecasts: &[Forecast]) -> [BinTally; BINS] {
    let mut bins = [BinTally::default(); BINS];
    for f in forecasts {
        let bin = &mut bins[equal_width_bin(f.p, BINS)];
        bin.n += 1;
        bin.sum_p += f.p;
        bin.hits += usize::from(f.y);
    }
    bins
}

/// Wilson's 95% score interval of `hits` successes in `n` trials; `None`
/// when `n` is 0. It always contains hits / n and lies in [0, 1]: the ends
/// are exactly 0 with no hit and exactly 1 with no miss, where float
/// rounding could otherwise cross the observed rate.
pub(crate) fn wilson(hits: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (hits_f, n_f) = (hits as f64, n as f64);
    let rate = hits_f / n_f;
    let z2 = WILSON_Z * WILSON_Z;
    let denominator = 1.0 + z2 / n_f;
    let center = (rate + z2 / (2.0 * n_f)) / denominator;
    let half = WILSON_Z / denominator * (rate * (1.0 - rate) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    let low = if hits == 0 { 0.0 } else { (center - half).max(0.0) };
    let high = if hits >= n { 1.0 } else { (center + half).min(1.0) };
    Some((low, high))
}

/// Every score of one model's population, in full precision.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scores {
    pub brier: f64,
    pub log_loss: f64,
    pub bins: [BinTally; BINS],
    pub reliability: f64,
    pub resolution: f64,
    pub uncertainty: f64,
    pub ece: f64,
}

impl Scores {
    /// `None` for an empty population.
    pub(crate) fn of(forecasts: &[Forecast]) -> Option<Self> {
        let brier = brier(forecasts)?;
        let log_loss = log_loss(forecasts)?;
        let n = forecasts.len() as f64;
        let base_rate = mean(forecasts.iter().map(|f| f.y()))?;
        let bins = tally_bins(forecasts);
        let (mut reliability, mut resolution, mut ece) = (0.0, 0.0, 0.0);
        for bin in &bins {
            let (Some(p), Some(o)) = (bin.mean_predicted(), bin.observed_rate()) else {
                continue;
            };
            let weight = bin.n as f64;
            reliability += weight * (p - o).powi(2);
            resolution += weight * (o - base_rate).powi(2);
            ece += weight * (p - o).abs();
        }
        Some(Self {
            brier,
            log_loss,
            bins,
            reliability: reliability / n,
            resolution: resolution / n,
            uncertainty: base_rate * (1.0 - base_rate),
            ece: ece / n,
        })
    }
}

/// [`Skill`] in full precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawSkill {
    pub n: usize,
    pub brier_skill: Option<f64>,
    pub log_loss_skill: Option<f64>,
}

/// Skill of `model` against `market`, aligned game by game (`model[i]` and
/// `market[i]` forecast the same game). Every model's `skill_vs_market` goes
/// through here.
pub(crate) fn skill(model: &[Forecast], market: &[Forecast]) -> RawSkill {
    debug_assert_eq!(model.len(), market.len());
    let score = |own: Option<f64>, reference: Option<f64>| {
        let (own, reference) = (own?, reference?);
        (reference != 0.0).then(|| 1.0 - own / reference)
    };
    RawSkill {
        n: model.len(),
        brier_skill: score(brier(model), brier(market)),
        log_loss_skill: score(log_loss(model), log_loss(market)),
    }
}

/// The 95% intervals of the Brier score and the log loss of `forecasts`,
/// read from the same resamples. Each game's two losses are computed once;
/// a resample's figure is the mean of its games' losses, as [`brier`] and
/// [`log_loss`] are over all games.
fn score_intervals(forecasts: &[Forecast]) -> [Option<Interval>; 2] {
    let losses: Vec<(f64, f64)> = forecasts.iter().map(|f| (f.squared_error(), f.log_loss())).collect();
    bootstrap(losses.len(), |drawn| {
        let n = drawn.len() as f64;
        let (squared, log) = drawn
            .iter()
            .fold((0.0, 0.0), |(s, l), i| (s + losses[*i].0, l + losses[*i].1));
        [Some(squared / n), Some(log / n)]
    })
}

/// The 95% intervals of the skill figures of `model` against `market`
/// (aligned game by game), resampling the paired games together: 1 − the
/// model's mean loss over the market's on each resample, as [`skill`].
fn skill_intervals(model: &[Forecast], market: &[Forecast]) -> [Option<Interval>; 2] {
    let losses: Vec<[f64; 4]> = model
        .iter()
        .zip(market)
        .map(|(own, reference)| {
            [
                own.squared_error(),
                reference.squared_error(),
                own.log_loss(),
                reference.log_loss(),
            ]
        })
        .collect();
    bootstrap(losses.len(), |drawn| {
        let sum = |k: usize| drawn.iter().map(|i| losses[*i][k]).sum::<f64>();
        let ratio = |own: f64, reference: f64| (reference != 0.0).then(|| 1.0 - own / reference);
        [ratio(sum(0), sum(1)), ratio(sum(2), sum(3))]
    })
}

/// The CLV of one forecast: the line move signed by the side `p` picks, in
/// `unit`. `None` without a pick (p = 0.5) or without a line move.
pub(crate) fn pick_clv(p: f64, line_move: Option<f64>, unit: ClvUnit) -> Option<f64> {
    let sign = match pick_for(p)? {
        Pick::Side(Side::Positive) => 1.0,
        Pick::Side(Side::Negative) => -1.0,
        Pick::Abstain => return None,
    };
    Some(sign * line_move? * unit.scale())
}

#[derive(Debug, Clone, Default)]
struct ClvTally {
    /// Each pick's CLV, in the population's order (the order the interval
    /// resamples).
    values: Vec<f64>,
    /// Whether any game of the population had a move on the basis.
    moved: bool,
}

impl ClvTally {
    fn record(&mut self, clv: f64) {
        self.values.push(clv);
    }

    /// The figure; without picks, null with `no_move` as the reason when
    /// no game had a move, else [`ClvReason::NoPicks`].
    fn rounded(&self, unit: ClvUnit, basis: ClvBasis, no_move: ClvReason) -> Clv {
        let values = &self.values;
        if values.is_empty() {
            let reason = if self.moved { ClvReason::NoPicks } else { no_move };
            return null_clv(unit, basis, reason);
        }
        let n = values.len() as f64;
        let positive = values.iter().filter(|v| **v > 0.0).count();
        let [mean_ci] = bootstrap(values.len(), |drawn| {
            [Some(drawn.iter().map(|i| values[*i]).sum::<f64>() / drawn.len() as f64)]
        });
        Clv {
            n: values.len(),
            mean: Some(round_to(values.iter().sum::<f64>() / n, 4)),
            mean_ci: mean_ci.map(|c| c.rounded(6)),
            positive_share: Some(round_to(positive as f64 / n, 4)),
            unit,
            basis,
            reason: None,
        }
    }
}

/// A basis without picks: `n` 0, nulls and why.
fn null_clv(unit: ClvUnit, basis: ClvBasis, reason: ClvReason) -> Clv {
    Clv {
        n: 0,
        mean: None,
        mean_ci: None,
        positive_share: None,
        unit,
        basis,
        reason: Some(reason),
    }
}

/// The calibration rules, served in the calibration payload's `grading`
/// object after [`crate::GRADING_RULES`] (see [`calibration_grading_rules`]):
/// (rule name, the rule in one sentence). No name repeats one of
/// `GRADING_RULES`.
pub const CALIBRATION_RULES: &[(&str, &str)] = &[
    (
        "source",
        "source all reads every row, live the rows whose model_probability_source is live, reconstructed those \
whose model_probability_source is walk_forward or reconstructed_oos; the filter applies before everything else.",
    ),
    (
        "verified",
        "source verified reads the rows whose archive_check is matched (the kept release named by \
forecast_published_at carried the game before its start with the row's BLEND); left_out counts the graded games \
it left out by archive_check.",
    ),
    (
        "intervals",
        "brier_ci, log_loss_ci and the skill intervals are 95% percentile bootstrap intervals over the figure's own \
games in the order results serves them (skill: the paired games resampled together): 1000 resamples drawn by SplitMix64 from seed \
7811896410388919156 (0x6c696e6563617374), the stream restarting for each figure, index floor(x n / 2^64); the \
bounds are the 2.5% and 97.5% quantiles interpolated between order statistics, 6 decimals.",
    ),
    (
        "population",
        "Calibration reads the graded games (an included game type, a final, a posted line, no push, no ungraded \
reason); a model's population is the games where it has a probability of the home or over side, IMPLIED's the \
games priced on both sides.",
    ),
    (
        "outcome",
        "The outcome y is 1 when the home or over side won (home won, home covered, over), else 0.",
    ),
    ("brier", "brier is the mean of (p - y)^2 over the model's population."),
    (
        "log_loss",
        "log_loss is -mean(y ln p + (1 - y) ln(1 - p)), with p clipped to [1e-15, 1 - 1e-15].",
    ),
    (
        "reliability_bins",
        "Ten bins of width 0.1 on p (k/10 <= p < (k+1)/10, p = 1 in the last bin) give each bin's count, mean \
forecast, observed rate and its Wilson 95% interval (z = 1.959963984540054); an empty bin has nulls.",
    ),
    (
        "decomposition",
        "reliability is sum n_k (mean p_k - rate_k)^2 / n, resolution sum n_k (rate_k - rate)^2 / n and uncertainty \
rate (1 - rate), rate being the model's mean outcome; with one forecast per bin, brier = reliability - resolution \
+ uncertainty.",
    ),
    ("ece", "ece is sum n_k |mean p_k - rate_k| / n over the ten bins."),
    (
        "skill_vs_market",
        "skill_vs_market compares a model with IMPLIED on the games where both have a probability: 1 minus the \
model's score over IMPLIED's, for brier and log loss; null without such games or when IMPLIED's score is 0.",
    ),
    (
        "skill_at_forecast",
        "skill_at_forecast compares a model with the no-vig market in the kept release its row's \
forecast_published_at names, on the games whose archive_check is matched and whose release priced both sides; \
left_out counts the model's other games (release not kept, not matched, or a price missing).",
    ),
    (
        "clv_kept_releases",
        "clv_bases.kept_releases: each model's pick is the side its probability favors (p not 0.5; IMPLIED: the \
no-vig market's favorite) at the game's opening, the first kept predictions release that carried it (from=forecast: \
the last kept predictions release before the start), and its CLV is that side's no-vig probability at the close, the \
last kept predictions release published before the scheduled start, minus its no-vig probability at the pick's \
release, in probability points (x 100); no release at or after the start counts.",
    ),
    (
        "clv_result_rows",
        "clv_bases.result_rows: the season row's line move from the opener to the recorded line (an opener of 0 is \
none), signed +1 for a home or over pick and -1 for an away or under pick of the season row (the standing \
forecast), over the picks with a move: probability points on moneyline, points on spread and totals; a fixed line \
(MLB run line, NHL puck line) is null with reason fixed_line.",
    ),
    (
        "clv_book_closes",
        "clv_bases.sharp_close and clv_bases.consensus_close: the pick and first price of clv_bases.kept_releases, \
measured to the sharp book's no-vig close (its last kept books price before the scheduled start) or to the median \
no-vig consensus of every named book's close, in probability points (x 100); a game counts when it has that close; \
without named books (books/{sport}.csv) the reason is no_book_closes.",
    ),
    (
        "clv",
        "Each basis has its own n; a basis without picks has mean null and a reason (fixed_line, no_kept_releases, \
no_line_move, no_picks, no_book_closes), never 0. clv repeats clv_bases.kept_releases when it has picks, else \
clv_bases.result_rows.",
    ),
];

/// The calibration payload's `grading` object: [`crate::GRADING_RULES`],
/// then [`CALIBRATION_RULES`].
pub fn calibration_grading_rules() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    crate::GRADING_RULES.iter().chain(CALIBRATION_RULES)
}
