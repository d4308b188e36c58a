//! The accounts database: its URL, whether the server migrates it, how
//! long one call may wait, and how long an outage is ridden out.

use std::path::Path;
use std::time::Duration;

use super::SettingsError;
use super::value::{flag_or, number, seconds};

/// How long a database outage is ridden out unless
/// `LINECAST_DB_OUTAGE_GRACE_SECS` says otherwise: a failover of a managed
/// PostgreSQL (Cloud SQL, RDS) usually completes within it.
pub const DEFAULT_DB_OUTAGE_GRACE: Duration = Duration::from_mins(1);
const MAX_DB_OUTAGE_GRACE: Duration = Duration::from_hours(1);

/// The database settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Database {
    pub(super) url: String,
    /// Whether `LINECAST_DATABASE_URL` is configured (else the database is
    /// the SQLite file under the var folder).
    pub(super) configured: bool,
    pub(super) migrate: bool,
    pub(super) timeout: Duration,
    pub(super) db_outage_grace: Duration,
}

/// `LINECAST_DATABASE_URL` (default a SQLite file in `var_dir`),
/// `LINECAST_MIGRATE`, `LINECAST_DATABASE_TIMEOUT_MS` and
/// `LINECAST_DB_OUTAGE_GRACE_SECS` (or the older
/// `LINECAST_USAGE_STALE_AFTER_MS`).
pub(super) fn read(env: &impl Fn(&str) -> Option<String>, var_dir: &Path) -> Result<Database, SettingsError> {
    let configured = env("LINECAST_DATABASE_URL").filter(|s| !s.is_empty());
    let migrate = flag_or(env, "LINECAST_MIGRATE", false)?;
    let database_timeout = Duration::from_millis(number(env, "LINECAST_DATABASE_TIMEOUT_MS", 2000)?);
    let grace = seconds(
        env,
        "LINECAST_DB_OUTAGE_GRACE_SECS",
        |d| !d.is_zero() && d <= MAX_DB_OUTAGE_GRACE,
        "seconds, more than 0 and at most 3600",
    )?;
    let db_outage_grace = match (grace, env("LINECAST_USAGE_STALE_AFTER_MS")) {
        (Some(grace), _) => grace,
        (None, Some(_)) => Duration::from_millis(number(env, "LINECAST_USAGE_STALE_AFTER_MS", 0)?)
            .max(Duration::from_millis(1))
            .min(MAX_DB_OUTAGE_GRACE),
        (None, None) => DEFAULT_DB_OUTAGE_GRACE,
    };
    Ok(Database {
        configured: configured.is_some(),
        url: configured.unwrap_or_else(|| format!("sqlite://{}?mode=rwc", var_dir.join("linecast.db").display())),
        migrate,
        timeout: database_timeout,
        db_outage_grace,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::file::FileSettings;
    use crate::{Settings, env_of, file};

    #[test]
    fn the_database_is_a_sqlite_file_by_default_and_a_bad_value_names_its_variable() {
        let d = read(&env_of(&[]), Path::new("/srv/var")).unwrap();
        assert_eq!(d.url, "sqlite:///srv/var/linecast.db?mode=rwc");
        assert!(!d.configured && !d.migrate);
        assert_eq!(
            (d.timeout, d.db_outage_grace),
            (Duration::from_secs(2), Duration::from_mins(1))
        );
        let d = read(
            &env_of(&[("LINECAST_DATABASE_URL", "postgres://db/x")]),
            Path::new("/srv/var"),
        )
        .unwrap();
        assert_eq!(d.url, "postgres://db/x");
        assert!(d.configured);
        for (name, value) in [
            ("LINECAST_MIGRATE", "soon"),
            ("LINECAST_DATABASE_TIMEOUT_MS", "2s"),
            ("LINECAST_DB_OUTAGE_GRACE_SECS", "0"),
            ("LINECAST_USAGE_STALE_AFTER_MS", "a minute"),
        ] {
            let err = read(&env_of(&[(name, value)]), Path::new("/srv/var")).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
        let err = read(&env_of(&[("LINECAST_DB_OUTAGE_GRACE_SECS", "3601")]), Path::new("/v")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_DB_OUTAGE_GRACE_SECS: seconds, more than 0 and at most 3600"
        );
    }

    /// Production mode only checks the schema unless `LINECAST_MIGRATE`
    /// (or `migrate` in the file) asks for migrations at start.
    #[test]
    fn migrations_at_start_only_when_asked() {
        let none = FileSettings::default();
        assert!(!Settings::from_sources(&none, |_| None).unwrap().migrate);
        let asked =
            |v: &'static str| Settings::from_sources(&none, move |k| (k == "LINECAST_MIGRATE").then(|| v.to_owned()));
        assert!(asked("true").unwrap().migrate);
        assert!(!asked("false").unwrap().migrate);
        assert_eq!(asked("soon").unwrap_err().name, "LINECAST_MIGRATE");
        let in_file = file("migrate = true");
        assert!(Settings::from_sources(&in_file, |_| None).unwrap().migrate);
        let overridden = Settings::from_sources(&in_file, |k| (k == "LINECAST_MIGRATE").then(|| "false".to_owned()));
        assert!(!overridden.unwrap().migrate);
    }

    #[test]
    fn the_database_outage_grace_is_sixty_seconds_by_default_bounded_and_read_from_its_older_name_too() {
        let none = FileSettings::default();
        let with = |pairs: &'static [(&'static str, &'static str)]| {
            Settings::from_sources(&none, move |k| {
                pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| (*v).to_owned())
            })
        };
        let secs = std::time::Duration::from_secs;
        assert_eq!(with(&[]).unwrap().db_outage_grace, secs(60));
        assert_eq!(
            with(&[("LINECAST_DB_OUTAGE_GRACE_SECS", "2.5")])
                .unwrap()
                .db_outage_grace,
            std::time::Duration::from_millis(2500)
        );
        // The older name, in milliseconds, when the new one is unset; the
        // new one wins when both are.
        assert_eq!(
            with(&[("LINECAST_USAGE_STALE_AFTER_MS", "20000")])
                .unwrap()
                .db_outage_grace,
            secs(20)
        );
        assert_eq!(
            with(&[
                ("LINECAST_USAGE_STALE_AFTER_MS", "20000"),
                ("LINECAST_DB_OUTAGE_GRACE_SECS", "90")
            ])
            .unwrap()
            .db_outage_grace,
            secs(90)
        );
        for bad in ["0", "-1", "3601", "a minute"] {
            let err = Settings::from_sources(&none, |k| {
                (k == "LINECAST_DB_OUTAGE_GRACE_SECS").then(|| bad.to_owned())
            })
            .unwrap_err();
            assert_eq!(err.name, "LINECAST_DB_OUTAGE_GRACE_SECS", "{bad}");
        }
    }
}
