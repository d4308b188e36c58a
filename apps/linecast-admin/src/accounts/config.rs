//! Where the accounts database is: the same sources, in the same order, as the
//! server's settings, so the CLI and the server never silently disagree.
//!
//! Order: `--database-url` (or `LINECAST_DATABASE_URL`), then `database_url` in
//! `linecast.toml` (or the file named by `LINECAST_CONFIG`), then
//! `sqlite://<var>/linecast.db?mode=rwc` where `<var>` is `LINECAST_VAR_DIR`,
//! `var_dir` in the file, or `<cwd>/var`.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

/// The keys of `linecast.toml` the CLI reads; the rest belong to the server.
#[derive(Debug, Default, Deserialize)]
struct FileSettings {
    database_url: Option<String>,
    var_dir: Option<String>,
}

/// Resolves the database URL from the flag/env value, the config file and the
/// process environment.
pub fn database_url(from_flag_or_env: Option<String>) -> anyhow::Result<String> {
    if let Some(url) = from_flag_or_env.filter(|u| !u.is_empty()) {
        return Ok(url);
    }
    let path = std::env::var("LINECAST_CONFIG").unwrap_or_else(|_| "linecast.toml".to_owned());
    let file = read_file_settings(Path::new(&path))?;
    let cwd = std::env::current_dir().context("reading the current directory")?;
    Ok(resolve(&file, std::env::var("LINECAST_VAR_DIR").ok(), &cwd))
}

/// The value of the server setting `key` (`stripe_plans`, `signing_key`,
/// ...) in the config file, spelled as its environment variable would be
/// (numbers and booleans as text, an array of strings joined with commas);
/// `None` when the file or the key is absent. For the options the CLI
/// shares with the server, after the flag and the environment.
pub fn file_setting(key: &str) -> anyhow::Result<Option<String>> {
    let path = std::env::var("LINECAST_CONFIG").unwrap_or_else(|_| "linecast.toml".to_owned());
    let path = Path::new(&path);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let table: toml::Table = toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let Some(value) = table.get(key) else {
        return Ok(None);
    };
    let text = |v: &toml::Value| match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    };
    let read = match value {
        toml::Value::Array(items) => items.iter().map(text).collect::<Option<Vec<_>>>().map(|v| v.join(",")),
        other => text(other),
    };
    read.map(Some)
        .ok_or_else(|| anyhow::anyhow!("'{key}' in {} is not a string, number or boolean", path.display()))
}

/// A boolean setting as the server reads it (`true`/`false`, `1`/`0`,
/// `yes`/`no`).
pub fn flag(name: &str, value: &str) -> anyhow::Result<bool> {
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        other => Err(anyhow::anyhow!("{name}: '{other}'; expected true or false")),
    }
}

fn read_file_settings(path: &Path) -> anyhow::Result<FileSettings> {
    if !path.exists() {
        return Ok(FileSettings::default());
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// The file's URL, else the SQLite file under the var folder (env beats file,
/// a relative folder is taken from `cwd`, exactly as the server does).
fn resolve(file: &FileSettings, var_dir_env: Option<String>, cwd: &Path) -> String {
    if let Some(url) = file.database_url.clone().filter(|u| !u.is_empty()) {
        return url;
    }
    let var_dir = var_dir_env
        .or_else(|| file.var_dir.clone())
        .map_or_else(|| cwd.join("var"), PathBuf::from);
    let var_dir = if var_dir.is_absolute() {
        var_dir
    } else {
        cwd.join(var_dir)
    };
    format!("sqlite://{}?mode=rwc", var_dir.join("linecast.db").display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_nothing_configured_the_database_is_the_servers_default_file() {
        let url = resolve(&FileSettings::default(), None, Path::new("/srv/app"));
        assert_eq!(url, "sqlite:///srv/app/var/linecast.db?mode=rwc");
    }

    #[test]
    fn a_relative_var_dir_from_the_environment_beats_the_file_and_is_taken_from_cwd() {
        let file = FileSettings {
            database_url: None,
            var_dir: Some("/elsewhere".into()),
        };
        let url = resolve(&file, Some("state".into()), Path::new("/srv/app"));
        assert_eq!(url, "sqlite:///srv/app/state/linecast.db?mode=rwc");
    }

    #[test]
    fn a_database_url_in_the_file_beats_the_var_dir() {
        let file = FileSettings {
            database_url: Some("postgres://db/linecast".into()),
            var_dir: None,
        };
        assert_eq!(
            resolve(&file, Some("/x".into()), Path::new("/")),
            "postgres://db/linecast"
        );
    }

    #[test]
    fn the_flag_or_environment_value_wins_over_everything() {
        assert_eq!(
            database_url(Some("sqlite::memory:".into())).ok().as_deref(),
            Some("sqlite::memory:")
        );
    }
}
