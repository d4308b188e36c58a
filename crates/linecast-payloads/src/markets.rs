//! The JSON shape of the markets comparison (`/markets/{sport}`): field
//! names (`kalshi_*` for the prediction market), the `HH:MM` time and the
//! 4-decimal rounding. The join, cutoff and edge rule live in
//! `linecast_core::services::markets`.

use linecast_core::services::markets::MarketComparison;
use serde::Serialize;
use utoipa::ToSchema;

use crate::rounding::round4;
use crate::time::rfc3339;

/// One game of the comparison.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketGame {
    /// The game's id, the same on every endpoint and in every release
    /// ([payloads.md](/docs/payloads.md#game-ids)).
    #[schema(example = "mlb-20261011-athletics-chicago_white_sox")]
    pub game_id: String,
    #[schema(format = Date)]
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
    /// The named books' moneyline consensus: the median no-vig home
    /// probability across books (payloads.md, Books); null without named
    /// books or a book quoting both sides.
    pub consensus_home: Option<f64>,
    pub consensus_away: Option<f64>,
    /// Books counted in the consensus; null with no consensus.
    pub consensus_books: Option<usize>,
    /// model_home minus the lowest available home price (book or prediction market); null with no price.
    pub edge_home: Option<f64>,
}

/// The comparison payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketsResponse {
    pub sport: String,
    /// Newest source time used (odds update or market snapshot); null with none.
    #[schema(format = DateTime)]
    pub as_of: Option<String>,
    pub games: Vec<MarketGame>,
}

impl From<&MarketComparison> for MarketsResponse {
    fn from(c: &MarketComparison) -> Self {
        Self {
            sport: c.sport.code().to_owned(),
            as_of: c.as_of.map(rfc3339),
            games: c
                .games
                .iter()
                .map(|g| MarketGame {
                    game_id: g.game_id.to_string(),
                    date: g.key.date_string(),
                    time: g.key.time_est.format("%H:%M").to_string(),
                    away_team: g.key.away_team.to_string(),
                    home_team: g.key.home_team.to_string(),
                    model_home: g.model_home.map(round4),
                    model_away: g.model_home.map(|p| round4(1.0 - p)),
                    book_home: g.book_home.map(round4),
                    book_away: g.book_home.map(|p| round4(1.0 - p)),
                    kalshi_home: g.market_home.map(round4),
                    kalshi_away: g.market_away.map(round4),
                    consensus_home: g.consensus_home.map(round4),
                    consensus_away: g.consensus_home.map(|p| round4(1.0 - p)),
                    consensus_books: g.consensus_books,
                    edge_home: g.edge_home.map(round4),
                })
                .collect(),
        }
    }
}
