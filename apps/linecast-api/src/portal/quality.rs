//! `GET /portal/quality`: model quality for a sport, market, season and
//! source the customer picks: the reliability diagram and a table per model
//! (n, Brier, log loss, skill against IMPLIED, CLV), read from the same use
//! case as `/api/v1/models/{sport}/{model_type}/calibration`.
//!
//! The page and its diagram serve what that route serves, so each is
//! decided and counted as that route's request with the session's key
//! (core's `Portal::view` under the route's own policy): a customer whose
//! subscription does not grant access, or whose monthly quota is used up,
//! sees the page's explanation instead of the numbers, and the diagram is
//! refused; a page shown, and a diagram drawn, each count one request.
//! That route's row (its policy, its memo) is handed in at start-up
//! (`portal::Rows`).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use linecast_core::services::access::{Policy, Refusal};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::calibration::CalibrationSource;
use serde::Deserialize;

use super::Rows;
use super::html::{api_error_page, error_page, filters, page};
use crate::auth::next_reset;
use crate::auth::session::SignedIn;
use crate::endpoint::{Access, NO_STORE};
use crate::error::ApiError;
use crate::presentation::calibration::{self, CalibrationChoice, CalibrationView, DEFAULT_DIAGRAM_MODELS};
use crate::state::AppState;

/// The page's choices, as the form sends them (all optional).
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct QualityQuery {
    sport: Option<String>,
    market: Option<String>,
    season: Option<String>,
    source: Option<String>,
}

/// What was chosen, checked.
struct Choice {
    sport: Sport,
    model_type: ModelType,
    season: Option<SeasonLabel>,
    source: CalibrationSource,
}

impl Choice {
    /// Defaults: nba, moneyline, the current season, every graded row.
    fn of(q: &QualityQuery) -> Result<Self, ApiError> {
        let sport = match q.sport.as_deref() {
            None | Some("") => Sport::Nba,
            Some(raw) => Sport::parse(raw).map_err(|e| ApiError::invalid_param("sport", &e.value, &e.allowed))?,
        };
        let model_type = match q.market.as_deref() {
            None | Some("") => ModelType::WonOnPoints,
            Some(raw) => ModelType::parse(raw).map_err(|e| ApiError::invalid_param("market", &e.value, &e.allowed))?,
        };
        let season = match q.season.as_deref() {
            None | Some("") => None,
            Some(raw) => Some(crate::params::season(sport, raw)?),
        };
        let source = match q.source.as_deref() {
            None | Some("") => CalibrationSource::All,
            Some(raw) => {
                CalibrationSource::parse(raw).map_err(|e| ApiError::invalid_param("source", &e.value, &e.allowed))?
            }
        };
        Ok(Self {
            sport,
            model_type,
            season,
            source,
        })
    }

    /// The query string naming this choice (for the diagram's URL).
    fn query(&self, season: SeasonLabel) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("sport", self.sport.code())
            .append_pair("market", self.model_type.code())
            .append_pair("season", &season.to_string())
            .append_pair("source", self.source.code())
            .finish()
    }
}

struct Option_ {
    value: String,
    label: String,
    selected: bool,
}

struct ModelRow {
    model: String,
    n: usize,
    brier: String,
    log_loss: String,
    skill: String,
    n_paired: usize,
    clv: String,
    clv_basis: &'static str,
}

#[derive(Template)]
#[template(path = "portal/quality.html")]
struct QualityPage {
    csrf: String,
    sports: Vec<Option_>,
    markets: Vec<Option_>,
    seasons: Vec<Option_>,
    sources: Vec<Option_>,
    heading: String,
    games: usize,
    diagram: String,
    rows: Vec<ModelRow>,
    /// Why no numbers are shown (the data is not served to this customer
    /// now); `None` when they are.
    notice: Option<String>,
}

/// The policy of the API route whose numbers the pages show
/// (`rows.calibration`): they are served, and counted, as that route's
/// requests. Fails closed: a row that named no key policy would leave the
/// pages for subscribers.
fn calibration_policy(rows: &Rows) -> Policy {
    match rows.calibration.access {
        Access::Key(policy) | Access::KeyHolding(policy, _) => policy,
        _ => Policy::Subscriber,
    }
}

/// A refused view: its status and what the page says.
fn refused(refusal: &Refusal, now: chrono::DateTime<chrono::Utc>) -> (StatusCode, String) {
    match refusal {
        Refusal::NoSubscription { status } => (
            StatusCode::FORBIDDEN,
            format!(
                "Your subscription is {status}: model quality is part of the API subscription and is shown again when it is active (the API's /calibration is refused too)."
            ),
        ),
        Refusal::QuotaExhausted { limit, .. } => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "You have used all {limit} requests of this month. Each view of model quality counts as a request, as the API's /calibration does, so it is shown again after {}.",
                next_reset(now).format("%Y-%m-%d")
            ),
        ),
        Refusal::TooManyPerSecond { .. } | Refusal::Busy(_) => (
            StatusCode::TOO_MANY_REQUESTS,
            "Too many requests with this session's key at once. Wait a second and show it again.".to_owned(),
        ),
        Refusal::UsageStale { .. } | Refusal::Unavailable { .. } => (
            StatusCode::SERVICE_UNAVAILABLE,
            "Requests cannot be counted right now, so model quality cannot be shown. Please try again in a moment."
                .to_owned(),
        ),
        Refusal::MissingKey | Refusal::InvalidKey | Refusal::NoApiAccess { .. } => (
            StatusCode::FORBIDDEN,
            "This account's plan does not include model quality.".to_owned(),
        ),
    }
}

/// Decides and counts one view of the calibration data for `signed`: `Ok`
/// to show it, else the refusal's status and explanation.
async fn admit_view(state: &AppState, rows: &Rows, signed: &SignedIn) -> Result<(), (StatusCode, String)> {
    let Some(gate) = state.gate.portal.as_ref() else {
        return Err((
            StatusCode::NOT_FOUND,
            "The portal is not available on this server.".to_owned(),
        ));
    };
    match gate.portal.view(&signed.0, calibration_policy(rows)).await {
        Ok(_) => Ok(()),
        Err(refusal) => {
            if let Refusal::Unavailable { cause } = &refusal {
                tracing::warn!(%cause, "portal model quality: counting unavailable");
            }
            Err(refused(&refusal, state.clock.now()))
        }
    }
}

fn fixed(v: f64, places: usize) -> String {
    format!("{v:.places$}")
}

fn or_dash(v: Option<f64>, places: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| fixed(v, places))
}

/// One model's figures as the table shows them.
fn model_row(m: &linecast_grading::calibration::ModelCalibration) -> ModelRow {
    use linecast_grading::calibration::{ClvBasis, ClvUnit};
    ModelRow {
        model: m.model.code().to_owned(),
        n: m.n,
        brier: fixed(m.brier, 4),
        log_loss: fixed(m.log_loss, 4),
        skill: m
            .skill_vs_market
            .as_ref()
            .map_or_else(|| "–".to_owned(), |s| or_dash(s.brier_skill, 4)),
        n_paired: m.n_paired,
        clv: or_dash(m.clv.mean, 3),
        clv_basis: match (m.clv.basis, m.clv.unit) {
            (ClvBasis::KeptReleases, _) => "kept releases (probability points)",
            (ClvBasis::ResultRows, ClvUnit::ProbabilityPoints) => "result rows (probability points)",
            (ClvBasis::ResultRows, ClvUnit::Points) => "result rows (points)",
        },
    }
}

type CalibrationRead = (
    std::sync::Arc<linecast_core::services::history::SeasonData>,
    std::sync::Arc<linecast_grading::calibration::Calibration>,
);

/// What the page shows for `choice`: the calibration use case's figures
/// and the seasons to choose from.
async fn read(state: &AppState, choice: &Choice) -> Result<(CalibrationRead, Vec<SeasonLabel>), ApiError> {
    let now = state.clock.now();
    let calibration = state
        .releases
        .calibration(
            &state.history,
            choice.sport,
            choice.model_type,
            choice.season,
            choice.source,
            now,
        )
        .await?
        .value;
    let seasons = state
        .history
        .season_list(choice.sport, choice.model_type, now)
        .await?
        .value
        .seasons;
    Ok((calibration, seasons))
}

/// `GET /portal/quality`.
pub async fn quality(
    state: web::Data<AppState>,
    signed: SignedIn,
    query: web::Query<QualityQuery>,
    rows: web::Data<Rows>,
) -> HttpResponse {
    let choice = match Choice::of(&query) {
        Ok(c) => c,
        Err(e) => return api_error_page(&e),
    };
    if let Err((status, notice)) = admit_view(&state, &rows, &signed).await {
        return refused_page(status, &signed, &choice, notice);
    }
    let (calibration, seasons) = match read(&state, &choice).await {
        Ok(read) => read,
        Err(e) => return api_error_page(&e),
    };
    let (data, cal) = (&calibration.0, &calibration.1);
    let rows = cal.models.iter().map(model_row).collect();
    page(
        StatusCode::OK,
        NO_STORE,
        &QualityPage {
            csrf: signed.0.csrf_token.clone(),
            sports: sport_options(&choice),
            markets: market_options(&choice),
            seasons: options(
                seasons.iter().map(|s| (s.to_string(), s.to_string())).collect(),
                &data.season.to_string(),
            ),
            sources: source_options(&choice),
            heading: format!(
                "{} {} {} ({})",
                choice.sport.code().to_uppercase(),
                choice.model_type.name(),
                data.season,
                choice.source.code()
            ),
            games: cal.games,
            diagram: format!("/portal/quality/diagram.svg?{}", choice.query(data.season)),
            rows,
            notice: None,
        },
    )
}

fn options(values: Vec<(String, String)>, chosen: &str) -> Vec<Option_> {
    values
        .into_iter()
        .map(|(value, label)| Option_ {
            selected: value == chosen,
            value,
            label,
        })
        .collect()
}

fn sport_options(choice: &Choice) -> Vec<Option_> {
    options(
        Sport::ALL
            .iter()
            .map(|s| (s.code().to_owned(), s.code().to_uppercase()))
            .collect(),
        choice.sport.code(),
    )
}

fn market_options(choice: &Choice) -> Vec<Option_> {
    options(
        ModelType::ALL
            .iter()
            .map(|m| (m.code().to_owned(), m.name().to_owned()))
            .collect(),
        choice.model_type.code(),
    )
}

fn source_options(choice: &Choice) -> Vec<Option_> {
    options(
        CalibrationSource::ALL
            .iter()
            .map(|s| (s.code().to_owned(), s.code().to_owned()))
            .collect(),
        choice.source.code(),
    )
}

/// The page without its numbers: the choices (the season only as asked;
/// no season list is read) and why nothing is shown.
fn refused_page(status: StatusCode, signed: &SignedIn, choice: &Choice, notice: String) -> HttpResponse {
    page(
        status,
        NO_STORE,
        &QualityPage {
            csrf: signed.0.csrf_token.clone(),
            sports: sport_options(choice),
            markets: market_options(choice),
            seasons: choice
                .season
                .map(|s| Option_ {
                    value: s.to_string(),
                    label: s.to_string(),
                    selected: true,
                })
                .into_iter()
                .collect(),
            sources: source_options(choice),
            heading: String::new(),
            games: 0,
            diagram: String::new(),
            rows: Vec::new(),
            notice: Some(notice),
        },
    )
}

/// `GET /portal/quality/diagram.svg`: the reliability diagram of the page's
/// choice (BLEND and IMPLIED), for its `<img>`. It is the API's body for
/// `/calibration?format=svg` with the same choice, served from the same
/// memo and response cache (`presentation::calibration::serve`), so the
/// diagram is drawn once for both and goes out with its ETag and content
/// coding.
pub async fn diagram(
    req: actix_web::HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    query: web::Query<QualityQuery>,
    rows: web::Data<Rows>,
) -> HttpResponse {
    let choice = match Choice::of(&query) {
        Ok(c) => c,
        Err(e) => return api_error_page(&e),
    };
    if let Err((status, notice)) = admit_view(&state, &rows, &signed).await {
        return error_page(status, &notice);
    }
    let chosen = CalibrationChoice {
        sport: choice.sport,
        model_type: choice.model_type,
        season: choice.season,
        source: choice.source,
    };
    let view = CalibrationView::Svg(DEFAULT_DIAGRAM_MODELS.to_vec());
    let (responses, releases, history) = (&state.responses, &state.releases, &state.history);
    let served = calibration::serve(&req, responses, releases, history, rows.calibration, chosen, &view).await;
    served.unwrap_or_else(|e| api_error_page(&e))
}
