//! `GET /api/v1/predictions/{sport}/{model_type}`: today's model
//! probabilities with the market's lines and EV per side.

use actix_web::{HttpRequest, HttpResponse, get, web};
use chrono::{NaiveDate, SecondsFormat};
use linecast_core::Versioned;
use linecast_core::services::slate;
use linecast_domain::artifacts::{PredictionRow, PredictionTable};
use linecast_domain::odds::{AmericanOdds, ev_percent, no_vig_from_raw};
use linecast_domain::{LineField, Lines, ModelColumn, ModelType, Sport};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::params::{self, RawQuery};
use crate::presentation::rounding::round2;
use crate::responses::{CacheKey, PRIVATE};
use crate::schema::ModelProbabilities;
use crate::state::AppState;

/// One game. Besides the fields below, each game carries its market's line
/// fields: over_under: `over_under, over_line, under_line, open_over_under,
/// ev_pos, ev_neg`; won_on_spread: `away_point_spread, home_point_spread,
/// away_point_spread_line, home_point_spread_line, open_away_point_spread,
/// open_home_point_spread, ev_away_spread, ev_home_spread`; won_on_points:
/// `away_money_line, home_money_line, open_away_money_line,
/// open_home_money_line, ev_away_ml, ev_home_ml`. Openers are null when no
/// real opener exists; EV is percent, null without a valid price.
#[derive(Debug, Serialize, ToSchema)]
pub struct PredictionGame {
    /// `YYYY-MM-DD` (ET).
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    /// Team slug.
    pub away_team: String,
    /// Team slug.
    pub home_team: String,
    /// Model column to probability of the positive side (home, or over):
    /// every column of `models_used`, null where the artifact's cell is
    /// empty; IMPLIED is recomputed from the game's current prices.
    pub predictions: ModelProbabilities,
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub lines: serde_json::Map<String, serde_json::Value>,
}

/// The predictions payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct PredictionsResponse {
    pub sport: String,
    pub model_type: String,
    /// Publication time of the predictions artifact (ISO 8601).
    pub predictions_date: String,
    /// Sorted by date then ET time.
    pub games: Vec<PredictionGame>,
    /// The model columns every game's `predictions` carries, in catalog
    /// order: IMPLIED (always) and the artifact's columns.
    pub models_used: Vec<String>,
}

/// The recorded prices of (positive side, negative side) of the market.
pub(crate) const fn current_prices(l: &Lines, model_type: ModelType) -> (Option<f64>, Option<f64>) {
    match model_type {
        ModelType::WonOnPoints => (l.home_money_line, l.away_money_line),
        ModelType::WonOnSpread => (l.home_point_spread_line, l.away_point_spread_line),
        ModelType::OverUnder => (l.over_line, l.under_line),
    }
}

/// The model columns served: the artifact's plus IMPLIED (always
/// recomputed from the current prices), in catalog order.
pub(crate) fn served_models(present: &[ModelColumn]) -> Vec<ModelColumn> {
    ModelColumn::ALL
        .iter()
        .copied()
        .filter(|c| *c == ModelColumn::Implied || present.contains(c))
        .collect()
}

/// `predictions` / `models` of one game: every served column, null where
/// the artifact's cell is empty; IMPLIED is the no-vig probability of the
/// positive side from both current prices (6 decimals, as on result rows),
/// null when one side is missing.
pub(crate) fn probabilities(row: &PredictionRow, model_type: ModelType, columns: &[ModelColumn]) -> ModelProbabilities {
    let mut map = serde_json::Map::new();
    for column in columns {
        let value = if *column == ModelColumn::Implied {
            let (pos, neg) = current_prices(&row.lines, model_type);
            no_vig_from_raw(pos, neg).map(|p| (p * 1e6).round() / 1e6)
        } else {
            row.models.get(*column)
        };
        map.insert(column.code().to_owned(), value.into());
    }
    ModelProbabilities(map)
}

/// EV in percent of each side at its current price, from BLEND.
pub(crate) fn ev_fields(row: &PredictionRow, model_type: ModelType) -> [(&'static str, Option<f64>); 2] {
    let blend = row.models.get(ModelColumn::Blend);
    let (pos_price, neg_price) = current_prices(&row.lines, model_type);
    let ev = |p: Option<f64>, price: Option<f64>| {
        let price = AmericanOdds::new(price?).ok()?;
        Some(round2(ev_percent(p?, price)))
    };
    let (neg_name, pos_name) = model_type.ev_fields();
    [
        (neg_name, ev(blend.map(|b| 1.0 - b), neg_price)),
        (pos_name, ev(blend, pos_price)),
    ]
}

fn game(row: &PredictionRow, model_type: ModelType, columns: &[ModelColumn]) -> PredictionGame {
    let mut lines = serde_json::Map::new();
    for name in model_type.line_fields().iter().chain(model_type.open_fields()) {
        if let Some(field) = LineField::parse(name) {
            lines.insert((*name).to_owned(), row.lines.served(field).into());
        }
    }
    for (name, value) in ev_fields(row, model_type) {
        lines.insert(name.to_owned(), value.into());
    }
    PredictionGame {
        date: row.key.date_string(),
        time: row.key.time_string(),
        away_team: row.key.away_team.clone(),
        home_team: row.key.home_team.clone(),
        predictions: probabilities(row, model_type, columns),
        lines,
    }
}

#[utoipa::path(
    operation_id = "predictions", tag = "data",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("model_type" = crate::schema::ModelTypeCode, Path, description = "over_under, won_on_points, won_on_spread", example = "won_on_points"),
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact.")
    ),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Today's predictions", body = PredictionsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or model type, or a malformed boolean", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and model type", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}/{model_type}")]
pub async fn predictions(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let (sport, model_type) = path.into_inner();
    let sport = params::sport(&sport)?;
    let model_type = params::model_type(&model_type)?;
    let upcoming_only = params::boolean(&query, "upcoming_only", true)?;
    let resolution = format!(
        "predictions|{sport}|{model_type}|{upcoming_only}|{}",
        slate::et_date(state.clock.now())
    );
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let artifact = state.store.predictions(sport, model_type).await?;
    // The whole artifact needs no release manifest, so an unreadable one
    // only fails the requests that depend on it.
    let slate_date = if upcoming_only {
        slate::served_slate(state.store.as_ref(), sport, state.clock.now()).await?
    } else {
        slate::et_date(state.clock.now())
    };
    // The body depends on the artifact's generation and, for the slate view,
    // on the served slate date; nothing else.
    let key = CacheKey::new("predictions")
        .with(sport)
        .with(model_type)
        .with(&artifact.version.version)
        .with(if upcoming_only {
            slate_date.to_string()
        } else {
            "all".to_owned()
        });
    let body = state
        .responses
        .get_or_render(key, || {
            Ok(render(&artifact, sport, model_type, slate_date, upcoming_only))
        })
        .await?;
    state.resolutions.put(resolution, body.clone());
    Ok(body.respond(&req, PRIVATE))
}

fn render(
    artifact: &Versioned<PredictionTable>,
    sport: Sport,
    model_type: ModelType,
    slate_date: NaiveDate,
    upcoming_only: bool,
) -> PredictionsResponse {
    let table = &artifact.value;
    let columns = served_models(&table.models_present);
    let games = slate::select_games(&table.rows, |r| &r.key, slate_date, upcoming_only)
        .into_iter()
        .map(|row| game(row, model_type, &columns))
        .collect();
    PredictionsResponse {
        sport: sport.code().to_owned(),
        model_type: model_type.code().to_owned(),
        predictions_date: artifact
            .version
            .last_modified
            .to_rfc3339_opts(SecondsFormat::Secs, true),
        games,
        models_used: columns.iter().map(|m| m.code().to_owned()).collect(),
    }
}
