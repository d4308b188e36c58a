use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use linecast_core::ports::markets::{MarketPrice, MarketsError, PredictionMarkets};
use linecast_domain::Sport;
use linecast_markets::{CachedMarkets, KalshiConfig, KalshiMarkets};

use crate::fake_store::FakeStore;
use crate::stub::{Reply, Stub};
use crate::{key, mlb_teams, scheduled};

const ONE_GAME: &str = r#"{"markets":[
    {"ticker":"KXMLBGAME-26JUN281610LADSD-LAD","event_ticker":"KXMLBGAME-26JUN281610LADSD","yes_bid":44,"yes_ask":46},
    {"ticker":"KXMLBGAME-26JUN281610LADSD-SD","event_ticker":"KXMLBGAME-26JUN281610LADSD","yes_bid":54,"yes_ask":56}
],"cursor":""}"#;

fn kalshi(stub: &Stub) -> Arc<KalshiMarkets> {
    let mut store = FakeStore::default();
    store.teams.insert(Sport::Mlb, mlb_teams());
    store.scores.insert(
        Sport::Mlb,
        vec![scheduled(key("2026-06-28", "16:10", "dodgers", "padres"))],
    );
    let config = KalshiConfig {
        base_url: stub.base_url.clone(),
        ..KalshiConfig::default()
    };
    Arc::new(KalshiMarkets::new(config, Arc::new(store)).unwrap())
}

#[tokio::test]
async fn the_cache_serves_within_its_ttl_and_refetches_after_it() {
    let stub = Stub::start(|_| Reply::json(ONE_GAME)).await;
    let cached = CachedMarkets::new(kalshi(&stub), Duration::from_millis(200));

    let first = cached.prices(Sport::Mlb).await.unwrap();
    let second = cached.prices(Sport::Mlb).await.unwrap();
    assert_eq!(first.len(), 1);
    assert_eq!(first, second);
    assert_eq!(stub.requests(), 1);

    tokio::time::sleep(Duration::from_millis(400)).await;
    cached.prices(Sport::Mlb).await.unwrap();
    assert_eq!(stub.requests(), 2);
}

#[tokio::test]
async fn each_sport_has_its_own_cache_entry() {
    let stub = Stub::start(|_| Reply::json(r#"{"markets":[],"cursor":""}"#)).await;
    let cached = CachedMarkets::new(kalshi(&stub), Duration::from_secs(30));
    cached.prices(Sport::Mlb).await.unwrap();
    cached.prices(Sport::Nhl).await.ok();
    cached.prices(Sport::Mlb).await.unwrap();
    assert!(stub.targets()[0].contains("KXMLBGAME"));
    assert!(stub.targets()[1].contains("KXNHLGAME"));
    assert_eq!(stub.requests(), 2);
}

/// Fails until `fail_until` calls have been made, counting every call.
struct Flaky {
    calls: AtomicUsize,
    fail_until: usize,
}

#[async_trait]
impl PredictionMarkets for Flaky {
    async fn prices(&self, _: Sport) -> Result<Vec<MarketPrice>, MarketsError> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        if n <= self.fail_until {
            Err(MarketsError::Unavailable("down".into()))
        } else {
            Ok(Vec::new())
        }
    }
}

#[tokio::test]
async fn a_failure_is_remembered_only_for_the_failure_ttl_then_retried() {
    let flaky = Arc::new(Flaky {
        calls: AtomicUsize::new(0),
        fail_until: 1,
    });
    let cached = CachedMarkets::with_failure_ttl(
        Arc::clone(&flaky) as Arc<dyn PredictionMarkets>,
        Duration::from_secs(30),
        Duration::from_millis(150),
    );

    assert!(cached.prices(Sport::Nba).await.is_err());
    assert!(cached.prices(Sport::Nba).await.is_err());
    assert_eq!(
        flaky.calls.load(Ordering::SeqCst),
        1,
        "a burst during an outage costs one upstream call"
    );

    tokio::time::sleep(Duration::from_millis(350)).await;
    assert!(
        cached.prices(Sport::Nba).await.is_ok(),
        "recovery shows once the failure expires"
    );
    assert_eq!(flaky.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_failure_is_never_kept_longer_than_a_success_would_be() {
    let flaky = Arc::new(Flaky {
        calls: AtomicUsize::new(0),
        fail_until: 1,
    });
    // failure TTL 5 s by default, but the success TTL of 100 ms caps it.
    let cached = CachedMarkets::new(
        Arc::clone(&flaky) as Arc<dyn PredictionMarkets>,
        Duration::from_millis(100),
    );
    assert!(cached.prices(Sport::Nfl).await.is_err());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(cached.prices(Sport::Nfl).await.is_ok());
    assert_eq!(flaky.calls.load(Ordering::SeqCst), 2);
}
