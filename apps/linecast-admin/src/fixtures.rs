//! `linecast-admin fixtures ...`: deterministic demo and test data.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use chrono::NaiveDate;
use indicatif::{ProgressBar, ProgressStyle};
use linecast_demo::{GenOptions, Profile, et_date, generate, planned_steps, write_dir};

#[derive(Debug, clap::Subcommand)]
pub enum FixturesCommand {
    /// Write a complete store for every sport and model type.
    Generate {
        /// Directory to write the store into (created when missing).
        #[arg(long)]
        out: PathBuf,
        /// Today's date (YYYY-MM-DD); defaults to today in America/New_York.
        #[arg(long, value_parser = parse_date)]
        today: Option<NaiveDate>,
        /// Seed of the generator; the same seed and date give identical bytes.
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// `demo` (real professional leagues, the best-known college teams,
        /// 11 seasons; what the server generates in demo mode), `small` (the
        /// test fixture) or `full` (every league at real size including
        /// Division I college, 11 seasons; for benchmarks).
        #[arg(long, default_value = "demo")]
        profile: Profile,
    },
}

fn parse_date(value: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(value, "%Y-%m-%d").map_err(|e| format!("expected YYYY-MM-DD: {e}"))
}

pub async fn run(command: FixturesCommand) -> anyhow::Result<ExitCode> {
    match command {
        FixturesCommand::Generate {
            out,
            today,
            seed,
            profile,
        } => {
            let today = today.unwrap_or_else(|| et_date(chrono::Utc::now()));
            let opts = GenOptions {
                today,
                seed,
                profile,
                not_after: None,
            };
            // Generation is CPU-bound; keep it off the async runtime's workers.
            tokio::task::spawn_blocking(move || generate_into(&out, &opts))
                .await
                .context("generator task")??;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn generate_into(out: &Path, opts: &GenOptions) -> anyhow::Result<()> {
    let started = Instant::now();
    let bar = ProgressBar::new(planned_steps(opts));
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{bar:40}] {pos}/{len} {msg}")
            .context("progress template")?
            .progress_chars("=> "),
    );
    let objects = generate(opts, &mut |step| {
        bar.set_message(step.to_owned());
        bar.inc(1);
    });
    bar.set_message(format!("writing {} objects", objects.len()));
    write_dir(out, &objects).with_context(|| format!("writing {}", out.display()))?;
    bar.finish_and_clear();
    let bytes: usize = objects.iter().map(|(_, b)| b.len()).sum();
    println!(
        "wrote {} objects ({:.1} MB) to {} for {} (seed {}, {:?}) in {:.1}s",
        objects.len(),
        bytes as f64 / 1e6,
        out.display(),
        opts.today,
        opts.seed,
        opts.profile,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
