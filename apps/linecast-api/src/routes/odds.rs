//! `GET /api/v1/odds/{sport}`: current odds for every market.

use actix_web::{HttpRequest, HttpResponse, get, web};
use chrono::NaiveDate;
use linecast_core::services::slate;
use linecast_domain::artifacts::OddsRow;
use linecast_domain::{LineField, Sport};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::params;
use crate::responses::{CacheKey, PRIVATE};
use crate::state::AppState;

/// One game's current odds. Prices are American; null when not offered.
#[derive(Debug, Serialize, ToSchema)]
pub struct OddsGame {
    pub match_id: String,
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    pub away_team: String,
    pub home_team: String,
    pub away_point_spread: Option<f64>,
    pub away_point_spread_line: Option<f64>,
    pub home_point_spread: Option<f64>,
    pub home_point_spread_line: Option<f64>,
    pub away_money_line: Option<f64>,
    pub home_money_line: Option<f64>,
    pub over_under: Option<f64>,
    pub over_line: Option<f64>,
    pub under_line: Option<f64>,
    /// `YYYY-MM-DD HH:MM:SS` (UTC).
    pub last_updated: String,
}

/// The odds payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct OddsResponse {
    pub sport: String,
    /// The served slate date (`YYYY-MM-DD`, ET).
    pub date: String,
    /// Sorted by date then ET time.
    pub games: Vec<OddsGame>,
    /// Newest `last_updated` of the games, `YYYY-MM-DD HH:MM:SS` (UTC); null with no games.
    pub last_updated: Option<String>,
}

const STAMP: &str = "%Y-%m-%d %H:%M:%S";

#[utoipa::path(
    operation_id = "odds", tag = "data",
    params(("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba")),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Current odds", body = OddsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No odds artifact for that sport", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}")]
pub async fn odds(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let sport = params::sport(&path)?;
    let resolution = format!("odds|{sport}|{}", slate::et_date(state.clock.now()));
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let artifact = state.store.odds(sport).await?;
    let slate_date = slate::served_slate(state.store.as_ref(), sport, state.clock.now()).await?;
    let key = CacheKey::new("odds")
        .with(sport)
        .with(&artifact.version.version)
        .with(slate_date);
    let rendered = state
        .responses
        .get_or_render(key, || Ok(render(&artifact.value, sport, slate_date)))
        .await?;
    state.resolutions.put(resolution, rendered.clone());
    Ok(rendered.respond(&req, PRIVATE))
}

fn render(artifact: &[OddsRow], sport: Sport, slate_date: NaiveDate) -> OddsResponse {
    let rows = slate::select_games(artifact, |r| &r.key, slate_date, false);
    let last_updated = rows
        .iter()
        .map(|r| r.last_updated)
        .max()
        .map(|t| t.format(STAMP).to_string());
    let games = rows
        .into_iter()
        .map(|r| {
            let l = &r.lines;
            OddsGame {
                match_id: r.match_id.clone(),
                date: r.key.date_string(),
                time: r.key.time_string(),
                away_team: r.key.away_team.clone(),
                home_team: r.key.home_team.clone(),
                away_point_spread: l.get(LineField::AwayPointSpread),
                away_point_spread_line: l.get(LineField::AwayPointSpreadLine),
                home_point_spread: l.get(LineField::HomePointSpread),
                home_point_spread_line: l.get(LineField::HomePointSpreadLine),
                away_money_line: l.get(LineField::AwayMoneyLine),
                home_money_line: l.get(LineField::HomeMoneyLine),
                over_under: l.get(LineField::OverUnder),
                over_line: l.get(LineField::OverLine),
                under_line: l.get(LineField::UnderLine),
                last_updated: r.last_updated.format(STAMP).to_string(),
            }
        })
        .collect();
    OddsResponse {
        sport: sport.code().to_owned(),
        date: slate_date.format("%Y-%m-%d").to_string(),
        games,
        last_updated,
    }
}
