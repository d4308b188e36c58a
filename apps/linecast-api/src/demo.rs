//! First run: with no customer at all, create the demo customer and one demo
//! key, print it clearly labelled and write it to `var/demo-key.txt`, so the
//! README's authenticated curl works straight away.

use std::path::Path;

use anyhow::Context;
use linecast_core::{NewCustomer, SubscriptionStatus};
use linecast_domain::Sport;

use crate::state::AppState;

pub const DEMO_EMAIL: &str = "demo@linecast.local";

/// Creates the demo customer and key when the database has no customer.
pub async fn ensure_demo_customer(state: &AppState, var_dir: &Path) -> anyhow::Result<()> {
    let accounts = &state.accounts;
    if !accounts
        .list_customers()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .is_empty()
    {
        return Ok(());
    }
    let now = state.clock.now();
    let customer = accounts
        .create_customer(
            NewCustomer {
                email: DEMO_EMAIL.to_owned(),
                name: "Demo Customer".to_owned(),
                tier: "ai".to_owned(),
                api_plan: Some("ai".to_owned()),
                subscription_status: SubscriptionStatus::Active,
                monthly_limit: 200_000,
            },
            now,
        )
        .await
        .map_err(|e| anyhow::anyhow!("creating the demo customer: {e}"))?;
    let key = state
        .api_keys
        .issue(&customer, "demo", None, "demo bootstrap", now)
        .await
        .map_err(|e| anyhow::anyhow!("creating the demo key: {e}"))?
        .key;
    let products: Vec<String> = Sport::ALL.iter().map(|s| format!("{s}_history")).collect();
    accounts
        .grant_entitlement(customer.customer_id, &products, Sport::ALL, None)
        .await
        .map_err(|e| anyhow::anyhow!("granting demo entitlements: {e}"))?;
    let path = var_dir.join("demo-key.txt");
    std::fs::write(&path, format!("{key}\n")).with_context(|| format!("writing {}", path.display()))?;
    println!("==================== linecast demo key ====================");
    println!("DEMO API KEY (customer {DEMO_EMAIL}): {key}");
    println!("saved to {}", path.display());
    println!("===========================================================");
    Ok(())
}
