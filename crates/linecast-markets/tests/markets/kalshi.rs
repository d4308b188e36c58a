use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use linecast_core::FixedClock;
use linecast_core::ports::markets::{MarketsError, PredictionMarkets};
use linecast_domain::Sport;
use linecast_markets::{KalshiConfig, KalshiMarkets, TeamMatching};

use crate::fake_store::FakeStore;
use crate::stub::{Reply, Stub};
use crate::{key, mlb_teams, scheduled};

fn store() -> Arc<FakeStore> {
    let mut store = FakeStore::default();
    store.teams.insert(Sport::Mlb, mlb_teams());
    store.scores.insert(
        Sport::Mlb,
        vec![
            scheduled(key("2026-06-28", "16:10", "dodgers", "padres")),
            scheduled(key("2026-06-28", "19:05", "yankees", "mariners")),
            scheduled(key("2026-06-28", "20:40", "diamondbacks", "rockies")),
        ],
    );
    Arc::new(store)
}

fn adapter(stub: &Stub, timeout: Duration, store: Arc<FakeStore>) -> KalshiMarkets {
    let config = KalshiConfig {
        base_url: stub.base_url.clone(),
        timeout,
        teams: TeamMatching {
            aliases: BTreeMap::from([(Sport::Mlb, BTreeMap::from([("AZ".to_owned(), "ARI".to_owned())]))]),
        },
        ..KalshiConfig::default()
    };
    let now: DateTime<Utc> = "2026-06-28T15:00:00Z".parse().unwrap();
    KalshiMarkets::new(config, store)
        .unwrap()
        .with_clock(Arc::new(FixedClock(now)))
}

/// Page one carries the Dodgers' contract; page two the Padres' (the same
/// event split across pages), the Yankees-Mariners pair in the newer
/// dollar-string format, a Diamondbacks-Rockies pair under Kalshi's `AZ`
/// code, an event for teams we do not have and a non-game ticker.
fn kalshi_pages(target: &str) -> Reply {
    if !target.contains("cursor=") {
        return Reply::json(
            r#"{"markets":[
                {"ticker":"KXMLBGAME-26JUN281610LADSD-LAD","event_ticker":"KXMLBGAME-26JUN281610LADSD",
                 "title":"Los Angeles D vs San Diego Winner?","yes_sub_title":"Los Angeles D","status":"active",
                 "yes_bid":44,"yes_ask":46,"last_price":45,"close_time":"2026-07-12T20:10:00Z"}
            ],"cursor":"page-two"}"#,
        );
    }
    Reply::json(
        r#"{"markets":[
            {"ticker":"KXMLBGAME-26JUN281610LADSD-SD","event_ticker":"KXMLBGAME-26JUN281610LADSD",
             "title":"Los Angeles D vs San Diego Winner?","yes_sub_title":"San Diego","status":"active",
             "yes_bid":54,"yes_ask":56,"last_price":55},
            {"ticker":"KXMLBGAME-26JUN281905NYYSEA-NYY","event_ticker":"KXMLBGAME-26JUN281905NYYSEA",
             "yes_sub_title":"New York Y","status":"active",
             "yes_bid_dollars":"0.0000","yes_ask_dollars":"1.0000","last_price_dollars":"0.4800"},
            {"ticker":"KXMLBGAME-26JUN281905NYYSEA-SEA","event_ticker":"KXMLBGAME-26JUN281905NYYSEA",
             "yes_sub_title":"Seattle","status":"active",
             "yes_bid_dollars":"0.5100","yes_ask_dollars":"0.5300","last_price_dollars":"0.5000"},
            {"ticker":"KXMLBGAME-26JUN282040AZCOL-AZ","event_ticker":"KXMLBGAME-26JUN282040AZCOL",
             "status":"active","yes_bid":30,"yes_ask":32},
            {"ticker":"KXMLBGAME-26JUN281310BOSTOR-BOS","event_ticker":"KXMLBGAME-26JUN281310BOSTOR",
             "status":"active","yes_bid":50,"yes_ask":52},
            {"ticker":"KXMLBGAMEPROP-26JUN28-X","event_ticker":"KXMLBGAMEPROP","status":"active","yes_bid":10,"yes_ask":12}
        ],"cursor":""}"#,
    )
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-9)
}

#[tokio::test]
async fn two_team_markets_across_pages_become_one_price_with_home_and_away() {
    let stub = Stub::start(kalshi_pages).await;
    let prices = adapter(&stub, Duration::from_secs(2), store())
        .prices(Sport::Mlb)
        .await
        .unwrap();

    let targets = stub.targets();
    assert_eq!(targets.len(), 2);
    for target in &targets {
        assert!(target.starts_with("/trade-api/v2/markets?"), "{target}");
        assert!(
            target.contains("series_ticker=KXMLBGAME") && target.contains("status=open"),
            "{target}"
        );
    }
    assert!(targets[1].contains("cursor=page-two"));

    assert_eq!(prices.len(), 3, "{prices:?}");
    let lad_sd = prices.iter().find(|p| p.key.home_team == "padres").unwrap();
    assert_eq!(lad_sd.key, key("2026-06-28", "16:10", "dodgers", "padres"));
    assert_eq!(lad_sd.ticker, "KXMLBGAME-26JUN281610LADSD");
    assert!(
        close(lad_sd.away_price, 0.45) && close(lad_sd.home_price, 0.55),
        "{lad_sd:?}"
    );
    assert_eq!(
        lad_sd.captured_at,
        "2026-06-28T15:00:00Z".parse::<DateTime<Utc>>().unwrap()
    );
}

#[tokio::test]
async fn dollar_quotes_an_empty_book_and_kalshi_codes_are_all_understood() {
    let stub = Stub::start(kalshi_pages).await;
    let prices = adapter(&stub, Duration::from_secs(2), store())
        .prices(Sport::Mlb)
        .await
        .unwrap();

    let nyy_sea = prices.iter().find(|p| p.key.home_team == "mariners").unwrap();
    assert!(
        close(nyy_sea.away_price, 0.48) && close(nyy_sea.home_price, 0.52),
        "{nyy_sea:?}"
    );
    // Only the Diamondbacks' contract is listed: the Rockies' side stays null.
    let ari_col = prices.iter().find(|p| p.key.home_team == "rockies").unwrap();
    assert!(
        close(ari_col.away_price, 0.31) && ari_col.home_price.is_none(),
        "{ari_col:?}"
    );
}

#[tokio::test]
async fn a_source_slower_than_the_timeout_is_unavailable_about_when_the_timeout_ends() {
    let stub = Stub::start(|_| Reply {
        status: 200,
        body: r#"{"markets":[]}"#.into(),
        delay: Duration::from_secs(10),
    })
    .await;
    let started = Instant::now();
    let result = adapter(&stub, Duration::from_millis(300), store())
        .prices(Sport::Mlb)
        .await;
    assert!(matches!(result, Err(MarketsError::Unavailable(_))), "{result:?}");
    // Not a speed target: proves the adapter gave up instead of waiting the stub's 10 s out.
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_server_error_is_unavailable() {
    let stub = Stub::start(|_| Reply {
        status: 500,
        body: "{}".into(),
        delay: Duration::ZERO,
    })
    .await;
    let result = adapter(&stub, Duration::from_secs(2), store()).prices(Sport::Nba).await;
    assert!(matches!(result, Err(MarketsError::Unavailable(m)) if m.contains("500")));
}

#[tokio::test]
async fn a_body_that_is_not_the_markets_format_is_unavailable_without_panicking() {
    for body in [
        r#"{"markets":[{"tick"#,
        r#"{"markets":"none"}"#,
        "<html>busy</html>",
        r#"{"markets":[{"status":"active"}]}"#,
    ] {
        let stub = Stub::start(move |_| Reply::json(body)).await;
        let result = adapter(&stub, Duration::from_secs(2), store()).prices(Sport::Mlb).await;
        assert!(
            matches!(result, Err(MarketsError::Unavailable(_))),
            "{body}: {result:?}"
        );
    }
}

#[tokio::test]
async fn uncovered_sports_answer_empty_without_any_request() {
    let stub = Stub::start(kalshi_pages).await;
    let store = store();
    let markets = adapter(&stub, Duration::from_secs(2), Arc::clone(&store));
    for sport in [Sport::Ncaaf, Sport::Ncaab] {
        assert!(markets.prices(sport).await.unwrap().is_empty());
    }
    assert_eq!(stub.requests(), 0);
    assert_eq!(store.calls(), 0);
}

#[tokio::test]
async fn a_sport_without_a_configured_series_answers_empty_without_any_request() {
    let stub = Stub::start(kalshi_pages).await;
    let config = KalshiConfig {
        base_url: stub.base_url.clone(),
        series: BTreeMap::new(),
        ..KalshiConfig::default()
    };
    let markets = KalshiMarkets::new(config, store()).unwrap();
    assert!(markets.prices(Sport::Mlb).await.unwrap().is_empty());
    assert_eq!(stub.requests(), 0);
}

#[tokio::test]
async fn a_missing_team_table_makes_the_source_unavailable() {
    let stub = Stub::start(kalshi_pages).await;
    let result = adapter(&stub, Duration::from_secs(2), Arc::new(FakeStore::default()))
        .prices(Sport::Mlb)
        .await;
    assert!(matches!(result, Err(MarketsError::Unavailable(m)) if m.contains("team table")));
}
