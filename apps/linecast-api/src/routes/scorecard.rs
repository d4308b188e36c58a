//! `GET /api/v1/public/scorecard/{sport}/{model_type}` and `GET /scorecard`:
//! the public scorecard, as JSON (or its reliability diagram) and as a
//! page, free and unauthenticated like the ledger. What a scorecard reads
//! is `linecast_core::services::scorecard`; the figures are
//! `linecast_grading`'s; the shapes are `linecast_payloads::scorecard`.

use actix_web::{HttpRequest, HttpResponse, web};
use linecast_core::Derived;
use linecast_domain::{ModelType, Sport};
use linecast_payloads::scorecard::{ScorecardPaths, ScorecardResponse};

use crate::error::ApiError;
use crate::params::{self, RawQuery, SportModelPath};
use crate::presentation::calibration::CalibrationView;
use crate::presentation::scorecard;
use crate::responses::serve;
use crate::routes::read::Read;
use crate::routes::table;
use crate::state::AppState;
use linecast_operation::operation;

/// Where the scorecard's links point, from the route table.
const PATHS: ScorecardPaths = ScorecardPaths {
    scorecard: table::PUBLIC_SCORECARD.path,
    ledger_day: table::PUBLIC_LEDGER_DAY.path,
    calibration: table::CALIBRATION.path,
};

/// The public scorecard of a season
///
/// Per model, with the market (IMPLIED, the no-vig probability of the recorded prices) as a row of its own:
/// the record and win rate of its picks, Brier and log loss, Brier and log-loss skill against the no-vig
/// market in the release the forecast was published in (`skill_at_forecast`) and at the close
/// (`skill_at_close`), and the CLV of its pick from the game's opening release (`clv_from_opening`). Read
/// only from graded rows whose `archive_check` is `matched`; `left_out` counts the rest by check. The
/// figures equal those of the paid calibration with `source=verified` (`calibration` links to it). Each
/// carries its `n` and a 95% interval: a seeded percentile bootstrap over games (`intervals`), and the
/// Wilson score interval for the win rate. `ledger_days` links each UTC day the rows' forecasts were
/// published on to its public ledger day, with their digests. `season` defaults to the current season;
/// `format=svg` returns the reliability diagram of BLEND and the market. No key is needed and nothing is
/// counted against a quota; calls are within the per-address limit of public routes (a 429
/// `rate_limited` past it).
///
/// See [payloads.md: Scorecard](/docs/payloads.md#scorecard).
#[operation(
    tag = "public",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label; default the current season"),
        ("format" = Option<linecast_payloads::calibration::CalibrationFormatCode>, Query, description = "`json` (default) or `svg` (the reliability diagram of BLEND and the market)")
    ),
    responses(
        (status = 200, description = "The scorecard; `format=svg` answers `image/svg+xml`", body = ScorecardResponse,
            content(
                (ScorecardResponse = "application/json"),
                (String = "image/svg+xml")
            )
        ),
        (status = 400, description = "Unknown sport or model type, a malformed season, or a bad format", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody),
    )
)]
pub async fn public_scorecard(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let season = params::named_season(sport, &read.query)?;
    // The calibration's `format`: without `models`, its diagram of BLEND
    // and the market.
    let view = CalibrationView::parse(read.query.get("format"), None)?;
    let state = &read.state;
    let load = |now| {
        state
            .scorecards
            .scorecard(&state.history, sport, model_type, season, now)
    };
    read.serve(&(sport, model_type, season, &view), load, |(data, card)| match &view {
        CalibrationView::Json => scorecard::json(data, card, PATHS),
        CalibrationView::Svg(models) => scorecard::svg(data, card, models),
    })
    .await
}

/// The page's choice: sport (default nba), market (default moneyline) and
/// the season as asked (default the current one; checked against the
/// sport's seasons when they are read).
fn choice(query: &RawQuery) -> Result<(Sport, ModelType, Option<String>), ApiError> {
    let given = |name: &str| query.get(name).map(String::as_str).filter(|v| !v.is_empty());
    let sport = given("sport")
        .map_or(Ok(Sport::Nba), Sport::parse)
        .map_err(|e| ApiError::invalid_param("sport", &e.value, &e.allowed))?;
    let model_type = given("market")
        .map_or(Ok(ModelType::WonOnPoints), ModelType::parse)
        .map_err(|e| ApiError::invalid_param("market", &e.value, &e.allowed))?;
    Ok((sport, model_type, given("season").map(str::to_owned)))
}

/// `GET /scorecard`: the scorecard as a page, with a form choosing the
/// sport, market and season. Rendered once per scorecard and season list,
/// served with an ETag; an error is a page.
pub async fn page(req: HttpRequest, state: web::Data<AppState>, query: web::Query<RawQuery>) -> HttpResponse {
    let state = &state;
    let answer = async {
        let (sport, model_type, asked) = choice(&query)?;
        let asked = asked.as_deref();
        serve(
            &req,
            &state.responses,
            &(sport, model_type, asked),
            |now| async move {
                let list = state.history.season_list(sport, model_type, now).await?;
                let (season, note) = crate::portal::quality::season_shown(sport, model_type, asked, &list.value);
                let card = state
                    .scorecards
                    .scorecard(&state.history, sport, model_type, season, now)
                    .await?;
                let deps = card.deps.and(&list.deps);
                Ok::<_, ApiError>(Derived::new((card.value, list.value, note), deps))
            },
            |((data, card), list, note)| scorecard::page(data, card, list, note.as_deref(), PATHS),
        )
        .await
    };
    answer.await.unwrap_or_else(|e| crate::portal::html::api_error_page(&e))
}
