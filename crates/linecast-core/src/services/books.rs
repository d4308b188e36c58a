//! Every book for one game: the named sportsbooks' prices of a sport now or
//! as of an instant (the board), and one game's every kept price with each
//! book's opening and close (its odds history).
//!
//! Owns which artifact stands for the books (the named books' object when
//! the pipeline publishes one, else the single-book odds as the book
//! `primary`), and joins kept releases to `linecast-books`' rules for the
//! best price, the no-vig consensus and the closes. The rules themselves
//! are that crate's; the wire shapes are `linecast-payloads`'.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError};

use chrono::{DateTime, Utc};
use linecast_books::best::{SideQuote, best};
use linecast_books::book::BookKey;
use linecast_books::close::{Captured, NoCloseReason, close, opening};
use linecast_books::consensus::{BookMarket, Consensus, consensus};
use linecast_books::devig::Method;
use linecast_domain::artifacts::{BookRow, OddsRow};
use linecast_domain::odds::AmericanOdds;
use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::time::et_instant;
use linecast_domain::{GameId, GameKey, Lines, ModelType, SharedStr, Sport, read_game_id};

use crate::derived::{Deps, Derived};
use crate::ports::releases::{KeptRelease, Series};
use crate::ports::store::{ObjectVersion, StoreError};
pub use crate::services::book_scan::BookCloses;
use crate::services::book_scan::BooksScan;
use crate::services::releases::{AsOfError, HistoryError, ReleaseError, Releases};

/// The book the single-book odds (`odds/{sport}.csv`) are served as where
/// no named books are published: its key and title (settings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrimaryBook {
    pub key: BookKey,
    pub title: String,
}

impl Default for PrimaryBook {
    fn default() -> Self {
        Self {
            key: linecast_books::book::PRIMARY,
            title: "Primary".to_owned(),
        }
    }
}

impl PrimaryBook {
    /// The odds rows as this book's rows.
    pub fn rows(&self, odds: &[OddsRow]) -> Vec<BookRow> {
        let key = SharedStr::from(self.key.as_str());
        let title = SharedStr::from(self.title.as_str());
        odds.iter()
            .map(|row| BookRow {
                match_id: row.match_id.clone(),
                key: row.key.clone(),
                game_id: row.game_id.clone(),
                book: key.clone(),
                title: title.clone(),
                lines: row.lines,
                last_update: row.last_updated.and_utc(),
            })
            .collect()
    }
}

/// Which object the books were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BooksSource {
    /// `books/{sport}.csv`: the pipeline's named books.
    Books,
    /// `odds/{sport}.csv`, served as the one book [`PrimaryBook`].
    Primary,
}

impl BooksSource {
    /// `books` or `primary` on the wire.
    pub const fn code(self) -> &'static str {
        match self {
            Self::Books => "books",
            Self::Primary => "primary",
        }
    }

    const fn series(self, sport: Sport) -> Series {
        match self {
            Self::Books => Series::Books(sport),
            Self::Primary => Series::Odds(sport),
        }
    }
}

/// The best price of each side of each market of one game, at the side's
/// modal point (`linecast_books::best`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BestPrices {
    pub home_money_line: Option<SideQuote>,
    pub away_money_line: Option<SideQuote>,
    pub home_spread: Option<SideQuote>,
    pub away_spread: Option<SideQuote>,
    pub over: Option<SideQuote>,
    pub under: Option<SideQuote>,
}

/// The no-vig consensus of each market of one game (side a: home, or over).
#[derive(Debug, Clone, PartialEq)]
pub struct Consensuses {
    pub money_line: Option<Consensus>,
    pub spread: Option<Consensus>,
    pub total: Option<Consensus>,
}

/// One game of the board: its books' rows, the best prices and the
/// consensus.
#[derive(Debug, Clone, PartialEq)]
pub struct GameBooks {
    pub game_id: SharedStr,
    pub match_id: String,
    pub key: GameKey,
    /// The scheduled start (`None` only for a key New York never shows).
    pub start: Option<DateTime<Utc>>,
    /// One row per book, in the artifact's order.
    pub books: Vec<BookRow>,
    pub best: BestPrices,
    pub consensus: Consensuses,
}

/// A sport's books at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct BookBoard {
    pub sport: Sport,
    pub source: BooksSource,
    /// The kept release answered from (`as_of` reads only).
    pub release: Option<KeptRelease>,
    pub games: Vec<GameBooks>,
}

/// The de-vig method of every consensus linecast serves.
pub const CONSENSUS_METHOD: Method = Method::Multiplicative;

fn price(value: Option<f64>) -> Option<AmericanOdds> {
    value.and_then(|v| AmericanOdds::new(v).ok())
}

fn quote(row: &BookRow, value: Option<f64>, point: Option<f64>) -> Option<SideQuote> {
    Some(SideQuote {
        book: BookKey::parse(&row.book).ok()?,
        price: price(value)?,
        point,
        last_update: row.last_update,
    })
}

fn market(row: &BookRow, a: Option<f64>, b: Option<f64>, line: Option<f64>) -> Option<BookMarket> {
    Some(BookMarket {
        book: BookKey::parse(&row.book).ok()?,
        a: price(a),
        b: price(b),
        line,
    })
}

/// A market's side a and b prices and side a's point, read off a book's lines.
type MarketOf = dyn Fn(&Lines) -> (Option<f64>, Option<f64>, Option<f64>);

/// The consensus of each market over `rows` (one game's books).
pub fn consensuses(rows: &[&BookRow]) -> Consensuses {
    let of = |f: &MarketOf| {
        let markets: Vec<BookMarket> = rows
            .iter()
            .filter_map(|r| {
                let (a, b, line) = f(&r.lines);
                (a.is_some() || b.is_some()).then(|| market(r, a, b, line)).flatten()
            })
            .collect();
        consensus(&markets, CONSENSUS_METHOD)
    };
    Consensuses {
        money_line: of(&|l| (l.home_money_line, l.away_money_line, None)),
        spread: of(&|l| (l.home_point_spread_line, l.away_point_spread_line, l.home_point_spread)),
        total: of(&|l| (l.over_line, l.under_line, l.over_under)),
    }
}

fn best_of(rows: &[&BookRow], side: impl Fn(&Lines) -> (Option<f64>, Option<f64>)) -> Option<SideQuote> {
    let quotes: Vec<SideQuote> = rows
        .iter()
        .filter_map(|r| {
            let (value, point) = side(&r.lines);
            quote(r, value, point)
        })
        .collect();
    best(&quotes).cloned()
}

/// The best price of each side over `rows` (one game's books).
pub fn best_prices(rows: &[&BookRow]) -> BestPrices {
    BestPrices {
        home_money_line: best_of(rows, |l| (l.home_money_line, None)),
        away_money_line: best_of(rows, |l| (l.away_money_line, None)),
        home_spread: best_of(rows, |l| (l.home_point_spread_line, l.home_point_spread)),
        away_spread: best_of(rows, |l| (l.away_point_spread_line, l.away_point_spread)),
        over: best_of(rows, |l| (l.over_line, l.over_under)),
        under: best_of(rows, |l| (l.under_line, l.over_under)),
    }
}

/// The board of `rows`, games in the artifact's order, only `game_id`'s
/// when asked.
fn board(rows: &[BookRow], game_id: Option<&str>) -> Vec<GameBooks> {
    let mut games: Vec<GameBooks> = Vec::new();
    for row in rows {
        if game_id.is_some_and(|id| row.game_id.as_str() != id) {
            continue;
        }
        match games.iter_mut().find(|g| g.game_id == row.game_id) {
            Some(game) => game.books.push(row.clone()),
            None => games.push(GameBooks {
                game_id: row.game_id.clone(),
                match_id: row.match_id.clone(),
                key: row.key.clone(),
                start: et_instant(row.key.date, row.key.time_est),
                books: vec![row.clone()],
                best: BestPrices::default(),
                consensus: Consensuses {
                    money_line: None,
                    spread: None,
                    total: None,
                },
            }),
        }
    }
    for game in &mut games {
        let rows: Vec<&BookRow> = game.books.iter().collect();
        game.best = best_prices(&rows);
        game.consensus = consensuses(&rows);
    }
    games
}

/// One book's every kept price of a game, oldest first, with its opening
/// and close.
#[derive(Debug, Clone, PartialEq)]
pub struct BookTimeline {
    pub book: SharedStr,
    pub title: SharedStr,
    /// Each kept release that carried the book's row for the game:
    /// captured at the release's publication.
    pub quotes: Vec<Quote>,
}

/// A book's row for a game as one kept release carried it.
pub type Quote = Captured<(KeptRelease, BookRow)>;

impl BookTimeline {
    /// The opening: the first quote captured before the start.
    pub fn opening(&self, start: DateTime<Utc>) -> Result<&Quote, NoCloseReason> {
        opening(&self.quotes, start)
    }

    /// The close as known at `now`, and whether it is provisional.
    pub fn close(&self, start: DateTime<Utc>, now: DateTime<Utc>) -> (Result<&Quote, NoCloseReason>, bool) {
        let c = close(&self.quotes, start, now);
        (c.quote, c.provisional)
    }
}

/// A game's odds history: every book's kept prices, oldest first, and the
/// consensus of the books' closes.
#[derive(Debug, Clone, PartialEq)]
pub struct OddsHistory {
    pub game_id: String,
    pub sport: Sport,
    pub source: BooksSource,
    pub key: GameKey,
    pub match_id: String,
    pub start: DateTime<Utc>,
    /// Whether the game had started when judged: closes are provisional
    /// until it has.
    pub started: bool,
    /// Per book, in order of first appearance.
    pub books: Vec<BookTimeline>,
    /// The consensus of the books' closes (each market).
    pub closing_consensus: Consensuses,
    /// The kept releases read.
    pub releases: usize,
}

impl OddsHistory {
    /// Every kept price, in release order, then the books' order.
    pub fn rows(&self) -> Vec<&Quote> {
        let mut rows: Vec<(usize, &Quote)> = self
            .books
            .iter()
            .enumerate()
            .flat_map(|(i, b)| b.quotes.iter().map(move |q| (i, q)))
            .collect();
        rows.sort_by(|(ia, a), (ib, b)| a.captured_at.cmp(&b.captured_at).then(ia.cmp(ib)));
        rows.into_iter().map(|(_, q)| q).collect()
    }
}

impl Releases {
    /// The source of a sport's books: the named books' object where it
    /// exists (now), else the single-book odds.
    async fn current_rows(
        &self,
        sport: Sport,
        primary: &PrimaryBook,
    ) -> Result<(BooksSource, ObjectVersion, Arc<Vec<BookRow>>), StoreError> {
        match self.store().books(sport).await {
            Ok(books) => Ok((BooksSource::Books, books.version, books.value)),
            Err(StoreError::NotFound { .. }) => {
                let odds = self.store().odds(sport).await?;
                Ok((BooksSource::Primary, odds.version, Arc::new(primary.rows(&odds.value))))
            }
            Err(e) => Err(e),
        }
    }

    /// `/odds/{sport}/books` now: every game (or `game_id`'s) with each
    /// book's prices, the best price and the consensus.
    pub async fn books_now(
        &self,
        sport: Sport,
        game_id: Option<&str>,
        primary: &PrimaryBook,
    ) -> Result<Derived<BookBoard>, StoreError> {
        let (source, version, rows) = self.current_rows(sport, primary).await?;
        let deps = Deps::new()
            .object(&version)
            .param("game", game_id.unwrap_or(""))
            .param("primary", format_args!("{}|{}", primary.key, primary.title));
        let board = BookBoard {
            sport,
            source,
            release: None,
            games: board(&rows, game_id),
        };
        Ok(Derived::new(board, deps))
    }

    /// Which series holds a sport's books history: the named books' once
    /// any of their releases is kept, else the single-book odds.
    async fn books_series(&self, sport: Sport, now: DateTime<Utc>) -> Result<BooksSource, AsOfError> {
        let named = self.series(Series::Books(sport), now).await?;
        Ok(if named.is_empty() {
            BooksSource::Primary
        } else {
            BooksSource::Books
        })
    }

    /// The rows of a kept release of either source.
    async fn kept_book_rows(
        &self,
        source: BooksSource,
        release: &KeptRelease,
        primary: &PrimaryBook,
    ) -> Result<Arc<Vec<BookRow>>, StoreError> {
        match source {
            BooksSource::Books => Ok(self.archive().kept_books(release).await?.value),
            BooksSource::Primary => Ok(Arc::new(primary.rows(&self.archive().kept_odds(release).await?.value))),
        }
    }

    /// `/odds/{sport}/books` as it answered at `instant`: the kept release
    /// of the books current then.
    pub async fn books_at(
        &self,
        sport: Sport,
        game_id: Option<&str>,
        primary: &PrimaryBook,
        instant: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Derived<BookBoard>, AsOfError> {
        let source = self.books_series(sport, now).await?;
        let release = self.at(source.series(sport), instant, now).await?;
        let rows = self.kept_book_rows(source, &release, primary).await?;
        let deps = Deps::new()
            .release(&release)
            .param("game", game_id.unwrap_or(""))
            .param("primary", format_args!("{}|{}", primary.key, primary.title));
        let board = BookBoard {
            sport,
            source,
            release: Some(release),
            games: board(&rows, game_id),
        };
        Ok(Derived::new(board, deps))
    }

    /// A game's odds history: every kept release of its sport's books (the
    /// named books once any is kept, else the single-book odds) read for
    /// the game's rows, each book's quotes captured at their release's
    /// publication. Depends on the series' kept releases (count and
    /// newest) and on whether the game has started (closes are provisional
    /// until then).
    pub async fn odds_history(
        &self,
        game_id: &str,
        primary: &PrimaryBook,
        now: DateTime<Utc>,
    ) -> Result<Derived<OddsHistory>, HistoryError> {
        let (sport, _) = read_game_id(game_id).ok_or(HistoryError::Malformed)?;
        let source = self.books_series(sport, now).await.map_err(|e| match e {
            AsOfError::Release(e) => HistoryError::Release(e),
            AsOfError::Future | AsOfError::BeforeHistory { .. } => HistoryError::Unknown,
        })?;
        let releases = self.series(source.series(sport), now).await?;
        let mut books: Vec<BookTimeline> = Vec::new();
        let mut game: Option<BookRow> = None;
        for release in releases.iter() {
            let rows = self
                .kept_book_rows(source, release, primary)
                .await
                .map_err(|e| HistoryError::Release(e.into()))?;
            for row in rows.iter().filter(|r| r.game_id.as_str() == game_id) {
                if game.is_none() {
                    game = Some(row.clone());
                }
                let captured = Captured {
                    captured_at: release.published_at,
                    value: (release.clone(), row.clone()),
                };
                match books.iter_mut().find(|b| b.book == row.book) {
                    Some(book) => book.quotes.push(captured),
                    None => books.push(BookTimeline {
                        book: row.book.clone(),
                        title: row.title.clone(),
                        quotes: vec![captured],
                    }),
                }
            }
        }
        let game = game.ok_or(HistoryError::Unknown)?;
        let start = et_instant(game.key.date, game.key.time_est).ok_or(HistoryError::Unknown)?;
        let closes: Vec<&BookRow> = books
            .iter()
            .filter_map(|b| b.close(start, now).0.ok().map(|q| &q.value.1))
            .collect();
        let closing_consensus = consensuses(&closes);
        let started = now >= start;
        let mut deps = Deps::new().param("series", source.series(sport).code());
        deps = deps.param("kept", releases.len());
        if let Some(last) = releases.last() {
            deps = deps.release(last);
        }
        let deps = deps
            .param("started", started)
            .param("primary", format_args!("{}|{}", primary.key, primary.title));
        let history = OddsHistory {
            game_id: game_id.to_owned(),
            sport,
            source,
            key: game.key.clone(),
            match_id: game.match_id.clone(),
            start,
            started,
            books,
            closing_consensus,
            releases: releases.len(),
        };
        Ok(Derived::new(history, deps))
    }
}

impl Releases {
    /// Each game's closes on the named books in `model_type`'s market, and
    /// the generation of the books' kept releases they came from (`none`
    /// without named books). Reads each kept books release once: a new
    /// release is read alone, the scan of those before it carried forward.
    pub async fn book_closes(
        &self,
        sport: Sport,
        model_type: ModelType,
        now: DateTime<Utc>,
    ) -> Result<(Arc<HashMap<GameId, BookCloses>>, String), ReleaseError> {
        let series = Series::Books(sport);
        let releases = self.series(series, now).await?;
        if releases.is_empty() {
            return Ok((Arc::new(HashMap::new()), "none".to_owned()));
        }
        let generation = format!(
            "{}@{}",
            releases.len(),
            releases.last().map_or(0, |r| r.published_at.timestamp_micros())
        );
        let key_of = |r: &KeptRelease| (r.published_at, r.digest.clone());
        if let Some(known) = self
            .book_scans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&sport)
            && known.read == releases.len()
            && known.last == releases.last().map(key_of)
            && let Some(closes) = known.answered.get(&model_type)
        {
            return Ok((Arc::clone(closes), generation));
        }
        let known = self
            .book_scans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&sport)
            .cloned();
        let mut scan = match known {
            Some(known) if known.read == releases.len() && known.last == releases.last().map(key_of) => known,
            Some(known)
                if known.read <= releases.len()
                    && known.last == known.read.checked_sub(1).map(|i| key_of(&releases[i])) =>
            {
                BooksScan {
                    answered: HashMap::new(),
                    ..known
                }
            }
            _ => BooksScan::default(),
        };
        for release in &releases[scan.read..] {
            let rows = self.archive().kept_books(release).await?;
            scan.see(release.published_at, &rows.value);
        }
        scan.read = releases.len();
        scan.last = releases.last().map(key_of);
        let mut games: HashMap<GameId, Vec<&BookRow>> = HashMap::new();
        for ((game, _), row) in &scan.closes {
            games.entry(game.clone()).or_default().push(row);
        }
        let sharp = linecast_books::book::sharp_book().key.as_str();
        let closes: HashMap<GameId, BookCloses> = games
            .into_iter()
            .map(|(game, rows)| {
                let sharp = rows.iter().find(|r| r.book.as_str() == sharp).and_then(|r| {
                    let (pos, neg) = r.lines.side_prices(model_type);
                    no_vig_from_raw(pos, neg)
                });
                let all = consensuses(&rows);
                let consensus = match model_type {
                    ModelType::WonOnPoints => all.money_line,
                    ModelType::WonOnSpread => all.spread,
                    ModelType::OverUnder => all.total,
                }
                .map(|c| c.p_a);
                (game, BookCloses { sharp, consensus })
            })
            .collect();
        let closes = Arc::new(closes);
        scan.answered.insert(model_type, Arc::clone(&closes));
        self.book_scans
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(sport, scan);
        Ok((closes, generation))
    }
}
