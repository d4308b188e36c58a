//! First run of a demo: core's `Customers::bootstrap_demo` creates the demo
//! customer, key and entitlements when the database has no customer; this
//! prints the key clearly labelled and writes it to `var/demo-key.txt`, so
//! the README's authenticated curl works straight away.

use std::path::Path;

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};
use linecast_core::services::customers::Customers;
pub use linecast_core::services::customers::DEMO_EMAIL;

use crate::state::AppState;

/// Creates the demo customer and key when the database has no customer.
pub async fn ensure_demo_customer(customers: &Customers, state: &AppState, var_dir: &Path) -> anyhow::Result<()> {
    let Some(demo) = customers
        .bootstrap_demo(&state.api_keys, state.clock.now())
        .await
        .map_err(|e| anyhow::anyhow!("creating the demo customer: {e}"))?
    else {
        return Ok(());
    };
    let key = demo.key.key;
    let path = var_dir.join("demo-key.txt");
    std::fs::write(&path, format!("{key}\n")).with_context(|| format!("writing {}", path.display()))?;
    println!("==================== linecast demo key ====================");
    println!("DEMO API KEY (customer {DEMO_EMAIL}): {key}");
    println!("saved to {}", path.display());
    println!("===========================================================");
    Ok(())
}

/// The file in the var folder that records when this server generated its
/// demo store (so its past releases are the same market run).
const GENERATED_AT: &str = "demo-generated-at.txt";

/// Records that the demo store was generated at `now`.
pub fn note_generation(var_dir: &Path, now: DateTime<Utc>) -> anyhow::Result<()> {
    let path = var_dir.join(GENERATED_AT);
    std::fs::write(&path, format!("{}\n", now.to_rfc3339_opts(SecondsFormat::AutoSi, true)))
        .with_context(|| format!("writing {}", path.display()))
}

/// When this server generated its demo store, if it did.
pub fn generation(var_dir: &Path) -> Option<DateTime<Utc>> {
    let text = std::fs::read_to_string(var_dir.join(GENERATED_AT)).ok()?;
    DateTime::parse_from_rfc3339(text.trim())
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// How many times a past release whose keeping failed is tried again
/// (about five minutes in all, 0.25 s more between each try, at most 5 s).
const KEEP_TRIES: u32 = 70;

/// Keeps the demo market's past: every predictions and odds release of the
/// kept window of the run the demo store was generated from
/// (`linecast_demo::window_releases` at `generated_at`: the last 21 days,
/// one release every two hours on a fixed UTC grid, all 24 series), oldest
/// first, when no release older than the current ones is kept yet. So
/// `as_of`, a game's history and the season rows tell one story from the
/// first run. Runs in the background; the current versions (the newest
/// release of the same run) are kept by the watcher as usual.
pub fn spawn_demo_releases(state: &AppState, generated_at: DateTime<Utc>) {
    use linecast_core::ports::releases::Series;
    let releases = state.releases.clone();
    let now = state.clock.now().max(generated_at);
    tokio::spawn(async move {
        let begun = std::time::Instant::now();
        // The past is kept once, when nothing older than the current
        // versions (which the watcher may have kept) is.
        for series in Series::all() {
            match releases.series(series, now).await {
                Ok(known) if known.iter().all(|r| r.published_at >= generated_at) => {}
                Ok(_) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "demo releases: the release log cannot be read");
                    return;
                }
            }
        }
        let opts = linecast_demo::demo_options(generated_at);
        let mut kept = 0_usize;
        for sport in linecast_domain::Sport::ALL {
            let sport = *sport;
            let Ok(versions) = tokio::task::spawn_blocking(move || linecast_demo::window_releases(&opts, sport)).await
            else {
                return;
            };
            for (key, at, bytes) in versions {
                let Some(series) = Series::of_key(&key) else { continue };
                let bytes = bytes::Bytes::from(bytes);
                // Keeping is idempotent (a release is its digest), so a
                // write that failed (a database busy or slower than its
                // timeout on a loaded host) is tried again: a past with a
                // hole would tell a different story than the season rows.
                let mut tries = 0_u32;
                loop {
                    match releases.keep(series, at, bytes.clone()).await {
                        Ok(_) => {
                            kept += 1;
                            break;
                        }
                        Err(e) if tries < KEEP_TRIES => {
                            tries += 1;
                            tracing::debug!(object = %key, error = %e, tries, "demo releases: keeping a past release again");
                            tokio::time::sleep(std::time::Duration::from_millis(250 * u64::from(tries.min(20)))).await;
                        }
                        Err(e) => {
                            tracing::warn!(object = %key, error = %e, "demo releases: a past release was not kept");
                            break;
                        }
                    }
                }
            }
        }
        tracing::info!(
            releases = kept,
            elapsed_ms = u64::try_from(begun.elapsed().as_millis()).unwrap_or(u64::MAX),
            "demo: kept the market's past releases of predictions and odds"
        );
    });
}
