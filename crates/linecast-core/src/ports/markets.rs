//! The prediction-market port: live moneyline prices per game from a
//! prediction market (Kalshi), keyed by the canonical game key.
//!
//! Prices are the market's own probability scale in 0..1 (a contract paying 1
//! when the side wins). The port knows nothing of HTTP, tickers' wire format
//! or caching; adapters translate their failures into `MarketsError`.
//!
//! Coverage: only sports with `Sport::has_prediction_market` (mlb, nba, nfl,
//! nhl) have a source. For every other sport an adapter answers an empty
//! list without any I/O, so the caller renders null market values.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_domain::artifacts::MarketPriceRow;
use linecast_domain::{GameKey, Sport};

/// The prediction-market price of one game's two sides.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketPrice {
    pub key: GameKey,
    /// The source's identifier of the game's market (for Kalshi the event
    /// ticker, for the file snapshot the `ticker` column).
    pub ticker: String,
    /// Price of the home side's contract, in 0..1; `None` when not quoted.
    pub home_price: Option<f64>,
    /// Price of the away side's contract, in 0..1; `None` when not quoted.
    pub away_price: Option<f64>,
    /// When the prices were read from the source.
    pub captured_at: DateTime<Utc>,
}

impl From<MarketPriceRow> for MarketPrice {
    fn from(row: MarketPriceRow) -> Self {
        Self {
            key: row.key,
            ticker: row.ticker,
            home_price: row.home_price,
            away_price: row.away_price,
            captured_at: row.captured_at,
        }
    }
}

/// Failure to read prices. A missing market for a game is not an error (the
/// game is simply absent from the list).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MarketsError {
    /// The source could not be reached, timed out, or answered something
    /// unusable; the cause is for logs.
    #[error("prediction markets unavailable: {0}")]
    Unavailable(String),
}

/// Live prediction-market prices.
#[async_trait]
pub trait PredictionMarkets: Send + Sync {
    /// Every game of `sport` the source has a market for, in no particular
    /// order, at most one entry per game key. Sports without a source answer
    /// an empty list without I/O.
    async fn prices(&self, sport: Sport) -> Result<Vec<MarketPrice>, MarketsError>;
}
