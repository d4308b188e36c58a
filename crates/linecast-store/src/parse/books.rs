//! `books/{sport}.csv`: every named sportsbook's prices, one row per game
//! and book.

use std::collections::HashSet;

use linecast_books::book::{MAX_KEY_LEN, is_valid_key};
use linecast_domain::artifacts::BookRow;
use linecast_domain::{GameId, GameKey, LineField, Sport, assign_game_ids};

use super::odds::{line_columns, read_lines, refuse_impossible};
use super::problems::Problems;
use super::sheet::Sheet;

/// Parses the books table. Every line column present is read; a book key
/// of the wrong form, a second row of one game and book, or a price no
/// book could quote fails its row, naming the column.
pub fn books(sport: Sport, bytes: &[u8], problems: &mut Problems) -> Option<Vec<BookRow>> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let match_id = sheet.require("match_id", problems);
    let key = sheet.key_columns(problems);
    let book = sheet.require("book", problems);
    let title = sheet.require("book_title", problems);
    let last_update = sheet.require("last_update", problems);
    let (match_id, key, book, title, last_update) = (match_id?, key?, book?, title?, last_update?);
    let lines = line_columns(&sheet, &LineField::ALL);
    let mut rows = Vec::new();
    let mut seen: HashSet<(GameKey, String)> = HashSet::new();
    sheet.each_row(problems, |c| {
        let read_match = c.text(match_id);
        let game = c.key(&key);
        let book_key = c.text(book);
        if let Some(value) = book_key
            && !is_valid_key(value)
        {
            c.fail(
                book.name,
                format!("'{value}' is not a book key (1 to {MAX_KEY_LEN} characters of a-z, 0-9 and _)"),
            );
        }
        let book_title = c.opt_text(Some(title));
        if book_title.is_none() {
            c.fail(title.name, "required value is empty");
        }
        let prices = read_lines(c, &lines);
        refuse_impossible(c, sport, &lines, &prices);
        let updated = c.timestamp(last_update);
        if let (Some(game), Some(value)) = (&game, book_key)
            && c.ok()
            && !seen.insert((game.clone(), value.to_owned()))
        {
            c.fail(book.name, format!("a second row of book '{value}' for the same game"));
        }
        if let (Some(match_id), Some(key), Some(value), Some(title), Some(last_update), true) =
            (read_match, game, book_key, book_title, updated, c.ok())
        {
            rows.push(BookRow {
                match_id: match_id.to_owned(),
                key,
                game_id: GameId::default(),
                book: value.into(),
                title,
                lines: prices,
                last_update,
            });
        }
    });
    number_book_games(sport, &mut rows);
    Some(rows)
}

/// Numbers the games of the rows: each distinct game key once (a game has
/// a row per book), as every other artifact numbers its games.
fn number_book_games(sport: Sport, rows: &mut [BookRow]) {
    let mut games: Vec<&GameKey> = Vec::new();
    let mut seen: HashSet<&GameKey> = HashSet::new();
    for row in rows.iter() {
        if seen.insert(&row.key) {
            games.push(&row.key);
        }
    }
    let ids = assign_game_ids(sport, games.iter().copied());
    let by_key: std::collections::HashMap<GameKey, GameId> = games.into_iter().cloned().zip(ids).collect();
    for row in rows.iter_mut() {
        if let Some(id) = by_key.get(&row.key) {
            row.game_id = id.clone();
        }
    }
}
