//! Parsing of path and query values. Every failure is a 400 naming the
//! parameter and its allowed values; unknown query names are ignored.

use std::collections::HashMap;

use chrono::NaiveDate;
use linecast_domain::{ModelType, PublicMarket, Sport};

use crate::error::ApiError;

/// Raw query pairs; the first occurrence of a name wins.
pub type RawQuery = HashMap<String, String>;

pub fn sport(value: &str) -> Result<Sport, ApiError> {
    Sport::parse(value).map_err(|e| ApiError::invalid_param("sport", value, &e.allowed))
}

pub fn model_type(value: &str) -> Result<ModelType, ApiError> {
    ModelType::parse(value).map_err(|e| ApiError::invalid_param("model_type", value, &e.allowed))
}

pub fn market(value: &str) -> Result<PublicMarket, ApiError> {
    PublicMarket::parse(value).map_err(|e| ApiError::invalid_param("market", value, &e.allowed))
}

/// `YYYY-MM-DD`, a real calendar date.
pub fn date(name: &str, value: &str) -> Result<NaiveDate, ApiError> {
    let valid_shape = value.len() == 10 && value.as_bytes()[4] == b'-' && value.as_bytes()[7] == b'-';
    valid_shape
        .then(|| NaiveDate::parse_from_str(value, "%Y-%m-%d").ok())
        .flatten()
        .ok_or_else(|| ApiError::invalid_param(name, value, "a calendar date formatted YYYY-MM-DD"))
}

/// Booleans as the original service accepted them: true/false, 1/0,
/// yes/no, on/off (case-insensitive). Absent gives `default`.
pub fn boolean(query: &RawQuery, name: &str, default: bool) -> Result<bool, ApiError> {
    let Some(raw) = query.get(name) else { return Ok(default) };
    match raw.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(ApiError::invalid_param(name, raw, "true, false")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn booleans_accept_the_legacy_spellings_and_reject_others_naming_the_parameter() {
        let mut q = RawQuery::new();
        assert!(boolean(&q, "upcoming_only", true).unwrap());
        q.insert("upcoming_only".into(), "FALSE".into());
        assert!(!boolean(&q, "upcoming_only", true).unwrap());
        q.insert("upcoming_only".into(), "maybe".into());
        let err = boolean(&q, "upcoming_only", true).unwrap_err().to_string();
        assert!(
            err.contains("upcoming_only") && err.contains("maybe") && err.contains("true, false"),
            "{err}"
        );
    }

    proptest::proptest! {
        /// No input string makes a path or query parser panic, and every
        /// refusal names its parameter.
        #[test]
        fn parsers_never_panic_and_name_the_parameter(raw in ".{0,40}") {
            for (name, result) in [
                ("sport", sport(&raw).err()),
                ("model_type", model_type(&raw).err()),
                ("market", market(&raw).err()),
                ("date", date("date", &raw).err()),
            ] {
                if let Some(err) = result {
                    proptest::prop_assert!(err.to_string().contains(name));
                }
            }
            let mut q = RawQuery::new();
            q.insert("upcoming_only".into(), raw.clone());
            if let Err(err) = boolean(&q, "upcoming_only", true) {
                proptest::prop_assert!(err.to_string().contains("upcoming_only"));
            }
        }
    }

    #[test]
    fn dates_must_be_real_and_zero_padded() {
        assert!(date("date", "2026-02-28").is_ok());
        assert!(date("date", "2026-02-30").is_err());
        assert!(date("date", "2026-2-28").is_err());
        assert!(date("date", "20260228").is_err());
    }
}
