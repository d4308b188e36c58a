//! One parser per artifact of the data contract. Each reads bytes into the
//! typed form of `linecast_domain::artifacts`, finding columns by header name
//! and refusing anything the contract forbids.
//!
//! The `*_all` forms (module `collect`) report every problem of an object for
//! validation; the plain forms stop at the first and return it as
//! `StoreError::Corrupt`. No parser panics on any input.

mod books;
mod json;
mod markets;
mod odds;
mod predictions;
mod problems;
mod scores;
mod season;
mod sheet;
mod teams;

use chrono::NaiveDate;
use linecast_core::StoreError;
use linecast_domain::artifacts::{
    BookRow, MarketPriceRow, OddsRow, PredictionTable, ProductCatalog, ReleaseManifest, ScoreRow, SeasonTable,
    TeamTable,
};
use linecast_domain::{ModelType, SeasonLabel, Sport};

pub use problems::Problems;
pub use problems::WHOLE;

/// Parsers that record problems into a sink instead of stopping: with
/// `Problems::collect_all` they read the whole object and return the rows
/// that were valid.
pub mod collect {
    pub use super::books::books;
    pub use super::json::{catalog, release};
    pub use super::markets::market_prices;
    pub use super::odds::odds;
    pub use super::predictions::predictions;
    pub use super::scores::scores;
    pub use super::season::season;
    pub use super::teams::{teams, unknown_teams};
}

pub fn teams(object: &str, bytes: &[u8]) -> Result<TeamTable, StoreError> {
    let mut p = Problems::first_only(object);
    let value = teams::teams(bytes, &mut p);
    p.into_result(value)
}

pub fn scores(object: &str, sport: Sport, bytes: &[u8]) -> Result<Vec<ScoreRow>, StoreError> {
    let mut p = Problems::first_only(object);
    let value = scores::scores(sport, bytes, &mut p);
    p.into_result(value)
}

pub fn predictions(
    object: &str,
    sport: Sport,
    model_type: ModelType,
    bytes: &[u8],
) -> Result<PredictionTable, StoreError> {
    let mut p = Problems::first_only(object);
    let value = predictions::predictions(sport, model_type, bytes, &mut p);
    p.into_result(value)
}

pub fn odds(object: &str, sport: Sport, bytes: &[u8]) -> Result<Vec<OddsRow>, StoreError> {
    let mut p = Problems::first_only(object);
    let value = odds::odds(sport, bytes, &mut p);
    p.into_result(value)
}

pub fn books(object: &str, sport: Sport, bytes: &[u8]) -> Result<Vec<BookRow>, StoreError> {
    let mut p = Problems::first_only(object);
    let value = books::books(sport, bytes, &mut p);
    p.into_result(value)
}

pub fn season(
    object: &str,
    sport: Sport,
    model_type: ModelType,
    label: SeasonLabel,
    bytes: &[u8],
) -> Result<SeasonTable, StoreError> {
    let mut p = Problems::first_only(object);
    let value = season::season(sport, model_type, label, bytes, &mut p);
    p.into_result(value)
}

pub fn market_prices(object: &str, bytes: &[u8]) -> Result<Vec<MarketPriceRow>, StoreError> {
    let mut p = Problems::first_only(object);
    let value = markets::market_prices(bytes, &mut p);
    p.into_result(value)
}

pub fn release(object: &str, sport: Sport, slate_date: NaiveDate, bytes: &[u8]) -> Result<ReleaseManifest, StoreError> {
    let mut p = Problems::first_only(object);
    let value = json::release(sport, slate_date, bytes, &mut p);
    p.into_result(value)
}

pub fn catalog(object: &str, bytes: &[u8]) -> Result<ProductCatalog, StoreError> {
    let mut p = Problems::first_only(object);
    let value = json::catalog(bytes, &mut p);
    p.into_result(value)
}
