//! Per-season aggregates: summary, model tracking, calibration, team form,
//! rolling curves and density grids: HTTP only. All come from the core history
//! service's graded season cache, so they agree with `/results` row for
//! row; the JSON shapes are `linecast_payloads::history`.

use std::sync::Arc;

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_core::services::history::SeasonData;
use linecast_operation::operation;
use linecast_payloads::calibration::{CalibrationFormatCode, CalibrationResponse, CalibrationSourceCode, ClvFromCode};
use linecast_payloads::history::{
    DensityResponse, RollingResponse, SummaryResponse, TeamFormResponse, TrackingResponse,
};

use crate::error::ApiError;
use crate::params::{self, SportModelPath};
use crate::presentation::calibration::{self, CalibrationChoice, CalibrationView};
use crate::responses::Rendered;

/// Per-model record, win rates and EV ROI over the current season
///
/// Returns one entry per model with at least one graded pick, `ENSEMBLE` included: wins, losses and
/// abstentions, win and fade rates overall and over `1W` and `4W` (the 7 and 28 days ending on the latest
/// decided game), the rates per side, the EV ROI and the backtest of betting only at an EV of +10% or more.
/// Every figure comes from the graded rows `/results` serves, and `grading` states the rules. Percentages
/// are 0 to 100 with one decimal, null when the denominator is 0. Each call counts as one request of the
/// monthly quota.
///
/// See [payloads.md: Summary](/docs/payloads.md#summary-get-apiv1summarysportmodel_type-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Per-model summary", body = SummaryResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
pub async fn summary(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let load = |now| read.state.history.chosen_season(sport, model_type, None, now);
    let render = |data: &Arc<SeasonData>| Rendered::new(&SummaryResponse::new(data));
    read.serve(&(sport, model_type), load, render).await
}

/// Season, weekly and recent hit rates of each model
///
/// Returns each model's win rate and graded picks over the season, the last 4 weeks and the last week
/// (`snapshot`), a `weekly` series (one point every 7 days, each over the 28 days ending on `week_ending`,
/// `win_pct` null below 10 picks), the latest 20 graded games with each model's hit, and the rows'
/// provenance. `season` (`YYYY` for mlb, `YYYY-YY` otherwise) picks the season; without it the current
/// season is tracked. Each call counts as one request of the monthly quota.
///
/// See [payloads.md: Model tracking](/docs/payloads.md#model-tracking-get-apiv1modelssportmodel_typetracking-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season")
    ),
    responses(
        (status = 200, description = "Model tracking", body = TrackingResponse),
        (status = 400, description = "Unknown sport or model type, or a malformed season", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
pub async fn model_tracking(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let named = params::named_season(sport, &read.query)?;
    let load = |now| read.state.history.chosen_season(sport, model_type, named, now);
    let render = |data: &Arc<SeasonData>| Rendered::new(&TrackingResponse::new(data));
    read.serve(&(sport, model_type, named), load, render).await
}

/// Each team's recent results against the market in the current season
///
/// Returns, per team (by slug), the decided games, wins, losses and win rate of the current season, its
/// last (up to) 10 results with the most recent last, the current streak (e.g. `W3`) and the next game
/// date on the score tape. A result is from the team's side of the market: a moneyline win, a spread
/// cover, or an over for totals (both teams of a game that went over get a 1); a push counts for neither
/// team, and teams without a decided game are not listed. Each call counts as one request of the monthly
/// quota.
///
/// See [payloads.md: Team form](/docs/payloads.md#team-form-get-apiv1resultssportmodel_typeteam-form-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Team form", body = TeamFormResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
pub async fn team_form(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let load = |now| read.state.history.team_form_inputs(sport, model_type, now);
    let render = |inputs: &_| Rendered::new(&TeamFormResponse::new(inputs, inputs.assemble()));
    read.serve(&(sport, model_type), load, render).await
}

/// 28-day rolling win rate of each model, season by season
///
/// Returns one series per archived season (oldest first) and model: for every date with a graded game,
/// the win rate over the 28 days ending on it, skipping dates where the model had no graded pick in the
/// window. `historical_average` pools each model over every season (total wins / total picks). Each call
/// counts as one request of the monthly quota.
///
/// See [payloads.md: Rolling](/docs/payloads.md#rolling-get-apiv1resultssportmodel_typerolling-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Rolling curves", body = RollingResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody)
    )
)]
pub async fn rolling(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let load = |_| read.state.history.rolling(sport, model_type);
    let render = |cross: &_| Rendered::new(&RollingResponse::new(sport, model_type, cross));
    read.serve(&(sport, model_type), load, render).await
}

/// Hit rate of BLEND's picks by probability bin and season
///
/// Returns a grid with one row per season (the current season and up to ten before it that have a store,
/// oldest first) and one column per BLEND probability bin of width 0.05. Each cell holds the graded BLEND
/// picks whose probability falls in the bin (`n`) and the share that hit (null when `n` is 0). Each call
/// counts as one request of the monthly quota.
///
/// See [payloads.md: Density](/docs/payloads.md#density-get-apiv1resultssportmodel_typedensity-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Density grid", body = DensityResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody),
        (status = 404, description = "No season with a decided game", body = crate::error::ErrorBody)
    )
)]
pub async fn density(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let load = |now| read.state.history.density(sport, model_type, now);
    let render = |cross: &_| Rendered::new(&DensityResponse::new(sport, model_type, cross));
    read.serve(&(sport, model_type), load, render).await
}

/// Calibration, proper scores and market skill of each model in a season
///
/// Returns per model its reliability bins (10 bins of width 0.1 with Wilson 95% intervals), Brier score,
/// log loss, the Murphy decomposition, ECE, skill against the no-vig market on the same games and the
/// closing-line value of its picks on both bases (`clv_bases`; `from` moves the kept releases' pick from the
/// opening to the standing forecast). `season` defaults to the current season, and `source` keeps `live` or
/// `reconstructed` forecasts only, or `verified` the rows whose `archive_check` is `matched` (then `left_out`
/// counts the graded rows left out by check); default `all`. A source with no rows answers 200 with `games: 0`.
/// Brier, log loss and skill carry 95% bootstrap intervals (`*_ci`, each with its `n`; `intervals` states the
/// method, seed and resamples).
/// `format=svg` returns the reliability diagram as `image/svg+xml`, drawing the comma-separated `models`
/// (default BLEND and IMPLIED). Each call counts as one request of the monthly quota, a 304 included.
///
/// See [payloads.md: Calibration](/docs/payloads.md#calibration-get-apiv1modelssportmodel_typecalibration-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season (the same choice as summary)"),
        ("source" = Option<CalibrationSourceCode>, Query, description = "`all` (default), `live` (model_probability_source = live), `reconstructed` (walk_forward or reconstructed_oos) or `verified` (archive_check = matched)"),
        ("from" = Option<ClvFromCode>, Query, description = "Where the kept releases' CLV takes each model's pick and first price: `opening` (default; the game's first kept release) or `forecast` (its standing forecast, the last kept release before the start)"),
        ("format" = Option<CalibrationFormatCode>, Query, description = "`json` (default) or `svg` (a reliability diagram)"),
        ("models" = Option<String>, Query, description = "With `format=svg`: comma-separated model columns to draw (IMPLIED, BLEND, AI, CATB, RF, LGB, LOGR, XGB, XT); default BLEND,IMPLIED")
    ),
    responses(
        (status = 200, description = "Calibration, proper scores, skill against the market and closing-line value per model; `format=svg` answers `image/svg+xml`", body = CalibrationResponse,
            content(
                (CalibrationResponse = "application/json"),
                (String = "image/svg+xml")
            )
        ),
        (status = 400, description = "Unknown sport or model type, a malformed season, or a bad source, from, format or models value", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
pub async fn model_calibration(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let choice = CalibrationChoice::parse(sport, model_type, &read.query)?;
    let view = CalibrationView::parse(read.query.get("format"), read.query.get("models"))?;
    let state = &read.state;
    let (checks, history) = (&state.archive_checks, &state.history);
    calibration::serve(
        &read.req,
        &state.responses,
        checks,
        history,
        crate::endpoint::row(&read.req)?,
        choice,
        &view,
    )
    .await
}
