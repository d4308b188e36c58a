//! Where today's run stands, read from today's manifest alone.

use linecast_domain::artifacts::{ReleaseManifest, SlateKind};

use crate::inputs::StorageFailure;

#[derive(Debug, Clone, Copy)]
pub(crate) enum Phase<'a> {
    /// Storage could not tell whether today's manifest exists.
    Unreadable,
    /// No manifest, or a manifest whose run shows no sign of having started.
    NotStarted { manifest: Option<&'a ReleaseManifest> },
    /// The run says the sport has no games today.
    OffDay {
        manifest: &'a ReleaseManifest,
        completed: bool,
    },
    /// The run is building an active slate.
    Active(&'a ReleaseManifest),
}

impl<'a> Phase<'a> {
    pub(crate) fn of(today: &'a Result<Option<ReleaseManifest>, StorageFailure>) -> Self {
        match today {
            Err(_) => Phase::Unreadable,
            Ok(None) => Phase::NotStarted { manifest: None },
            Ok(Some(m)) if !has_started(m) => Phase::NotStarted { manifest: Some(m) },
            Ok(Some(m)) => match m.slate {
                SlateKind::OffDay => Phase::OffDay {
                    manifest: m,
                    completed: m.run_completed_at.is_some(),
                },
                SlateKind::Active => Phase::Active(m),
            },
        }
    }

    /// Today's manifest, whether or not its run has started.
    pub(crate) fn manifest(self) -> Option<&'a ReleaseManifest> {
        match self {
            Phase::Unreadable => None,
            Phase::NotStarted { manifest } => manifest,
            Phase::OffDay { manifest, .. } | Phase::Active(manifest) => Some(manifest),
        }
    }

    /// Today's manifest once its run has started.
    pub(crate) fn started(self) -> Option<&'a ReleaseManifest> {
        match self {
            Phase::OffDay { manifest, .. } | Phase::Active(manifest) => Some(manifest),
            Phase::Unreadable | Phase::NotStarted { .. } => None,
        }
    }
}

/// A run has started if the manifest says so or if anything of it is
/// already published (a manifest that forgot `run_started_at` still shows
/// its output).
fn has_started(m: &ReleaseManifest) -> bool {
    let a = &m.artifacts;
    m.run_started_at.is_some()
        || m.run_completed_at.is_some()
        || [a.predictions, a.results, a.summaries, a.model_tracking]
            .iter()
            .any(Option::is_some)
        || m.markets.values().any(|market| market.published_at.is_some())
}
