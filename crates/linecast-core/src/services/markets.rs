//! The markets comparison: the moneyline model against the sportsbook and
//! the prediction market, for today's slate. Owns the join (by game key),
//! the start-time cutoff of market prices and the edge rule; rounding and
//! field names are the API's presentation.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::America::New_York;
use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::{GameKey, ModelColumn, ModelType, Sport};

use crate::ports::markets::PredictionMarkets;
use crate::services::slate::{select_games, served_slate};
use crate::{ArtifactStore, StoreError};

/// One game of the comparison; probabilities of the home side, unrounded.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketGame {
    pub key: GameKey,
    /// BLEND of the moneyline predictions.
    pub model_home: Option<f64>,
    /// No-vig probability from the sportsbook moneyline (the odds artifact,
    /// else the predictions' own lines); `None` without both prices.
    pub book_home: Option<f64>,
    /// Prediction-market prices (0 to 1); `None` once the game has started,
    /// for sports without a market, with no matching market, or when the
    /// source failed.
    pub market_home: Option<f64>,
    pub market_away: Option<f64>,
    /// `model_home` minus the lowest available home price (book or
    /// prediction market); `None` without a model value or any price.
    pub edge_home: Option<f64>,
}

/// The comparison of one sport.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketComparison {
    pub sport: Sport,
    /// Newest source time used: the newest odds update or market capture.
    pub as_of: Option<DateTime<Utc>>,
    /// Today's slate (the `upcoming_only` rule), sorted by date then ET time.
    pub games: Vec<MarketGame>,
}

/// When a game starts, as an instant (its ET date and time).
pub fn start_instant(key: &GameKey) -> Option<DateTime<Utc>> {
    New_York
        .from_local_datetime(&key.date.and_time(key.time_est))
        .earliest()
        .map(|t| t.with_timezone(&Utc))
}

/// `model` minus the lowest of the available prices; `None` without a
/// model value or any price.
pub fn edge(model: Option<f64>, prices: &[Option<f64>]) -> Option<f64> {
    let lowest = prices.iter().flatten().copied().reduce(f64::min);
    model.zip(lowest).map(|(m, l)| m - l)
}

fn optional<T>(r: Result<T, StoreError>) -> Result<Option<T>, StoreError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(StoreError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// The comparison use case over the store and a prediction-market source.
pub struct Markets {
    store: Arc<dyn ArtifactStore>,
    source: Arc<dyn PredictionMarkets>,
}

impl Markets {
    pub fn new(store: Arc<dyn ArtifactStore>, source: Arc<dyn PredictionMarkets>) -> Self {
        Self { store, source }
    }

    /// The comparison of `sport` at `now`. Store failures fail the call
    /// (missing moneyline predictions are `NotFound`; missing odds only
    /// fall back to the predictions' lines); a failing market source never
    /// does: its prices are `None` and a warning is logged.
    pub async fn compare(&self, sport: Sport, now: DateTime<Utc>) -> Result<MarketComparison, StoreError> {
        let predictions = self.store.predictions(sport, ModelType::WonOnPoints).await?;
        let odds = optional(self.store.odds(sport).await)?;
        let slate_date = served_slate(self.store.as_ref(), sport, now).await?;
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
        let prices = if sport.has_prediction_market() {
            match self.source.prices(sport).await {
                Ok(prices) => prices,
                Err(e) => {
                    tracing::warn!(%sport, error = %e, "prediction-market source failed; serving null kalshi prices");
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        if let Some(t) = prices.iter().map(|p| p.captured_at).max() {
            as_of = as_of.max(Some(t));
        }
        let market: HashMap<&GameKey, (Option<f64>, Option<f64>)> =
            prices.iter().map(|p| (&p.key, (p.home_price, p.away_price))).collect();
        let games = select_games(&predictions.value.rows, |r| &r.key, slate_date, true)
            .into_iter()
            .map(|row| {
                let model_home = row.models.get(ModelColumn::Blend);
                let (home_ml, away_ml) = book
                    .get(&row.key)
                    .copied()
                    .unwrap_or((row.lines.home_money_line, row.lines.away_money_line));
                let book_home = no_vig_from_raw(home_ml, away_ml);
                let started = start_instant(&row.key).is_none_or(|start| now >= start);
                let (market_home, market_away) = if started {
                    (None, None)
                } else {
                    market.get(&row.key).copied().unwrap_or((None, None))
                };
                MarketGame {
                    key: row.key.clone(),
                    model_home,
                    book_home,
                    market_home,
                    market_away,
                    edge_home: edge(model_home, &[book_home, market_home]),
                }
            })
            .collect();
        Ok(MarketComparison { sport, as_of, games })
    }
}
