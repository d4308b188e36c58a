//! How the payloads that are more than JSON are answered: the shapes of
//! every JSON payload are `linecast_payloads`; here is the glue that needs
//! the shell (`Rendered`, `ApiError`, actix-web): the calibration view (JSON or SVG diagram) and the export
//! files (CSV and Parquet bodies with their download headers).

pub mod calibration;
pub mod export;
pub mod history_export;
pub mod odds_history;
pub mod scorecard;
