//! `GET /api/v1/public/ml-picks/{sport}/{market}`: the free, unauthenticated
//! feed of today's slate with display names and a pick per game from BLEND.

use actix_web::{HttpRequest, HttpResponse, get, web};
use chrono::SecondsFormat;
use linecast_core::StoreError;
use linecast_core::services::slate;
use linecast_domain::artifacts::{PredictionRow, TeamTable};
use linecast_domain::odds::{AmericanOdds, no_vig_from_raw};
use linecast_domain::{LineField, ModelColumn, ModelType, Side};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::params::{self, RawQuery};
use crate::presentation::rounding::round4;
use crate::responses::{CacheKey, PUBLIC};
use crate::routes::predictions::{current_prices, probabilities, served_models};
use crate::schema::ModelProbabilities;
use crate::state::AppState;

pub(crate) const FREE_NOTE: &str = "Only free predictions are included in this public feed. Paid workflows (all model columns, odds, results, summaries, strategies and account tooling) need a paid API plan and an API key.";

/// One game of the public feed.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicPickGame {
    /// `YYYY-MM-DD` (ET).
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    /// Display name.
    pub away_team: String,
    /// Display name.
    pub home_team: String,
    /// Display label of the picked side and market, e.g. `Boston Celtics ML`, `Over 224.5`.
    pub pick: String,
    /// `home`, `away`, `over`, `under`, or `none` when BLEND is exactly 0.5.
    pub pick_side: String,
    /// BLEND probability of the positive side (home, or over).
    pub blend_probability: f64,
    /// The picked side's BLEND probability (0.5 to 1).
    pub confidence: f64,
    /// Short line summary, e.g. `COL +115`, `Over 8.5 (-110)`.
    pub market_line: String,
    /// The picked side's no-vig probability; null with a one-sided price.
    pub implied_probability: Option<f64>,
    /// The market's current and opening line fields; openers null when no real opener exists.
    #[schema(value_type = Object)]
    pub lines: serde_json::Map<String, serde_json::Value>,
    /// Model column to probability of the positive side: every column of
    /// `models_used`, null where empty; IMPLIED from the current prices.
    pub models: ModelProbabilities,
}

/// The public feed.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicPicksResponse {
    pub sport: String,
    /// `over_under`, `moneyline` or `spread`.
    pub market: String,
    pub model_type: String,
    /// Publication time of the predictions artifact (ISO 8601).
    pub predictions_date: String,
    /// Sorted by date then ET time.
    pub games: Vec<PublicPickGame>,
    /// The model columns every game's `models` carries: IMPLIED and the artifact's, in catalog order.
    pub models_used: Vec<String>,
    pub note: String,
}

/// `+115`, `-110`; one decimal only when the price has one.
pub(crate) fn fmt_american(price: f64) -> String {
    let body = if price.fract() == 0.0 {
        format!("{}", price.abs() as i64)
    } else {
        format!("{:.1}", price.abs())
    };
    if price > 0.0 {
        format!("+{body}")
    } else {
        format!("-{body}")
    }
}

fn fmt_points(points: f64) -> String {
    if points == 0.0 {
        "PK".to_owned()
    } else if points > 0.0 {
        format!("+{points}")
    } else {
        format!("{points}")
    }
}

/// Display names from the league's team table; without one (the table is
/// missing from the store), every team is served by its slug.
struct Names<'a> {
    teams: Option<&'a TeamTable>,
}

impl Names<'_> {
    fn find(&self, slug: &str) -> Option<&linecast_domain::artifacts::TeamRow> {
        self.teams.and_then(|t| t.find(slug))
    }

    fn display(&self, slug: &str) -> String {
        self.find(slug).map_or_else(
            || {
                tracing::warn!(team = slug, "team missing from the team table; serving its slug");
                slug.to_owned()
            },
            |t| t.display_name.clone(),
        )
    }

    fn abbreviation(&self, slug: &str) -> String {
        self.find(slug)
            .map_or_else(|| slug.to_ascii_uppercase(), |t| t.abbreviation.clone())
    }
}

fn game(
    row: &PredictionRow,
    model_type: ModelType,
    columns: &[ModelColumn],
    names: &Names<'_>,
) -> Option<PublicPickGame> {
    let blend = row.models.get(ModelColumn::Blend)?;
    let side = if blend > 0.5 {
        Some(Side::Positive)
    } else if blend < 0.5 {
        Some(Side::Negative)
    } else {
        None
    };
    let l = &row.lines;
    let (home, away) = (&row.key.home_team, &row.key.away_team);
    let (pos_price, neg_price) = current_prices(l, model_type);
    let (pick, pick_side, market_line, confidence, implied) = match side {
        None => (
            "No pick".to_owned(),
            "none".to_owned(),
            "No pick (BLEND 0.50)".to_owned(),
            0.5,
            None,
        ),
        Some(side) => {
            let (price, other) = match side {
                Side::Positive => (pos_price, neg_price),
                Side::Negative => (neg_price, pos_price),
            };
            let price_text = price.filter(|p| AmericanOdds::new(*p).is_ok()).map(fmt_american);
            let team = match side {
                Side::Positive => home,
                Side::Negative => away,
            };
            let (pick, line) = match model_type {
                ModelType::WonOnPoints => (
                    format!("{} ML", names.display(team)),
                    format!(
                        "{} {}",
                        names.abbreviation(team),
                        price_text.unwrap_or_else(|| "ML".to_owned())
                    ),
                ),
                ModelType::WonOnSpread => {
                    let points = match side {
                        Side::Positive => l.home_point_spread,
                        Side::Negative => l.away_point_spread.or(l.home_point_spread.map(|p| -p)),
                    };
                    let pts = points.map_or_else(|| "spread".to_owned(), fmt_points);
                    let mut line = format!("{} {pts}", names.abbreviation(team));
                    if let Some(p) = price_text {
                        line.push_str(" (");
                        line.push_str(&p);
                        line.push(')');
                    }
                    (format!("{} {pts}", names.display(team)), line)
                }
                ModelType::OverUnder => {
                    let word = if side == Side::Positive { "Over" } else { "Under" };
                    let total = l.over_under.map_or_else(|| "total".to_owned(), |t| t.to_string());
                    let mut line = format!("{word} {total}");
                    if let Some(p) = price_text {
                        line.push_str(" (");
                        line.push_str(&p);
                        line.push(')');
                    }
                    (format!("{word} {total}"), line)
                }
            };
            let confidence = if side == Side::Positive { blend } else { 1.0 - blend };
            let implied = no_vig_from_raw(price, other);
            (pick, model_type.side_label(side).to_owned(), line, confidence, implied)
        }
    };
    let mut lines = serde_json::Map::new();
    for name in model_type.line_fields().iter().chain(model_type.open_fields()) {
        if let Some(field) = LineField::parse(name) {
            lines.insert((*name).to_owned(), l.served(field).into());
        }
    }
    let models = probabilities(row, model_type, columns);
    Some(PublicPickGame {
        date: row.key.date_string(),
        time: row.key.time_string(),
        away_team: names.display(away),
        home_team: names.display(home),
        pick,
        pick_side,
        blend_probability: blend,
        confidence: round4(confidence),
        market_line,
        implied_probability: implied.map(round4),
        lines,
        models,
    })
}

#[utoipa::path(
    operation_id = "public_ml_picks", tag = "public",
    params(
        ("sport" = crate::schema::SportCode, Path, description = "mlb, nba, nfl, nhl, ncaaf, ncaab", example = "nba"),
        ("market" = crate::schema::MarketCode, Path, description = "over_under, moneyline, spread", example = "moneyline"),
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact.")
    ),
    responses(
        (status = 200, description = "Today's free picks", body = PublicPicksResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport or market, or a malformed boolean", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and market", body = crate::error::ErrorBody),
        (status = 503, description = "Object storage unavailable", body = crate::error::ErrorBody),
        (status = 429, description = "More than the per-address rate on public routes; see Retry-After", body = crate::error::ErrorBody)
    )
)]
#[get("/ml-picks/{sport}/{market}")]
pub async fn public_ml_picks(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<(String, String)>,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let (sport, market) = path.into_inner();
    let sport = params::sport(&sport)?;
    let market = params::market(&market)?;
    let upcoming_only = params::boolean(&query, "upcoming_only", true)?;
    let resolution = format!(
        "public|{sport}|{}|{upcoming_only}|{}",
        market.code(),
        slate::et_date(state.clock.now())
    );
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PUBLIC));
    }
    let model_type = market.model_type();
    let now = state.clock.now();
    let predictions = state.store.predictions(sport, model_type).await?;
    // A missing team table degrades display names to slugs; it never fails the feed.
    let teams = match state.store.teams(sport).await {
        Ok(teams) => Some(teams),
        Err(StoreError::NotFound { object }) => {
            tracing::warn!(%object, "team table missing; the public feed serves slugs");
            None
        }
        Err(e) => return Err(e.into()),
    };
    // The whole artifact needs no release manifest (as on /predictions).
    let slate_date = if upcoming_only {
        slate::served_slate(state.store.as_ref(), sport, now).await?
    } else {
        slate::et_date(now)
    };
    let key = CacheKey::new("public-picks")
        .with(sport)
        .with(market.code())
        .with(&predictions.version.version)
        .with(teams.as_ref().map_or("", |t| t.version.version.as_str()))
        .with(if upcoming_only {
            slate_date.to_string()
        } else {
            "all".to_owned()
        });
    let body = state
        .responses
        .get_or_render(key, || {
            let table = &predictions.value;
            let columns = served_models(&table.models_present);
            let names = Names {
                teams: teams.as_ref().map(|t| t.value.as_ref()),
            };
            let games = slate::select_games(&table.rows, |r| &r.key, slate_date, upcoming_only)
                .into_iter()
                .filter_map(|row| game(row, model_type, &columns, &names))
                .collect();
            Ok(PublicPicksResponse {
                sport: sport.code().to_owned(),
                market: market.code().to_owned(),
                model_type: model_type.code().to_owned(),
                predictions_date: predictions
                    .version
                    .last_modified
                    .to_rfc3339_opts(SecondsFormat::Secs, true),
                games,
                models_used: columns.iter().map(|m| m.code().to_owned()).collect(),
                note: FREE_NOTE.to_owned(),
            })
        })
        .await?;
    state.resolutions.put(resolution, body.clone());
    Ok(body.respond(&req, PUBLIC))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_and_points_format_like_a_sportsbook() {
        assert_eq!(fmt_american(115.0), "+115");
        assert_eq!(fmt_american(-110.0), "-110");
        assert_eq!(fmt_points(-1.5), "-1.5");
        assert_eq!(fmt_points(3.0), "+3");
        assert_eq!(fmt_points(0.0), "PK");
    }
}
