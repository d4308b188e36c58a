//! How a calibration is answered: its JSON payload
//! (`linecast_payloads::calibration`) or its reliability diagram
//! (`format=svg`, drawn by `linecast-charts` from the figures given here),
//! served from the calibration route's memo and response cache
//! ([`serve`]) for the API's route and the portal's diagram alike.
//!
//! A diagram's models are drawn in the payload's order (`MODELS`), whatever
//! order the request named them in: the list is part of the response
//! cache's key, so each set of models is one cached body and one ETag.
//! The SVG carries `Content-Security-Policy: default-src 'none'`, so a
//! browser opening it directly runs and fetches nothing.

use actix_web::http::header::{CONTENT_SECURITY_POLICY, HeaderValue};
use actix_web::{HttpRequest, HttpResponse};
use linecast_charts::{Bin, Curve, Reliability};
use linecast_core::services::archive_check::ArchiveChecks;
use linecast_core::services::history::{History, SeasonData};
use linecast_domain::{ModelColumn, ModelType, SeasonLabel, Sport};
use linecast_grading::calibration::{Calibration, CalibrationSource, ClvFrom, MODELS};
use linecast_payloads::calibration::CalibrationResponse;

use crate::endpoint::Endpoint;
use crate::error::ApiError;
use crate::responses::{Rendered, Responses};

/// The models drawn when `models` is not given (the same body as
/// `models=BLEND,IMPLIED` in either order).
pub const DEFAULT_DIAGRAM_MODELS: [ModelColumn; 2] = [ModelColumn::Implied, ModelColumn::Blend];

/// How a calibration is written: the JSON payload, or the reliability
/// diagram of some models.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CalibrationView {
    Json,
    Svg(Vec<ModelColumn>),
}

impl CalibrationView {
    /// The view of `format` (`json`, the default, or `svg`) and `models`
    /// (checked whatever the format; default BLEND, IMPLIED).
    pub fn parse(format: Option<&String>, models: Option<&String>) -> Result<Self, ApiError> {
        let svg = match format.map(String::as_str) {
            None | Some("json") => false,
            Some("svg") => true,
            Some(other) => return Err(ApiError::invalid_param("format", other, "json, svg")),
        };
        let models = models.map(|raw| diagram_models(raw)).transpose()?;
        Ok(if svg {
            Self::Svg(models.unwrap_or_else(|| DEFAULT_DIAGRAM_MODELS.to_vec()))
        } else {
            Self::Json
        })
    }

    /// The body of this view.
    pub fn render(
        &self,
        data: &SeasonData,
        source: CalibrationSource,
        from: ClvFrom,
        calibration: &Calibration,
    ) -> Result<Rendered, ApiError> {
        match self {
            Self::Json => Rendered::new(&CalibrationResponse::new(data, source, from, calibration)),
            Self::Svg(models) => reliability_svg(data, source, calibration, models).map(|svg| {
                Rendered::from_bytes(svg.into(), "image/svg+xml")
                    .with_header(CONTENT_SECURITY_POLICY, HeaderValue::from_static(SVG_POLICY))
            }),
        }
    }
}

/// One calibration as asked for: the API's path and query, or the
/// portal's form.
#[derive(Debug, Clone, Copy)]
pub struct CalibrationChoice {
    pub sport: Sport,
    pub model_type: ModelType,
    /// The season named; `None` for the current one.
    pub season: Option<SeasonLabel>,
    pub source: CalibrationSource,
    /// Where the kept releases' CLV takes its pick (`from`).
    pub from: ClvFrom,
}

impl CalibrationChoice {
    /// The API's choice: the path's sport and model type, the query's
    /// `season` (the current one when absent), `source` (default `all`) and
    /// `from` (default `opening`), each malformed value a 400 naming it.
    pub fn parse(sport: Sport, model_type: ModelType, query: &crate::params::RawQuery) -> Result<Self, ApiError> {
        let season = crate::params::named_season(sport, query)?;
        let source = query
            .get("source")
            .map_or(Ok(CalibrationSource::All), |raw| CalibrationSource::parse(raw))
            .map_err(|e| ApiError::invalid_param("source", &e.value, &e.allowed))?;
        let from = query
            .get("from")
            .map_or(Ok(ClvFrom::Opening), |raw| ClvFrom::parse(raw))
            .map_err(|e| ApiError::invalid_param("from", &e.value, &e.allowed))?;
        Ok(Self {
            sport,
            model_type,
            season,
            source,
            from,
        })
    }
}

/// The calibration body of `choice` as `view`, served from the memo and
/// the response cache of `of` (the API's calibration row) with `req`'s own
/// caching headers (`responses::serve_as`): the API's handler and the
/// portal's diagram both serve it, so the diagram is the API's body, keyed
/// and drawn once.
pub async fn serve(
    req: &HttpRequest,
    responses: &Responses,
    checks: &ArchiveChecks,
    history: &History,
    of: &'static Endpoint,
    choice: CalibrationChoice,
    view: &CalibrationView,
) -> Result<HttpResponse, ApiError> {
    let CalibrationChoice {
        sport,
        model_type,
        season,
        source,
        from,
    } = choice;
    crate::responses::pipeline::serve_as(
        req,
        responses,
        of,
        &(sport, model_type, season, source, from, view),
        |now| checks.calibration(history, sport, model_type, season, source, from, now),
        |(data, calibration)| view.render(data, source, from, calibration),
    )
    .await
}

/// The policy of the diagram: an SVG opened on its own may run script, so
/// it is allowed nothing (it draws with inline attributes only).
pub const SVG_POLICY: &str = "default-src 'none'";

/// The `models` of a diagram: model columns with a probability, each once,
/// in `MODELS` order (not the order given, so `a,b` and `b,a` are one key).
fn diagram_models(raw: &str) -> Result<Vec<ModelColumn>, ApiError> {
    let allowed = || MODELS.iter().map(|m| m.code()).collect::<Vec<_>>().join(", ");
    let mut named = Vec::new();
    for name in raw.split(',').map(str::trim) {
        let model = MODELS
            .into_iter()
            .find(|m| m.code() == name)
            .ok_or_else(|| ApiError::invalid_param("models", name, &allowed()))?;
        named.push(model);
    }
    Ok(MODELS.into_iter().filter(|m| named.contains(m)).collect())
}

/// The reliability diagram of `models` (those without a population are
/// left out), drawn by `linecast_charts::reliability_svg`: the diagonal,
/// one line per model, and under it the bin counts of the first model
/// drawn.
pub fn reliability_svg(
    data: &SeasonData,
    source: CalibrationSource,
    calibration: &Calibration,
    models: &[ModelColumn],
) -> Result<String, ApiError> {
    let curves = models
        .iter()
        .filter_map(|m| calibration.models.iter().find(|c| c.model == *m))
        .map(|model| Curve {
            name: model.model.code().to_owned(),
            n: model.n,
            brier: model.brier,
            bins: model
                .reliability_bins
                .iter()
                .map(|b| Bin {
                    lower: b.lower,
                    n: b.n,
                    mean_predicted: b.mean_predicted,
                    observed_rate: b.observed_rate,
                })
                .collect(),
        })
        .collect();
    let title = format!(
        "Reliability: {} {} {} ({}, {} games)",
        data.sport.code(),
        data.model_type.code(),
        data.season,
        source.code(),
        calibration.games
    );
    linecast_charts::reliability_svg(&Reliability { title, curves })
        .map_err(|e| ApiError::Internal(format!("drawing: {e}")))
}
