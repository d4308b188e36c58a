//! How the payloads that are more than JSON are answered: the shared glue
//! is `linecast_http::presentation`; the scorecard's page, an askama
//! template of the portal's, is here.

pub use linecast_http::presentation::{calibration, export, history_export, odds_history};

pub mod scorecard;
