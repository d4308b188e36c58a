//! `GET /api/v1/markets/{sport}`: model vs sportsbook vs prediction market,
//! moneyline only. A failing prediction-market source yields null `kalshi_*`
//! fields and a logged warning, never a failed request.

use std::collections::HashMap;

use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::America::New_York;
use linecast_core::services::slate;
use linecast_core::{ArtifactStore, StoreError};
use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::{GameKey, ModelColumn, ModelType};
use serde::Serialize;
use utoipa::ToSchema;

use super::security::rfc3339;
use crate::error::ApiError;
use crate::params;
use crate::presentation::rounding::round4;
use crate::state::AppState;

/// One game of the comparison.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketGame {
    pub date: String,
    /// `HH:MM` ET.
    pub time: String,
    pub away_team: String,
    pub home_team: String,
    /// BLEND home win probability.
    pub model_home: Option<f64>,
    pub model_away: Option<f64>,
    /// No-vig probability from the sportsbook moneyline.
    pub book_home: Option<f64>,
    pub book_away: Option<f64>,
    /// Prediction-market price (0 to 1); null for started games, uncovered sports or no market.
    pub kalshi_home: Option<f64>,
    pub kalshi_away: Option<f64>,
    /// model_home minus the lowest available home price (book or prediction market); null with no price.
    pub edge_home: Option<f64>,
}

/// The comparison payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketsResponse {
    pub sport: String,
    /// Newest source time used (odds update or market snapshot); null with none.
    pub as_of: Option<String>,
    pub games: Vec<MarketGame>,
}

fn start_instant(key: &GameKey) -> Option<DateTime<Utc>> {
    New_York
        .from_local_datetime(&key.date.and_time(key.time_est))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

fn optional<T>(r: Result<T, StoreError>) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

#[utoipa::path(
    operation_id = "markets", tag = "data",
    params(("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba")),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Model vs sportsbook vs prediction market", body = MarketsResponse),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 401, description = "Missing, invalid, expired or revoked key", body = crate::error::ErrorBody),
        (status = 403, description = "No active subscription", body = crate::error::ErrorBody),
        (status = 404, description = "No moneyline predictions for that sport", body = crate::error::ErrorBody),
        (status = 429, description = "Per-second limit or monthly quota exceeded", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage or the accounts database unavailable", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}")]
pub async fn markets(state: web::Data<AppState>, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let sport = params::sport(&path)?;
    let now = state.clock.now();
    let predictions = state.store.predictions(sport, ModelType::WonOnPoints).await?;
    let odds = optional(state.store.odds(sport).await)?;
    let slate_date = slate::served_slate(state.store.as_ref() as &dyn ArtifactStore, sport, now).await?;
    let book: HashMap<&GameKey, (Option<f64>, Option<f64>)> = odds
        .as_ref()
        .map(|o| {
            o.value
                .iter()
                .map(|r| (&r.key, (r.lines.home_money_line, r.lines.away_money_line)))
                .collect()
        })
        .unwrap_or_default();
    let mut as_of: Option<DateTime<Utc>> = odds
        .as_ref()
        .and_then(|o| o.value.iter().map(|r| r.last_updated.and_utc()).max());
    let kalshi = if sport.has_prediction_market() {
        match state.markets.prices(sport).await {
            Ok(prices) => prices,
            Err(e) => {
                tracing::warn!(%sport, error = %e, "prediction-market source failed; serving null kalshi prices");
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    if let Some(t) = kalshi.iter().map(|p| p.captured_at).max() {
        as_of = as_of.max(Some(t));
    }
    let kalshi: HashMap<&GameKey, (Option<f64>, Option<f64>)> =
        kalshi.iter().map(|p| (&p.key, (p.home_price, p.away_price))).collect();
    let games = slate::select_games(&predictions.value.rows, |r| &r.key, slate_date, true)
        .into_iter()
        .map(|row| {
            let model_home = row.models.get(ModelColumn::Blend);
            let (home_ml, away_ml) = book
                .get(&row.key)
                .copied()
                .unwrap_or((row.lines.home_money_line, row.lines.away_money_line));
            let book_home = no_vig_from_raw(home_ml, away_ml);
            let started = start_instant(&row.key).is_none_or(|start| now >= start);
            let (kalshi_home, kalshi_away) = if started {
                (None, None)
            } else {
                kalshi.get(&row.key).copied().unwrap_or((None, None))
            };
            let lowest = [book_home, kalshi_home].into_iter().flatten().reduce(f64::min);
            MarketGame {
                date: row.key.date_string(),
                time: row.key.time_est.format("%H:%M").to_string(),
                away_team: row.key.away_team.clone(),
                home_team: row.key.home_team.clone(),
                model_home: model_home.map(round4),
                model_away: model_home.map(|p| round4(1.0 - p)),
                book_home: book_home.map(round4),
                book_away: book_home.map(|p| round4(1.0 - p)),
                kalshi_home: kalshi_home.map(round4),
                kalshi_away: kalshi_away.map(round4),
                edge_home: model_home.zip(lowest).map(|(m, l)| round4(m - l)),
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(MarketsResponse {
        sport: sport.code().to_owned(),
        as_of: as_of.map(rfc3339),
        games,
    }))
}
