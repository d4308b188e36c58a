//! Whole-store validation: every object under the contract's prefixes is
//! read with the serving parsers in collect-all mode, then cross-object
//! rules are checked (each sport with data has teams and scores, team slugs
//! exist, catalog keys exist, no stray keys).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use chrono::NaiveDate;
use futures::TryStreamExt;
use linecast_core::StoreError;
use linecast_domain::artifacts::keys;
use linecast_domain::{ModelType, SeasonLabel, Sport};

use crate::parse::{Problems, WHOLE, collect};
use crate::store::ObjectArtifactStore;

/// One breach of the data contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub object: String,
    /// 1-based over data rows; 0 for the header or the whole object.
    pub row: usize,
    pub column: String,
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} row {} column {}: {}",
            self.object, self.row, self.column, self.reason
        )
    }
}

impl Problem {
    fn whole(object: &str, reason: impl Into<String>) -> Self {
        Self {
            object: object.to_owned(),
            row: 0,
            column: WHOLE.to_owned(),
            reason: reason.into(),
        }
    }

    fn from_error(object: &str, err: StoreError) -> Self {
        match err {
            StoreError::Corrupt {
                object,
                row,
                column,
                reason,
            } => Self {
                object,
                row,
                column,
                reason,
            },
            other => Self::whole(object, other.to_string()),
        }
    }
}

/// What `validate` found.
#[derive(Debug, Clone, Default)]
pub struct ValidationReport {
    pub objects_checked: usize,
    pub problems: Vec<Problem>,
}

/// The contract artifact a key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Teams(Sport),
    Scores(Sport),
    Predictions(Sport, ModelType),
    Odds(Sport),
    Books(Sport),
    Season(Sport, ModelType, SeasonLabel),
    Markets(Sport),
    Release(Sport, NaiveDate),
    Catalog,
    Dataset(Sport),
}

impl Kind {
    fn sport(self) -> Option<Sport> {
        match self {
            Kind::Teams(s)
            | Kind::Scores(s)
            | Kind::Predictions(s, _)
            | Kind::Odds(s)
            | Kind::Books(s)
            | Kind::Season(s, _, _)
            | Kind::Markets(s)
            | Kind::Release(s, _)
            | Kind::Dataset(s) => Some(s),
            Kind::Catalog => None,
        }
    }

    /// CSV artifacts whose team columns name teams of the sport.
    fn has_team_columns(self) -> bool {
        matches!(
            self,
            Kind::Scores(_)
                | Kind::Predictions(..)
                | Kind::Odds(_)
                | Kind::Books(_)
                | Kind::Season(..)
                | Kind::Markets(_)
        )
    }
}

/// Which artifact `key` is, or why it is not one.
pub(crate) fn classify(key: &str) -> Result<Kind, String> {
    let parts: Vec<&str> = key.split('/').collect();
    let sport = |code: &str| Sport::parse(code).map_err(|e| e.to_string());
    let model = |code: &str| ModelType::parse(code).map_err(|e| e.to_string());
    let stem = |name: &'static str, file: &'static str, ext: &'static str| {
        move |f: &str| {
            f.strip_suffix(ext)
                .map(str::to_owned)
                .ok_or_else(|| format!("{name} objects must be {file}"))
        }
    };
    match parts.as_slice() {
        ["teams", f] => Ok(Kind::Teams(sport(&stem("team", "{sport}.csv", ".csv")(f)?)?)),
        ["scores", f] => Ok(Kind::Scores(sport(&stem("score", "{sport}.csv", ".csv")(f)?)?)),
        ["odds", f] => Ok(Kind::Odds(sport(&stem("odds", "{sport}.csv", ".csv")(f)?)?)),
        ["books", f] => Ok(Kind::Books(sport(&stem("books", "{sport}.csv", ".csv")(f)?)?)),
        ["markets", f] => Ok(Kind::Markets(sport(&stem("market", "{sport}.csv", ".csv")(f)?)?)),
        ["predictions", s, f] => Ok(Kind::Predictions(
            sport(s)?,
            model(&stem("prediction", "{model_type}.csv", ".csv")(f)?)?,
        )),
        ["seasons", s, m, f] => {
            let sport = sport(s)?;
            let label = stem("season", "{season}.csv", ".csv")(f)?;
            let label = SeasonLabel::parse(sport, &label).map_err(|e| e.to_string())?;
            Ok(Kind::Season(sport, model(m)?, label))
        }
        ["releases", s, f] => {
            let date = stem("release", "{slate_date}.json", ".json")(f)?;
            let date = NaiveDate::parse_from_str(&date, "%Y-%m-%d")
                .map_err(|_| format!("release file name '{f}' is not a YYYY-MM-DD date"))?;
            Ok(Kind::Release(sport(s)?, date))
        }
        ["products", "catalog.json"] => Ok(Kind::Catalog),
        ["datasets", s, _] => Ok(Kind::Dataset(sport(s)?)),
        _ => Err("not a key of the data contract".to_owned()),
    }
}

/// Where linecast writes in the store it reads: the kept releases' bytes
/// (data-contract.md, "Kept releases"). Neither checked against the
/// contract nor published: each store's servers write their own.
pub(crate) const LINECAST_OWN_PREFIX: &str = "archive/";

/// Whether `key` is one of linecast's own objects, not an artifact.
pub(crate) fn is_linecast_own(key: &str) -> bool {
    key.starts_with(LINECAST_OWN_PREFIX)
}

/// Checks every object of the store against the data contract and reports
/// every problem found (never stopping at the first).
pub async fn validate(store: &ObjectArtifactStore) -> ValidationReport {
    let mut report = ValidationReport::default();
    let listing: Result<Vec<_>, _> = store.object_store().list(None).try_collect().await;
    let mut all_keys: Vec<String> = match listing {
        Ok(metas) => metas.into_iter().map(|m| m.location.to_string()).collect(),
        Err(err) => {
            report
                .problems
                .push(Problem::whole("(store)", format!("cannot list the store: {err}")));
            return report;
        }
    };
    // linecast's own objects (kept releases) are not the pipeline's.
    all_keys.retain(|key| !is_linecast_own(key));
    all_keys.sort();
    let existing: HashSet<&str> = all_keys.iter().map(String::as_str).collect();

    let mut kinds: Vec<(String, Kind)> = Vec::new();
    for key in &all_keys {
        match classify(key) {
            Ok(kind) => kinds.push((key.clone(), kind)),
            Err(reason) => report.problems.push(Problem::whole(key, reason)),
        }
    }

    let mut teams: HashMap<Sport, HashSet<String>> = HashMap::new();
    let mut team_checks: Vec<(String, Sport, bytes::Bytes)> = Vec::new();
    let mut sports_with_data: BTreeSet<Sport> = BTreeSet::new();
    for (key, kind) in &kinds {
        report.objects_checked += 1;
        if let Some(sport) = kind.sport() {
            sports_with_data.insert(sport);
        }
        if matches!(kind, Kind::Dataset(_)) {
            // Any format is accepted; only existence matters (checked below).
            continue;
        }
        let bytes = match store.get(key).await {
            Ok((_, bytes)) => bytes,
            Err(err) => {
                report.problems.push(Problem::from_error(key, err));
                continue;
            }
        };
        let mut problems = Problems::collect_all(key);
        check_object(*kind, &bytes, &mut problems, &mut teams, &existing);
        report
            .problems
            .extend(problems.into_vec().into_iter().map(|e| Problem::from_error(key, e)));
        if kind.has_team_columns()
            && let Some(sport) = kind.sport()
        {
            team_checks.push((key.clone(), sport, bytes));
        }
    }

    for (key, sport, bytes) in team_checks {
        if let Some(known) = teams.get(&sport) {
            let mut problems = Problems::collect_all(&key);
            collect::unknown_teams(&bytes, known, &mut problems);
            report
                .problems
                .extend(problems.into_vec().into_iter().map(|e| Problem::from_error(&key, e)));
        }
    }

    for sport in sports_with_data {
        for required in [keys::teams(sport), keys::scores(sport)] {
            if !existing.contains(required.as_str()) {
                report.problems.push(Problem::whole(
                    &required,
                    format!("missing: every sport with data needs it ({sport})"),
                ));
            }
        }
    }
    report
}

/// Parses one object with its collect-all parser and applies the rules that
/// need other objects' existence.
fn check_object(
    kind: Kind,
    bytes: &[u8],
    problems: &mut Problems,
    teams: &mut HashMap<Sport, HashSet<String>>,
    existing: &HashSet<&str>,
) {
    match kind {
        Kind::Teams(sport) => {
            if let Some(table) = collect::teams(bytes, problems) {
                teams.insert(sport, table.teams.into_iter().map(|t| t.slug).collect());
            }
        }
        Kind::Scores(sport) => {
            collect::scores(sport, bytes, problems);
        }
        Kind::Predictions(sport, model_type) => {
            collect::predictions(sport, model_type, bytes, problems);
        }
        Kind::Odds(sport) => {
            collect::odds(sport, bytes, problems);
        }
        Kind::Books(sport) => {
            collect::books(sport, bytes, problems);
        }
        Kind::Season(sport, model_type, label) => {
            collect::season(sport, model_type, label, bytes, problems);
        }
        Kind::Markets(_) => {
            collect::market_prices(bytes, problems);
        }
        Kind::Release(sport, date) => {
            if let Some(manifest) = collect::release(sport, date, bytes, problems) {
                check_pending_odds(&manifest, problems);
            }
        }
        Kind::Catalog => {
            if let Some(catalog) = collect::catalog(bytes, problems) {
                for (i, p) in catalog.products.iter().enumerate() {
                    if !existing.contains(p.key.as_str()) {
                        problems.push(
                            i + 1,
                            "key",
                            format!("product '{}' names missing object '{}'", p.product_id, p.key),
                        );
                    }
                }
            }
        }
        Kind::Dataset(_) => {}
    }
}

/// `odds_pending_since` names the first odds arrival the current
/// predictions have not absorbed, so it lies after the latest rebuild (or
/// publication) and no later than the latest arrival; and a market whose
/// latest odds are newer than its rebuild should name it. Checked by the
/// validator only: serving tolerates an inconsistent value (the refresh
/// deadline then counts from `odds_arrived_at`).
fn check_pending_odds(manifest: &linecast_domain::artifacts::ReleaseManifest, problems: &mut Problems) {
    for (model_type, market) in &manifest.markets {
        let column = format!("markets.{model_type}.odds_pending_since");
        let rebuilt = market.predictions_rebuilt_at.or(market.published_at);
        match (market.odds_pending_since, market.odds_arrived_at, rebuilt) {
            (Some(_), None, _) => {
                problems.push(0, &column, "set while odds_arrived_at is null");
            }
            (Some(since), Some(odds), _) if since > odds => problems.push(
                0,
                &column,
                format!("{since} is later than the latest odds arrival {odds}"),
            ),
            (Some(since), Some(_), Some(rebuilt)) if since <= rebuilt => problems.push(
                0,
                &column,
                format!("{since} is not after the latest rebuild {rebuilt}: those odds are absorbed; clear it"),
            ),
            (None, Some(odds), Some(rebuilt)) if odds > rebuilt => problems.push(
                0,
                &column,
                format!("null while odds that arrived at {odds} are not absorbed (rebuilt {rebuilt}): set it to the first unabsorbed arrival"),
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn contract_keys_are_classified_and_stray_keys_are_not() {
        assert_eq!(classify("teams/nba.csv"), Ok(Kind::Teams(Sport::Nba)));
        assert_eq!(
            classify("seasons/nba/over_under/2025-26.csv"),
            Ok(Kind::Season(
                Sport::Nba,
                ModelType::OverUnder,
                SeasonLabel::parse(Sport::Nba, "2025-26").unwrap()
            ))
        );
        assert!(classify("seasons/nba/over_under/2025.csv").is_err());
        assert!(classify("releases/nba/2026-13-01.json").is_err());
        assert!(classify("teams/xfl.csv").is_err());
        assert!(classify("README.md").is_err());
        assert_eq!(classify("datasets/mlb/anything.parquet"), Ok(Kind::Dataset(Sport::Mlb)));
    }
}
