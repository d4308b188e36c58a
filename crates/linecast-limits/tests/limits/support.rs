//! Shared helpers: concurrent callers and decision tallies.

use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use linecast_core::Month;
use linecast_limits::{Limiter, MonthDecision};

pub const MONTH: Month = (2026, 3);
pub const HIGH_LIMIT: u64 = 1_000_000;

pub fn at(second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 14, 12, 0, second).unwrap()
}

/// Runs `tasks` concurrent tasks per limiter, each making `calls` monthly
/// counting calls, and returns every decision.
pub async fn count_concurrently(
    limiters: &[Arc<dyn Limiter>],
    tasks: usize,
    calls: usize,
    customer_id: i64,
    month: Month,
    limit: u64,
) -> Vec<MonthDecision> {
    let mut handles = Vec::new();
    for limiter in limiters {
        for _ in 0..tasks {
            let limiter = Arc::clone(limiter);
            handles.push(tokio::spawn(async move {
                let mut out = Vec::with_capacity(calls);
                for _ in 0..calls {
                    out.push(limiter.try_count_month(customer_id, month, limit).await.unwrap());
                }
                out
            }));
        }
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    all
}

/// The `used` values of counted decisions, sorted.
pub fn counted_values(decisions: &[MonthDecision]) -> Vec<u64> {
    let mut used: Vec<u64> = decisions
        .iter()
        .filter_map(|d| match d {
            MonthDecision::Counted { used } => Some(*used),
            MonthDecision::Exhausted { .. } => None,
        })
        .collect();
    used.sort_unstable();
    used
}
