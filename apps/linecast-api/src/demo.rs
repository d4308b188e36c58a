//! First run of a demo: core's `Customers::bootstrap_demo` creates the demo
//! customer, key and entitlements when the database has no customer; this
//! prints the key clearly labelled and writes it to `var/demo-key.txt`, so
//! the README's authenticated curl works straight away.

use std::path::Path;

use anyhow::Context;
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

/// Gives the demo store's predictions and odds a past week of kept releases
/// (`linecast_demo::history`: one every two hours, all before now) when
/// none is kept yet, so `as_of` and a game's history answer from the first
/// run. Runs in the background; the current versions are kept by the
/// watcher as usual.
pub fn spawn_demo_releases(state: &AppState, dir: std::path::PathBuf) {
    use linecast_core::ports::releases::Series;
    let releases = state.releases.clone();
    let now = state.clock.now();
    tokio::spawn(async move {
        let mut kept = 0_usize;
        for series in Series::all() {
            // The watcher may have kept the current version already; a past
            // week is kept once, when nothing older is.
            let past = now - linecast_demo::history::PAST_EVERY / 2;
            match releases.series(series, now).await {
                Ok(known) if known.iter().all(|r| r.published_at > past) => {}
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "demo releases: the release log cannot be read");
                    return;
                }
            }
            let key = series.key();
            let Ok(current) = std::fs::read(dir.join(&key)) else {
                continue;
            };
            for (at, bytes) in linecast_demo::history::past_versions(&key, &current, now, linecast_demo::DEMO_SEED) {
                match releases.keep(series, at, bytes.into()).await {
                    Ok(_) => kept += 1,
                    Err(e) => {
                        tracing::warn!(object = %key, error = %e, "demo releases: a past version was not kept");
                        break;
                    }
                }
            }
        }
        if kept > 0 {
            tracing::info!(
                releases = kept,
                "demo: kept a past week of predictions and odds releases"
            );
        }
    });
}
