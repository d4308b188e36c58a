//! Reading one value: flags, numbers, seconds, and the error that names
//! the variable. Every area reads its variables through these, so a value
//! is spelled and refused the same way whichever setting it is.

use std::time::Duration;

use super::SettingsError;

/// The error about the variable `name`.
pub(super) fn bad(name: &'static str, reason: impl std::fmt::Display) -> SettingsError {
    SettingsError {
        name,
        reason: reason.to_string(),
    }
}

/// `value` as a flag: `1`, `true`, `yes` or `0`, `false`, `no`, in any case.
pub(super) fn flag(name: &'static str, value: &str) -> Result<bool, SettingsError> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        other => Err(bad(name, format!("'{other}'; expected true or false"))),
    }
}

/// The flag `name`, `default` when unset.
pub(super) fn flag_or(
    env: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: bool,
) -> Result<bool, SettingsError> {
    match env(name) {
        Some(v) => flag(name, &v),
        None => Ok(default),
    }
}

/// The whole number `name`, `default` when unset.
pub(super) fn number(
    env: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: u64,
) -> Result<u64, SettingsError> {
    match env(name) {
        Some(v) => v.parse().map_err(|e| bad(name, format!("'{v}': {e}"))),
        None => Ok(default),
    }
}

/// The whole number `name` that fits 32 bits, `default` when unset.
pub(super) fn small(
    env: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    default: u32,
) -> Result<u32, SettingsError> {
    u32::try_from(number(env, name, u64::from(default))?).map_err(|e| bad(name, e))
}

/// `value` of `name`, refused when 0.
pub(super) fn at_least_one(name: &'static str, value: u32) -> Result<u32, SettingsError> {
    if value == 0 {
        Err(bad(name, "must be at least 1"))
    } else {
        Ok(value)
    }
}

/// The seconds (decimals allowed) of `name`, `None` when unset. A span
/// `accept` refuses, or one no `Duration` holds, is an error saying
/// `range`.
pub(super) fn seconds(
    env: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    accept: impl Fn(Duration) -> bool,
    range: &'static str,
) -> Result<Option<Duration>, SettingsError> {
    let Some(v) = env(name) else {
        return Ok(None);
    };
    let secs = v.parse::<f64>().map_err(|e| bad(name, format!("'{v}': {e}")))?;
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| accept(*d))
        .map(Some)
        .ok_or_else(|| bad(name, range))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn values_are_read_or_refused_naming_the_variable() {
        let env = env_of(&[("A", "YES"), ("B", "12"), ("C", "0"), ("D", "2.5"), ("E", "x")]);
        assert!(flag_or(&env, "A", false).unwrap());
        assert!(!flag_or(&env, "UNSET", false).unwrap());
        assert_eq!(flag_or(&env, "E", true).unwrap_err().name, "E");
        assert_eq!(number(&env, "B", 7).unwrap(), 12);
        assert_eq!(number(&env, "UNSET", 7).unwrap(), 7);
        assert_eq!(
            small(&env, "E", 7).unwrap_err().to_string(),
            "invalid setting E: 'x': invalid digit found in string"
        );
        assert_eq!(
            at_least_one("C", small(&env, "C", 1).unwrap()).unwrap_err().reason,
            "must be at least 1"
        );
        let any = |_: Duration| true;
        assert_eq!(seconds(&env, "D", any, "r").unwrap(), Some(Duration::from_millis(2500)));
        assert_eq!(seconds(&env, "UNSET", any, "r").unwrap(), None);
        assert_eq!(seconds(&env, "D", |d| d.is_zero(), "r").unwrap_err().reason, "r");
        assert_eq!(seconds(&env, "E", any, "r").unwrap_err().name, "E");
    }
}
