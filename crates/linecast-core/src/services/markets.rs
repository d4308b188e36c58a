//! The markets comparison: the moneyline model against the sportsbook and
//! the prediction market, for today's slate. Owns the join (by game key),
//! the start-time cutoff of market prices and the edge rule; rounding and
//! field names are the API's presentation.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::{GameKey, ModelColumn, ModelType, Sport};

use crate::ports::markets::PredictionMarkets;
use crate::services::slate::{select_games, served_slate};
use crate::{ArtifactStore, StoreError};

/// One game of the comparison; probabilities of the home side, unrounded.
#[derive(Debug, Clone, PartialEq)]
pub struct MarketGame {
    pub key: GameKey,
    /// The predictions row's game id.
    pub game_id: linecast_domain::GameId,
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
    /// The named books' moneyline consensus (`books/{sport}.csv`): the
    /// median no-vig home probability and the books counted; `None`
    /// without named books or without a two-sided book for the game.
    pub consensus_home: Option<f64>,
    pub consensus_books: Option<usize>,
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
    linecast_domain::time::et_instant(key.date, key.time_est)
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
        let books = optional(self.store.books(sport).await)?;
        let mut consensus: HashMap<&GameKey, Vec<&linecast_domain::artifacts::BookRow>> = HashMap::new();
        for row in books.iter().flat_map(|b| b.value.iter()) {
            consensus.entry(&row.key).or_default().push(row);
        }
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
                let h2h = consensus
                    .get(&row.key)
                    .and_then(|rows| crate::services::books::consensuses(rows).money_line);
                MarketGame {
                    key: row.key.clone(),
                    game_id: row.game_id.clone(),
                    model_home,
                    book_home,
                    market_home,
                    market_away,
                    consensus_home: h2h.as_ref().map(|c| c.p_a),
                    consensus_books: h2h.as_ref().map(|c| c.n_books),
                    edge_home: edge(model_home, &[book_home, market_home]),
                }
            })
            .collect();
        Ok(MarketComparison { sport, as_of, games })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ports::markets::{MarketPrice, MarketsError};
    use crate::testing::{MemoryMarkets, MemoryStore};
    use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
    use linecast_domain::artifacts::{OddsRow, PredictionRow, PredictionTable};
    use linecast_domain::{Lines, ModelProbs};

    fn at(rfc3339: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(rfc3339).unwrap().with_timezone(&Utc)
    }

    /// 18:00 ET on Nov 22.
    fn now() -> DateTime<Utc> {
        at("2026-11-22T23:00:00Z")
    }

    fn key(time: &str, away: &str) -> GameKey {
        GameKey::new(
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
            NaiveTime::parse_from_str(time, "%H:%M").unwrap(),
            away,
            "bos",
        )
    }

    fn moneyline(home: f64, away: f64) -> Lines {
        Lines {
            home_money_line: Some(home),
            away_money_line: Some(away),
            ..Lines::default()
        }
    }

    fn prediction(key: GameKey, blend: f64, lines: Lines) -> PredictionRow {
        let mut models = ModelProbs::default();
        models.set(ModelColumn::Blend, Some(blend));
        PredictionRow {
            key,
            game_id: linecast_domain::GameId::default(),
            lines,
            models,
            extras: Vec::new(),
        }
    }

    fn price(key: GameKey, home: f64, away: f64, captured: &str) -> MarketPrice {
        MarketPrice {
            key,
            ticker: "KX".into(),
            home_price: Some(home),
            away_price: Some(away),
            captured_at: at(captured),
        }
    }

    /// An upcoming game (19:30 ET) and one that started at 13:00 ET; the
    /// predictions carry a -110/-110 moneyline, the odds artifact -200/+150
    /// for the upcoming game only.
    fn store(sport: Sport) -> Arc<MemoryStore> {
        let store = Arc::new(MemoryStore::new());
        store.put_predictions(
            sport,
            ModelType::WonOnPoints,
            PredictionTable {
                sport,
                model_type: ModelType::WonOnPoints,
                models_present: vec![ModelColumn::Blend],
                rows: vec![
                    prediction(key("19:30", "nyk"), 0.7, moneyline(-110.0, -110.0)),
                    prediction(key("13:00", "mia"), 0.4, moneyline(-110.0, -110.0)),
                ],
            },
        );
        store.put_odds(
            sport,
            vec![OddsRow {
                match_id: "m1".into(),
                key: key("19:30", "nyk"),
                game_id: linecast_domain::GameId::default(),
                lines: moneyline(-200.0, 150.0),
                last_updated: NaiveDateTime::parse_from_str("2026-11-22 20:00:00", "%Y-%m-%d %H:%M:%S").unwrap(),
            }],
        );
        store
    }

    fn four(x: Option<f64>) -> Option<f64> {
        x.map(|v| (v * 1e4).round() / 1e4)
    }

    #[tokio::test]
    async fn the_edge_is_the_model_minus_the_lowest_available_home_price() {
        let source = Arc::new(MemoryMarkets::new());
        source.set_prices(
            Sport::Nba,
            vec![price(key("19:30", "nyk"), 0.58, 0.43, "2026-11-22T22:00:00Z")],
        );
        let got = Markets::new(store(Sport::Nba), source)
            .compare(Sport::Nba, now())
            .await
            .unwrap();
        let upcoming = got.games.iter().find(|g| g.key.away_team == "nyk").unwrap();
        assert_eq!(upcoming.model_home, Some(0.7));
        assert_eq!(upcoming.book_home, Some(0.625), "the odds artifact's -200/+150, no-vig");
        assert_eq!((upcoming.market_home, upcoming.market_away), (Some(0.58), Some(0.43)));
        assert_eq!(four(upcoming.edge_home), Some(0.12), "0.7 − min(0.625, 0.58)");
        assert_eq!(
            got.as_of,
            Some(at("2026-11-22T22:00:00Z")),
            "the newer of odds and capture"
        );
    }

    #[tokio::test]
    async fn a_started_game_gets_null_market_prices_and_its_edge_uses_the_book() {
        let source = Arc::new(MemoryMarkets::new());
        source.set_prices(
            Sport::Nba,
            vec![price(key("13:00", "mia"), 0.2, 0.8, "2026-11-22T17:00:00Z")],
        );
        let got = Markets::new(store(Sport::Nba), source)
            .compare(Sport::Nba, now())
            .await
            .unwrap();
        let keys: Vec<&str> = got.games.iter().map(|g| g.key.away_team.as_str()).collect();
        assert_eq!(keys, ["mia", "nyk"], "sorted by ET time");
        let started = &got.games[0];
        assert_eq!((started.market_home, started.market_away), (None, None));
        assert_eq!(
            started.book_home,
            Some(0.5),
            "no odds row: the predictions' own -110/-110"
        );
        assert_eq!(four(started.edge_home), Some(-0.1));
        assert_eq!(got.as_of, Some(at("2026-11-22T20:00:00Z")));
    }

    #[tokio::test]
    async fn a_failing_market_source_yields_null_prices_not_an_error() {
        let source = Arc::new(MemoryMarkets::new());
        source.fail_with(MarketsError::Unavailable("timeout".into()));
        let got = Markets::new(store(Sport::Nba), source.clone())
            .compare(Sport::Nba, now())
            .await
            .unwrap();
        assert_eq!(source.reads(), 1);
        assert!(
            got.games
                .iter()
                .all(|g| g.market_home.is_none() && g.market_away.is_none())
        );
        assert_eq!(four(got.games[1].edge_home), Some(0.075), "0.7 − 0.625");
    }

    #[tokio::test]
    async fn a_sport_without_a_prediction_market_never_asks_the_source() {
        let source = Arc::new(MemoryMarkets::new());
        let got = Markets::new(store(Sport::Ncaab), source.clone())
            .compare(Sport::Ncaab, now())
            .await
            .unwrap();
        assert_eq!(source.reads(), 0);
        assert_eq!(got.games.len(), 2);
    }

    #[tokio::test]
    async fn missing_moneyline_predictions_are_not_found_but_missing_odds_are_not_an_error() {
        let empty = Arc::new(MemoryStore::new());
        let err = Markets::new(empty, Arc::new(MemoryMarkets::new()))
            .compare(Sport::Nba, now())
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
        let store = store(Sport::Nba);
        store.remove(&linecast_domain::artifacts::keys::odds(Sport::Nba));
        let got = Markets::new(store, Arc::new(MemoryMarkets::new()))
            .compare(Sport::Nba, now())
            .await
            .unwrap();
        assert_eq!(got.as_of, None);
        assert_eq!(got.games[1].book_home, Some(0.5));
    }

    #[test]
    fn there_is_no_edge_without_a_model_value_or_any_price() {
        assert_eq!(edge(Some(0.6), &[None, None]), None);
        assert_eq!(edge(None, &[Some(0.5)]), None);
        assert_eq!(edge(Some(0.75), &[Some(0.5), None]), Some(0.25));
    }
}
