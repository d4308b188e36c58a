//! The sport-level rules: which markets are reported, the sport's status and
//! degradation reason, and the top-level fields of the report.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use linecast_domain::ModelType;
use linecast_domain::artifacts::{ReleaseArtifacts, ReleaseManifest};

use crate::inputs::FreshnessInputs;
use crate::market::{Context, MarketEval, evaluate_market, is_source_stale};
use crate::phase::Phase;
use crate::report::{ArtifactTimes, DegradationReason, FreshnessReport, Status, is_operational};
use crate::schedule::daily_deadline;

/// Evaluates the data status of `inputs.sport` for `inputs.slate_date` at
/// `now`. Pure and total: every input yields a report.
///
/// `now` only decides which side of a deadline the evaluation is on; it never
/// appears in the report.
pub fn evaluate(inputs: &FreshnessInputs, now: DateTime<Utc>) -> FreshnessReport {
    let deadline = daily_deadline(inputs.slate_date);
    let ctx = Context {
        phase: Phase::of(&inputs.today),
        previous: inputs.usable_previous(),
        now,
        deadline_reached: now >= deadline,
    };

    let evals: Vec<(ModelType, MarketEval)> = reported_markets(inputs, ctx.phase.manifest())
        .into_iter()
        .map(|mt| {
            let a = &inputs.artifacts;
            (mt, evaluate_market(&ctx, mt, a.is_missing(mt), a.is_unreadable(mt)))
        })
        .collect();

    let (status, degradation_reason) = sport_status(&ctx, &evals);
    // Top-level identity: today's release once its run started, otherwise the
    // previous release, which is what clients are still being served.
    let identity = ctx.phase.started().or(ctx.previous);

    FreshnessReport {
        sport: inputs.sport,
        slate_date: inputs.slate_date,
        status,
        operational: is_operational(status, degradation_reason),
        degradation_reason,
        refresh_pending: evals.iter().any(|(_, e)| e.report.refresh_pending),
        deadline,
        release_id: identity.map(|m| m.release_id.clone()),
        source_as_of: identity.and_then(|m| m.source_as_of),
        artifacts: served_artifacts(ctx.phase.manifest(), ctx.previous),
        markets: evals.into_iter().map(|(mt, e)| (mt, e.report)).collect(),
    }
}

/// The caller's expected markets, adjusted by today's manifest: a market the
/// manifest marks `expected: false` is left out, one it marks `expected: true`
/// is added.
fn reported_markets(inputs: &FreshnessInputs, today: Option<&ReleaseManifest>) -> BTreeSet<ModelType> {
    let mut markets: BTreeSet<ModelType> = inputs.expected_markets.iter().copied().collect();
    for (mt, market) in today.iter().flat_map(|m| &m.markets) {
        if market.expected {
            markets.insert(*mt);
        } else {
            markets.remove(mt);
        }
    }
    markets
}

fn sport_status(ctx: &Context<'_>, evals: &[(ModelType, MarketEval)]) -> (Status, Option<DegradationReason>) {
    let late = ctx.deadline_reached;
    // A predictions object that exists but cannot be read is a 503 on
    // `/predictions`: no trustworthy signal for that market, whatever the
    // manifest says, before or after the deadline.
    let any_unreadable = evals.iter().any(|(_, e)| e.unreadable);
    match ctx.phase {
        Phase::Unreadable => (Status::Unknown, Some(DegradationReason::ReleaseUnavailable)),
        _ if any_unreadable => (Status::Unknown, Some(DegradationReason::ReleaseUnavailable)),
        Phase::NotStarted { .. } if !late => (Status::Pending, None),
        Phase::NotStarted { manifest: None } => (Status::Stale, Some(DegradationReason::ReleaseMissing)),
        Phase::OffDay { completed: true, .. } => (Status::OffDay, None),
        Phase::OffDay { completed: false, .. } if !late => (Status::Updating, None),
        Phase::NotStarted { manifest: Some(_) } | Phase::OffDay { completed: false, .. } => {
            (Status::Stale, Some(DegradationReason::DailyOutputStale))
        }
        Phase::Active(manifest) => active_status(manifest, evals, late),
    }
}

/// An active slate, in precedence order: missing output, then missing
/// results, then an incomplete run, then old source data, then a late
/// intraday rebuild. Before the deadline every shortfall of the run itself
/// is `updating`.
fn active_status(
    manifest: &ReleaseManifest,
    evals: &[(ModelType, MarketEval)],
    late: bool,
) -> (Status, Option<DegradationReason>) {
    let all_published = evals.iter().all(|(_, e)| e.published);
    let any_published = evals.iter().any(|(_, e)| e.published);
    let a = &manifest.artifacts;
    let results_published = a.results.is_some();
    let run_complete = manifest.run_completed_at.is_some()
        && a.predictions.is_some()
        && a.summaries.is_some()
        && a.model_tracking.is_some();
    let source_stale =
        is_source_stale(manifest.source_as_of, manifest.run_started_at) || evals.iter().any(|(_, e)| e.source_stale);
    let shortfall = !all_published || !results_published || !run_complete || source_stale;

    if !late && shortfall {
        return (Status::Updating, None);
    }
    let degraded = |status, reason| (status, Some(reason));
    if !any_published && !evals.is_empty() {
        degraded(Status::Stale, DegradationReason::DailyOutputStale)
    } else if !all_published {
        degraded(Status::Partial, DegradationReason::DailyOutputStale)
    } else if !results_published {
        degraded(Status::Partial, DegradationReason::ResultsAwaitingSettlement)
    } else if !run_complete {
        degraded(Status::Partial, DegradationReason::DailyOutputStale)
    } else if source_stale {
        degraded(Status::Stale, DegradationReason::SourceStale)
    } else if evals.iter().any(|(_, e)| e.refresh_expired) {
        degraded(Status::Stale, DegradationReason::PredictionsStale)
    } else {
        (Status::Fresh, None)
    }
}

/// Each artifact's publication time as served: today's once published,
/// otherwise the previous release's, which the object still holds.
fn served_artifacts(today: Option<&ReleaseManifest>, previous: Option<&ReleaseManifest>) -> ArtifactTimes {
    let pick = |f: fn(&ReleaseArtifacts) -> Option<DateTime<Utc>>| {
        today
            .and_then(|m| f(&m.artifacts))
            .or_else(|| previous.and_then(|m| f(&m.artifacts)))
    };
    ArtifactTimes {
        predictions: pick(|a| a.predictions),
        results: pick(|a| a.results),
        summaries: pick(|a| a.summaries),
        model_tracking: pick(|a| a.model_tracking),
    }
}
