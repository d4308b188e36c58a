//! The file-snapshot adapter: prices come from `markets/{sport}.csv` in the
//! artifact store, already keyed by game. No snapshot means no prices.

use std::sync::Arc;

use async_trait::async_trait;
use linecast_core::ports::markets::{MarketPrice, MarketsError, PredictionMarkets};
use linecast_core::{ArtifactStore, StoreError};
use linecast_domain::Sport;

/// Prediction-market prices read from the artifact store's snapshot.
#[derive(Clone)]
pub struct FileSnapshotMarkets {
    store: Arc<dyn ArtifactStore>,
}

impl FileSnapshotMarkets {
    pub fn new(store: Arc<dyn ArtifactStore>) -> Self {
        Self { store }
    }
}

#[async_trait]
impl PredictionMarkets for FileSnapshotMarkets {
    async fn prices(&self, sport: Sport) -> Result<Vec<MarketPrice>, MarketsError> {
        if !sport.has_prediction_market() {
            return Ok(Vec::new());
        }
        match self.store.market_prices(sport).await {
            Ok(snapshot) => Ok(snapshot.value.iter().cloned().map(MarketPrice::from).collect()),
            // A snapshot that was never written is "no market for any game",
            // which the endpoint renders as null prices, not an outage.
            Err(StoreError::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(MarketsError::Unavailable(format!("market snapshot: {e}"))),
        }
    }
}
