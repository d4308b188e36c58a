//! Shared OpenAPI fragments are not possible in attribute macros, so every
//! authenticated route repeats its error responses; this module only holds
//! the helpers their handlers share.

use chrono::{DateTime, SecondsFormat, Utc};
use linecast_domain::{SeasonLabel, Sport};
use linecast_paging::PagingError;

use crate::error::ApiError;

pub(crate) fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// A season label valid for the sport, or a 400 naming `season`.
pub(crate) fn season(sport: Sport, raw: &str) -> Result<SeasonLabel, ApiError> {
    SeasonLabel::parse(sport, raw).map_err(|e| ApiError::invalid_param("season", raw, e.expected))
}

impl From<PagingError> for ApiError {
    fn from(err: PagingError) -> Self {
        if err.is_conflict() {
            ApiError::Conflict(err.to_string())
        } else {
            ApiError::BadRequest(format!("Invalid {}: {err}", err.parameter()))
        }
    }
}
