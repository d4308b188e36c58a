//! Data status: reads what the store says about today's release and hands it
//! to the pure `linecast-freshness` state machine. The states and their
//! rules belong to that crate; this service only gathers its inputs.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use linecast_domain::{ModelType, Sport};
use linecast_freshness::{
    ArtifactMetadata, FreshnessInputs, FreshnessReport, ObjectPresence, StorageFailure, evaluate,
};

use crate::{ArtifactStore, StoreError};
use linecast_domain::time::et_date;

/// The data-status use case over the artifact store.
pub struct Freshness {
    store: Arc<dyn ArtifactStore>,
}

impl Freshness {
    pub fn new(store: Arc<dyn ArtifactStore>) -> Self {
        Self { store }
    }

    /// The freshness report of `sport` at `now`; storage errors make it
    /// `unknown` with operational false, never an error.
    pub async fn status(&self, sport: Sport, now: DateTime<Utc>) -> FreshnessReport {
        data_status(self.store.as_ref(), sport, now).await
    }
}

/// The freshness report of `sport` at `now`. Storage errors never fail the
/// call: they make the report `unknown` with operational false.
pub async fn data_status(store: &dyn ArtifactStore, sport: Sport, now: DateTime<Utc>) -> FreshnessReport {
    evaluate(&data_status_inputs(store, sport, now).await, now)
}

/// What the state machine reads for `sport` on the ET date of `now`: the
/// release manifests and which predictions exist. The report is a pure
/// function of these and the instant (`linecast_freshness::evaluate`).
pub async fn data_status_inputs(store: &dyn ArtifactStore, sport: Sport, now: DateTime<Utc>) -> FreshnessInputs {
    let slate_date = et_date(now);
    let failure = |e: StoreError| StorageFailure { reason: e.to_string() };
    let (today, previous) = match store.release_dates(sport).await {
        Err(StoreError::NotFound { .. }) => (Ok(None), None),
        Err(e) => (Err(failure(e)), None),
        Ok(dates) => {
            let today = if dates.contains(&slate_date) {
                match store.release(sport, slate_date).await {
                    Ok(m) => Ok(Some((*m.value).clone())),
                    Err(StoreError::NotFound { .. }) => Ok(None),
                    Err(e) => Err(failure(e)),
                }
            } else {
                Ok(None)
            };
            let previous_date = dates.iter().filter(|d| **d < slate_date).max().copied();
            let previous = match previous_date {
                Some(d) => store.release(sport, d).await.ok().map(|m| (*m.value).clone()),
                None => None,
            };
            (today, previous)
        }
    };
    let mut predictions = BTreeMap::new();
    for model_type in ModelType::ALL {
        match store.predictions(sport, *model_type).await {
            Ok(_) => {
                predictions.insert(*model_type, ObjectPresence::Present);
            }
            Err(StoreError::NotFound { .. }) => {
                predictions.insert(*model_type, ObjectPresence::Missing);
            }
            // Exists but unreadable or corrupt: /predictions answers 503 for it.
            Err(_) => {
                predictions.insert(*model_type, ObjectPresence::Unreadable);
            }
        }
    }
    FreshnessInputs {
        sport,
        slate_date,
        today,
        previous,
        expected_markets: ModelType::ALL.to_vec(),
        artifacts: ArtifactMetadata { predictions },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use linecast_freshness::{DegradationReason, Status};

    use super::*;
    use crate::testing::MemoryStore;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-22T15:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[tokio::test]
    async fn a_store_outage_makes_the_status_unknown_and_not_operational_instead_of_failing() {
        let store = Arc::new(MemoryStore::new());
        store.fail_with(StoreError::Unavailable { reason: "down".into() });
        let report = Freshness::new(store).status(Sport::Nba, now()).await;
        assert_eq!(report.slate_date.to_string(), "2026-11-22");
        assert_eq!(report.status, Status::Unknown);
        assert!(!report.operational);
        assert_eq!(report.degradation_reason, Some(DegradationReason::ReleaseUnavailable));
    }

    #[tokio::test]
    async fn without_any_release_before_the_deadline_the_slate_is_pending_and_still_operational() {
        let report = Freshness::new(Arc::new(MemoryStore::new()))
            .status(Sport::Nba, now())
            .await;
        assert_eq!(report.deadline.to_rfc3339(), "2026-11-22T15:15:00+00:00");
        assert_eq!(
            (
                report.status,
                report.operational,
                report.degradation_reason,
                report.release_id.clone()
            ),
            (Status::Pending, true, None, None),
            "{report:?}"
        );
    }
}
