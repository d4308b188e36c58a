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
