use std::sync::Arc;

use chrono::{DateTime, Utc};
use linecast_core::StoreError;
use linecast_core::ports::markets::{MarketsError, PredictionMarkets};
use linecast_domain::Sport;
use linecast_domain::artifacts::MarketPriceRow;
use linecast_markets::FileSnapshotMarkets;

use crate::fake_store::FakeStore;
use crate::key;

fn row() -> MarketPriceRow {
    MarketPriceRow {
        key: key("2026-11-21", "19:30", "celtics", "knicks"),
        ticker: "KXNBAGAME-26NOV21BOSNYK".into(),
        home_price: Some(0.58),
        away_price: None,
        captured_at: "2026-11-21T18:00:00Z".parse::<DateTime<Utc>>().unwrap(),
    }
}

#[tokio::test]
async fn the_snapshot_rows_are_served_as_prices() {
    let mut store = FakeStore::default();
    store.markets.insert(Sport::Nba, Ok(vec![row()]));
    let prices = FileSnapshotMarkets::new(Arc::new(store))
        .prices(Sport::Nba)
        .await
        .unwrap();
    assert_eq!(prices.len(), 1);
    let price = &prices[0];
    assert_eq!(
        (price.key.clone(), price.ticker.as_str()),
        (row().key, "KXNBAGAME-26NOV21BOSNYK")
    );
    assert_eq!(
        (price.home_price, price.away_price, price.captured_at),
        (Some(0.58), None, row().captured_at)
    );
}

#[tokio::test]
async fn a_missing_snapshot_means_no_prices() {
    let prices = FileSnapshotMarkets::new(Arc::new(FakeStore::default()))
        .prices(Sport::Nhl)
        .await
        .unwrap();
    assert!(prices.is_empty());
}

#[tokio::test]
async fn an_unreachable_or_corrupt_snapshot_is_unavailable() {
    let mut store = FakeStore::default();
    store.markets.insert(
        Sport::Mlb,
        Err(StoreError::Unavailable {
            reason: "s3 down".into(),
        }),
    );
    let corrupt = StoreError::Corrupt {
        object: "markets/nfl.csv".into(),
        row: 3,
        column: "home_price".into(),
        reason: "not a number".into(),
    };
    store.markets.insert(Sport::Nfl, Err(corrupt));
    let markets = FileSnapshotMarkets::new(Arc::new(store));
    for sport in [Sport::Mlb, Sport::Nfl] {
        assert!(matches!(markets.prices(sport).await, Err(MarketsError::Unavailable(_))));
    }
}

#[tokio::test]
async fn uncovered_sports_do_not_touch_the_store() {
    let store = Arc::new(FakeStore::default());
    let markets = FileSnapshotMarkets::new(Arc::clone(&store) as Arc<dyn linecast_core::ArtifactStore>);
    assert!(markets.prices(Sport::Ncaab).await.unwrap().is_empty());
    assert!(markets.prices(Sport::Ncaaf).await.unwrap().is_empty());
    assert_eq!(store.calls(), 0);
}
