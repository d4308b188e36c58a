//! The no-vig consensus of one game's market across books.
//!
//! Owns which books count and how their probabilities combine; the
//! de-vig itself is [`crate::devig`]'s.
//!
//! - Each book with both sides is de-vigged on its own (multiplicative by
//!   default), then each side's probability is the **median** across books
//!   (the mean of the two middle values for an even count). Side b's median
//!   is 1 minus side a's, so the pair sums to 1.
//! - A book missing a side gives no probability: it is left out and
//!   counted (`n_one_sided`).
//! - Spreads and totals: only books at the **modal line** count (a book's
//!   line is side a's point; the mode as [`crate::best::modal_point`]
//!   breaks ties); the others are left out and counted (`n_off_line`).
//! - The overround is the median of the counted books' overrounds.

use linecast_domain::odds::AmericanOdds;

use crate::best::modal_point;
use crate::book::BookKey;
use crate::devig::{Method, overround};

/// One book's two-way market at one instant.
#[derive(Debug, Clone, PartialEq)]
pub struct BookMarket {
    /// The book.
    pub book: BookKey,
    /// Side a's price (home, or over), if quoted.
    pub a: Option<AmericanOdds>,
    /// Side b's price (away, or under), if quoted.
    pub b: Option<AmericanOdds>,
    /// Side a's point for a spread or total; `None` for a moneyline.
    pub line: Option<f64>,
}

/// The consensus of a market.
#[derive(Debug, Clone, PartialEq)]
pub struct Consensus {
    /// Side a's median no-vig probability.
    pub p_a: f64,
    /// Side b's median no-vig probability (`1 − p_a`).
    pub p_b: f64,
    /// The books counted.
    pub n_books: usize,
    /// Books left out for quoting one side only.
    pub n_one_sided: usize,
    /// Two-sided books left out for quoting another line.
    pub n_off_line: usize,
    /// The median overround of the counted books.
    pub overround: f64,
    /// The de-vig method applied to each book.
    pub method: Method,
    /// The line the consensus is at (`None` for a moneyline).
    pub line: Option<f64>,
}

/// The median; the mean of the two middle values for an even count.
/// `None` for no values.
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    if n % 2 == 1 {
        Some(values[mid])
    } else {
        Some(f64::midpoint(values[mid - 1], values[mid]))
    }
}

/// The consensus of `markets` by `method`; `None` when no book quotes both
/// sides.
pub fn consensus(markets: &[BookMarket], method: Method) -> Option<Consensus> {
    let two_sided: Vec<(&BookMarket, AmericanOdds, AmericanOdds)> =
        markets.iter().filter_map(|m| Some((m, m.a?, m.b?))).collect();
    let n_one_sided = markets.len() - two_sided.len();
    let line = modal_point(two_sided.iter().map(|(m, _, _)| m.line))?;
    let counted: Vec<_> = two_sided.iter().filter(|(m, _, _)| m.line == line).collect();
    let p_a = median(counted.iter().map(|(_, a, b)| method.devig(*a, *b).0).collect())?;
    let overround = median(counted.iter().map(|(_, a, b)| overround(*a, *b)).collect())?;
    Some(Consensus {
        p_a,
        p_b: 1.0 - p_a,
        n_books: counted.len(),
        n_one_sided,
        n_off_line: two_sided.len() - counted.len(),
        overround,
        method,
        line,
    })
}
