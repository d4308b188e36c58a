//! How the payloads that are more than JSON are answered: the shapes of
//! every JSON payload are `linecast_payloads`; here is the glue that needs
//! HTTP (`Rendered`, `ApiError`, actix-web): the calibration view (JSON or
//! SVG diagram), the odds history and the export files (CSV and Parquet
//! bodies with their download headers). The scorecard's HTML page is the
//! shell's (`linecast_api::presentation::scorecard`): it is a template.

pub mod calibration;
pub mod export;
pub mod history_export;
pub mod odds_history;
