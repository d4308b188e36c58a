//! The change stream's wire format: server-sent events. Each event is an
//! `id:` line (the store-derived id), an `event:` line (`release`, `status`
//! or `resync`) and one `data:` line of JSON; a comment line `: ping` keeps
//! idle connections open.

use bytes::Bytes;
use linecast_core::services::events::{Event, EventData, EventId};
use serde::Serialize;
use utoipa::ToSchema;

/// The comment line sent when a stream has sent nothing for
/// `events::PING_EVERY`.
pub const PING: &[u8] = b": ping\n\n";

/// `release`: a new version of an object appeared in the store.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleaseEventData {
    pub sport: String,
    /// Null for odds and release manifests.
    pub model_type: Option<String>,
    /// `predictions`, `odds`, `results` (a season store) or `release` (the daily manifest).
    pub artifact: String,
    /// The object's last-modified time (RFC 3339 UTC, every digit to the
    /// microsecond: passed back as `as_of`, it reads this release).
    #[schema(format = DateTime, example = "2026-11-22T16:16:04.460357Z")]
    pub published_at: String,
    /// The object's version (its ETag, or last-modified and size).
    pub version: String,
    /// SHA-256 of the release's bytes (lowercase hex), as the archive, the
    /// ledger and `release.published` webhooks name it; null for season
    /// stores and manifests (not kept releases).
    pub digest: Option<String>,
    /// The games whose row differs from the series' previous kept release
    /// (new games included), in the release's order; null where `digest` is.
    pub game_ids_changed: Option<Vec<String>>,
}

/// `status`: a sport's data-status evaluation changed (clock-driven changes
/// included, such as the 10:15 ET deadline).
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusEventData {
    pub sport: String,
    /// The status before (as `/data-status` reports it).
    pub from: String,
    /// The status now.
    pub to: String,
    pub operational: bool,
    pub degradation_reason: Option<String>,
    pub refresh_pending: bool,
}

/// `resync`: the stream cannot say what was missed (an unknown or too old
/// `Last-Event-ID`, or a consumer too slow to keep up): re-read what you
/// need, then carry on.
#[derive(Debug, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ResyncEventData {
    pub reason: String,
}

fn frame(id: Option<&EventId>, event: &str, data: &impl Serialize) -> Bytes {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "{}".to_owned());
    let id = id.map(|id| format!("id: {id}\n")).unwrap_or_default();
    Bytes::from(format!("{id}event: {event}\ndata: {json}\n\n"))
}

/// One event as written on the stream.
pub fn event_frame(event: &Event) -> Bytes {
    match &event.data {
        EventData::Release(r) => frame(
            Some(&event.id),
            "release",
            &ReleaseEventData {
                sport: r.sport.code().to_owned(),
                model_type: r.model_type.map(|m| m.code().to_owned()),
                artifact: r.artifact.code().to_owned(),
                published_at: crate::time::exact(r.published_at),
                version: r.version.clone(),
                digest: r.kept.as_ref().map(|k| k.digest.clone()),
                game_ids_changed: r.kept.as_ref().map(|k| k.game_ids_changed.clone()),
            },
        ),
        EventData::Status(s) => frame(
            Some(&event.id),
            "status",
            &StatusEventData {
                sport: s.sport.code().to_owned(),
                from: s.from.as_str().to_owned(),
                to: s.to.as_str().to_owned(),
                operational: s.operational,
                degradation_reason: s.degradation_reason.map(|r| r.as_str().to_owned()),
                refresh_pending: s.refresh_pending,
            },
        ),
    }
}

/// A `resync`; `id` (the newest event the stream knows) lets the client
/// resume from there next time.
pub fn resync_frame(id: Option<&EventId>, reason: &str) -> Bytes {
    frame(
        id,
        "resync",
        &ResyncEventData {
            reason: reason.to_owned(),
        },
    )
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, Utc};
    use linecast_core::services::events::{Artifact, ReleaseEvent};
    use linecast_domain::Sport;

    use super::*;

    #[test]
    fn a_release_event_prints_its_publication_instant_with_every_digit() {
        let at = DateTime::parse_from_rfc3339("2026-11-22T16:16:04.460357Z")
            .unwrap_or_else(|e| panic!("{e}"))
            .with_timezone(&Utc);
        let event = Event {
            id: EventId::parse("1763828164460-r-00000000000000aa").unwrap_or_else(|| panic!("event id")),
            at,
            data: EventData::Release(ReleaseEvent {
                sport: Sport::Nba,
                model_type: None,
                artifact: Artifact::Odds,
                published_at: at,
                version: "v1".to_owned(),
                kept: None,
            }),
        };
        let frame = String::from_utf8(event_frame(&event).to_vec()).unwrap_or_default();
        assert!(
            frame.contains(r#""published_at":"2026-11-22T16:16:04.460357Z""#),
            "{frame}"
        );
    }
}
