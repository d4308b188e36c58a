//! How the public scorecard is answered: its JSON payload
//! (`linecast_payloads::scorecard`), its reliability diagram (`format=svg`,
//! the calibration's drawing) and its HTML page (`/scorecard`), each
//! rendered once per scorecard (its deps) by the read pipeline.

use actix_web::http::header::{CONTENT_SECURITY_POLICY, HeaderValue};
use askama::Template;
use linecast_core::services::history::{SeasonData, SeasonList};
use linecast_core::services::scorecard::Scorecard;
use linecast_domain::{ModelColumn, ModelType, Sport};
use linecast_grading::calibration::{CalibrationSource, Clv, ClvReason};
use linecast_grading::interval::Interval;
use linecast_payloads::scorecard::{ScorecardModel, ScorecardPaths, ScorecardResponse};

use super::calibration::{SVG_POLICY, reliability_svg};
use crate::error::ApiError;
use crate::responses::Rendered;

/// The JSON payload.
pub fn json(data: &SeasonData, card: &Scorecard, paths: ScorecardPaths) -> Result<Rendered, ApiError> {
    Rendered::new(&ScorecardResponse::new(data, card, paths))
}

/// The reliability diagram of `models`, as the calibration draws it (with
/// `default-src 'none'`: an SVG opened on its own runs nothing).
pub fn svg(data: &SeasonData, card: &Scorecard, models: &[ModelColumn]) -> Result<Rendered, ApiError> {
    let svg = reliability_svg(data, CalibrationSource::Verified, &card.calibration, models)?;
    Ok(Rendered::from_bytes(svg.into(), "image/svg+xml")
        .with_header(CONTENT_SECURITY_POLICY, HeaderValue::from_static(SVG_POLICY)))
}

/// A choice of the page's form.
struct Choice {
    value: String,
    label: String,
    selected: bool,
}

/// One row of the page's table: each figure as text, with its interval.
struct Row {
    model: &'static str,
    market: bool,
    record: String,
    win_rate: String,
    brier: String,
    log_loss: String,
    skill_at_forecast: String,
    skill_at_close: String,
    clv: String,
    clv_sharp: String,
    clv_consensus: String,
}

impl Row {
    /// The row of one model's scores.
    fn of(m: &ScorecardModel) -> Self {
        Self {
            model: m.model,
            market: m.role == "market",
            record: format!("{}–{}", m.record.wins, m.record.losses),
            win_rate: figure(m.record.win_rate, m.record.win_rate_ci, m.record.n, 3),
            brier: figure(Some(m.brier), m.brier_ci, m.n, 4),
            log_loss: figure(Some(m.log_loss), m.log_loss_ci, m.n, 4),
            skill_at_forecast: m
                .skill_at_forecast
                .map_or_else(|| "–".to_owned(), |s| figure(s.brier_skill, s.brier_skill_ci, s.n, 4)),
            skill_at_close: m
                .skill_at_close
                .map_or_else(|| "–".to_owned(), |s| figure(s.brier_skill, s.brier_skill_ci, s.n, 4)),
            clv: clv_text(&m.clv_from_opening),
            clv_sharp: clv_text(&m.clv_vs_sharp_close),
            clv_consensus: clv_text(&m.clv_vs_consensus_close),
        }
    }
}

struct Day {
    date: String,
    rows: usize,
    href: String,
    /// The digests of the releases behind the day's rows.
    digests: Vec<String>,
}

#[derive(Template)]
#[template(path = "portal/scorecard.html")]
struct Page {
    heading: String,
    sports: Vec<Choice>,
    markets: Vec<Choice>,
    seasons: Vec<Choice>,
    games: usize,
    left_out: String,
    unsettled: String,
    rows: Vec<Row>,
    diagram: String,
    diagram_alt: String,
    days: Vec<Day>,
    json: String,
    calibration: String,
    seed: &'static str,
    resamples: usize,
    /// The season asked for is not the sport's: what is shown instead.
    note: Option<String>,
}

/// A figure, its interval and its n: `0.2143 [0.1987, 0.2301] n 253`.
fn figure(value: Option<f64>, ci: Option<Interval>, n: usize, places: usize) -> String {
    match (value, ci) {
        (None, _) => "–".to_owned(),
        (Some(v), Some(ci)) => format!("{v:.places$} [{:.places$}, {:.places$}] n {n}", ci.low, ci.high),
        (Some(v), None) => format!("{v:.places$} n {n}"),
    }
}

fn clv_text(clv: &Clv) -> String {
    match clv.reason {
        Some(ClvReason::FixedLine) => "fixed line".to_owned(),
        Some(ClvReason::NoKeptReleases) => "no kept releases".to_owned(),
        Some(ClvReason::NoLineMove) => "no line move".to_owned(),
        Some(ClvReason::NoPicks) => "no picks".to_owned(),
        Some(ClvReason::NoBookCloses) => "no book closes".to_owned(),
        None => figure(clv.mean, clv.mean_ci, clv.n, 2),
    }
}

/// The page of `data`'s scorecard, with the form's choices (`list`: the
/// season list of the sport and market shown) and `note` above them.
pub fn page(
    data: &SeasonData,
    card: &Scorecard,
    list: &SeasonList,
    note: Option<&str>,
    paths: ScorecardPaths,
) -> Result<Rendered, ApiError> {
    let payload = ScorecardResponse::new(data, card, paths);
    let rows = payload.models.iter().map(Row::of).collect();
    let choice = |value: &str, label: String, selected: bool| Choice {
        value: value.to_owned(),
        label,
        selected,
    };
    let left = payload.left_out;
    let unsettled = payload.unsettled;
    let page = Page {
        heading: format!(
            "{} {} {}",
            data.sport.code().to_uppercase(),
            data.model_type.name(),
            data.season
        ),
        sports: Sport::ALL
            .iter()
            .map(|s| choice(s.code(), s.code().to_uppercase(), *s == data.sport))
            .collect(),
        markets: ModelType::ALL
            .iter()
            .map(|m| choice(m.code(), m.name().to_owned(), *m == data.model_type))
            .collect(),
        seasons: list
            .seasons
            .iter()
            .map(|s| choice(&s.to_string(), s.to_string(), *s == data.season))
            .collect(),
        games: payload.games,
        left_out: format!(
            "{} mismatch, {} not kept, {} not applicable",
            left.mismatch, left.not_kept, left.not_applicable
        ),
        unsettled: format!(
            "{} disputed, {} pending, {} provisional",
            unsettled.disputed, unsettled.pending, unsettled.provisional
        ),
        rows,
        diagram_alt: format!(
            "Reliability diagram of BLEND and the market, {} games: observed rate against predicted probability by bin",
            payload.games
        ),
        diagram: payload.reliability_svg.clone(),
        days: payload
            .ledger_days
            .iter()
            .map(|d| Day {
                date: d.date.clone(),
                rows: d.rows,
                href: d.ledger.clone(),
                digests: d.releases.iter().map(|r| r.digest.clone()).collect(),
            })
            .collect(),
        json: payload.reliability_svg.replace("&format=svg", ""),
        calibration: payload.calibration.clone(),
        seed: payload.intervals.seed,
        resamples: payload.intervals.resamples,
        note: note.map(str::to_owned),
    };
    let html = page
        .render()
        .map_err(|e| ApiError::Internal(format!("rendering the scorecard page: {e}")))?;
    Ok(Rendered::from_bytes(html.into(), "text/html; charset=utf-8"))
}
