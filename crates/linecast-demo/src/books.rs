//! Named sportsbooks around the demo's market (issue 77): each book of
//! `linecast_books`'s [`CATALOGUE`] prices a game from the market's view
//! (`Snapshot::view`) plus its own lasting per-game offset and a little
//! per-release noise, at its own overround, with the sim's line
//! construction ([`market_lines_at`]).
//!
//! - The sharp book (`sharpline`) sits on the market's view (no lasting
//!   offset, the least noise) at about 2.2%; the others at 4.2 to 6%.
//! - The sharp book quotes from the game's entry; each other book enters 0
//!   to 12 hours (0 to [`MAX_ENTRY_STEPS`] releases) after it and has no
//!   quote before.
//! - At each release a book re-prices with its own probability; otherwise
//!   it repeats its previous prices. Its `updated` instant is the release at
//!   which its prices last changed.
//! - Quotes exist only up to the game's last pre-start release (the path's
//!   snapshots), so from the start on every book is frozen like the market.
//! - A game with no line has no book; a one-sided game keeps the same sides
//!   missing at every book; one book leaves out the total of about 10% of
//!   games.
//!
//! Randomness comes only from `books/{sport}/{game}/{book}` streams, so the
//! market, models and every other object draw exactly as without books.

use linecast_books::book::{Book, CATALOGUE};

use crate::market::{BookRun, Market, Path, Quote};
use crate::rng::Rng;
use crate::sim::{league, market_lines_at};

/// The latest a non-sharp book enters, in releases after the game's entry
/// (six two-hour releases: 12 hours).
pub(crate) const MAX_ENTRY_STEPS: usize = 6;

/// How one book prices: its overround, the chance it re-prices at a
/// release, the standard deviations of its lasting per-game offset and of
/// its per-release noise (as shares of the league's final-margin and
/// final-total spread), and the share of games it quotes without a total.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pricing {
    pub key: &'static str,
    pub overround: f64,
    pub update: f64,
    pub offset_sd: f64,
    pub noise_sd: f64,
    pub no_total: f64,
}

const fn pricing(key: &'static str, overround: f64, update: f64, no_total: f64) -> Pricing {
    Pricing {
        key,
        overround,
        update,
        offset_sd: OFFSET_SD,
        noise_sd: NOISE_SD,
        no_total,
    }
}

/// A non-sharp book's lasting offset and per-release noise, as shares of
/// `margin_sd` / `total_sd`: 0.012 × 13 points is about 0.16 point on an
/// NBA spread per book (with staleness and rounding to half points, books
/// differ by about half a point), a few cents on money lines.
const OFFSET_SD: f64 = 0.012;
const NOISE_SD: f64 = 0.004;

/// Every catalogue book's pricing, in catalogue order.
pub(crate) const PRICING: [Pricing; 7] = [
    Pricing {
        key: "sharpline",
        overround: 0.022,
        update: 0.9,
        offset_sd: 0.0,
        noise_sd: 0.003,
        no_total: 0.0,
    },
    pricing("eastline", 0.045, 0.85, 0.0),
    pricing("harborbet", 0.05, 0.75, 0.0),
    pricing("meadowbet", 0.042, 0.8, 0.0),
    pricing("northbook", 0.048, 0.8, 0.1),
    pricing("riverline", 0.055, 0.75, 0.0),
    pricing("summitodds", 0.06, 0.7, 0.0),
];

/// A book's pricing (a plain non-sharp book for a key not in [`PRICING`]).
pub(crate) fn pricing_of(book: &Book) -> Pricing {
    PRICING
        .iter()
        .find(|p| p.key == book.key.as_str())
        .copied()
        .unwrap_or_else(|| pricing("", 0.05, 0.7, 0.0))
}

/// Every catalogue book's quotes of a game whose market ran `path`; `game`
/// names the game in the books' random streams.
pub(crate) fn run_books(m: &Market, path: &Path, seed: u64, game: &str) -> Vec<BookRun> {
    if m.no_line || path.snaps.is_empty() {
        return Vec::new();
    }
    let lg = league(m.sport);
    CATALOGUE
        .iter()
        .map(|book| {
            let p = pricing_of(book);
            let mut rng = Rng::stream(seed, &format!("books/{}/{game}/{}", m.sport, book.key));
            let entry = if book.sharp { 0 } else { rng.below(MAX_ENTRY_STEPS + 1) };
            let first = entry.min(path.snaps.len() - 1);
            let offset = (
                p.offset_sd * lg.margin_sd * rng.normal(),
                p.offset_sd * lg.total_sd * rng.normal(),
            );
            let no_total = rng.chance(p.no_total);
            let mut quotes: Vec<Quote> = Vec::with_capacity(path.snaps.len() - first);
            for k in first..path.snaps.len() {
                // Every release draws the same numbers, updating or not.
                let update = rng.chance(p.update);
                let noise = (rng.normal(), rng.normal());
                let previous = quotes.last();
                if let Some(prev) = previous
                    && !update
                {
                    quotes.push(prev.clone());
                    continue;
                }
                let (mm, mt) = path.snaps[k].view;
                let margin = mm + offset.0 + p.noise_sd * lg.margin_sd * noise.0;
                let total = mt + offset.1 + p.noise_sd * lg.total_sd * noise.1;
                let mut lines = market_lines_at(m.sport, margin, total, p.overround);
                if m.one_sided {
                    lines.away_money_line = None;
                    lines.away_point_spread_line = None;
                    lines.under_line = None;
                }
                if no_total {
                    lines.over_under = None;
                    lines.over_line = None;
                    lines.under_line = None;
                }
                let updated = match previous {
                    Some(prev) if prev.lines == lines => prev.updated,
                    _ => path.instant(k),
                };
                quotes.push(Quote { lines, updated });
            }
            BookRun { book, first, quotes }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_pricing_table_follows_the_catalogue_with_one_cheap_sharp_book() {
        assert_eq!(PRICING.len(), CATALOGUE.len());
        for (p, book) in PRICING.iter().zip(CATALOGUE.iter()) {
            assert_eq!(p.key, book.key.as_str());
            if book.sharp {
                assert!((0.02..=0.025).contains(&p.overround), "{}", p.key);
                assert!(p.offset_sd.abs() < f64::EPSILON);
            } else {
                assert!((0.04..=0.06).contains(&p.overround), "{}", p.key);
                assert!((0.5..=0.9).contains(&p.update), "{}", p.key);
            }
        }
    }
}
