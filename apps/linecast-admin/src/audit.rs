//! `linecast-admin data audit`: every live result row of the season stores
//! checked against the kept predictions releases, as `/results` serves its
//! `archive_check` (the rule is core's `services::archive_check`). Lists
//! each mismatch by game id, prints the counts per check and exits 1 on any
//! mismatch, 0 otherwise, 2 when the store or the database cannot be read.

use std::process::ExitCode;
use std::sync::Arc;

use chrono::SecondsFormat;
use linecast_core::ArtifactStore;
use linecast_core::services::archive_check::{ArchiveCheck, ArchiveChecks, RowCheck};
use linecast_core::services::history::History;
use linecast_core::services::releases::Releases;
use linecast_domain::time::et_instant;
use linecast_domain::{ModelColumn, ModelType, SeasonLabel, SeasonRow, Sport};
use linecast_store::{ObjectArtifactStore, StoreOptions};

use crate::accounts::config;

/// The exit code of a store or database that could not be read (1 means
/// "a mismatch was found").
const UNREADABLE: u8 = 2;

/// What to audit: `None` is every sport, or every season.
pub struct Audit {
    pub sport: Option<Sport>,
    pub season: Option<String>,
    pub store: Option<String>,
    pub database_url: Option<String>,
}

pub async fn run(audit: Audit) -> anyhow::Result<ExitCode> {
    match checked(audit).await {
        Ok(code) => Ok(code),
        Err(e) => {
            eprintln!("error: the audit could not read the store or the database (nothing was judged): {e:#}");
            Ok(ExitCode::from(UNREADABLE))
        }
    }
}

fn blend(p: Option<f64>) -> String {
    p.map_or_else(|| "empty".to_owned(), |p| format!("{p:.4}"))
}

/// Why a mismatch is one.
fn why(row: &SeasonRow, check: &RowCheck) -> &'static str {
    let after_start = check.release.as_ref().is_none_or(|release| {
        et_instant(row.key.date, row.key.time_est).is_none_or(|start| release.published_at >= start)
    });
    if after_start {
        "published at or after the start"
    } else if !check.carried {
        "the release does not carry the game"
    } else {
        "another BLEND"
    }
}

async fn checked(audit: Audit) -> anyhow::Result<ExitCode> {
    let store_url = match audit.store {
        Some(url) => url,
        None => format!("file://{}", std::env::current_dir()?.join("data").display()),
    };
    let store = Arc::new(ObjectArtifactStore::from_url(&store_url, StoreOptions::default())?);
    let database_url = config::database_url(audit.database_url)?;
    let now = crate::accounts::now()?;
    let db = crate::accounts::open_checked(&database_url).await?;
    let releases = Arc::new(Releases::new(Arc::new(db), store.clone(), store.clone(), None));
    let checks = ArchiveChecks::new(releases, store.clone());
    let history = History::new(store.clone() as Arc<dyn ArtifactStore>);

    let sports: Vec<Sport> = audit.sport.map_or_else(|| Sport::ALL.to_vec(), |s| vec![s]);
    if let Some(raw) = &audit.season
        && !sports.iter().any(|s| SeasonLabel::parse(*s, raw).is_ok())
    {
        // Exit 2 through `run`: nothing was judged.
        anyhow::bail!("--season {raw} is not a season label of the sport(s) asked (YYYY for mlb, YYYY-YY otherwise)");
    }
    let mut totals = [0_usize; 4];
    let mut audited = 0_usize;
    for sport in sports {
        let season = match &audit.season {
            Some(raw) => match SeasonLabel::parse(sport, raw) {
                Ok(label) => Some(label),
                Err(_) => continue,
            },
            None => None,
        };
        for model_type in ModelType::ALL.iter().copied() {
            let labels = history.seasons(sport, model_type).await?;
            let kept = checks.kept(sport, model_type, now).await?;
            for label in labels.into_iter().filter(|l| season.is_none_or(|s| s == *l)) {
                let data = history.season(sport, model_type, label).await?;
                let season_checks = checks.season(&data, &kept).await?;
                let counts = season_checks.counts();
                let live = counts[0] + counts[1] + counts[2];
                if live == 0 {
                    continue;
                }
                audited += 1;
                for (row, _, check) in season_checks.served(&data) {
                    if check.check != ArchiveCheck::Mismatch {
                        continue;
                    }
                    let (digest, published_at) = check.release.as_ref().map_or_else(
                        || ("-".to_owned(), "-".to_owned()),
                        |r| {
                            (
                                r.digest.clone(),
                                r.published_at.to_rfc3339_opts(SecondsFormat::AutoSi, true),
                            )
                        },
                    );
                    println!(
                        "mismatch {} sport={} model_type={} season={} row_BLEND={} release_BLEND={} \
                         release_digest={digest} release_published_at={published_at} ({})",
                        row.game_id,
                        sport.code(),
                        model_type.code(),
                        label,
                        blend(row.models.get(ModelColumn::Blend)),
                        blend(check.release_blend),
                        why(row, check),
                    );
                }
                println!("{} {} {label}: {}", sport.code(), model_type.code(), describe(&counts));
                for (total, n) in totals.iter_mut().zip(counts) {
                    *total += n;
                }
            }
        }
    }
    println!(
        "total over {audited} season store(s) with live rows: {}",
        describe(&totals)
    );
    Ok(if totals[1] == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn describe(counts: &[usize; 4]) -> String {
    ArchiveCheck::ALL
        .iter()
        .zip(counts)
        .map(|(check, n)| format!("{} {n}", check.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}
