//! `GET /api/v1/odds/{sport}/books` (every named book's prices per game,
//! now or `as_of`) and `GET /api/v1/games/{game_id}/odds-history` (every
//! kept price of one game, JSON, CSV or Parquet). The reads are
//! `Releases::books_now`, `books_at` and `odds_history`; the JSON shapes
//! `linecast_payloads::books`; the files `presentation::odds_history`.

use actix_web::HttpResponse;
use linecast_core::services::releases::HistoryError;
use linecast_domain::read_game_id;
use linecast_payloads::books::{BooksResponse, OddsHistoryResponse};

use crate::error::ApiError;
use crate::params::{RawQuery, SportPath};
use crate::presentation::export::{ExportFile, ExportFormat};
use crate::presentation::odds_history;
use crate::responses::Rendered;
use crate::routes::read::{NoPath, Read};
use linecast_operation::operation;

/// A game id filter of `sport`: malformed, or of another sport, is a 400
/// naming `game_id`.
fn game_filter(query: &RawQuery, sport: linecast_domain::Sport) -> Result<Option<String>, ApiError> {
    let Some(raw) = query.get("game_id") else {
        return Ok(None);
    };
    match read_game_id(raw) {
        Some((of, _)) if of == sport => Ok(Some(raw.clone())),
        Some(_) => Err(ApiError::invalid(
            "game_id",
            format!("game_id {raw} is not a {sport} game"),
        )),
        None => Err(HistoryError::Malformed.into()),
    }
}

/// The board's JSON; a filter that matched no game is a 404.
fn render_board(
    board: &linecast_core::services::books::BookBoard,
    game_id: Option<&str>,
) -> Result<Rendered, ApiError> {
    if game_id.is_some() && board.games.is_empty() {
        return Err(ApiError::NotFound("No book quotes that game in these odds".to_owned()));
    }
    Rendered::new(&BooksResponse::from(board))
}

/// Every named sportsbook's prices, the best price and the no-vig consensus
///
/// One entry per game of the sport's books: `bookmakers[]` in The Odds API's shape (`key`, `title`,
/// `last_update`, `markets[]` of `h2h`, `spreads` and `totals` with `outcomes[]` of `name`, `price` in
/// American odds and `point`), `best` (the highest-paying price of each side across books, with its book;
/// spreads and totals at the side's most common point) and `consensus` (each market's median no-vig
/// probability across the books quoting both sides, multiplicatively de-vigged, with `n_books` and the
/// median overround). Where the pipeline publishes no named books, the single-book odds are served as one
/// book, `primary` (`source: primary`). `game_id` narrows the answer to one game (404 when no book quotes
/// it). With `as_of=<RFC 3339>` the answer is what this endpoint answered at that instant, from the kept
/// release current then (named by `release`). Each call counts as one request of the monthly quota.
///
/// See [payloads.md: Books](/docs/payloads.md#books-get-apiv1oddssportbooks-ai-key).
#[operation(
    tag = "data",
    params(
        crate::params::SportPath,
        ("game_id" = Option<String>, Query, description = "Only this game (a game id of the sport)", example = "nba-20261121-boston_celtics-new_york_knicks"),
        ("as_of" = Option<String>, Query, format = DateTime, description = "An RFC 3339 instant in the past: answer as this endpoint answered then, from the kept release current at that instant.", example = "2026-11-20T14:00:00Z")
    ),
    responses(
        (status = 200, description = "Every book's prices per game", body = BooksResponse),
        (status = 400, description = "Unknown sport, a malformed game_id or one of another sport, or a malformed or future as_of", body = crate::error::ErrorBody),
        (status = 404, description = "No odds for that sport, no book quoting game_id, or no release kept at or before as_of", body = crate::error::ErrorBody)
    )
)]
pub async fn odds_books(read: Read<SportPath>) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = read.path;
    let game_id = game_filter(&read.query, sport)?;
    let (game, primary, releases) = (game_id.as_deref(), &read.state.primary_book, &read.state.releases);
    let current = |_now| releases.books_now(sport, game, primary);
    let past = |at, now| releases.books_at(sport, game, primary, at, now);
    let render = |board: &_| render_board(board, game);
    read.serve_or_as_of(&(sport, &game_id), current, past, render).await
}

/// `json` (the default), `csv` or `parquet`.
fn history_format(query: &RawQuery) -> Result<Option<ExportFormat>, ApiError> {
    match query.get("format").map(String::as_str) {
        None | Some("json") => Ok(None),
        Some("csv") => Ok(Some(ExportFormat::Csv)),
        Some("parquet") => Ok(Some(ExportFormat::Parquet)),
        Some(other) => Err(ApiError::invalid_param("format", other, "json, csv, parquet")),
    }
}

/// Every book's every kept price for one game, with each book's opening and close
///
/// Reads every kept release of the sport's books (the named books once any is kept, else the single-book
/// odds as the book `primary`) and lists the game's prices oldest first (`prices`: the release's
/// `published_at` and digest, the book, its `last_update`, `after_start` and the nine line columns). For
/// each book, `opening` is its first price captured strictly before the scheduled start and `close` its
/// last; `provisional` is true until the start, and a book with no price before the start has no close and
/// says why in `close_missing`. `closing_consensus` is the no-vig consensus of the books' closes.
/// `format=csv` or `format=parquet` gives the `prices` rows as a file. One call counts as one request of
/// the monthly quota.
///
/// See [payloads.md: Odds history](/docs/payloads.md#odds-history-get-apiv1gamesgame_idodds-history-ai-key).
#[operation(
    tag = "data",
    params(
        ("game_id" = String, Path, description = "A game id as every endpoint serves it", example = "nba-20261120-boston_celtics-new_york_knicks"),
        ("format" = Option<String>, Query, description = "`json` (default), `csv` or `parquet`")
    ),
    responses(
        (status = 200, description = "The game's prices in every kept release, with each book's opening and close",
            content(
                (OddsHistoryResponse = "application/json"),
                (ExportFile = "application/vnd.apache.parquet"),
                (String = "text/csv")
            )
        ),
        (status = 400, description = "A malformed game_id, or an unknown format", body = crate::error::ErrorBody),
        (status = 404, description = "No kept odds release carried the game", body = crate::error::ErrorBody)
    )
)]
pub async fn game_odds_history(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    let game_id = read.req.match_info().query("game_id").to_owned();
    let format = history_format(&read.query)?;
    let (releases, primary, game) = (&read.state.releases, &read.state.primary_book, &game_id);
    let load = |now| async move { releases.odds_history(game, primary, now).await.map_err(no_kept_game) };
    read.serve(&(&game_id, format), load, |history| render_history(history, format))
        .await
}

/// A game no kept odds release carried is a 404.
fn no_kept_game(e: HistoryError) -> ApiError {
    match e {
        HistoryError::Unknown => ApiError::NotFound("No kept odds release carried that game".to_owned()),
        e => ApiError::from(e),
    }
}

/// The history's JSON, or its `prices` rows as a file.
fn render_history(
    history: &linecast_core::services::books::OddsHistory,
    format: Option<ExportFormat>,
) -> Result<Rendered, ApiError> {
    let response = OddsHistoryResponse::from(history);
    match format {
        None => Rendered::new(&response),
        Some(format) => odds_history::render(format, &response),
    }
}
