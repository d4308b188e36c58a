//! `GET /portal/quality`: model quality for a sport, market, season and
//! source the customer picks: the reliability diagram and a table per model
//! (n, Brier, log loss, skill against IMPLIED, CLV on both bases each with
//! its n), read from the same use
//! case as `/api/v1/models/{sport}/{model_type}/calibration`.
//!
//! The page and its diagram serve what that route serves, to whom its
//! policy serves (core's `Portal::may_view`): a customer whose
//! subscription does not grant access sees the page's explanation instead
//! of the numbers, and the diagram is refused. Neither is counted against
//! the API quota, nor refused by it: portal views are not API requests.
//! That route's row (its policy, its memo) is handed in at start-up
//! (`portal::Rows`).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use linecast_core::services::access::{Policy, Refusal};
use linecast_core::services::history::SeasonList;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_grading::calibration::{CalibrationSource, ClvFrom};
use serde::Deserialize;

use super::Rows;
use super::html::{PageError, error_page, filters, page};
use crate::auth::session::SignedIn;
use crate::endpoint::Access;
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

/// What was chosen, checked. The season is kept as asked: whether it is
/// one of the sport's is known only once its season list is read
/// ([`resolve_season`]).
struct Choice {
    sport: Sport,
    model_type: ModelType,
    season: Option<String>,
    source: CalibrationSource,
    /// The public scorecard page's path (`rows.scorecard`), linked from
    /// the page for the same sport, market and season.
    scorecard: &'static str,
}

impl Choice {
    /// Defaults: nba, moneyline, the current season, every graded row. A
    /// value the form does not offer is left at its default, and the first
    /// such value's error is returned beside the choice (the page says it
    /// above the choices).
    fn of(q: &QualityQuery) -> (Self, Option<ApiError>) {
        let mut error = None;
        let mut keep = |e: ApiError| {
            error.get_or_insert(e);
        };
        let sport = match q.sport.as_deref() {
            None | Some("") => Sport::Nba,
            Some(raw) => Sport::parse(raw).unwrap_or_else(|e| {
                keep(ApiError::invalid_param("sport", &e.value, &e.allowed));
                Sport::Nba
            }),
        };
        let model_type = match q.market.as_deref() {
            None | Some("") => ModelType::WonOnPoints,
            Some(raw) => ModelType::parse(raw).unwrap_or_else(|e| {
                keep(ApiError::invalid_param("market", &e.value, &e.allowed));
                ModelType::WonOnPoints
            }),
        };
        let source = match q.source.as_deref() {
            None | Some("") => CalibrationSource::All,
            Some(raw) => CalibrationSource::parse(raw).unwrap_or_else(|e| {
                keep(ApiError::invalid_param("source", &e.value, &e.allowed));
                CalibrationSource::All
            }),
        };
        let season = q
            .season
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        (
            Self {
                sport,
                model_type,
                season,
                source,
                scorecard: "",
            },
            error,
        )
    }

    /// The query string naming this choice in `season` (for the diagram's
    /// URL).
    fn query(&self, season: SeasonLabel) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair("sport", self.sport.code())
            .append_pair("market", self.model_type.code())
            .append_pair("season", &season.to_string())
            .append_pair("source", self.source.code())
            .finish()
    }
}

/// The season asked for, when it is one of `list`'s (the sport's seasons
/// for the market): `Some` to show it; `None` for the current season, with
/// the note saying why when another was asked for (a season of another
/// sport's form, such as `2026-27` for MLB, or one without data).
fn resolve_season(choice: &Choice, list: &SeasonList) -> (Option<SeasonLabel>, Option<String>) {
    season_shown(choice.sport, choice.model_type, choice.season.as_deref(), list)
}

/// The season a page shows for `asked` (the season its form sent): it when
/// it is one of `list`'s (the sport's seasons for the market), else `None`
/// for the current season with the note saying why (a season of another
/// sport's form, as a form without script sends when only the sport
/// changed, or one without data). Model quality and the public scorecard
/// share it.
pub(crate) fn season_shown(
    sport: Sport,
    model_type: ModelType,
    asked: Option<&str>,
    list: &SeasonList,
) -> (Option<SeasonLabel>, Option<String>) {
    let Some(asked) = asked else {
        return (None, None);
    };
    match SeasonLabel::parse(sport, asked) {
        Ok(season) if list.seasons.contains(&season) => (Some(season), None),
        _ => {
            let instead = list.current_season.map_or_else(
                || "its current season".to_owned(),
                |current| format!("{current}, its current season"),
            );
            (
                None,
                Some(format!(
                    "{asked} is not a season of {} {}; showing {instead}.",
                    sport.code().to_uppercase(),
                    model_type.name()
                )),
            )
        }
    }
}

struct Option_ {
    value: String,
    label: String,
    selected: bool,
    /// For a sport: its seasons for the market chosen, newest first,
    /// separated by spaces (the script that makes the season list follow
    /// the sport reads them; without it the server falls back).
    seasons: String,
}

/// The season list's first choice: the sport's current season, whatever
/// its label (so a sport changed without the script still shows).
const CURRENT: &str = "";

struct ModelRow {
    model: String,
    n: usize,
    brier: String,
    log_loss: String,
    skill: String,
    /// The 95% intervals beside each figure, with their n.
    brier_ci: String,
    log_loss_ci: String,
    skill_ci: String,
    /// Brier skill against the market at the forecast's own release, its
    /// interval and the games left out.
    skill_at_forecast: String,
    skill_at_forecast_ci: String,
    n_paired: usize,
    clv_kept: ClvCell,
    clv_rows: ClvCell,
    clv_sharp: ClvCell,
    clv_consensus: ClvCell,
}

/// One CLV figure as the table shows it: the mean (or a dash), and beside
/// it the games it rests on, its unit, and why it is empty.
struct ClvCell {
    mean: String,
    n: usize,
    /// The unit, or why there is no figure.
    note: &'static str,
}

impl ClvCell {
    fn of(clv: &linecast_grading::calibration::Clv) -> Self {
        use linecast_grading::calibration::{ClvReason, ClvUnit};
        Self {
            mean: or_dash(clv.mean, 3),
            n: clv.n,
            note: match (clv.reason, clv.unit) {
                (Some(ClvReason::FixedLine), _) => "fixed line: nothing to measure",
                (Some(ClvReason::NoKeptReleases), _) => "no kept releases",
                (Some(ClvReason::NoLineMove), _) => "no recorded line move",
                (Some(ClvReason::NoPicks), _) => "no picks",
                (Some(ClvReason::NoBookCloses), _) => "no book closes",
                (None, ClvUnit::ProbabilityPoints) => "probability points",
                (None, ClvUnit::Points) => "points",
            },
        }
    }
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
    /// The verified source's count of rows left out; empty otherwise.
    left_out: String,
    diagram: String,
    rows: Vec<ModelRow>,
    /// Why no numbers are shown (the data is not served to this customer
    /// now, or cannot be read); `None` when they are.
    notice: Option<String>,
    /// The season asked for is not the sport's: what is shown instead.
    note: Option<String>,
    /// The public scorecard of the sport, market and season shown.
    scorecard: String,
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
fn refused(refusal: &Refusal) -> (StatusCode, String) {
    match refusal {
        Refusal::NoSubscription { status } => (
            StatusCode::FORBIDDEN,
            format!(
                "Your subscription is {status}: model quality is part of the API subscription and is shown again when it is active (the API's /calibration is refused too)."
            ),
        ),
        _ => (
            StatusCode::FORBIDDEN,
            "This account's plan does not include model quality.".to_owned(),
        ),
    }
}

/// Whether `signed` may view the calibration data (core's
/// `Portal::may_view` under the API route's policy): `Ok` to show it,
/// else the refusal's status and explanation. Nothing is counted: portal
/// views are not API requests.
fn admit_view(state: &AppState, rows: &Rows, signed: &SignedIn) -> Result<(), (StatusCode, String)> {
    let Some(gate) = state.gate.portal.as_ref() else {
        return Err((
            StatusCode::NOT_FOUND,
            "The portal is not available on this server.".to_owned(),
        ));
    };
    gate.portal
        .may_view(&signed.0, calibration_policy(rows))
        .map_err(|refusal| refused(&refusal))
}

fn fixed(v: f64, places: usize) -> String {
    format!("{v:.places$}")
}

fn or_dash(v: Option<f64>, places: usize) -> String {
    v.map_or_else(|| "–".to_owned(), |v| fixed(v, places))
}

/// A 95% interval as the table shows it under its figure: its bounds and
/// its n, or a dash.
fn interval(ci: Option<linecast_grading::interval::Interval>) -> String {
    ci.map_or_else(
        || "–".to_owned(),
        |c| format!("{}–{} (n {})", fixed(c.low, 4), fixed(c.high, 4), c.n),
    )
}

/// The verified source's left-out count as the page says it; empty for
/// other sources.
fn left_out_note(left_out: Option<linecast_grading::calibration::LeftOut>) -> String {
    left_out.map_or_else(String::new, |l| {
        format!(
            "Left out: {} graded games whose archive check is not matched ({} mismatch, {} not kept, {} not applicable).",
            l.total(),
            l.mismatch,
            l.not_kept,
            l.not_applicable
        )
    })
}

/// One model's figures as the table shows them.
fn model_row(m: &linecast_grading::calibration::ModelCalibration) -> ModelRow {
    ModelRow {
        model: m.model.code().to_owned(),
        n: m.n,
        brier: fixed(m.brier, 4),
        log_loss: fixed(m.log_loss, 4),
        skill: m
            .skill_vs_market
            .as_ref()
            .map_or_else(|| "–".to_owned(), |s| or_dash(s.brier_skill, 4)),
        brier_ci: interval(m.brier_ci),
        log_loss_ci: interval(m.log_loss_ci),
        skill_ci: m
            .skill_vs_market
            .as_ref()
            .map_or_else(|| "–".to_owned(), |s| interval(s.brier_skill_ci)),
        skill_at_forecast: m
            .skill_at_forecast
            .as_ref()
            .map_or_else(|| "–".to_owned(), |s| or_dash(s.brier_skill, 4)),
        skill_at_forecast_ci: m.skill_at_forecast.as_ref().map_or_else(String::new, |s| {
            format!(
                "95% {} · n {} · {} left out",
                interval(s.brier_skill_ci),
                s.n,
                s.left_out
            )
        }),
        n_paired: m.n_paired,
        clv_kept: ClvCell::of(&m.clv_bases.kept_releases),
        clv_rows: ClvCell::of(&m.clv_bases.result_rows),
        clv_sharp: ClvCell::of(&m.clv_bases.sharp_close),
        clv_consensus: ClvCell::of(&m.clv_bases.consensus_close),
    }
}

type CalibrationRead = (
    std::sync::Arc<linecast_core::services::history::SeasonData>,
    std::sync::Arc<linecast_grading::calibration::Calibration>,
);

/// The calibration use case's figures for `choice` in `season` (`None`:
/// the current season).
async fn read(state: &AppState, choice: &Choice, season: Option<SeasonLabel>) -> Result<CalibrationRead, ApiError> {
    Ok(state
        .archive_checks
        .calibration(
            &state.history,
            choice.sport,
            choice.model_type,
            season,
            choice.source,
            ClvFrom::Opening,
            state.clock.now(),
        )
        .await?
        .value)
}

/// Every sport's seasons for `model_type`, newest first (the season list
/// each sport's option carries). A sport whose list cannot be read offers
/// only its current season.
async fn seasons_by_sport(state: &AppState, model_type: ModelType) -> Vec<Vec<SeasonLabel>> {
    let lists =
        futures::future::join_all(Sport::ALL.iter().map(|&sport| state.history.seasons(sport, model_type))).await;
    lists.into_iter().map(Result::unwrap_or_default).collect()
}

/// `GET /portal/quality`: the choices, then the figures. The season list
/// follows the sport: each sport's option carries its seasons for the
/// script (`quality.js`); without it, a season that is not the sport's
/// falls back to the sport's current season with a note. Nothing here is
/// counted against the API quota. A choice that cannot be shown (a value
/// the form does not offer, data that cannot be read) is this page with
/// its choices and why, never a bare error.
pub async fn quality(
    state: web::Data<AppState>,
    signed: SignedIn,
    query: web::Query<QualityQuery>,
    rows: web::Data<Rows>,
) -> HttpResponse {
    if let Some(refused) = super::throttle::over_rate(&state.gate, &signed) {
        return refused;
    }
    let (mut choice, invalid) = Choice::of(&query);
    choice.scorecard = rows.scorecard.path;
    let seasons = seasons_by_sport(&state, choice.model_type).await;
    let show = |status: StatusCode, shown: Option<SeasonLabel>, notice: Option<String>, note: Option<String>| {
        (status, shown, notice, note)
    };
    if let Some(e) = invalid {
        let shown = show(StatusCode::BAD_REQUEST, None, Some(e.to_string()), None);
        return choices_page(&signed, &choice, &seasons, shown, None);
    }
    if let Err((status, notice)) = admit_view(&state, &rows, &signed) {
        return choices_page(&signed, &choice, &seasons, show(status, None, Some(notice), None), None);
    }
    let now = state.clock.now();
    let list = match state.history.season_list(choice.sport, choice.model_type, now).await {
        Ok(list) => list.value,
        Err(e) => {
            let e = ApiError::from(e);
            let (status, notice) = unreadable(&e);
            return choices_page(&signed, &choice, &seasons, show(status, None, Some(notice), None), None);
        }
    };
    let (season, note) = resolve_season(&choice, &list);
    let (data, cal) = match read(&state, &choice, season).await {
        Ok(read) => read,
        Err(e) => {
            let (status, notice) = unreadable(&e);
            return choices_page(
                &signed,
                &choice,
                &seasons,
                show(status, season, Some(notice), note),
                None,
            );
        }
    };
    let figures = Figures {
        heading: format!(
            "{} {} {} ({})",
            choice.sport.code().to_uppercase(),
            choice.model_type.name(),
            data.season,
            choice.source.code()
        ),
        games: cal.games,
        left_out: left_out_note(cal.left_out),
        diagram: format!("{}?{}", state.portal_links.quality_diagram, choice.query(data.season)),
        rows: cal.models.iter().map(model_row).collect(),
    };
    choices_page(
        &signed,
        &choice,
        &seasons,
        show(StatusCode::OK, season, None, note),
        Some(figures),
    )
}

/// What the page says when the figures cannot be read: the API's status
/// and wording (a 5xx's cause is logged, never shown).
fn unreadable(e: &ApiError) -> (StatusCode, String) {
    use actix_web::ResponseError;
    let status = e.status_code();
    if let Some(cause) = e.cause() {
        tracing::error!(status = status.as_u16(), cause = %cause, "portal model quality");
    }
    if status.is_server_error() {
        return (
            status,
            "The figures cannot be read right now. Please try again in a moment.".to_owned(),
        );
    }
    (status, e.to_string())
}

/// The figures the page shows under its choices.
struct Figures {
    heading: String,
    games: usize,
    left_out: String,
    diagram: String,
    rows: Vec<ModelRow>,
}

/// The page: its choices (the season list of the chosen sport, `shown`'s
/// season selected, or "Current season"), then the figures, or why there
/// are none. `shown` is (status, season shown, notice, note).
fn choices_page(
    signed: &SignedIn,
    choice: &Choice,
    seasons: &[Vec<SeasonLabel>],
    (status, shown, notice, note): (StatusCode, Option<SeasonLabel>, Option<String>, Option<String>),
    figures: Option<Figures>,
) -> HttpResponse {
    let sport_at = Sport::ALL.iter().position(|s| *s == choice.sport).unwrap_or(0);
    let own = seasons.get(sport_at).cloned().unwrap_or_default();
    let mut season_options = vec![(CURRENT.to_owned(), "Current season".to_owned())];
    season_options.extend(own.iter().map(|s| (s.to_string(), s.to_string())));
    let chosen = shown.map_or_else(|| CURRENT.to_owned(), |s| s.to_string());
    let mut sports = sport_options(choice);
    for (option, list) in sports.iter_mut().zip(seasons) {
        option.seasons = list.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ");
    }
    let (heading, games, left_out, diagram, rows) = figures.map_or_else(
        || (String::new(), 0, String::new(), String::new(), Vec::new()),
        |f| (f.heading, f.games, f.left_out, f.diagram, f.rows),
    );
    page(
        status,
        &QualityPage {
            csrf: signed.0.csrf_token.clone(),
            sports,
            markets: market_options(choice),
            seasons: options(season_options, &chosen),
            sources: source_options(choice),
            heading,
            games,
            left_out,
            diagram,
            rows,
            notice,
            note,
            scorecard: {
                let mut query = url::form_urlencoded::Serializer::new(String::new());
                query
                    .append_pair("sport", choice.sport.code())
                    .append_pair("market", choice.model_type.code());
                if let Some(season) = shown {
                    query.append_pair("season", &season.to_string());
                }
                format!("{}?{}", choice.scorecard, query.finish())
            },
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
            seasons: String::new(),
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
) -> Result<HttpResponse, PageError> {
    if let Some(refused) = super::throttle::over_rate(&state.gate, &signed) {
        return Ok(refused);
    }
    // The page links the diagram of a season it resolved, so a choice that
    // does not fit is only ever typed by hand: a 400 naming it.
    let (choice, invalid) = Choice::of(&query);
    if let Some(e) = invalid {
        return Err(e.into());
    }
    let season = choice
        .season
        .as_deref()
        .map(|raw| crate::params::season(choice.sport, raw))
        .transpose()?;
    if let Err((status, notice)) = admit_view(&state, &rows, &signed) {
        return Ok(error_page(status, &notice));
    }
    let chosen = CalibrationChoice {
        sport: choice.sport,
        model_type: choice.model_type,
        season,
        source: choice.source,
        from: ClvFrom::Opening,
    };
    let view = CalibrationView::Svg(DEFAULT_DIAGRAM_MODELS.to_vec());
    let (responses, checks, history) = (&state.responses, &state.archive_checks, &state.history);
    Ok(calibration::serve(&req, responses, checks, history, rows.calibration, chosen, &view).await?)
}
