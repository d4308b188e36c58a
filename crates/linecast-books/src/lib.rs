//! Every book for one game (issue 77): the pure rules behind named
//! sportsbooks' prices, the best price, the no-vig consensus, each book's
//! opening and close, and CLV against a close (docs/decisions.md, "Books:
//! prices, consensus and closes").
//!
//! Owns: book keys and the demo catalogue ([`book`]), the two-way de-vig
//! methods and the overround ([`devig`]), the best price per side and
//! point ([`best`]), the median no-vig consensus ([`consensus`]), openings
//! and closes with their provisional flag and no-close reasons
//! ([`close`]), and CLV in probability points ([`clv`]).
//!
//! Must not touch: storage, the network, the clock, HTTP or wire types.
//! Instants (`now`, the scheduled start, capture times) come in as
//! arguments; American prices come validated as `linecast-domain`'s
//! `AmericanOdds`, whose conversion rules this crate reuses.
//!
//! ```
//! use linecast_books::devig::{Method, overround};
//! use linecast_domain::odds::AmericanOdds;
//! let price = AmericanOdds::new(-110.0).unwrap();
//! assert_eq!(Method::parse("multiplicative").unwrap().devig(price, price), (0.5, 0.5));
//! assert!((overround(price, price) - 1.0 / 21.0).abs() < 1e-15);
//! ```

pub mod best;
pub mod book;
pub mod close;
pub mod clv;
pub mod consensus;
pub mod devig;

#[cfg(test)]
mod tests;
