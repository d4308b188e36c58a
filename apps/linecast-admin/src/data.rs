//! `linecast-admin data ...`: artifact store checks, publishing and the
//! audit of the graded record against the archive.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use chrono::NaiveDate;
use linecast_demo::{GenOptions, Profile, et_date, generate};
use linecast_domain::Sport;
use linecast_store::publish::{PublishError, PublishMode, publish};
use linecast_store::{ObjectArtifactStore, StoreOptions, validate};

#[derive(Debug, clap::Subcommand)]
pub enum DataCommand {
    /// Check a whole store against the data contract.
    Validate {
        /// Store URL (`file:///abs/path`, `memory://`, `s3://bucket/prefix`).
        /// Defaults to `file://<current dir>/data`.
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: Option<String>,
    },
    /// Copy every artifact of a store folder (or of a freshly generated demo
    /// store) to a store URL, after checking all of it against the data
    /// contract: nothing is written on any problem; objects the target holds
    /// with the same bytes are left alone; release manifests are written last.
    Publish {
        /// The store folder to publish (a directory holding the data
        /// contract's keys). Not with `--demo`.
        #[arg(required_unless_present = "demo", conflicts_with = "demo")]
        source: Option<PathBuf>,
        /// Publish a store generated now, as `fixtures generate` writes it.
        #[arg(long)]
        demo: bool,
        /// With `--demo`: the generated data's date (YYYY-MM-DD); defaults to
        /// today in America/New_York.
        #[arg(long, requires = "demo", value_parser = parse_date)]
        today: Option<NaiveDate>,
        /// With `--demo`: the generator's seed.
        #[arg(long, requires = "demo", default_value_t = linecast_demo::DEMO_SEED)]
        seed: u64,
        /// With `--demo`: `demo`, `small` or `full` (see `fixtures generate`).
        #[arg(long, requires = "demo", default_value = "demo")]
        profile: Profile,
        /// Target store URL (`file:///abs/path`, `s3://bucket/prefix`,
        /// `gs://bucket/prefix`), with the server's credentials from the
        /// environment (`AWS_*`, `GOOGLE_*`).
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: String,
        /// Check and compare only: print what would be written, write nothing.
        #[arg(long)]
        dry_run: bool,
        /// The most one store call (an object's upload included) may take.
        #[arg(long, default_value_t = 300)]
        timeout_secs: u64,
    },
    /// Check every live result row against the kept predictions releases
    /// (the `archive_check` of `/results`): lists each mismatch by game id,
    /// prints the counts per check; exits 1 on any mismatch, 0 otherwise, 2
    /// when the store or the database cannot be read.
    Audit {
        /// One sport (default: every sport).
        #[arg(long, value_parser = parse_sport)]
        sport: Option<Sport>,
        /// One season label (YYYY for mlb, YYYY-YY otherwise; default:
        /// every season with live rows).
        #[arg(long)]
        season: Option<String>,
        /// The store the server reads (the archive is kept in it).
        #[arg(long, env = "LINECAST_STORE_URL")]
        store: Option<String>,
        /// Accounts database, the same setting as the server's.
        #[arg(long, env = "LINECAST_DATABASE_URL", hide_env_values = true)]
        database_url: Option<String>,
    },
}

fn parse_sport(value: &str) -> Result<Sport, String> {
    Sport::parse(value).map_err(|e| e.to_string())
}

fn parse_date(value: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|e| format!("expected YYYY-MM-DD: {e}"))
}

pub async fn run(command: DataCommand) -> anyhow::Result<ExitCode> {
    match command {
        DataCommand::Validate { store } => validate_store(store).await,
        DataCommand::Audit {
            sport,
            season,
            store,
            database_url,
        } => {
            crate::audit::run(crate::audit::Audit {
                sport,
                season,
                store,
                database_url,
            })
            .await
        }
        DataCommand::Publish {
            source,
            demo,
            today,
            seed,
            profile,
            store,
            dry_run,
            timeout_secs,
        } => {
            let source = match source {
                Some(dir) if !demo => Source::Folder(dir),
                _ => Source::Demo(GenOptions {
                    today: today.unwrap_or_else(|| et_date(chrono::Utc::now())),
                    seed,
                    profile,
                    not_after: None,
                }),
            };
            let mode = if dry_run {
                PublishMode::DryRun
            } else {
                PublishMode::Write
            };
            publish_store(source, &store, mode, Duration::from_secs(timeout_secs)).await
        }
    }
}

/// What `data publish` copies.
enum Source {
    Folder(PathBuf),
    Demo(GenOptions),
}

/// The source as a store: the folder itself, or the generated objects in
/// memory.
async fn open_source(source: Source) -> anyhow::Result<(ObjectArtifactStore, String)> {
    match source {
        Source::Folder(dir) => {
            let path = std::fs::canonicalize(&dir).with_context(|| format!("reading {}", dir.display()))?;
            anyhow::ensure!(path.is_dir(), "{} is not a directory", path.display());
            let url = format!("file://{}", path.display());
            Ok((ObjectArtifactStore::from_url(&url, StoreOptions::default())?, url))
        }
        Source::Demo(opts) => {
            let described = format!(
                "a generated {} store for {} (seed {})",
                format!("{:?}", opts.profile).to_lowercase(),
                opts.today,
                opts.seed
            );
            let objects = tokio::task::spawn_blocking(move || generate(&opts, &mut |_| {}))
                .await
                .context("generator task")?;
            let store = linecast_store::publish::in_memory(objects).await?;
            Ok((store, described))
        }
    }
}

/// Prints each object written (or to be written, in a dry run) in the order
/// written, then a summary; each problem of an invalid source as
/// `object row N column C: reason`, exit 1.
async fn publish_store(source: Source, url: &str, mode: PublishMode, timeout: Duration) -> anyhow::Result<ExitCode> {
    let (source, described) = open_source(source).await?;
    let options = StoreOptions {
        timeout,
        ..StoreOptions::default()
    };
    // A folder that does not exist yet is an empty store: created for a
    // publish, compared as empty in a dry run (which writes nothing).
    let mut target_url = url;
    if let Some(dir) = url.strip_prefix("file://") {
        match mode {
            PublishMode::Write => std::fs::create_dir_all(dir).with_context(|| format!("creating {dir}"))?,
            PublishMode::DryRun if !std::path::Path::new(dir).exists() => target_url = "memory://",
            PublishMode::DryRun => {}
        }
    }
    let target = ObjectArtifactStore::from_url(target_url, options)?;
    let verb = match mode {
        PublishMode::Write => "wrote",
        PublishMode::DryRun => "would write",
    };
    match publish(&source, &target, mode).await {
        Ok(report) => {
            for object in report.written() {
                println!("{verb} {} ({} bytes)", object.key, object.bytes);
            }
            let (written, unchanged) = (report.written().count(), report.unchanged().count());
            let bytes: u64 = report.written().map(|o| o.bytes).sum();
            println!(
                "{verb} {written} object(s) ({bytes} bytes) of {described} to {url}; {unchanged} already there with the same bytes"
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(PublishError::Invalid(report)) => {
            for problem in &report.problems {
                println!("{problem}");
            }
            println!(
                "{} problem(s) in {} objects of {described}; nothing was published to {url}",
                report.problems.len(),
                report.objects_checked
            );
            Ok(ExitCode::FAILURE)
        }
        Err(PublishError::Store { error, done }) => {
            for object in done.written() {
                println!("{verb} {} ({} bytes)", object.key, object.bytes);
            }
            Err(anyhow::anyhow!(
                "publishing to {url} stopped after {} object(s) written: {error}; run it again to finish (what is there is skipped)",
                done.written().count()
            ))
        }
    }
}

/// Prints every problem as `object row N column C: reason`, then a summary;
/// exits 1 when anything is wrong.
async fn validate_store(url: Option<String>) -> anyhow::Result<ExitCode> {
    let url = match url {
        Some(url) => url,
        None => format!("file://{}", std::env::current_dir()?.join("data").display()),
    };
    let store = ObjectArtifactStore::from_url(&url, StoreOptions::default())?;
    let report = validate(&store).await;
    for problem in &report.problems {
        println!("{problem}");
    }
    let objects = report.objects_checked;
    let count = report.problems.len();
    if count == 0 {
        println!("ok: {objects} objects in {url} match the data contract");
        Ok(ExitCode::SUCCESS)
    } else {
        println!("{count} problem(s) in {objects} objects of {url}");
        Ok(ExitCode::FAILURE)
    }
}
