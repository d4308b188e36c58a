//! `linecast-admin releases ...`: kept releases of predictions and odds.
//! `import` backfills earlier versions (a directory or store of instant
//! folders, see `linecast_store::backfill`) through the same keeping the
//! server's watcher uses: archived once by digest, recorded once. `index`
//! indexes the games of releases kept before the index of games existed.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use linecast_core::services::releases::{ReleaseError, Releases};
use linecast_store::{ObjectArtifactStore, StoreOptions};

use crate::accounts::config;

#[derive(Debug, clap::Subcommand)]
pub enum ReleasesCommand {
    /// Backfill earlier versions: SOURCE is a directory or a store URL
    /// (`file:///abs/dir`, `s3://bucket/prefix`, `gs://bucket/prefix`) whose
    /// first level names the instant each version was published
    /// (`2026-11-20T14:00:00Z` or `20261120T140000Z`), holding the data
    /// contract's keys below it (`predictions/nba/won_on_points.csv`,
    /// `odds/nba.csv`). A folder naming an instant after now
    /// (`LINECAST_NOW` when set, as the server's clock) refuses the whole
    /// import: nothing is kept.
    Import {
        source: String,
        /// The store the server reads (the archive is kept in it).
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: Option<String>,
        /// Accounts database, the same setting as the server's.
        #[arg(long, env = "LINECAST_DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
    },
    /// Index the games of the kept predictions releases not yet indexed
    /// (releases kept before the index of games existed; the server also
    /// does it in the background at start). Idempotent: run it again, or
    /// beside a running server, and nothing changes twice.
    Index {
        /// The store the server reads (the archive is kept in it).
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: Option<String>,
        /// Accounts database, the same setting as the server's.
        #[arg(long, env = "LINECAST_DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
    },
}

pub async fn run(command: ReleasesCommand) -> anyhow::Result<ExitCode> {
    match command {
        ReleasesCommand::Import {
            source,
            store,
            database_url,
        } => import(&source, store, database_url).await,
        ReleasesCommand::Index { store, database_url } => index(store, database_url).await,
    }
}

/// The store URL given, or `./data`.
fn store_url(store: Option<String>) -> anyhow::Result<String> {
    Ok(match store {
        Some(url) => url,
        None => format!("file://{}", std::env::current_dir()?.join("data").display()),
    })
}

async fn index(store: Option<String>, database_url: Option<String>) -> anyhow::Result<ExitCode> {
    let store = Arc::new(ObjectArtifactStore::from_url(
        &store_url(store)?,
        StoreOptions::default(),
    )?);
    let database_url = config::database_url(database_url)?;
    let db = crate::accounts::open_checked(&database_url).await?;
    let releases = Releases::new(Arc::new(db), store.clone(), store, None);
    let indexed = releases.index_all().await.context("indexing the kept releases")?;
    println!("{indexed} release(s) indexed");
    Ok(ExitCode::SUCCESS)
}

/// A local directory as a `file://` URL; a URL as it is.
fn source_url(source: &str) -> anyhow::Result<String> {
    if source.contains("://") {
        return Ok(source.to_owned());
    }
    let path = std::fs::canonicalize(source).with_context(|| format!("reading {source}"))?;
    Ok(format!("file://{}", path.display()))
}

async fn import(source: &str, store: Option<String>, database_url: Option<String>) -> anyhow::Result<ExitCode> {
    let store = Arc::new(ObjectArtifactStore::from_url(
        &store_url(store)?,
        StoreOptions::default(),
    )?);
    let database_url = config::database_url(database_url)?;
    let now = crate::accounts::now()?;
    let url = source_url(source)?;
    let (versions, skipped) = linecast_store::backfill::earlier_versions(&url, &StoreOptions::default()).await?;
    let future = linecast_store::backfill::future_folders(&versions, now);
    if !future.is_empty() {
        anyhow::bail!(
            "{} folder(s) name an instant after now ({}): {}; a version cannot have been published in the future \
             (a typo in the folder's name?). Nothing was imported: rename the folder(s) to the instant each version \
             was published and import again",
            future.len(),
            now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            future.join(", ")
        );
    }
    let db = crate::accounts::open_checked(&database_url).await?;
    let releases = Releases::new(Arc::new(db), store.clone(), store, None);
    for location in &skipped {
        println!("skipped {location}: not <instant>/<predictions or odds key>");
    }
    let (mut kept, mut known, mut broken) = (0_usize, 0_usize, 0_usize);
    for version in versions {
        match releases.keep(version.series, version.published_at, version.bytes).await {
            Ok((_, true)) => kept += 1,
            Ok((_, false)) => known += 1,
            Err(ReleaseError::Store(linecast_core::StoreError::Corrupt {
                row, column, reason, ..
            })) => {
                broken += 1;
                println!("{} row {row} column {column}: {reason}", version.location);
            }
            Err(e) => return Err(anyhow::anyhow!("{}: {e}", version.location)),
        }
    }
    println!(
        "{kept} release(s) kept, {known} already kept, {broken} broken, {} skipped",
        skipped.len()
    );
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
