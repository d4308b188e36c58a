//! The webhooks' background work: the events the watcher's rounds put in
//! the outbox (`release.published` for every kept predictions or odds
//! release the change stream announces, with the same id;
//! `data_status.changed`), the quota thresholds the gate noticed, the keys
//! about to expire, the endpoints disabled, and the delivery worker's
//! rounds. The rules are core's `services::webhooks`; the payloads' shapes
//! `linecast_payloads::webhooks`.

use std::sync::Arc;

use linecast_core::clock::{Clock, SystemClock};
use linecast_core::ports::webhooks::{NewMessage, WebhookStore};
use linecast_core::services::events::{Event, EventData};
use linecast_core::services::webhooks::{Deliverer, QuotaNotices};
use linecast_payloads::time::exact;
use linecast_payloads::webhooks::{
    DataStatusChanged, EndpointDisabled, KeyExpiring, QuotaThreshold, ReleasePublished, WebhookEvent,
};
use linecast_webhooks::events::{EventType, Lane, ordering_key};
use serde::Serialize;

/// How often attempts older than their retention are deleted.
const PRUNE_EVERY: chrono::Duration = chrono::Duration::hours(1);

/// How often the keys expiring within seven days are looked for: a notice
/// goes out at most this late.
const KEY_SCAN_EVERY: chrono::Duration = chrono::Duration::minutes(10);

/// The webhooks' clock: the system's, always. Deliveries, their retries
/// and `webhook-timestamp` run in real time even when the data's clock is
/// frozen (`LINECAST_NOW`), or a receiver would refuse every signature.
pub fn clock() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

/// A chore run at most once every `every`, from a round that runs more
/// often: the first round runs it, then the first round `every` after the
/// last run.
struct Every {
    every: chrono::Duration,
    last: std::sync::Mutex<Option<chrono::DateTime<chrono::Utc>>>,
}

impl Every {
    fn new(every: chrono::Duration) -> Self {
        Self {
            every,
            last: std::sync::Mutex::new(None),
        }
    }

    /// Whether the chore is due at `now`; a due chore counts as run now.
    fn due(&self, now: chrono::DateTime<chrono::Utc>) -> bool {
        let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let due = last.is_none_or(|t| now - t >= self.every);
        if due {
            *last = Some(now);
        }
        due
    }
}

/// The delivery worker: a round every `interval` (the quota thresholds
/// the gate noticed written to the outbox, then the deliveries due claimed
/// and attempted, off the request path), and once an hour the attempts
/// past their retention deleted.
pub fn spawn_deliverer(
    deliverer: Arc<Deliverer>,
    store: Arc<dyn WebhookStore>,
    quota: Arc<QuotaNotices>,
    interval: std::time::Duration,
    attempt_days: u32,
) -> linecast_limits::Flusher {
    let prune = Arc::new(Every::new(PRUNE_EVERY));
    let scan = Arc::new(Every::new(KEY_SCAN_EVERY));
    linecast_limits::Flusher::spawn(interval, move || {
        let (deliverer, store, quota, prune, scan) = (
            deliverer.clone(),
            store.clone(),
            quota.clone(),
            prune.clone(),
            scan.clone(),
        );
        async move {
            write_quota_notices(store.as_ref(), &quota).await;
            let now = clock().now();
            if scan.due(now) {
                write_key_notices(store.as_ref(), now).await;
            }
            if let Err(e) = deliverer.round().await {
                tracing::warn!(error = %e, "webhooks: a delivery round failed; the next one retries");
            }
            let now = clock().now();
            if prune.due(now) {
                match store
                    .prune_attempts(now - chrono::Duration::days(i64::from(attempt_days)))
                    .await
                {
                    Ok(0) => {}
                    Ok(n) => tracing::info!(attempts = n, "webhooks: attempts past their retention deleted"),
                    Err(e) => tracing::warn!(error = %e, "webhooks: attempts' retention not applied"),
                }
            }
        }
    })
}

fn message<T: Serialize + utoipa::ToSchema>(
    id: String,
    event_type: EventType,
    sport: &str,
    at: chrono::DateTime<chrono::Utc>,
    data: T,
) -> Result<NewMessage, serde_json::Error> {
    let payload = serde_json::to_string(&WebhookEvent {
        event_type: event_type.code().to_owned(),
        timestamp: exact(at),
        data,
    })?;
    Ok(NewMessage {
        dedupe_key: Some(id.clone()),
        id,
        customer_id: None,
        event_type: event_type.code().to_owned(),
        sport: Some(sport.to_owned()),
        order_key: ordering_key(Lane::Sport(sport)),
        payload,
        created_at: at,
    })
}

/// The round's events in the outbox: each release event told of its kept
/// release (`events::release_facts`), and each status change, under the change stream's event id
/// (every instance names an event the same way, so the outbox stores it
/// once whichever instance saw it first). Failing to write one is logged;
/// the change stream still carries it.
pub async fn announce(store: &dyn WebhookStore, events: &[Arc<Event>]) {
    for event in events {
        let made = match &event.data {
            EventData::Release(r) => {
                // Only a kept predictions or odds release is announced.
                let Some(release) = &r.kept else {
                    continue;
                };
                let published_at = exact(release.published_at);
                let link = match r.model_type {
                    Some(model_type) => format!(
                        "/api/v1/predictions/{}/{}?as_of={published_at}",
                        r.sport.code(),
                        model_type.code()
                    ),
                    None => format!("/api/v1/odds/{}?as_of={published_at}", r.sport.code()),
                };
                message(
                    event.id.to_string(),
                    EventType::ReleasePublished,
                    r.sport.code(),
                    release.published_at,
                    ReleasePublished {
                        sport: r.sport.code().to_owned(),
                        artifact: r.artifact.code().to_owned(),
                        model_type: r.model_type.map(|m| m.code().to_owned()),
                        published_at,
                        digest: release.digest.clone(),
                        game_ids_changed: release.game_ids_changed.clone(),
                        link,
                    },
                )
            }
            EventData::Status(s) => message(
                event.id.to_string(),
                EventType::DataStatusChanged,
                s.sport.code(),
                event.at,
                DataStatusChanged {
                    sport: s.sport.code().to_owned(),
                    from: s.from.as_str().to_owned(),
                    to: s.to.as_str().to_owned(),
                    operational: s.operational,
                    degradation_reason: s.degradation_reason.map(|r| r.as_str().to_owned()),
                    link: format!("/api/v1/data-status/{}", s.sport.code()),
                },
            ),
        };
        let message = match made {
            Ok(message) => message,
            Err(e) => {
                tracing::warn!(error = %e, event = %event.id, "webhooks: an event's payload did not serialise");
                continue;
            }
        };
        if let Err(e) = store.enqueue(message).await {
            tracing::warn!(error = %e, event = %event.id, "webhooks: an event was not put in the outbox");
        }
    }
}

/// The quota thresholds noticed since the last round, each written to the
/// outbox once per account, period and threshold (its dedupe key), for the
/// account's own endpoints; one the database refused is tried again next
/// round.
pub async fn write_quota_notices(store: &dyn WebhookStore, notices: &QuotaNotices) {
    let crossed = notices.take();
    let mut again = Vec::new();
    for crossing in crossed {
        let id = match linecast_core::ports::webhooks::new_id(linecast_core::ports::webhooks::MESSAGE_ID_PREFIX) {
            Ok(id) => id,
            Err(e) => {
                tracing::warn!(error = %e, "webhooks: no message id for a quota notice");
                again.push(crossing);
                continue;
            }
        };
        let reset = linecast_core::quota_calendar::next_reset(crossing.at);
        let payload = serde_json::to_string(&WebhookEvent {
            event_type: EventType::QuotaThreshold.code().to_owned(),
            timestamp: exact(crossing.at),
            data: QuotaThreshold {
                percent: crossing.percent,
                used: crossing.used,
                monthly_limit: crossing.monthly_limit,
                period: crossing.period.clone(),
                reset_date: reset.format("%Y-%m-%d").to_string(),
                link: "/api/v1/customers/me/usage".to_owned(),
            },
        });
        let Ok(payload) = payload else {
            continue;
        };
        let message = NewMessage {
            id,
            customer_id: Some(crossing.customer_id),
            event_type: EventType::QuotaThreshold.code().to_owned(),
            sport: None,
            order_key: ordering_key(Lane::Account),
            payload,
            dedupe_key: Some(crossing.dedupe_key()),
            created_at: crossing.at,
        };
        if let Err(e) = store.enqueue(message).await {
            tracing::warn!(error = %e, "webhooks: a quota notice was not put in the outbox; tried again next round");
            again.push(crossing);
        }
    }
    if !again.is_empty() {
        notices.put_back(again);
    }
}

/// The `key.expiring` notices due at `now`: for each active key expiring
/// within seven days, the notice its time left calls for
/// (`linecast_webhooks::events::key_notice_due`), written to the outbox
/// once per key, expiry and notice (its dedupe key), for the key's own
/// account. Scanning again, on any instance, writes nothing twice.
pub async fn write_key_notices(store: &dyn WebhookStore, now: chrono::DateTime<chrono::Utc>) {
    use linecast_webhooks::events::{KeyNotice, key_notice_due};
    let horizon = now + chrono::Duration::days(KeyNotice::SevenDays.days());
    let keys = match store.keys_expiring(now, horizon).await {
        Ok(keys) => keys,
        Err(e) => {
            tracing::warn!(error = %e, "webhooks: expiring keys not read; the next scan tries again");
            return;
        }
    };
    for key in keys {
        let Some(expires_at) = key.expires_at else { continue };
        let Some(notice) = key_notice_due(expires_at, None, now) else {
            continue;
        };
        let Ok(id) = linecast_core::ports::webhooks::new_id(linecast_core::ports::webhooks::MESSAGE_ID_PREFIX) else {
            continue;
        };
        let Ok(payload) = serde_json::to_string(&WebhookEvent {
            event_type: EventType::KeyExpiring.code().to_owned(),
            timestamp: exact(now),
            data: KeyExpiring {
                api_key: key.masked(),
                name: key.name.clone(),
                expires_at: exact(expires_at),
                notice_days: notice.days(),
                link: "/api/v1/customers/me/api-keys".to_owned(),
            },
        }) else {
            continue;
        };
        let message = NewMessage {
            id,
            customer_id: Some(key.customer_id),
            event_type: EventType::KeyExpiring.code().to_owned(),
            sport: None,
            order_key: ordering_key(Lane::Account),
            payload,
            dedupe_key: Some(format!(
                "key.expiring/{}/{}/{}d",
                key.id,
                expires_at.timestamp_micros(),
                notice.days()
            )),
            created_at: now,
        };
        if let Err(e) = store.enqueue(message).await {
            tracing::warn!(error = %e, "webhooks: a key notice was not put in the outbox; the next scan tries again");
        }
    }
}

/// The `webhook.endpoint_disabled` message for the account of `endpoint`
/// (its other endpoints subscribed to the type receive it; the disabled
/// one receives nothing more until enabled).
pub fn disabled_notice(
    endpoint: &linecast_core::ports::webhooks::Endpoint,
    reason: &'static str,
    at: chrono::DateTime<chrono::Utc>,
) -> Option<NewMessage> {
    let id = linecast_core::ports::webhooks::new_id(linecast_core::ports::webhooks::MESSAGE_ID_PREFIX).ok()?;
    let payload = serde_json::to_string(&WebhookEvent {
        event_type: EventType::EndpointDisabled.code().to_owned(),
        timestamp: exact(at),
        data: EndpointDisabled {
            endpoint_id: endpoint.id.clone(),
            url: endpoint.url.clone(),
            reason: reason.to_owned(),
            link: format!("/api/v1/webhooks/endpoints/{}", endpoint.id),
        },
    })
    .ok()?;
    Some(NewMessage {
        id,
        customer_id: Some(endpoint.customer_id),
        event_type: EventType::EndpointDisabled.code().to_owned(),
        sport: None,
        order_key: ordering_key(Lane::Account),
        payload,
        dedupe_key: Some(format!(
            "webhook.endpoint_disabled/{}/{}",
            endpoint.id,
            at.timestamp_micros()
        )),
        created_at: at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chore_runs_at_the_first_round_then_once_its_period_has_passed() {
        let start = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
        let minutes = |m| start + chrono::Duration::minutes(m);
        let scan = Every::new(chrono::Duration::minutes(10));
        assert!(scan.due(start));
        assert!(!scan.due(minutes(1)));
        assert!(!scan.due(minutes(9)));
        assert!(scan.due(minutes(10)));
        assert!(!scan.due(minutes(19)));
        assert!(scan.due(minutes(25)));
        assert!(!scan.due(minutes(34)));
        assert!(scan.due(minutes(35)));
    }
}
