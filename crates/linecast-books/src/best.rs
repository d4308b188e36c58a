//! The best price for one side of a market across books.
//!
//! Owns which quote is best and at which point the headline best is
//! taken; knows nothing of where the quotes come from.
//!
//! - **Best** is the highest payout: the highest decimal price (+150 beats
//!   +130, -105 beats -110).
//! - **Ties** between books at the same price go to the quote updated
//!   earliest (`last_update`: it has stood longest), then to the smaller
//!   book key, so the answer never depends on the order books arrive in.
//! - **Spreads and totals** compare prices only at the same point: -3.5 at
//!   -110 and -2.5 at -120 are different bets. [`best_per_point`] gives one
//!   best per point; the headline [`best`] is taken at the side's modal
//!   point ([`modal_point`]).

use std::cmp::Ordering;

use chrono::{DateTime, Utc};
use linecast_domain::odds::AmericanOdds;

use crate::book::BookKey;

/// One book's price for one side of a market.
#[derive(Debug, Clone, PartialEq)]
pub struct SideQuote {
    /// The book quoting.
    pub book: BookKey,
    /// Its American price.
    pub price: AmericanOdds,
    /// The side's line (spread or total); `None` for a moneyline.
    pub point: Option<f64>,
    /// When the book last changed this price.
    pub last_update: DateTime<Utc>,
}

/// Orders quotes best first: the higher decimal price, then the earlier
/// `last_update`, then the smaller book key.
pub fn better(a: &SideQuote, b: &SideQuote) -> Ordering {
    b.price
        .to_decimal()
        .total_cmp(&a.price.to_decimal())
        .then(a.last_update.cmp(&b.last_update))
        .then_with(|| a.book.cmp(&b.book))
}

/// The best quote among `quotes` regardless of point (a moneyline, or
/// quotes already at one point). `None` when there are none.
pub fn best_any(quotes: &[SideQuote]) -> Option<&SideQuote> {
    quotes.iter().min_by(|a, b| better(a, b))
}

/// The best quote at exactly `point` (`None` matches moneyline quotes).
pub fn best_at(quotes: &[SideQuote], point: Option<f64>) -> Option<&SideQuote> {
    quotes.iter().filter(|q| q.point == point).min_by(|a, b| better(a, b))
}

/// The most common point, `None` inside when every quote is a moneyline's.
/// A tie between points goes to the smaller absolute value (the line
/// nearer a pick'em), then the smaller value (-3 before +3). `None` outside
/// when there are no quotes.
pub fn modal_point(points: impl IntoIterator<Item = Option<f64>>) -> Option<Option<f64>> {
    let mut counts: Vec<(Option<f64>, usize)> = Vec::new();
    for point in points {
        match counts.iter_mut().find(|(p, _)| *p == point) {
            Some((_, n)) => *n += 1,
            None => counts.push((point, 1)),
        }
    }
    counts
        .into_iter()
        .min_by(|(pa, na), (pb, nb)| {
            nb.cmp(na).then_with(|| {
                let key = |p: &Option<f64>| p.unwrap_or(0.0);
                key(pa)
                    .abs()
                    .total_cmp(&key(pb).abs())
                    .then(key(pa).total_cmp(&key(pb)))
            })
        })
        .map(|(point, _)| point)
}

/// The headline best for one side: the best quote at the side's modal
/// point among `quotes`.
pub fn best(quotes: &[SideQuote]) -> Option<&SideQuote> {
    let point = modal_point(quotes.iter().map(|q| q.point))?;
    best_at(quotes, point)
}

/// One best quote per distinct point, ordered by point ascending (a
/// moneyline's single `None` point gives one).
pub fn best_per_point(quotes: &[SideQuote]) -> Vec<&SideQuote> {
    let mut points: Vec<Option<f64>> = Vec::new();
    for q in quotes {
        if !points.contains(&q.point) {
            points.push(q.point);
        }
    }
    points.sort_by(|a, b| a.unwrap_or(0.0).total_cmp(&b.unwrap_or(0.0)));
    points.into_iter().filter_map(|point| best_at(quotes, point)).collect()
}
