//! The public scorecard payload (`/api/v1/public/scorecard/{sport}/{model_type}`):
//! the figures of the paid calibration with `source=verified`, each model's
//! record over the same rows, and the ledger days the rows' forecasts were
//! published on. The numbers are `linecast_grading`'s, chosen by core's
//! `services::scorecard`; the links are built from the paths the HTTP
//! shell's route table hands in.

use linecast_core::services::history::SeasonData;
use linecast_core::services::scorecard::Scorecard;
use linecast_domain::ModelColumn;
use linecast_grading::calibration::{Clv, ForecastSkill, LeftOut, Skill};
use linecast_grading::interval::Interval;
use linecast_grading::scorecard::WIN_RATE_METHOD;
use linecast_grading::settlement::Unsettled;
use serde::Serialize;
use utoipa::ToSchema;

use crate::calibration::{
    ClvShape, ForecastSkillShape, IntervalMethod, IntervalShape, LeftOutShape, SkillShape, UnsettledShape,
};
use crate::time::rfc3339;

/// A track record anyone can check: per model, its record and proper
/// scores over the graded rows whose `archive_check` is `matched` (the
/// forecast is in a kept release published before the start, with the
/// row's BLEND), the market as a row of its own, each figure with its `n`
/// and 95% interval, and the ledger days behind the rows.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScorecardResponse {
    pub sport: String,
    pub model_type: String,
    pub season: String,
    /// Always `verified`: only rows whose `archive_check` is `matched`.
    pub source: &'static str,
    /// Publication time of the season store.
    #[schema(format = DateTime)]
    pub last_updated: String,
    /// Graded games read (the matched rows).
    pub games: usize,
    /// The graded games left out, by `archive_check`.
    #[schema(value_type = LeftOutShape)]
    pub left_out: LeftOut,
    /// Of `games`, the finals whose `settlement_status` is not settled,
    /// graded as recorded and counted.
    #[schema(value_type = UnsettledShape)]
    pub unsettled: Unsettled,
    /// How every bootstrap interval (`*_ci` but `win_rate_ci`) was computed.
    pub intervals: IntervalMethod,
    /// How `record.win_rate_ci` was computed: `wilson_score`, the analytic
    /// Wilson score interval at 95%.
    pub win_rate_interval: &'static str,
    /// The market (IMPLIED, `role: market`) first, then each model with a
    /// probability on at least one game read.
    pub models: Vec<ScorecardModel>,
    /// The UTC days the rows' forecasts were published on, oldest first,
    /// each with the public ledger day listing those releases' digests.
    pub ledger_days: Vec<LedgerDayLink>,
    /// The reliability diagram of BLEND and the market (SVG).
    pub reliability_svg: String,
    /// The paid calibration with the same figures (a subscription key).
    pub calibration: String,
}

/// One model's (or the market's) scorecard row.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ScorecardModel {
    /// IMPLIED (the market), BLEND, AI, CATB, RF, LGB, LOGR, XGB or XT.
    pub model: &'static str,
    /// `market` for IMPLIED (the no-vig probability of the recorded
    /// prices), `model` for the others.
    #[schema(value_type = ScorecardRole)]
    pub role: &'static str,
    /// Its picks' wins and losses.
    pub record: RecordShape,
    /// Games with a probability: the `n` of Brier and log loss.
    pub n: usize,
    /// Mean of (p − y)², 6 decimals.
    pub brier: f64,
    #[schema(required = true, value_type = Option<IntervalShape>)]
    pub brier_ci: Option<Interval>,
    /// Mean log loss, 6 decimals.
    pub log_loss: f64,
    #[schema(required = true, value_type = Option<IntervalShape>)]
    pub log_loss_ci: Option<Interval>,
    /// Skill against the no-vig market in the release the standing
    /// forecast came from: the market the forecast faced. Null for the
    /// market.
    #[schema(required = true, value_type = Option<ForecastSkillShape>)]
    pub skill_at_forecast: Option<ForecastSkill>,
    /// Skill against the no-vig market at the recorded (closing) prices.
    /// Null for the market.
    #[schema(required = true, value_type = Option<SkillShape>)]
    pub skill_at_close: Option<Skill>,
    /// CLV of the pick at the game's opening release, measured to its
    /// close on the kept releases, with its `n` and `mean_ci`.
    #[schema(value_type = ClvShape)]
    pub clv_from_opening: Clv,
    /// The same picks and first prices, measured to the sharp book's
    /// no-vig close (`basis: sharp_close`); `n` 0 with `no_book_closes`
    /// without named books.
    #[schema(value_type = ClvShape)]
    pub clv_vs_sharp_close: Clv,
    /// The same picks, measured to the consensus of the named books'
    /// closes (`basis: consensus_close`).
    #[schema(value_type = ClvShape)]
    pub clv_vs_consensus_close: Clv,
}

/// The role of a scorecard row.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScorecardRole {
    Market,
    Model,
}

/// Wins and losses of a model's picks (p > 0.5 the positive side, p < 0.5
/// the negative) on the graded games read.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ScorecardRecord)]
pub struct RecordShape {
    pub wins: usize,
    pub losses: usize,
    /// Games with p exactly 0.5: no side, in neither count.
    pub abstained: usize,
    /// Picks: wins + losses.
    pub n: usize,
    /// wins / n, 0 to 1, 4 decimals; null when n is 0.
    #[schema(required = true)]
    pub win_rate: Option<f64>,
    /// The Wilson score 95% interval of `win_rate`, 6 decimals.
    #[schema(required = true, value_type = Option<IntervalShape>)]
    pub win_rate_ci: Option<Interval>,
}

/// One ledger day behind the scorecard.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerDayLink {
    /// The UTC day, YYYY-MM-DD.
    #[schema(format = Date)]
    pub date: String,
    /// Graded rows read whose forecast's release was published that day.
    pub rows: usize,
    /// The public ledger day of `date`: it lists those releases with their
    /// digests, except a release recorded after the day was sealed (a late
    /// import), which is listed among the `late` releases of the day it was
    /// recorded on.
    pub ledger: String,
    /// The releases behind the rows, each once, by `published_at`.
    pub releases: Vec<LedgerRelease>,
}

/// A release behind a scorecard, as the ledger lists it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ScorecardRelease)]
pub struct LedgerRelease {
    /// Every digit, as the ledger writes it.
    #[schema(format = DateTime)]
    pub published_at: String,
    /// SHA-256 of the release's bytes, lowercase hex.
    pub digest: String,
}

/// Where the scorecard's links point: the route table's path templates.
#[derive(Debug, Clone, Copy)]
pub struct ScorecardPaths {
    /// `/api/v1/public/scorecard/{sport}/{model_type}`.
    pub scorecard: &'static str,
    /// `/api/v1/public/ledger/{date}`.
    pub ledger_day: &'static str,
    /// `/api/v1/models/{sport}/{model_type}/calibration`.
    pub calibration: &'static str,
}

impl ScorecardPaths {
    fn fill(template: &str, data: &SeasonData) -> String {
        template
            .replace("{sport}", data.sport.code())
            .replace("{model_type}", data.model_type.code())
    }
}

impl ScorecardResponse {
    pub fn new(data: &SeasonData, card: &Scorecard, paths: ScorecardPaths) -> Self {
        let c = &card.calibration;
        let season = data.season.to_string();
        Self {
            sport: data.sport.code().to_owned(),
            model_type: data.model_type.code().to_owned(),
            season: season.clone(),
            source: "verified",
            last_updated: rfc3339(data.version.last_modified),
            games: c.games,
            left_out: c.left_out.unwrap_or_default(),
            unsettled: c.unsettled,
            intervals: IntervalMethod::CURRENT,
            win_rate_interval: WIN_RATE_METHOD,
            models: c
                .models
                .iter()
                .map(|m| {
                    let record = card.record(m.model);
                    ScorecardModel {
                        model: m.model.code(),
                        role: if m.model == ModelColumn::Implied {
                            "market"
                        } else {
                            "model"
                        },
                        record: RecordShape {
                            wins: record.wins,
                            losses: record.losses,
                            abstained: record.abstained,
                            n: record.n(),
                            win_rate: record.win_rate(),
                            win_rate_ci: record.win_rate_ci(),
                        },
                        n: m.n,
                        brier: m.brier,
                        brier_ci: m.brier_ci,
                        log_loss: m.log_loss,
                        log_loss_ci: m.log_loss_ci,
                        skill_at_forecast: m.skill_at_forecast,
                        skill_at_close: m.skill_vs_market,
                        clv_from_opening: m.clv_bases.kept_releases,
                        clv_vs_sharp_close: m.clv_bases.sharp_close,
                        clv_vs_consensus_close: m.clv_bases.consensus_close,
                    }
                })
                .collect(),
            ledger_days: card
                .days
                .iter()
                .map(|day| {
                    let date = day.date.format("%Y-%m-%d").to_string();
                    LedgerDayLink {
                        ledger: paths.ledger_day.replace("{date}", &date),
                        date,
                        rows: day.rows,
                        releases: day
                            .releases
                            .iter()
                            .map(|r| LedgerRelease {
                                published_at: crate::time::exact(r.published_at),
                                digest: r.digest.clone(),
                            })
                            .collect(),
                    }
                })
                .collect(),
            reliability_svg: format!(
                "{}?season={season}&format=svg",
                ScorecardPaths::fill(paths.scorecard, data)
            ),
            calibration: format!(
                "{}?season={season}&source=verified",
                ScorecardPaths::fill(paths.calibration, data)
            ),
        }
    }
}
