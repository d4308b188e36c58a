//! The named books' payloads: `GET /api/v1/odds/{sport}/books` (every
//! book's prices per game, the best price per side and the no-vig
//! consensus) and `GET /api/v1/games/{game_id}/odds-history` (every kept
//! price of one game, oldest first, with each book's opening and close).
//!
//! `bookmakers[]` is a superset of The Odds API's shape (`key`, `title`,
//! `last_update`, `markets[]` of `outcomes[]` with `name`, `price` and
//! `point`; prices American, as its `oddsFormat=american`), so a client
//! written for it parses ours. Outcome names are the team slugs of
//! `home_team` and `away_team`, or `Over` and `Under`.

use chrono::{DateTime, SecondsFormat, Utc};
use linecast_books::best::SideQuote;
use linecast_books::consensus::Consensus;
use linecast_core::services::books::{BestPrices, BookBoard, BookTimeline, Consensuses, GameBooks, OddsHistory};
use linecast_domain::artifacts::BookRow;
use linecast_domain::{LineField, Lines};
use serde::Serialize;
use utoipa::ToSchema;

use crate::slate::ReleaseStamp;

fn instant(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// A probability or overround to six decimals.
fn six(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

/// The answer of `GET /api/v1/odds/{sport}/books`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BooksResponse {
    pub sport: String,
    /// `books`: the pipeline's named books; `primary`: its single-book odds,
    /// served as one book (key `primary` unless configured otherwise).
    #[schema(example = "books")]
    pub source: String,
    /// The de-vig method of every consensus: `multiplicative`.
    #[schema(example = "multiplicative")]
    pub consensus_method: String,
    /// One entry per game, in the artifact's order (date, then ET time).
    pub games: Vec<BooksGame>,
    /// With `as_of` only: the kept release the answer comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<ReleaseStamp>,
}

/// One game with every book's prices.
#[derive(Debug, Serialize, ToSchema)]
pub struct BooksGame {
    /// The game id (The Odds API's `id`): the same as `game_id`.
    #[schema(example = "nba-20261121-boston_celtics-new_york_knicks")]
    pub id: String,
    /// The game's id, the same on every endpoint.
    #[schema(example = "nba-20261121-boston_celtics-new_york_knicks")]
    pub game_id: String,
    /// The upstream match id.
    pub match_id: String,
    /// The sport's code (`nba`), where The Odds API names its sport key.
    #[schema(example = "nba")]
    pub sport_key: String,
    /// The scheduled start, RFC 3339 UTC.
    #[schema(format = DateTime, example = "2026-11-22T00:30:00Z")]
    pub commence_time: Option<String>,
    /// `YYYY-MM-DD` (ET).
    #[schema(format = Date)]
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    /// Team slug.
    pub home_team: String,
    /// Team slug.
    pub away_team: String,
    /// Every book quoting the game, in the artifact's order.
    pub bookmakers: Vec<Bookmaker>,
    /// The best price of each side across books.
    pub best: Best,
    /// Each market's no-vig consensus across books.
    pub consensus: ConsensusShape,
}

/// One book's prices for one game.
#[derive(Debug, Serialize, ToSchema)]
pub struct Bookmaker {
    /// The book's key (1 to 32 characters of `a-z`, `0-9`, `_`).
    #[schema(example = "sharpline")]
    pub key: String,
    /// The book's display name.
    #[schema(example = "Sharpline")]
    pub title: String,
    /// When the book last changed any of the game's prices, RFC 3339 UTC.
    #[schema(format = DateTime)]
    pub last_update: String,
    /// `h2h` (moneyline), `spreads` and `totals`, each present when the
    /// book quotes at least one side of it.
    pub markets: Vec<BookMarketShape>,
}

/// One market of one book.
#[derive(Debug, Serialize, ToSchema)]
pub struct BookMarketShape {
    /// `h2h`, `spreads` or `totals`.
    #[schema(example = "h2h")]
    pub key: String,
    /// The book's `last_update`.
    #[schema(format = DateTime)]
    pub last_update: String,
    /// The quoted sides: home then away, or Over then Under.
    pub outcomes: Vec<Outcome>,
}

/// One side's price.
#[derive(Debug, Serialize, ToSchema)]
pub struct Outcome {
    /// The team slug, or `Over` / `Under`.
    pub name: String,
    /// American odds.
    #[schema(example = -110.0)]
    pub price: f64,
    /// The spread or total; absent for a moneyline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<f64>,
}

/// The best price of one side.
#[derive(Debug, Serialize, ToSchema)]
pub struct BestQuote {
    /// The book offering it.
    pub book: String,
    /// American odds (the highest payout; ties go to the quote that has
    /// stood longest, then the smaller book key).
    pub price: f64,
    /// The side's point for a spread or total (the side's most common
    /// point across books); null for a moneyline.
    pub point: Option<f64>,
    /// That book's `last_update`.
    #[schema(format = DateTime)]
    pub last_update: String,
}

impl From<&SideQuote> for BestQuote {
    fn from(q: &SideQuote) -> Self {
        Self {
            book: q.book.to_string(),
            price: q.price.value(),
            point: q.point,
            last_update: instant(q.last_update),
        }
    }
}

/// The best price per side; null where no book quotes the side.
#[derive(Debug, Serialize, ToSchema)]
pub struct Best {
    pub h2h: BestPair,
    pub spreads: BestPair,
    pub totals: BestTotals,
}

/// Home and away.
#[derive(Debug, Serialize, ToSchema)]
pub struct BestPair {
    pub home: Option<BestQuote>,
    pub away: Option<BestQuote>,
}

/// Over and under.
#[derive(Debug, Serialize, ToSchema)]
pub struct BestTotals {
    pub over: Option<BestQuote>,
    pub under: Option<BestQuote>,
}

impl From<&BestPrices> for Best {
    fn from(b: &BestPrices) -> Self {
        let q = |q: &Option<SideQuote>| q.as_ref().map(BestQuote::from);
        Self {
            h2h: BestPair {
                home: q(&b.home_money_line),
                away: q(&b.away_money_line),
            },
            spreads: BestPair {
                home: q(&b.home_spread),
                away: q(&b.away_spread),
            },
            totals: BestTotals {
                over: q(&b.over),
                under: q(&b.under),
            },
        }
    }
}

/// One market's consensus: each side's median no-vig probability across
/// the books quoting both sides (at the modal point for spreads and
/// totals), how many books count and the median overround.
#[derive(Debug, Serialize, ToSchema)]
pub struct MarketConsensus {
    /// Home (or over) probability, six decimals.
    pub a: f64,
    /// Away (or under) probability: `1 - a`.
    pub b: f64,
    /// The home spread or the total the consensus is at; null for a moneyline.
    pub point: Option<f64>,
    /// Books counted.
    pub n_books: usize,
    /// Books left out for quoting one side only.
    pub n_one_sided: usize,
    /// Books left out for quoting another point.
    pub n_off_line: usize,
    /// The median overround of the counted books (`1/d_a + 1/d_b - 1`).
    pub overround: f64,
    /// `multiplicative`.
    pub method: String,
}

impl From<&Consensus> for MarketConsensus {
    fn from(c: &Consensus) -> Self {
        Self {
            a: six(c.p_a),
            b: six(c.p_b),
            point: c.line,
            n_books: c.n_books,
            n_one_sided: c.n_one_sided,
            n_off_line: c.n_off_line,
            overround: six(c.overround),
            method: c.method.code().to_owned(),
        }
    }
}

/// Each market's consensus; null where no book quotes both sides.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsensusShape {
    /// `a` is home, `b` away.
    pub h2h: Option<MarketConsensus>,
    /// `a` is home at `point` (the home spread), `b` away.
    pub spreads: Option<MarketConsensus>,
    /// `a` is over `point`, `b` under.
    pub totals: Option<MarketConsensus>,
}

impl From<&Consensuses> for ConsensusShape {
    fn from(c: &Consensuses) -> Self {
        Self {
            h2h: c.money_line.as_ref().map(MarketConsensus::from),
            spreads: c.spread.as_ref().map(MarketConsensus::from),
            totals: c.total.as_ref().map(MarketConsensus::from),
        }
    }
}

fn outcome(name: &str, price: Option<f64>, point: Option<f64>) -> Option<Outcome> {
    Some(Outcome {
        name: name.to_owned(),
        price: price?,
        point,
    })
}

fn markets(row: &BookRow) -> Vec<BookMarketShape> {
    let l = &row.lines;
    let home = row.key.home_team.as_str();
    let away = row.key.away_team.as_str();
    let last_update = instant(row.last_update);
    let candidates = [
        (
            "h2h",
            [
                outcome(home, l.home_money_line, None),
                outcome(away, l.away_money_line, None),
            ],
        ),
        (
            "spreads",
            [
                outcome(home, l.home_point_spread_line, l.home_point_spread),
                outcome(away, l.away_point_spread_line, l.away_point_spread),
            ],
        ),
        (
            "totals",
            [
                outcome("Over", l.over_line, l.over_under),
                outcome("Under", l.under_line, l.over_under),
            ],
        ),
    ];
    candidates
        .into_iter()
        .filter_map(|(key, outcomes)| {
            let outcomes: Vec<Outcome> = outcomes.into_iter().flatten().collect();
            (!outcomes.is_empty()).then(|| BookMarketShape {
                key: key.to_owned(),
                last_update: last_update.clone(),
                outcomes,
            })
        })
        .collect()
}

impl From<&BookRow> for Bookmaker {
    fn from(row: &BookRow) -> Self {
        Self {
            key: row.book.to_string(),
            title: row.title.to_string(),
            last_update: instant(row.last_update),
            markets: markets(row),
        }
    }
}

impl From<&GameBooks> for BooksGame {
    fn from(g: &GameBooks) -> Self {
        Self {
            id: g.game_id.to_string(),
            game_id: g.game_id.to_string(),
            match_id: g.match_id.clone(),
            sport_key: String::new(),
            commence_time: g.start.map(instant),
            date: g.key.date_string(),
            time: g.key.time_string(),
            home_team: g.key.home_team.to_string(),
            away_team: g.key.away_team.to_string(),
            bookmakers: g.books.iter().map(Bookmaker::from).collect(),
            best: Best::from(&g.best),
            consensus: ConsensusShape::from(&g.consensus),
        }
    }
}

impl From<&BookBoard> for BooksResponse {
    fn from(b: &BookBoard) -> Self {
        Self {
            sport: b.sport.code().to_owned(),
            source: b.source.code().to_owned(),
            consensus_method: linecast_core::services::books::CONSENSUS_METHOD.code().to_owned(),
            games: b
                .games
                .iter()
                .map(|g| BooksGame {
                    sport_key: b.sport.code().to_owned(),
                    ..BooksGame::from(g)
                })
                .collect(),
            release: b.release.as_ref().map(ReleaseStamp::from),
        }
    }
}

/// The line columns of a price row, in the data contract's order.
pub const PRICE_LINES: [LineField; 9] = [
    LineField::AwayPointSpread,
    LineField::AwayPointSpreadLine,
    LineField::HomePointSpread,
    LineField::HomePointSpreadLine,
    LineField::AwayMoneyLine,
    LineField::HomeMoneyLine,
    LineField::OverUnder,
    LineField::OverLine,
    LineField::UnderLine,
];

/// One book's prices for the game in one kept release: the row of the JSON
/// `prices` and of the CSV and Parquet exports alike.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PriceRow {
    /// The release's publication (RFC 3339 UTC, every digit): when linecast
    /// captured the price.
    #[schema(format = DateTime)]
    pub published_at: String,
    /// SHA-256 of the release's bytes.
    pub digest: String,
    /// The book's key.
    pub book: String,
    /// The book's display name.
    pub book_title: String,
    /// When the book last changed the game's prices, RFC 3339 UTC.
    #[schema(format = DateTime)]
    pub last_update: String,
    /// Whether the release was published at or after the scheduled start
    /// (such a price never counts as the close).
    pub after_start: bool,
    pub away_point_spread: Option<f64>,
    pub away_point_spread_line: Option<f64>,
    pub home_point_spread: Option<f64>,
    pub home_point_spread_line: Option<f64>,
    pub away_money_line: Option<f64>,
    pub home_money_line: Option<f64>,
    pub over_under: Option<f64>,
    pub over_line: Option<f64>,
    pub under_line: Option<f64>,
}

impl PriceRow {
    fn new(release: &linecast_core::ports::releases::KeptRelease, row: &BookRow, start: DateTime<Utc>) -> Self {
        let l: &Lines = &row.lines;
        Self {
            published_at: ReleaseStamp::from(release).published_at,
            digest: release.digest.clone(),
            book: row.book.to_string(),
            book_title: row.title.to_string(),
            last_update: instant(row.last_update),
            after_start: release.published_at >= start,
            away_point_spread: l.away_point_spread,
            away_point_spread_line: l.away_point_spread_line,
            home_point_spread: l.home_point_spread,
            home_point_spread_line: l.home_point_spread_line,
            away_money_line: l.away_money_line,
            home_money_line: l.home_money_line,
            over_under: l.over_under,
            over_line: l.over_line,
            under_line: l.under_line,
        }
    }
}

/// One book's opening and close for the game.
#[derive(Debug, Serialize, ToSchema)]
pub struct BookCloses {
    /// The book's key.
    pub key: String,
    pub title: String,
    /// Kept prices of the book for the game.
    pub n_prices: usize,
    /// The first price captured strictly before the start; null when none.
    pub opening: Option<PriceRow>,
    /// The last price captured strictly before the start; null when none.
    pub close: Option<PriceRow>,
    /// True until the game starts: the close may still move.
    pub provisional: bool,
    /// Why `close` is null: `never_quoted_before_start` (every kept price
    /// came at or after the start); null when there is a close.
    pub close_missing: Option<String>,
}

impl BookCloses {
    fn new(b: &BookTimeline, start: DateTime<Utc>, started: bool) -> Self {
        let row = |q: &linecast_books::close::Captured<(linecast_core::ports::releases::KeptRelease, BookRow)>| {
            PriceRow::new(&q.value.0, &q.value.1, start)
        };
        // `started` is the history's judgement; `close` takes an instant,
        // so the start itself stands for "started" and the instant before
        // it for "not yet".
        let judged = if started {
            start
        } else {
            start - chrono::Duration::microseconds(1)
        };
        let (close, provisional) = b.close(start, judged);
        Self {
            key: b.book.to_string(),
            title: b.title.to_string(),
            n_prices: b.quotes.len(),
            opening: b.opening(start).ok().map(row),
            close: close.ok().map(row),
            provisional,
            close_missing: close.err().map(|r| r.code().to_owned()),
        }
    }
}

/// The answer of `GET /api/v1/games/{game_id}/odds-history`.
#[derive(Debug, Serialize, ToSchema)]
pub struct OddsHistoryResponse {
    #[schema(example = "nba-20261121-boston_celtics-new_york_knicks")]
    pub game_id: String,
    pub sport: String,
    /// `books` or `primary` (see `/odds/{sport}/books`).
    pub source: String,
    pub match_id: String,
    /// `YYYY-MM-DD` (ET).
    #[schema(format = Date)]
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    pub away_team: String,
    pub home_team: String,
    /// The scheduled start, RFC 3339 UTC.
    #[schema(format = DateTime)]
    pub commence_time: String,
    /// Whether the game had started when answered; closes are provisional until then.
    pub started: bool,
    /// Kept releases of the series read.
    pub releases: usize,
    /// Each book's opening and close, in order of first appearance.
    pub books: Vec<BookCloses>,
    /// The consensus of the books' closes.
    pub closing_consensus: ConsensusShape,
    /// Every kept price, oldest release first, then the books' order.
    pub prices: Vec<PriceRow>,
}

impl From<&OddsHistory> for OddsHistoryResponse {
    fn from(h: &OddsHistory) -> Self {
        Self {
            game_id: h.game_id.clone(),
            sport: h.sport.code().to_owned(),
            source: h.source.code().to_owned(),
            match_id: h.match_id.clone(),
            date: h.key.date_string(),
            time: h.key.time_string(),
            away_team: h.key.away_team.to_string(),
            home_team: h.key.home_team.to_string(),
            commence_time: instant(h.start),
            started: h.started,
            releases: h.releases,
            books: h.books.iter().map(|b| BookCloses::new(b, h.start, h.started)).collect(),
            closing_consensus: ConsensusShape::from(&h.closing_consensus),
            prices: h
                .rows()
                .into_iter()
                .map(|q| PriceRow::new(&q.value.0, &q.value.1, h.start))
                .collect(),
        }
    }
}
