//! The Kalshi adapter: open game-winner markets from Kalshi's public,
//! unauthenticated market-data API (`GET {base}/markets?series_ticker=..`),
//! matched to linecast games through the artifact store's team table, score
//! tape and moneyline predictions (see `matching` for the rule).
//!
//! All pages of one sport's series must arrive within `timeout`; anything
//! else (timeout, non-2xx, a body that is not the wire format) is
//! `MarketsError::Unavailable`. Which games have started is not decided
//! here: the caller nulls prices for games in progress.

mod fetch;
mod matching;
mod ticker;
mod wire;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use linecast_core::ports::markets::{MarketPrice, MarketsError, PredictionMarkets};
use linecast_core::{ArtifactStore, Clock, StoreError, SystemClock};
use linecast_domain::{GameKey, ModelType, Sport};

use self::matching::{GameIndex, TeamIndex};
use self::wire::WireMarket;

/// How Kalshi's team codes map to ours, beyond the team table's
/// abbreviations and slugs.
#[derive(Debug, Clone, Default)]
pub struct TeamMatching {
    /// Per sport, Kalshi team code -> our abbreviation or slug, for codes
    /// that differ from ours (e.g. mlb `AZ` -> `ARI`).
    pub aliases: BTreeMap<Sport, BTreeMap<String, String>>,
}

/// Settings of the Kalshi adapter.
#[derive(Debug, Clone)]
pub struct KalshiConfig {
    /// API root, without a trailing `/markets`.
    pub base_url: String,
    /// The game-winner series per sport; a sport without one has no prices.
    pub series: BTreeMap<Sport, String>,
    /// Deadline for all pages of one sport's markets.
    pub timeout: Duration,
    /// Markets per page (`limit`, at most 1000 on Kalshi).
    pub page_limit: u32,
    /// Pages read before giving up (guards against a cursor that never ends).
    pub max_pages: u32,
    pub teams: TeamMatching,
}

impl KalshiConfig {
    pub const DEFAULT_BASE_URL: &'static str = "https://api.elections.kalshi.com/trade-api/v2";
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

    /// Kalshi's game-winner series of the four covered leagues.
    pub fn default_series() -> BTreeMap<Sport, String> {
        BTreeMap::from([
            (Sport::Mlb, "KXMLBGAME".to_owned()),
            (Sport::Nba, "KXNBAGAME".to_owned()),
            (Sport::Nfl, "KXNFLGAME".to_owned()),
            (Sport::Nhl, "KXNHLGAME".to_owned()),
        ])
    }
}

impl Default for KalshiConfig {
    fn default() -> Self {
        Self {
            base_url: Self::DEFAULT_BASE_URL.to_owned(),
            series: Self::default_series(),
            timeout: Self::DEFAULT_TIMEOUT,
            page_limit: 1000,
            max_pages: 20,
            teams: TeamMatching::default(),
        }
    }
}

/// Live prices from Kalshi's public market data.
#[derive(Clone)]
pub struct KalshiMarkets {
    config: Arc<KalshiConfig>,
    http: reqwest::Client,
    store: Arc<dyn ArtifactStore>,
    clock: Arc<dyn Clock>,
}

impl KalshiMarkets {
    /// `store` supplies `teams/{sport}.csv`, `scores/{sport}.csv` and the
    /// moneyline predictions, the games markets are matched to.
    pub fn new(config: KalshiConfig, store: Arc<dyn ArtifactStore>) -> Result<Self, MarketsError> {
        linecast_tls::install();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .user_agent(concat!("linecast/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| MarketsError::Unavailable(format!("kalshi client: {e}")))?;
        Ok(Self {
            config: Arc::new(config),
            http,
            store,
            clock: Arc::new(SystemClock),
        })
    }

    /// Stamps `captured_at` from `clock` instead of the system clock.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    async fn directory(&self, sport: Sport) -> Result<(TeamIndex, GameIndex), MarketsError> {
        let unavailable = |what: &str, e: StoreError| MarketsError::Unavailable(format!("{what} for matching: {e}"));
        let (teams, scores, predictions) = tokio::join!(
            self.store.teams(sport),
            self.store.scores(sport),
            self.store.predictions(sport, ModelType::WonOnPoints),
        );
        let teams = teams.map_err(|e| unavailable("team table", e))?;
        let mut keys: Vec<GameKey> = Vec::new();
        match scores {
            Ok(tape) => keys.extend(tape.value.iter().map(|row| row.key.clone())),
            Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(unavailable("score tape", e)),
        }
        match predictions {
            Ok(table) => keys.extend(table.value.rows.iter().map(|row| row.key.clone())),
            Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(unavailable("predictions", e)),
        }
        let teams = TeamIndex::new(&teams.value, self.config.teams.aliases.get(&sport));
        Ok((teams, GameIndex::new(keys)))
    }
}

#[async_trait]
impl PredictionMarkets for KalshiMarkets {
    async fn prices(&self, sport: Sport) -> Result<Vec<MarketPrice>, MarketsError> {
        if !sport.has_prediction_market() {
            return Ok(Vec::new());
        }
        let Some(series) = self.config.series.get(&sport) else {
            return Ok(Vec::new());
        };
        let (markets, directory) = tokio::join!(
            fetch::open_markets(&self.http, &self.config, series),
            self.directory(sport)
        );
        let (markets, (teams, games)) = (markets?, directory?);
        let captured_at = self.clock.now();
        Ok(join(&markets, &teams, &games)
            .into_iter()
            .map(|(key, game)| MarketPrice {
                key,
                ticker: game.event_ticker,
                home_price: game.home_price,
                away_price: game.away_price,
                captured_at,
            })
            .collect())
    }
}

/// One matched game's prices before stamping.
#[derive(Debug, Default)]
struct GamePrices {
    event_ticker: String,
    home_price: Option<f64>,
    away_price: Option<f64>,
}

/// The team a market's yes side backs, by matching rule step 1.
fn market_team<'a>(market: &WireMarket, teams: &'a TeamIndex) -> Option<&'a str> {
    ticker::market_team_code(&market.ticker, &market.event_ticker)
        .and_then(|code| teams.by_code(code))
        .or_else(|| market.yes_sub_title.as_deref().and_then(|n| teams.by_name(n)))
        .or_else(|| market.subtitle.as_deref().and_then(|n| teams.by_name(n)))
}

/// Groups markets into events, matches each event to a game and assigns its
/// markets' prices to home and away. At most one entry per game, ordered by
/// game key.
fn join(markets: &[WireMarket], teams: &TeamIndex, games: &GameIndex) -> BTreeMap<GameKey, GamePrices> {
    let mut events: BTreeMap<&str, Vec<&WireMarket>> = BTreeMap::new();
    for market in markets.iter().filter(|m| m.is_live()) {
        events.entry(market.event_ticker.as_str()).or_default().push(market);
    }
    let mut out = BTreeMap::new();
    for (event_ticker, markets) in events {
        let Some(event) = ticker::parse_event(event_ticker) else {
            tracing::debug!(event_ticker, "kalshi event outside the game ticker convention");
            continue;
        };
        let mut sides: HashMap<&str, Option<f64>> = HashMap::new();
        for market in &markets {
            if let Some(slug) = market_team(market, teams) {
                sides.insert(slug, market.yes_price());
            }
        }
        let known: Vec<&str> = sides.keys().copied().collect();
        let (a, b) = match known.as_slice() {
            [a, b] => (*a, *b),
            [a] => {
                // Rule step 2: the opponent from the event's run-together codes.
                let code = markets.iter().find_map(|m| {
                    ticker::market_team_code(&m.ticker, &m.event_ticker).filter(|c| teams.by_code(c) == Some(*a))
                });
                let Some(b) = code
                    .and_then(|c| ticker::other_code(&event.teams, c))
                    .and_then(|c| teams.by_code(c))
                else {
                    continue;
                };
                (*a, b)
            }
            _ => continue,
        };
        let Some(key) = games.find(&event, a, b) else {
            tracing::debug!(event_ticker, "kalshi event matches no game");
            continue;
        };
        let price = |slug: &str| sides.get(slug).copied().flatten();
        let prices = GamePrices {
            event_ticker: event_ticker.to_owned(),
            home_price: price(&key.home_team),
            away_price: price(&key.away_team),
        };
        out.entry(key.clone()).or_insert(prices);
    }
    out
}
