//! The spec's status table and transitions on fixed instants.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use linecast_domain::ModelType;
use linecast_domain::artifacts::{ReleaseManifest, SlateKind};
use linecast_freshness::{
    ArtifactTimes, DegradationReason, FreshnessInputs, FreshnessReport, ObjectPresence, Status, daily_deadline,
    evaluate,
};
use support::*;

fn at(inputs: &FreshnessInputs, now: &str) -> FreshnessReport {
    evaluate(inputs, utc(now))
}

fn market_statuses(report: &FreshnessReport) -> Vec<(ModelType, Status)> {
    report.markets.iter().map(|(mt, m)| (*mt, m.status)).collect()
}

fn all_markets(status: Status) -> Vec<(ModelType, Status)> {
    ModelType::ALL.iter().map(|mt| (*mt, status)).collect()
}

#[test]
fn no_manifest_before_the_deadline_is_pending_and_operational() {
    let report = at(&inputs(None), BEFORE_DEADLINE);
    assert_eq!(report.status, Status::Pending);
    assert!(report.operational);
    assert_eq!(report.degradation_reason, None);
    assert_eq!(market_statuses(&report), all_markets(Status::Pending));
}

#[test]
fn before_todays_run_the_report_names_the_previous_release_still_served() {
    let report = at(&inputs(None), BEFORE_DEADLINE);
    assert_eq!(report.release_id.as_deref(), Some("nba-2026-11-20-r1"));
    assert_eq!(report.source_as_of, Some(utc("2026-11-20T12:50:00Z")));
    assert_eq!(report.artifacts.results, Some(utc("2026-11-20T13:31:00Z")));
    let market = &report.markets[&ModelType::OverUnder];
    assert_eq!(market.published_at, Some(utc("2026-11-20T13:30:00Z")));
    assert_eq!(market.held_games.len(), 1);
}

#[test]
fn no_manifest_after_the_deadline_is_stale_with_release_missing() {
    let report = at(&inputs(None), AFTER_DEADLINE);
    assert_eq!(report.status, Status::Stale);
    assert!(!report.operational);
    assert_eq!(report.degradation_reason, Some(DegradationReason::ReleaseMissing));
    assert_eq!(market_statuses(&report), all_markets(Status::Stale));
}

#[test]
fn a_manifest_whose_run_never_started_is_pending_then_daily_output_stale() {
    let mut manifest = started_manifest();
    manifest.run_started_at = None;
    let before = at(&inputs(Some(manifest.clone())), BEFORE_DEADLINE);
    assert_eq!(before.status, Status::Pending);
    let after = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(
        (after.status, after.degradation_reason),
        (Status::Stale, Some(DegradationReason::DailyOutputStale))
    );
    assert!(!after.operational);
}

#[test]
fn a_started_run_with_some_artifacts_before_the_deadline_is_updating() {
    let mut manifest = started_manifest();
    manifest
        .markets
        .insert(ModelType::WonOnPoints, published_market("2026-11-21T13:20:00Z"));
    manifest.artifacts.predictions = Some(utc("2026-11-21T13:20:00Z"));
    let report = at(&inputs(Some(manifest)), BEFORE_DEADLINE);
    assert_eq!(report.status, Status::Updating);
    assert!(report.operational);
    assert_eq!(report.degradation_reason, None);
    assert_eq!(report.release_id.as_deref(), Some("nba-2026-11-21-r1"));
    assert_eq!(
        market_statuses(&report),
        vec![
            (ModelType::OverUnder, Status::Updating),
            (ModelType::WonOnPoints, Status::Fresh),
            (ModelType::WonOnSpread, Status::Updating),
        ]
    );
    // The unpublished markets still report the previous release they serve.
    assert_eq!(
        report.markets[&ModelType::OverUnder].release_id.as_deref(),
        Some("nba-2026-11-20-r1")
    );
    assert_eq!(
        report.markets[&ModelType::WonOnPoints].release_id.as_deref(),
        Some("nba-2026-11-21-r1")
    );
}

#[test]
fn a_completed_release_is_fresh_before_and_after_the_deadline() {
    for now in [BEFORE_DEADLINE, AFTER_DEADLINE] {
        let report = at(&inputs(Some(complete_manifest())), now);
        assert_eq!(report.status, Status::Fresh, "at {now}");
        assert!(report.operational);
        assert_eq!(report.degradation_reason, None);
        assert!(!report.refresh_pending);
        assert_eq!(market_statuses(&report), all_markets(Status::Fresh));
        assert_eq!(report.artifacts.model_tracking, Some(utc("2026-11-21T13:40:00Z")));
        assert_eq!(report.source_as_of, Some(utc("2026-11-21T12:55:00Z")));
    }
}

#[test]
fn a_completed_off_day_run_is_off_day_and_operational() {
    let manifest = ReleaseManifest {
        slate: SlateKind::OffDay,
        run_completed_at: Some(utc("2026-11-21T13:05:00Z")),
        ..started_manifest()
    };
    let report = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(report.status, Status::OffDay);
    assert!(report.operational);
    assert_eq!(report.degradation_reason, None);
    assert_eq!(market_statuses(&report), all_markets(Status::OffDay));
}

#[test]
fn an_unconfirmed_off_day_is_updating_then_stale_after_the_deadline() {
    let manifest = ReleaseManifest {
        slate: SlateKind::OffDay,
        ..started_manifest()
    };
    assert_eq!(
        at(&inputs(Some(manifest.clone())), BEFORE_DEADLINE).status,
        Status::Updating
    );
    let after = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(
        (after.status, after.degradation_reason),
        (Status::Stale, Some(DegradationReason::DailyOutputStale))
    );
}

#[test]
fn a_run_that_started_and_published_nothing_yet_is_updating_before_the_deadline() {
    // DECISIONS 2: `run_started_at` alone says the run has started, so the
    // sport is `updating` (not `pending`) while nothing is published yet.
    let report = at(&inputs(Some(started_manifest())), BEFORE_DEADLINE);
    assert_eq!(report.status, Status::Updating);
    assert!(report.operational);
    assert_eq!(report.degradation_reason, None);
    assert_eq!(market_statuses(&report), all_markets(Status::Updating));
}

#[test]
fn a_manifest_without_run_started_at_has_started_once_any_of_its_output_shows() {
    // DECISIONS 2: a completed run, a published artifact or a published
    // market each say the run started even when `run_started_at` is missing;
    // before the deadline the still incomplete run reads `updating`, where a
    // run that never started would read `pending`.
    let mut completed = started_manifest();
    completed.run_started_at = None;
    completed.run_completed_at = Some(utc("2026-11-21T13:40:00Z"));

    let mut artifact = started_manifest();
    artifact.run_started_at = None;
    artifact.artifacts.predictions = Some(utc("2026-11-21T13:20:00Z"));

    let mut market = started_manifest();
    market.run_started_at = None;
    market
        .markets
        .insert(ModelType::WonOnPoints, published_market("2026-11-21T13:20:00Z"));

    for (case, manifest) in [("completed", completed), ("artifact", artifact), ("market", market)] {
        let report = at(&inputs(Some(manifest)), BEFORE_DEADLINE);
        assert_eq!(report.status, Status::Updating, "{case}");
        assert_eq!(report.release_id.as_deref(), Some("nba-2026-11-21-r1"), "{case}");
    }
}

#[test]
fn some_but_not_all_markets_after_the_deadline_is_partial_and_not_operational() {
    let mut manifest = complete_manifest();
    manifest.markets.insert(ModelType::WonOnSpread, unpublished_market());
    let report = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(report.status, Status::Partial);
    assert!(!report.operational);
    assert_eq!(report.degradation_reason, Some(DegradationReason::DailyOutputStale));
    assert_eq!(report.markets[&ModelType::WonOnSpread].status, Status::Stale);
    assert_eq!(report.markets[&ModelType::OverUnder].status, Status::Fresh);
}

#[test]
fn a_started_run_with_nothing_published_after_the_deadline_is_stale() {
    let report = at(&inputs(Some(started_manifest())), AFTER_DEADLINE);
    assert_eq!(report.status, Status::Stale);
    assert!(!report.operational);
    assert_eq!(report.degradation_reason, Some(DegradationReason::DailyOutputStale));
    assert_eq!(market_statuses(&report), all_markets(Status::Stale));
}

#[test]
fn every_market_published_but_the_run_not_completed_after_the_deadline_is_partial() {
    let mut manifest = complete_manifest();
    manifest.run_completed_at = None;
    let report = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(
        (report.status, report.degradation_reason),
        (Status::Partial, Some(DegradationReason::DailyOutputStale))
    );
}

#[test]
fn markets_published_without_results_after_the_deadline_await_settlement() {
    let mut manifest = complete_manifest();
    manifest.artifacts.results = None;
    let report = at(&inputs(Some(manifest.clone())), AFTER_DEADLINE);
    assert_eq!(report.status, Status::Partial);
    assert_eq!(
        report.degradation_reason,
        Some(DegradationReason::ResultsAwaitingSettlement)
    );
    assert!(!report.operational);
    // Before the deadline the same release is still being written.
    assert_eq!(at(&inputs(Some(manifest)), BEFORE_DEADLINE).status, Status::Updating);
}

#[test]
fn a_storage_failure_is_unknown_with_release_unavailable() {
    let report = at(&storage_failure(), BEFORE_DEADLINE);
    assert_eq!(report.status, Status::Unknown);
    assert!(!report.operational);
    assert_eq!(report.degradation_reason, Some(DegradationReason::ReleaseUnavailable));
    assert_eq!(market_statuses(&report), all_markets(Status::Unknown));
}

#[test]
fn source_data_older_than_a_day_before_the_run_is_source_stale_after_the_deadline() {
    let mut manifest = complete_manifest();
    manifest.source_as_of = Some(utc("2026-11-20T13:01:00Z"));
    let after = at(&inputs(Some(manifest.clone())), AFTER_DEADLINE);
    assert_eq!(
        (after.status, after.degradation_reason),
        (Status::Stale, Some(DegradationReason::SourceStale))
    );
    assert!(!after.operational);
    assert_eq!(at(&inputs(Some(manifest)), BEFORE_DEADLINE).status, Status::Updating);
}

#[test]
fn source_data_exactly_a_day_old_is_not_stale() {
    let mut manifest = complete_manifest();
    manifest.source_as_of = Some(utc("2026-11-20T13:02:00Z"));
    for market in manifest.markets.values_mut() {
        market.source_as_of = None;
    }
    assert_eq!(at(&inputs(Some(manifest)), AFTER_DEADLINE).status, Status::Fresh);
}

#[test]
fn one_market_with_old_source_data_makes_the_sport_source_stale() {
    let mut manifest = complete_manifest();
    manifest.markets.get_mut(&ModelType::OverUnder).unwrap().source_as_of = Some(utc("2026-11-19T12:00:00Z"));
    let report = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(report.degradation_reason, Some(DegradationReason::SourceStale));
    assert_eq!(report.markets[&ModelType::OverUnder].status, Status::Stale);
    assert_eq!(report.markets[&ModelType::WonOnPoints].status, Status::Fresh);
}

fn with_newer_odds() -> FreshnessInputs {
    let mut manifest = complete_manifest();
    let market = manifest.markets.get_mut(&ModelType::WonOnPoints).unwrap();
    market.predictions_rebuilt_at = Some(utc("2026-11-21T13:38:00Z"));
    market.odds_arrived_at = Some(utc("2026-11-21T17:00:00Z"));
    inputs(Some(manifest))
}

#[test]
fn newer_odds_than_the_last_rebuild_keep_the_sport_fresh_with_refresh_pending() {
    let report = at(&with_newer_odds(), "2026-11-21T18:00:07Z");
    assert_eq!(report.status, Status::Fresh);
    assert!(report.operational);
    assert!(report.refresh_pending);
    let market = &report.markets[&ModelType::WonOnPoints];
    assert_eq!(market.status, Status::Fresh);
    assert!(market.refresh_pending);
    assert_eq!(market.refresh_deadline, Some(utc("2026-11-21T19:00:00Z")));
    let other = &report.markets[&ModelType::OverUnder];
    assert!(!other.refresh_pending);
    assert_eq!(other.refresh_deadline, None);
}

/// Odds first arrive unabsorbed at 15:00, then keep arriving (latest 17:00)
/// with no rebuild since 13:38: the deadline is 15:00 + 2 h = 17:00, not
/// 17:00 + 2 h.
fn with_odds_pending_since_15() -> FreshnessInputs {
    let mut inputs = with_newer_odds();
    let manifest = inputs.today.as_mut().unwrap().as_mut().unwrap();
    manifest
        .markets
        .get_mut(&ModelType::WonOnPoints)
        .unwrap()
        .odds_pending_since = Some(utc("2026-11-21T15:00:00Z"));
    inputs
}

#[test]
fn the_refresh_deadline_counts_from_the_first_unabsorbed_odds_arrival() {
    let report = at(&with_odds_pending_since_15(), "2026-11-21T16:59:59Z");
    let market = &report.markets[&ModelType::WonOnPoints];
    assert_eq!(market.refresh_deadline, Some(utc("2026-11-21T17:00:00Z")));
    assert_eq!(report.status, Status::Fresh);
}

#[test]
fn odds_that_keep_arriving_without_a_rebuild_turn_stale_two_hours_after_the_first() {
    // 17:00:07 is past 15:00 + 2 h even though the latest odds are only 7 s old.
    let report = at(&with_odds_pending_since_15(), "2026-11-21T17:00:07Z");
    assert_eq!(report.status, Status::Stale);
    assert_eq!(report.degradation_reason, Some(DegradationReason::PredictionsStale));
    assert!(report.operational);
    assert_eq!(report.markets[&ModelType::WonOnPoints].status, Status::Partial);
}

#[test]
fn a_pending_since_older_than_the_last_rebuild_is_ignored() {
    // Already absorbed by the 13:38 rebuild: the latest arrival counts.
    let mut inputs = with_newer_odds();
    let manifest = inputs.today.as_mut().unwrap().as_mut().unwrap();
    manifest
        .markets
        .get_mut(&ModelType::WonOnPoints)
        .unwrap()
        .odds_pending_since = Some(utc("2026-11-21T13:00:00Z"));
    let report = at(&inputs, "2026-11-21T18:00:07Z");
    assert_eq!(
        report.markets[&ModelType::WonOnPoints].refresh_deadline,
        Some(utc("2026-11-21T19:00:00Z"))
    );
}

#[test]
fn odds_arriving_at_the_very_instant_of_the_rebuild_are_not_newer() {
    // refresh_pending needs odds *later* than the last rebuild (payloads.md):
    // odds of 13:38:00 were absorbed by the 13:38:00 rebuild. Were they
    // owed, the deadline 15:38 would have passed by 18:00.
    let mut inputs = with_newer_odds();
    let manifest = inputs.today.as_mut().unwrap().as_mut().unwrap();
    let market = manifest.markets.get_mut(&ModelType::WonOnPoints).unwrap();
    market.odds_arrived_at = Some(utc("2026-11-21T13:38:00Z"));
    let report = at(&inputs, "2026-11-21T18:00:07Z");
    assert_eq!(report.status, Status::Fresh);
    assert!(!report.refresh_pending);
    let market = &report.markets[&ModelType::WonOnPoints];
    assert_eq!(market.status, Status::Fresh);
    assert!(!market.refresh_pending);
    assert_eq!(market.refresh_deadline, None);
}

#[test]
fn a_pending_since_at_the_very_instant_of_the_rebuild_is_ignored() {
    // data-contract.md: `odds_pending_since` lies *after* the rebuild. One
    // equal to the 13:38 rebuild names odds that rebuild absorbed, so the
    // deadline counts from the latest arrival: 17:00 + 2 h = 19:00, not
    // 13:38 + 2 h = 15:38.
    let mut inputs = with_newer_odds();
    let manifest = inputs.today.as_mut().unwrap().as_mut().unwrap();
    manifest
        .markets
        .get_mut(&ModelType::WonOnPoints)
        .unwrap()
        .odds_pending_since = Some(utc("2026-11-21T13:38:00Z"));
    let report = at(&inputs, "2026-11-21T18:00:07Z");
    assert_eq!(
        report.markets[&ModelType::WonOnPoints].refresh_deadline,
        Some(utc("2026-11-21T19:00:00Z"))
    );
    assert_eq!(report.status, Status::Fresh);
}

#[test]
fn a_market_whose_predictions_object_is_missing_owes_no_refresh() {
    // DECISIONS 4 and 8: only a published market owes a rebuild for newer
    // odds; with its object gone the market is unpublished and serves nothing.
    let mut inputs = with_newer_odds();
    inputs
        .artifacts
        .predictions
        .insert(ModelType::WonOnPoints, ObjectPresence::Missing);
    let report = at(&inputs, "2026-11-21T18:00:07Z");
    assert!(!report.refresh_pending);
    let market = &report.markets[&ModelType::WonOnPoints];
    assert_eq!(market.status, Status::Stale);
    assert!(!market.refresh_pending);
    assert_eq!(market.refresh_deadline, None);
}

#[test]
fn a_refresh_still_pending_past_its_deadline_is_predictions_stale_and_still_operational() {
    let report = at(&with_newer_odds(), "2026-11-21T19:00:07Z");
    assert_eq!(report.status, Status::Stale);
    assert_eq!(report.degradation_reason, Some(DegradationReason::PredictionsStale));
    assert!(report.operational);
    assert!(report.refresh_pending);
    assert_eq!(report.markets[&ModelType::WonOnPoints].status, Status::Partial);
    assert_eq!(report.markets[&ModelType::OverUnder].status, Status::Fresh);
}

#[test]
fn a_rebuild_after_the_newer_odds_clears_refresh_pending() {
    let mut inputs = with_newer_odds();
    let manifest = inputs.today.as_mut().unwrap().as_mut().unwrap();
    manifest
        .markets
        .get_mut(&ModelType::WonOnPoints)
        .unwrap()
        .predictions_rebuilt_at = Some(utc("2026-11-21T17:04:00Z"));
    let report = at(&inputs, "2026-11-21T19:00:07Z");
    assert_eq!(report.status, Status::Fresh);
    assert!(!report.refresh_pending);
    assert_eq!(report.markets[&ModelType::WonOnPoints].refresh_deadline, None);
}

#[test]
fn a_late_rebuild_does_not_hide_a_worse_status() {
    let mut inputs = with_newer_odds();
    let manifest = inputs.today.as_mut().unwrap().as_mut().unwrap();
    manifest.artifacts.results = None;
    let report = at(&inputs, "2026-11-21T19:00:07Z");
    assert_eq!(
        report.degradation_reason,
        Some(DegradationReason::ResultsAwaitingSettlement)
    );
    assert!(!report.operational);
}

#[test]
fn a_market_the_manifest_does_not_expect_is_not_reported() {
    let mut manifest = complete_manifest();
    let market = manifest.markets.get_mut(&ModelType::WonOnSpread).unwrap();
    market.expected = false;
    market.published_at = None;
    let report = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(report.status, Status::Fresh);
    assert!(!report.markets.contains_key(&ModelType::WonOnSpread));
}

#[test]
fn a_predictions_object_missing_from_storage_counts_as_unpublished() {
    let mut inputs = inputs(Some(complete_manifest()));
    inputs
        .artifacts
        .predictions
        .insert(ModelType::OverUnder, ObjectPresence::Missing);
    let report = at(&inputs, AFTER_DEADLINE);
    assert_eq!(
        (report.status, report.degradation_reason),
        (Status::Partial, Some(DegradationReason::DailyOutputStale))
    );
    let market = &report.markets[&ModelType::OverUnder];
    assert_eq!(market.status, Status::Stale);
    assert_eq!(market.published_at, None);
}

#[test]
fn an_unreadable_predictions_object_makes_its_market_unknown_and_the_sport_not_operational() {
    for now in [BEFORE_DEADLINE, AFTER_DEADLINE] {
        let mut inputs = inputs(Some(complete_manifest()));
        inputs
            .artifacts
            .predictions
            .insert(ModelType::OverUnder, ObjectPresence::Unreadable);
        let report = at(&inputs, now);
        assert_eq!(report.markets[&ModelType::OverUnder].status, Status::Unknown, "{now}");
        assert_eq!(report.markets[&ModelType::WonOnPoints].status, Status::Fresh, "{now}");
        assert_eq!(report.status, Status::Unknown, "{now}");
        assert_eq!(report.degradation_reason, Some(DegradationReason::ReleaseUnavailable));
        assert!(!report.operational, "{now}");
    }
}

#[test]
fn a_previous_manifest_not_before_the_slate_date_is_ignored() {
    let mut inputs = inputs(None);
    inputs.previous.as_mut().unwrap().slate_date = date(DAY);
    let report = at(&inputs, BEFORE_DEADLINE);
    assert_eq!(report.release_id, None);
    assert_eq!(report.artifacts, ArtifactTimes::default());
}

#[test]
fn held_games_are_listed_on_their_market() {
    let mut manifest = complete_manifest();
    let held = "2026-11-21 19:30:00 boston_celtics@new_york_knicks".to_owned();
    manifest.markets.get_mut(&ModelType::WonOnPoints).unwrap().held_games = vec![held.clone()];
    let report = at(&inputs(Some(manifest)), AFTER_DEADLINE);
    assert_eq!(report.markets[&ModelType::WonOnPoints].held_games, vec![held]);
    assert_eq!(report.markets[&ModelType::WonOnPoints].status, Status::Fresh);
}

#[test]
fn the_deadline_follows_daylight_saving_time_on_the_change_days() {
    let spring = FreshnessInputs {
        slate_date: date("2026-03-08"),
        previous: None,
        ..inputs(None)
    };
    // 14:20Z is 10:20 EDT on spring-forward day: past the deadline.
    let report = at(&spring, "2026-03-08T14:20:00Z");
    assert_eq!(report.deadline, utc("2026-03-08T14:15:00Z"));
    assert_eq!(report.status, Status::Stale);

    let fall = FreshnessInputs {
        slate_date: date("2026-11-01"),
        previous: None,
        ..inputs(None)
    };
    // 14:20Z is 09:20 EST on fall-back day: still before the deadline.
    let report = at(&fall, "2026-11-01T14:20:00Z");
    assert_eq!(report.deadline, utc("2026-11-01T15:15:00Z"));
    assert_eq!(report.status, Status::Pending);
}

#[test]
fn the_deadline_is_1415z_in_summer_and_1515z_in_winter() {
    assert_eq!(daily_deadline(date("2026-06-30")), utc("2026-06-30T14:15:00Z"));
    assert_eq!(daily_deadline(date("2026-12-15")), utc("2026-12-15T15:15:00Z"));
    assert_eq!(at(&inputs(None), "2026-11-21T15:15:00Z").status, Status::Stale);
    assert_eq!(at(&inputs(None), "2026-11-21T15:14:59Z").status, Status::Pending);
}

#[test]
fn the_report_serializes_with_snake_case_codes_and_every_field() {
    let report = at(&with_newer_odds(), "2026-11-21T19:00:07Z");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["sport"], "nba");
    assert_eq!(json["slate_date"], "2026-11-21");
    assert_eq!(json["status"], "stale");
    assert_eq!(json["operational"], true);
    assert_eq!(json["degradation_reason"], "predictions_stale");
    assert_eq!(json["refresh_pending"], true);
    assert_eq!(json["deadline"], "2026-11-21T15:15:00Z");
    assert_eq!(json["release_id"], "nba-2026-11-21-r1");
    assert_eq!(json["source_as_of"], "2026-11-21T12:55:00Z");
    let market = &json["markets"]["won_on_points"];
    assert_eq!(market["status"], "partial");
    assert_eq!(market["refresh_deadline"], "2026-11-21T19:00:00Z");
    assert_eq!(market["published_at"], "2026-11-21T13:38:00Z");
    assert!(market["held_games"].is_array());
    assert!(json["markets"]["over_under"]["refresh_deadline"].is_null());
    assert_eq!(json["artifacts"]["results"], "2026-11-21T13:39:00Z");
    let off_day = at(
        &inputs(Some(ReleaseManifest {
            slate: SlateKind::OffDay,
            ..complete_manifest()
        })),
        AFTER_DEADLINE,
    );
    assert_eq!(serde_json::to_value(&off_day).unwrap()["status"], "off_day");
}
