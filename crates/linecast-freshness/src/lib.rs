//! The data-status state machine of linecast: [`evaluate`] turns what storage
//! holds for one sport and one slate date (today's release manifest, the
//! previous one, the expected markets, store-side artifact metadata) plus
//! `now` into a [`FreshnessReport`], the payload of
//! `GET /api/v1/data-status/{sport}`.
//!
//! Pure: no I/O, no async, no system clock. The caller reads
//! `releases/{sport}/{slate_date}.json` and passes `now`; this crate must not
//! know about the store, HTTP or caching.
//!
//! # Statuses (spec "Data-freshness status")
//!
//! | Status | When | operational |
//! |---|---|---|
//! | `pending` | today's run has not started and the deadline has not been reached | true |
//! | `updating` | today's run started (or an off-day run is unconfirmed) and something is still owed, before the deadline | true |
//! | `fresh` | active slate: run completed, every expected market and all four artifacts published, source current, no rebuild overdue | true |
//! | `off_day` | the run completed with `slate: off_day` | true |
//! | `partial` | after the deadline, part of today's data is published but not all of it | false |
//! | `stale` | after the deadline, the run or its output is missing; or `source_stale`; or `predictions_stale` (any time) | false, **true** for `predictions_stale` |
//! | `unknown` | storage could not say whether today's manifest exists | false |
//!
//! [`is_operational`] is the single place that maps a status and reason to
//! `operational`.
//!
//! # DECISIONS
//!
//! Choices the spec leaves open, made here once:
//!
//! 1. **Deadline.** 10:15 America/New_York on the slate date, converted with
//!    the offset in force that day ([`daily_deadline`]). The deadline counts
//!    as reached at 10:15:00 exactly (`now >= deadline`); the refresh
//!    deadline likewise (`now >= refresh_deadline`).
//! 2. **Run started.** A manifest with `run_started_at` set, or with any
//!    artifact or market already published. A manifest with none of that is
//!    treated like no manifest for status purposes.
//! 3. **Reported markets.** The caller's `expected_markets`, plus markets the
//!    manifest marks `expected: true`, minus those it marks `expected: false`
//!    (an unexpected market is left out of `markets` rather than reported).
//! 4. **Published market.** `published_at` is set in today's manifest and the
//!    predictions object is not reported [`ObjectPresence::Missing`] by the
//!    caller's [`ArtifactMetadata`] (the contract writes the manifest last,
//!    so a missing object means the release is broken).
//! 5. **Served fields.** `release_id`, `source_as_of`, `artifacts` and each
//!    market's `published_at`, `release_id`, `source_as_of` and `held_games`
//!    describe what clients are served: today's release once it has started
//!    (top level) or published that item (artifacts, markets); before that
//!    the previous manifest's values, since the artifact objects still hold
//!    the previous release (the `upcoming_only` rule keeps the latest valid
//!    slate visible). A previous manifest for another sport or a slate date
//!    not before `slate_date` is ignored. `status` always speaks of today.
//! 6. **Degradation reasons**, each with its status:
//!    - `release_unavailable` (`unknown`): storage failed to read today's
//!      manifest, or a reported market's predictions object exists but cannot
//!      be read or parsed ([`ObjectPresence::Unreadable`]; that market is
//!      `unknown` too), at any time of day.
//!    - `release_missing` (`stale`): no manifest once the deadline is reached.
//!    - `daily_output_stale`: after the deadline, a manifest exists but owes
//!      output: its run never started, an off-day run never completed, or no
//!      expected market is published (`stale`); or some but not all expected
//!      markets are published, or the run is not completed, or the
//!      `predictions`, `summaries` or `model_tracking` artifact is missing
//!      (`partial`).
//!    - `results_awaiting_settlement` (`partial`): after the deadline every
//!      expected market is published but the `results` artifact is not.
//!    - `source_stale` (`stale`, operational false): after the deadline, an
//!      otherwise complete release whose `source_as_of` (top level, or a
//!      published market's own) is more than [`SOURCE_MAX_AGE`] (24 h) before
//!      `run_started_at`.
//!    - `predictions_stale` (`stale`, operational true): an otherwise fresh
//!      release where some market's refresh deadline has been reached while
//!      its rebuild is still pending. Applies before the deadline too: the
//!      refresh cycle runs all day.
//!
//!    When several apply, the first in this order wins: release_unavailable,
//!    release_missing, daily_output_stale (no market), daily_output_stale
//!    (some markets), results_awaiting_settlement, daily_output_stale
//!    (incomplete run), source_stale, predictions_stale.
//! 7. **Before the deadline** the morning run may still rewrite the manifest,
//!    so every shortfall of the run itself (missing output, stale source)
//!    reads `updating` with no reason; only `predictions_stale` and
//!    `release_unavailable` can degrade a sport before 10:15.
//! 8. **Refresh pending.** A published market whose `odds_arrived_at` is
//!    later than its `predictions_rebuilt_at` (or, never rebuilt, its
//!    `published_at`) has `refresh_pending: true` and
//!    `refresh_deadline = odds_pending_since + 2 h` ([`REFRESH_CYCLE`]): one
//!    odds cycle after the first arrival the predictions have not absorbed
//!    (`odds_arrived_at` when the manifest does not name it). Once the
//!    refresh deadline is reached that market is `partial`; the sport is
//!    `stale` + `predictions_stale` only if it would otherwise be `fresh`
//!    (a worse status is kept). The sport's `refresh_pending` is true when
//!    any market's is.
//! 9. **Market statuses.** `unknown` on storage failure; `pending` / `stale`
//!    with the run not started; `off_day` on a confirmed off day; an
//!    unpublished market is `updating` before and `stale` after the deadline;
//!    a published one is `fresh`, `partial` with an overdue rebuild, or
//!    `stale` (`updating` before the deadline) with stale source data.
//! 10. **Held games** are copied from the served market and never read by any
//!     rule, so they cannot change a status.
//! 11. **No `now` in the report.** Timestamps are artifact timestamps, the
//!     deadline (from the slate date) and refresh deadlines (from odds
//!     arrival).

mod evaluate;
mod inputs;
mod market;
mod phase;
mod report;
mod schedule;

pub use evaluate::evaluate;
pub use inputs::{ArtifactMetadata, FreshnessInputs, ObjectPresence, StorageFailure};
pub use report::{ArtifactTimes, DegradationReason, FreshnessReport, MarketReport, Status, is_operational};
pub use schedule::{DEADLINE_ET_HOUR, DEADLINE_ET_MINUTE, REFRESH_CYCLE, SOURCE_MAX_AGE, daily_deadline, et_date};
