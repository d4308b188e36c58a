//! linecast domain vocabulary: the catalog of sports, model types and model
//! columns, season labels, the canonical game key, typed artifact rows and the
//! odds math every other crate shares, and the shared rules of time (ET
//! dates), rounding and printable text.
//!
//! This crate is pure. It must not know about storage, HTTP, async runtimes or
//! the system clock; time always comes in as an argument.

pub mod artifacts;
pub mod catalog;
pub mod game;
pub mod odds;
pub mod round;
pub mod row;
pub mod season;
pub mod shared;
pub mod text;
pub mod time;

pub use catalog::{ModelColumn, ModelType, PublicMarket, Side, Sport, UnknownCode};
pub use game::{GameId, GameKey, assign_game_ids, read_game_id};
pub use odds::{AmericanOdds, InvalidOdds};
pub use row::{LineField, Lines, ModelProbs, Provenance, SeasonRow, SeasonType};
pub use season::{InvalidSeason, SeasonLabel};
pub use shared::{SharedStr, TeamName, Text};
