//! Properties of `evaluate` over generated manifests and instants.
//!
//! Every generated input timestamp falls on a whole minute and every `now`
//! carries 1 to 59 extra seconds, so `now` differs from every input and from
//! every instant derived from one (the deadline, odds arrival + 2 h).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use linecast_domain::artifacts::{ReleaseArtifacts, ReleaseManifest, ReleaseMarket, SlateKind};
use linecast_domain::{ModelType, Sport};
use linecast_freshness::{
    ArtifactMetadata, DegradationReason, FreshnessInputs, FreshnessReport, ObjectPresence, Status, StorageFailure,
    daily_deadline, evaluate,
};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use support::date;

/// Slate dates covering both DST change days and each season.
const SLATE_DATES: [&str; 4] = ["2026-03-08", "2026-07-15", "2026-11-01", "2026-11-21"];

/// Minutes around the slate date: from 36 h before its UTC midnight to 36 h after.
const WINDOW_MINUTES: i64 = 72 * 60;

fn instant(slate: NaiveDate, minute: i64) -> DateTime<Utc> {
    slate.and_hms_opt(0, 0, 0).unwrap().and_utc() + TimeDelta::minutes(minute - 36 * 60)
}

fn slate_date() -> impl Strategy<Value = NaiveDate> {
    prop::sample::select(SLATE_DATES.to_vec()).prop_map(date)
}

fn at(slate: NaiveDate) -> impl Strategy<Value = Option<DateTime<Utc>>> {
    option::of(0..WINDOW_MINUTES).prop_map(move |m| m.map(|m| instant(slate, m)))
}

fn market(slate: NaiveDate) -> impl Strategy<Value = ReleaseMarket> {
    (
        any::<bool>(),
        at(slate),
        option::of("r[0-9]"),
        at(slate),
        vec("[a-z]{3}@[a-z]{3}", 0..3),
        at(slate),
        at(slate),
        at(slate),
    )
        .prop_map(
            |(
                expected,
                published_at,
                release_id,
                source_as_of,
                held_games,
                odds_arrived_at,
                predictions_rebuilt_at,
                odds_pending_since,
            )| {
                ReleaseMarket {
                    expected,
                    published_at,
                    release_id,
                    source_as_of,
                    held_games,
                    odds_arrived_at,
                    predictions_rebuilt_at,
                    odds_pending_since,
                }
            },
        )
}

fn manifest(slate: NaiveDate) -> impl Strategy<Value = ReleaseManifest> {
    (
        at(slate),
        at(slate),
        prop::bool::weighted(0.8),
        at(slate),
        (at(slate), at(slate), at(slate), at(slate)),
        prop::collection::btree_map(prop::sample::select(ModelType::ALL.to_vec()), market(slate), 0..=3),
    )
        .prop_map(
            move |(run_started_at, run_completed_at, active, source_as_of, (p, r, s, t), markets)| ReleaseManifest {
                sport: Sport::Nba,
                slate_date: slate,
                release_id: "today".into(),
                run_started_at,
                run_completed_at,
                slate: if active { SlateKind::Active } else { SlateKind::OffDay },
                source_as_of,
                artifacts: ReleaseArtifacts {
                    predictions: p,
                    results: r,
                    summaries: s,
                    model_tracking: t,
                },
                markets,
            },
        )
}

fn presence() -> impl Strategy<Value = BTreeMap<ModelType, ObjectPresence>> {
    prop::collection::btree_map(
        prop::sample::select(ModelType::ALL.to_vec()),
        prop::sample::select(vec![
            ObjectPresence::Present,
            ObjectPresence::Present,
            ObjectPresence::Missing,
            ObjectPresence::Unreadable,
        ]),
        0..=3,
    )
}

prop_compose! {
    fn inputs_and_now()(slate in slate_date())(
        slate in Just(slate),
        today in prop_oneof![
            1 => Just(Err(StorageFailure { reason: "down".into() })),
            2 => Just(Ok(None)),
            6 => manifest(slate).prop_map(|m| Ok(Some(m))),
        ],
        previous in option::of(manifest(slate.pred_opt().unwrap()).prop_map(|m| ReleaseManifest { release_id: "previous".into(), ..m })),
        expected_markets in prop::sample::subsequence(ModelType::ALL.to_vec(), 0..=3),
        predictions in presence(),
        now_minute in 0..WINDOW_MINUTES,
        now_second in 1..60i64,
    ) -> (FreshnessInputs, DateTime<Utc>) {
        let inputs = FreshnessInputs {
            sport: Sport::Nba,
            slate_date: slate,
            today,
            previous,
            expected_markets,
            artifacts: ArtifactMetadata { predictions },
        };
        (inputs, instant(slate, now_minute) + TimeDelta::seconds(now_second))
    }
}

/// Everything in a report that is a status, as opposed to a listed value.
#[derive(Debug, PartialEq)]
struct Statuses {
    status: Status,
    operational: bool,
    reason: Option<DegradationReason>,
    refresh_pending: bool,
    markets: Vec<(ModelType, Status, bool)>,
}

fn statuses(report: &FreshnessReport) -> Statuses {
    Statuses {
        status: report.status,
        operational: report.operational,
        reason: report.degradation_reason,
        refresh_pending: report.refresh_pending,
        markets: report
            .markets
            .iter()
            .map(|(mt, m)| (*mt, m.status, m.refresh_pending))
            .collect(),
    }
}

fn manifests_mut(inputs: &mut FreshnessInputs) -> impl Iterator<Item = &mut ReleaseManifest> {
    let today = inputs.today.as_mut().ok().and_then(Option::as_mut);
    today.into_iter().chain(inputs.previous.as_mut())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `operational` is false exactly for `partial`, `unknown`, and `stale`
    /// for any reason but `predictions_stale`; and a degradation reason is
    /// given exactly when the status is one of the degraded ones.
    #[test]
    fn operational_is_false_only_for_partial_unknown_and_stale_not_predictions_stale((inputs, now) in inputs_and_now()) {
        let report = evaluate(&inputs, now);
        let not_served = match report.status {
            Status::Partial | Status::Unknown => true,
            Status::Stale => report.degradation_reason != Some(DegradationReason::PredictionsStale),
            Status::Pending | Status::Updating | Status::Fresh | Status::OffDay => false,
        };
        prop_assert_eq!(report.operational, !not_served);
        let degraded = matches!(report.status, Status::Partial | Status::Stale | Status::Unknown);
        prop_assert_eq!(report.degradation_reason.is_some(), degraded);
    }

    /// Before the deadline a missing run is `pending`, never `stale`; and
    /// nothing before the deadline is `partial`, or `stale` for any reason
    /// but a late intraday rebuild.
    #[test]
    fn before_the_deadline_a_missing_run_is_pending_never_stale((mut inputs, now) in inputs_and_now()) {
        let deadline = daily_deadline(inputs.slate_date);
        prop_assume!(now < deadline);
        let report = evaluate(&inputs, now);
        prop_assert_ne!(report.status, Status::Partial);
        if report.status == Status::Stale {
            prop_assert_eq!(report.degradation_reason, Some(DegradationReason::PredictionsStale));
        }
        inputs.today = Ok(None);
        // An unreadable predictions object is `unknown` at any time (below).
        inputs.artifacts.predictions.retain(|_, p| *p != ObjectPresence::Unreadable);
        let missing = evaluate(&inputs, now);
        prop_assert_eq!(missing.status, Status::Pending);
        prop_assert!(missing.markets.values().all(|m| m.status == Status::Pending));
    }

    /// A held game never changes status: clearing every held-game list, or
    /// adding a held game to every market, leaves every status, reason and
    /// refresh flag of the report unchanged.
    #[test]
    fn held_games_never_change_any_status((inputs, now) in inputs_and_now(), extra in "[a-z]{3}@[a-z]{3}") {
        let baseline = statuses(&evaluate(&inputs, now));

        let mut cleared = inputs.clone();
        manifests_mut(&mut cleared).flat_map(|m| m.markets.values_mut()).for_each(|m| m.held_games.clear());
        prop_assert_eq!(&statuses(&evaluate(&cleared, now)), &baseline);

        let mut added = inputs;
        manifests_mut(&mut added).flat_map(|m| m.markets.values_mut()).for_each(|m| m.held_games.push(extra.clone()));
        prop_assert_eq!(&statuses(&evaluate(&added, now)), &baseline);
    }

    /// Timestamps in the report are artifact timestamps or derive from the
    /// slate date or odds arrival, never the evaluation instant.
    #[test]
    fn no_report_timestamp_is_now((inputs, now) in inputs_and_now()) {
        let report = evaluate(&inputs, now);
        prop_assert!(report.timestamps().iter().all(|t| *t != now));
        let json = serde_json::to_string(&report).unwrap();
        prop_assert!(!json.contains(&now.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)));
    }

    /// A reported market whose predictions object exists but cannot be read
    /// is `unknown`, and then the sport is `unknown` and not operational.
    #[test]
    fn an_unreadable_predictions_object_is_unknown_and_not_operational((inputs, now) in inputs_and_now()) {
        let report = evaluate(&inputs, now);
        let unreadable: Vec<ModelType> = report
            .markets
            .keys()
            .copied()
            .filter(|mt| inputs.artifacts.predictions.get(mt) == Some(&ObjectPresence::Unreadable))
            .collect();
        for mt in &unreadable {
            prop_assert_eq!(report.markets[mt].status, Status::Unknown);
        }
        if !unreadable.is_empty() {
            prop_assert_eq!(report.status, Status::Unknown);
            prop_assert!(!report.operational);
        }
    }

    /// However many odds arrive after the last rebuild, the refresh deadline
    /// is at most one cycle after the latest arrival and exactly one cycle
    /// after the first unabsorbed one when the manifest names it.
    #[test]
    fn the_refresh_deadline_never_moves_past_the_first_unabsorbed_arrival((inputs, now) in inputs_and_now()) {
        let report = evaluate(&inputs, now);
        let today = inputs.today.as_ref().ok().and_then(Option::as_ref);
        for (mt, m) in &report.markets {
            let (Some(deadline), Some(market)) = (m.refresh_deadline, today.and_then(|t| t.markets.get(mt))) else {
                continue;
            };
            let odds = market.odds_arrived_at.unwrap();
            prop_assert!(deadline <= odds + linecast_freshness::REFRESH_CYCLE);
            let rebuilt = market.predictions_rebuilt_at.or(market.published_at).unwrap();
            if let Some(since) = market.odds_pending_since.filter(|s| *s > rebuilt && *s <= odds) {
                prop_assert_eq!(deadline, since + linecast_freshness::REFRESH_CYCLE);
            }
        }
    }

    /// A market reports a refresh deadline exactly while its refresh is
    /// pending, and the sport's `refresh_pending` is true when any market's is.
    #[test]
    fn refresh_pending_and_its_deadline_go_together((inputs, now) in inputs_and_now()) {
        let report = evaluate(&inputs, now);
        prop_assert!(report.markets.values().all(|m| m.refresh_pending == m.refresh_deadline.is_some()));
        prop_assert_eq!(report.refresh_pending, report.markets.values().any(|m| m.refresh_pending));
    }
}
