//! linecast prediction-market adapters behind the `PredictionMarkets` port
//! (`linecast_core::ports::markets`):
//!
//! - [`FileSnapshotMarkets`]: the `markets/{sport}.csv` snapshot of the
//!   artifact store (the default source).
//! - [`KalshiMarkets`]: Kalshi's public, unauthenticated market-data API.
//! - [`CachedMarkets`]: a per-sport moka TTL cache in front of either.
//!
//! This crate knows HTTP and caching; it must not know actix or the API's
//! response shapes.

mod cache;
mod file;
mod kalshi;

pub use cache::CachedMarkets;
pub use file::FileSnapshotMarkets;
pub use kalshi::{KalshiConfig, KalshiMarkets, TeamMatching};
