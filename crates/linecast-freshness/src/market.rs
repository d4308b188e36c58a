//! One market (model type) of the report: its status, the publication fields
//! of the predictions actually served, and the intraday refresh cycle.

use chrono::{DateTime, Utc};
use linecast_domain::ModelType;
use linecast_domain::artifacts::{ReleaseManifest, ReleaseMarket};

use crate::phase::Phase;
use crate::report::{MarketReport, Status};
use crate::schedule::{REFRESH_CYCLE, SOURCE_MAX_AGE};

/// What the sport-level rules need to know about one market besides its report.
#[derive(Debug, Clone)]
pub(crate) struct MarketEval {
    pub report: MarketReport,
    /// Today's predictions of this market are published (and, if checked,
    /// the object exists).
    pub published: bool,
    pub source_stale: bool,
    pub refresh_expired: bool,
    /// The predictions object exists but cannot be read or parsed.
    pub unreadable: bool,
}

/// Shared context of one evaluation.
pub(crate) struct Context<'a> {
    pub phase: Phase<'a>,
    pub previous: Option<&'a ReleaseManifest>,
    pub now: DateTime<Utc>,
    pub deadline_reached: bool,
}

/// True when the source data is more than [`SOURCE_MAX_AGE`] older than the
/// run that used it. Without both instants there is no signal, so not stale.
pub(crate) fn is_source_stale(source_as_of: Option<DateTime<Utc>>, run_started_at: Option<DateTime<Utc>>) -> bool {
    matches!((source_as_of, run_started_at), (Some(source), Some(run)) if run - source > SOURCE_MAX_AGE)
}

pub(crate) fn evaluate_market(
    ctx: &Context<'_>,
    model_type: ModelType,
    object_missing: bool,
    unreadable: bool,
) -> MarketEval {
    let today = ctx
        .phase
        .manifest()
        .and_then(|m| m.markets.get(&model_type).map(|market| (m, market)));
    let published = matches!(ctx.phase, Phase::Active(_))
        && !object_missing
        && !unreadable
        && today.is_some_and(|(_, market)| market.published_at.is_some());

    let served = if published {
        today
    } else if object_missing {
        // Nothing is served when the object itself is gone.
        None
    } else {
        ctx.previous
            .and_then(|m| m.markets.get(&model_type).map(|market| (m, market)))
            .filter(|(_, market)| market.published_at.is_some())
    };

    let (refresh_pending, refresh_deadline) = match today {
        Some((_, market)) if published => refresh_state(market),
        _ => (false, None),
    };
    let refresh_expired = refresh_deadline.is_some_and(|deadline| ctx.now >= deadline);
    let source_stale = today.is_some_and(|(manifest, market)| {
        published && is_source_stale(market.source_as_of.or(manifest.source_as_of), manifest.run_started_at)
    });

    let status = if unreadable {
        Status::Unknown
    } else {
        market_status(ctx, published, source_stale, refresh_expired)
    };
    let report = MarketReport {
        status,
        published_at: served.and_then(|(_, market)| market.published_at),
        release_id: served
            .map(|(manifest, market)| market.release_id.clone().unwrap_or_else(|| manifest.release_id.clone())),
        source_as_of: served.and_then(|(manifest, market)| market.source_as_of.or(manifest.source_as_of)),
        refresh_pending,
        refresh_deadline,
        held_games: served.map(|(_, market)| market.held_games.clone()).unwrap_or_default(),
    };
    MarketEval {
        report,
        published,
        source_stale,
        refresh_expired,
        unreadable,
    }
}

/// A rebuild is owed when the latest odds arrived after the latest rebuild
/// (a market never rebuilt since publication counts from `published_at`).
/// It is due one odds cycle after the *first* odds arrival the predictions
/// have not absorbed (`odds_pending_since`), so later arrivals never move the
/// deadline. A manifest without that field (or with one the rebuild already
/// absorbed, or later than the latest arrival) counts from `odds_arrived_at`,
/// the only arrival it names.
pub(crate) fn refresh_state(market: &ReleaseMarket) -> (bool, Option<DateTime<Utc>>) {
    let rebuilt = market.predictions_rebuilt_at.or(market.published_at);
    match (market.odds_arrived_at, rebuilt) {
        (Some(odds), Some(rebuilt)) if odds > rebuilt => {
            let first = market
                .odds_pending_since
                .filter(|since| *since > rebuilt && *since <= odds)
                .unwrap_or(odds);
            (true, Some(first + REFRESH_CYCLE))
        }
        _ => (false, None),
    }
}

fn market_status(ctx: &Context<'_>, published: bool, source_stale: bool, refresh_expired: bool) -> Status {
    // Anything still owed is `stale` once the deadline is reached; before it,
    // the run may still deliver (`pending` if it has not started).
    let owed = |before: Status| if ctx.deadline_reached { Status::Stale } else { before };
    match ctx.phase {
        Phase::Unreadable => Status::Unknown,
        Phase::NotStarted { .. } => owed(Status::Pending),
        Phase::OffDay { completed: true, .. } => Status::OffDay,
        Phase::OffDay { completed: false, .. } => owed(Status::Updating),
        Phase::Active(_) if !published => owed(Status::Updating),
        // A run rewritten before the deadline may still bring newer source data.
        Phase::Active(_) if source_stale => owed(Status::Updating),
        Phase::Active(_) if refresh_expired => Status::Partial,
        Phase::Active(_) => Status::Fresh,
    }
}
