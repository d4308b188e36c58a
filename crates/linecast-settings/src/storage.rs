//! Storage: the var folder, the artifact store, how long one store call
//! may take and how long a kept release is kept.

use std::path::PathBuf;
use std::time::Duration;

use super::SettingsError;
use super::value::{bad, number, seconds};

/// The bound of one object-store call unless `LINECAST_STORE_TIMEOUT_SECS` says otherwise.
pub const DEFAULT_STORE_TIMEOUT: Duration = linecast_store::DEFAULT_TIMEOUT;
const MAX_STORE_TIMEOUT: Duration = Duration::from_mins(5);

/// The storage settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Storage {
    pub(super) var_dir: PathBuf,
    pub(super) store_url: String,
    /// Whether `LINECAST_STORE_URL` is configured (else the store is the
    /// one under `var_dir`).
    pub(super) configured: bool,
    pub(super) store_timeout: Duration,
    pub(super) release_retention_days: Option<u32>,
}

/// `LINECAST_VAR_DIR`, `LINECAST_STORE_URL`, `LINECAST_STORE_TIMEOUT_SECS`
/// and `LINECAST_RELEASE_RETENTION_DAYS`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Storage, SettingsError> {
    let var_dir = var_dir(env)?;
    let configured_store = env("LINECAST_STORE_URL").filter(|s| !s.is_empty());
    let store_timeout = seconds(
        env,
        "LINECAST_STORE_TIMEOUT_SECS",
        |d| !d.is_zero() && d <= MAX_STORE_TIMEOUT,
        "seconds, more than 0 and at most 300",
    )?
    .unwrap_or(DEFAULT_STORE_TIMEOUT);
    let release_retention_days = number(env, "LINECAST_RELEASE_RETENTION_DAYS", 0)?;
    if release_retention_days > 36_500 {
        return Err(bad(
            "LINECAST_RELEASE_RETENTION_DAYS",
            "whole days, from 0 (keep all) to 36500",
        ));
    }
    Ok(Storage {
        configured: configured_store.is_some(),
        store_url: configured_store.unwrap_or_else(|| format!("file://{}", var_dir.join("store").display())),
        var_dir,
        store_timeout,
        release_retention_days: u32::try_from(release_retention_days).ok().filter(|d| *d > 0),
    })
}

/// `LINECAST_VAR_DIR` (default `var`), relative to the working directory.
fn var_dir(env: &impl Fn(&str) -> Option<String>) -> Result<PathBuf, SettingsError> {
    let cwd = std::env::current_dir().map_err(|e| bad("LINECAST_VAR_DIR", e))?;
    let var_dir = env("LINECAST_VAR_DIR").map_or_else(|| cwd.join("var"), PathBuf::from);
    Ok(if var_dir.is_absolute() {
        var_dir
    } else {
        cwd.join(var_dir)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn the_store_is_under_the_var_folder_by_default_and_a_bad_value_names_its_variable() {
        let cwd = std::env::current_dir().unwrap();
        let s = read(&env_of(&[])).unwrap();
        assert_eq!(s.var_dir, cwd.join("var"));
        assert_eq!(s.store_url, format!("file://{}", cwd.join("var/store").display()));
        assert!(!s.configured);
        assert_eq!(
            (s.store_timeout, s.release_retention_days),
            (Duration::from_secs(5), None)
        );
        let s = read(&env_of(&[
            ("LINECAST_VAR_DIR", "elsewhere"),
            ("LINECAST_STORE_URL", "s3://bucket/p"),
            ("LINECAST_RELEASE_RETENTION_DAYS", "30"),
        ]))
        .unwrap();
        assert_eq!(
            (s.var_dir, s.store_url.as_str()),
            (cwd.join("elsewhere"), "s3://bucket/p")
        );
        assert!(s.configured);
        assert_eq!(s.release_retention_days, Some(30));
        assert_eq!(
            read(&env_of(&[("LINECAST_RELEASE_RETENTION_DAYS", "0")]))
                .unwrap()
                .release_retention_days,
            None
        );
        for (name, value) in [
            ("LINECAST_STORE_TIMEOUT_SECS", "301"),
            ("LINECAST_RELEASE_RETENTION_DAYS", "36501"),
            ("LINECAST_RELEASE_RETENTION_DAYS", "a year"),
        ] {
            let err = read(&env_of(&[(name, value)])).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
        let err = read(&env_of(&[("LINECAST_STORE_TIMEOUT_SECS", "0")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_STORE_TIMEOUT_SECS: seconds, more than 0 and at most 300"
        );
    }
}
