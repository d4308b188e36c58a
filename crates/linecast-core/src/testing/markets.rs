//! `MemoryMarkets`: the prediction-markets port over prices held in memory.
//! `set_prices` replaces a sport's list; `fail_with` makes every read answer
//! one error (a source outage or timeout).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use linecast_domain::Sport;

use crate::ports::markets::{MarketPrice, MarketsError, PredictionMarkets};

#[derive(Default)]
struct Inner {
    prices: HashMap<Sport, Vec<MarketPrice>>,
    failure: Option<MarketsError>,
    reads: u64,
}

/// Prediction-market prices in memory. A sport without prices answers an
/// empty list, as an adapter does for a sport it does not cover.
#[derive(Default)]
pub struct MemoryMarkets {
    inner: Mutex<Inner>,
}

impl MemoryMarkets {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The prices `sport` answers from now on.
    pub fn set_prices(&self, sport: Sport, prices: Vec<MarketPrice>) {
        self.lock().prices.insert(sport, prices);
    }

    /// Every read answers `error` until `clear_failure`.
    pub fn fail_with(&self, error: MarketsError) {
        self.lock().failure = Some(error);
    }

    pub fn clear_failure(&self) {
        self.lock().failure = None;
    }

    /// Reads answered so far (failed ones included).
    pub fn reads(&self) -> u64 {
        self.lock().reads
    }
}

#[async_trait]
impl PredictionMarkets for MemoryMarkets {
    async fn prices(&self, sport: Sport) -> Result<Vec<MarketPrice>, MarketsError> {
        let mut inner = self.lock();
        inner.reads += 1;
        if let Some(failure) = &inner.failure {
            return Err(failure.clone());
        }
        Ok(inner.prices.get(&sport).cloned().unwrap_or_default())
    }
}
