//! The graded-season cache and the history use cases, against the
//! in-memory artifact store.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveTime, TimeZone, Utc};
use linecast_domain::artifacts::{GameStatus, ScoreRow, SeasonTable};
use linecast_domain::{GameKey, ModelColumn, ModelType, SeasonLabel, SeasonRow, SeasonType, Sport};
use linecast_grading::TeamForm;

use super::History;
use super::rows::Cell;
use crate::testing::MemoryStore;
use crate::{Derived, StoreError};

const NBA: Sport = Sport::Nba;
const ML: ModelType = ModelType::WonOnPoints;

fn date(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn season(start_year: i32) -> SeasonLabel {
    SeasonLabel::starting(NBA, start_year)
}

/// Noon UTC on `day`: the same ET date.
fn noon(day: &str) -> DateTime<Utc> {
    Utc.from_utc_datetime(&date(day).and_hms_opt(12, 0, 0).unwrap())
}

fn key(day: &str, away: &str, home: &str) -> GameKey {
    GameKey::new(date(day), NaiveTime::from_hms_opt(19, 0, 0).unwrap(), away, home)
}

/// A regular-season game of `label` with a money line and BLEND; decided
/// when `home_wins` is given, unplayed otherwise.
fn game(label: SeasonLabel, day: &str, away: &str, home: &str, home_wins: Option<bool>) -> SeasonRow {
    let lines = linecast_domain::Lines {
        home_money_line: Some(-150.0),
        away_money_line: Some(130.0),
        ..Default::default()
    };
    let mut models = linecast_domain::ModelProbs::default();
    models.set(ModelColumn::Blend, Some(0.6));
    let (away_score, home_score) = match home_wins {
        Some(true) => (Some(1.0), Some(2.0)),
        Some(false) => (Some(2.0), Some(1.0)),
        None => (None, None),
    };
    SeasonRow {
        key: key(day, away, home),
        game_id: format!("nba-{}-{away}-{home}", day.replace('-', "")).into(),
        season: label,
        season_type: SeasonType::Regular,
        away_score,
        home_score,
        stored_outcome: None,
        lines,
        models,
        quote_source: None,
        settlement_status: None,
        provenance: linecast_domain::Provenance::default(),
        extras: Vec::new(),
    }
}

fn table(label: SeasonLabel, rows: Vec<SeasonRow>) -> SeasonTable {
    SeasonTable {
        sport: NBA,
        model_type: ML,
        season: label,
        columns: ["date", "away_team", "home_team"].map(Arc::from).to_vec(),
        rows,
    }
}

/// A season of two decided games, both won by nyk: bos at nyk on `day`,
/// nyk at bos on `next`.
fn two_games(store: &MemoryStore, start_year: i32, day: &str, next: &str) {
    let label = season(start_year);
    store.put_season(
        NBA,
        ML,
        label,
        table(
            label,
            vec![
                game(label, day, "bos", "nyk", Some(true)),
                game(label, next, "nyk", "bos", Some(false)),
            ],
        ),
    );
}

fn history(store: &Arc<MemoryStore>, budget_bytes: u64) -> History {
    History::with_budget(store.clone(), budget_bytes)
}

#[tokio::test]
async fn a_season_is_graded_once_per_object_version_though_every_request_reads_its_version() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());
    let before = store.reads();

    let first = history.season(NBA, ML, season(2024)).await.unwrap();
    assert_eq!(store.reads() - before, 2, "the version, then the season");
    let second = history.season(NBA, ML, season(2024)).await.unwrap();

    assert!(
        Arc::ptr_eq(&first, &second),
        "the second request reuses the graded season"
    );
    assert_eq!(
        store.reads() - before,
        3,
        "a request on a graded season reads its version only"
    );
    assert_eq!(first.total(), 2);
}

#[tokio::test]
async fn a_new_object_version_is_graded_again() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());
    let old = history.season(NBA, ML, season(2024)).await.unwrap();

    let label = season(2024);
    store.put_season(
        NBA,
        ML,
        label,
        table(label, vec![game(label, "2024-11-01", "bos", "nyk", Some(true))]),
    );
    let new = history.season(NBA, ML, label).await.unwrap();

    assert!(!Arc::ptr_eq(&old, &new));
    assert_ne!(old.version.version, new.version.version);
    assert_eq!((old.total(), new.total()), (2, 1));
}

#[tokio::test]
async fn the_byte_budget_drops_the_least_recently_used_season_first() {
    let store = Arc::new(MemoryStore::new());
    for year in [2022, 2023, 2024] {
        two_games(&store, year, &format!("{year}-11-01"), &format!("{year}-11-02"));
    }
    // MemoryStore objects have size 0, so each season weighs the fixed 4096.
    let weight = history(&store, 0).season(NBA, ML, season(2022)).await.unwrap().weight();
    assert_eq!(weight, 4096);
    let history = history(&store, 2 * weight);

    let oldest = history.season(NBA, ML, season(2022)).await.unwrap();
    let middle = history.season(NBA, ML, season(2023)).await.unwrap();
    // 2022 is used again, so 2023 becomes the least recently used.
    let oldest_again = history.season(NBA, ML, season(2022)).await.unwrap();
    history.season(NBA, ML, season(2024)).await.unwrap();

    assert!(Arc::ptr_eq(&oldest, &oldest_again));
    assert!(
        Arc::ptr_eq(&oldest, &history.season(NBA, ML, season(2022)).await.unwrap()),
        "the recently used season stays"
    );
    assert!(
        !Arc::ptr_eq(&middle, &history.season(NBA, ML, season(2023)).await.unwrap()),
        "the least recently used season was dropped and is graded again"
    );
}

#[tokio::test]
async fn a_budget_smaller_than_one_season_still_keeps_the_season_just_graded() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, 1);

    let first = history.season(NBA, ML, season(2024)).await.unwrap();
    let second = history.season(NBA, ML, season(2024)).await.unwrap();

    assert!(Arc::ptr_eq(&first, &second));
}

#[tokio::test]
async fn rolling_is_reused_until_one_season_changes_and_then_follows_it() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2023, "2023-11-01", "2023-11-02");
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());

    let first = history.rolling(NBA, ML).await.unwrap();
    let again = history.rolling(NBA, ML).await.unwrap();
    assert!(
        Arc::ptr_eq(&first.value.value, &again.value.value),
        "unchanged seasons reuse the curves"
    );
    assert_eq!(first.deps, again.deps);
    assert_eq!(first.value.current, Some(season(2024)));
    assert_eq!(first.value.value.seasons.len(), 2);
    assert_eq!(
        history.cache_stats().entries,
        0,
        "a cross-season aggregate reads rows without grading or keeping the seasons"
    );

    let label = season(2023);
    store.put_season(
        NBA,
        ML,
        label,
        table(label, vec![game(label, "2023-11-01", "bos", "nyk", Some(true))]),
    );
    let changed = history.rolling(NBA, ML).await.unwrap();

    assert!(!Arc::ptr_eq(&first.value.value, &changed.value.value));
    assert_ne!(first.deps, changed.deps);
    let fresh = History::new(store.clone()).rolling(NBA, ML).await.unwrap();
    assert_eq!(
        *changed.value.value, *fresh.value.value,
        "the cached curves equal curves computed from scratch"
    );
    assert_eq!(changed.deps, fresh.deps);
}

#[tokio::test]
async fn density_follows_the_current_season_and_a_changed_season() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2023, "2023-11-01", "2023-11-02");
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());
    let now = noon("2024-11-05");

    let first = history.density(NBA, ML, now).await.unwrap();
    assert_eq!(first.value.current, Some(season(2024)));
    assert!(first.deps.as_str().ends_with("current=2024-25"), "{}", first.deps);

    two_games(&store, 2024, "2024-11-03", "2024-11-04");
    let changed = history.density(NBA, ML, now).await.unwrap();
    let fresh = History::new(store.clone()).density(NBA, ML, now).await.unwrap();

    assert_ne!(first.deps, changed.deps);
    assert_eq!(*changed.value.value, *fresh.value.value);
}

#[tokio::test]
async fn without_a_named_season_the_current_one_is_the_latest_with_a_played_game() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2023, "2023-11-01", "2023-11-02");
    let upcoming = season(2024);
    store.put_season(
        NBA,
        ML,
        upcoming,
        table(upcoming, vec![game(upcoming, "2024-10-25", "bos", "nyk", None)]),
    );
    let history = history(&store, crate::memory::Budget::default().seasons());
    let now = noon("2023-11-10");

    let list = history.season_list(NBA, ML, now).await.unwrap().value;
    assert_eq!(list.seasons, vec![season(2024), season(2023)]);
    assert_eq!(list.current_season, Some(season(2023)));
    assert!(list.live, "a decided game 8 days ago keeps the season live");

    assert_eq!(
        history.season_or_current(NBA, ML, None, now).await.unwrap(),
        season(2023)
    );
    assert_eq!(
        history
            .season_or_current(NBA, ML, Some(season(2024)), now)
            .await
            .unwrap(),
        season(2024),
        "a named season is served as named"
    );
    assert_eq!(history.latest_season(NBA, ML).await.unwrap(), Some(season(2024)));
}

#[tokio::test]
async fn a_season_is_no_longer_live_fifteen_days_after_its_last_decided_game() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2023, "2023-11-01", "2023-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());

    assert!(
        history
            .season_list(NBA, ML, noon("2023-11-16"))
            .await
            .unwrap()
            .value
            .live
    );
    let later = history.season_list(NBA, ML, noon("2023-11-17")).await.unwrap().value;
    assert!(!later.live);
    assert_eq!(
        later.current_season,
        Some(season(2023)),
        "the season just finished stays current"
    );
}

#[tokio::test]
async fn with_no_played_game_anywhere_there_is_no_current_season() {
    let store = Arc::new(MemoryStore::new());
    let label = season(2024);
    store.put_season(
        NBA,
        ML,
        label,
        table(label, vec![game(label, "2024-10-25", "bos", "nyk", None)]),
    );
    let history = history(&store, crate::memory::Budget::default().seasons());

    let err = history
        .season_or_current(NBA, ML, None, noon("2024-10-01"))
        .await
        .unwrap_err();

    assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn a_results_page_of_the_current_season_is_newest_first() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());
    let request = linecast_paging::Request::parse(false, Some("1"), None, None).unwrap();

    let read = history
        .results_page(NBA, ML, None, &request, noon("2024-11-03"))
        .await
        .unwrap();
    let page = &read.value;
    let positions = page.positions();

    assert_eq!(page.season, season(2024));
    assert_eq!(positions, vec![1], "the newest of two rows");
    let (row, graded) = page.data.served_rows().nth(positions[0]).unwrap();
    // A row without a live forecast is not checked against the archive.
    let check = crate::services::archive_check::RowCheck {
        check: crate::services::archive_check::ArchiveCheck::NotApplicable,
        release: None,
        carried: false,
        release_blend: None,
        release_no_vig: None,
    };
    let cells: Vec<(&str, Cell<'_>)> = page
        .data
        .served_columns()
        .iter()
        .map(|c| (c.name, c.cell(row, graded, &check)))
        .collect();
    let implied = match &cells[4] {
        ("IMPLIED", Cell::Number(p)) => *p,
        other => panic!("{other:?}"),
    };
    // -150 / +130, no vig: (150/250) / (150/250 + 100/230).
    assert!((implied - 0.579_832).abs() < 5e-7, "{implied}");
    assert_eq!(
        cells,
        vec![
            ("date", Cell::Date(date("2024-11-02"))),
            ("away_team", Cell::Text("nyk".into())),
            ("home_team", Cell::Text("bos".into())),
            ("won_on_points", Cell::Number(0.0)),
            ("IMPLIED", Cell::Number(implied)),
            ("push", Cell::Flag(false)),
            ("graded", Cell::Flag(true)),
            ("ungraded_reason", Cell::Null),
            ("game_id", Cell::Text("nba-20241102-nyk-bos".into())),
            ("archive_check", Cell::Text("not_applicable".into())),
            ("forecast_digest", Cell::Null),
        ]
    );
    assert!(read.deps.as_str().contains("order=newest"), "{}", read.deps);
    assert_eq!(page.plan.page.next_offset, Some(1));
}

#[tokio::test]
async fn team_form_counts_decided_games_and_reads_next_games_from_the_score_tape() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let label = season(2024);
    let tape_game = |day: &str, away: &str, home: &str, status| ScoreRow {
        key: key(day, away, home),
        season: label,
        season_type: SeasonType::Regular,
        away_score: None,
        home_score: None,
        status,
    };
    store.put_scores(
        NBA,
        vec![
            tape_game("2024-11-06", "nyk", "mia", GameStatus::Scheduled),
            tape_game("2024-11-08", "bos", "nyk", GameStatus::Scheduled),
            tape_game("2024-11-04", "bos", "mia", GameStatus::Scheduled),
            tape_game("2024-11-07", "bos", "mia", GameStatus::Postponed),
        ],
    );
    let history = history(&store, crate::memory::Budget::default().seasons());

    let Derived { value: inputs, deps } = history.team_form_inputs(NBA, ML, noon("2024-11-05")).await.unwrap();
    let report = inputs.assemble();

    assert_eq!(inputs.season, label);
    assert_eq!(inputs.today, date("2024-11-05"));
    assert!(
        deps.as_str().contains(&inputs.tape.as_ref().unwrap().version.version),
        "{deps}"
    );
    assert_eq!(
        report.season_end,
        Some(date("2024-11-08")),
        "the tape's last game of the season"
    );
    assert_eq!(
        report.teams,
        vec![
            TeamForm {
                team: "bos".to_owned(),
                games: 2,
                wins: 0,
                losses: 2,
                win_pct: 0.0,
                last_10: vec![0, 0],
                streak: "L2".to_owned(),
                next_game_date: Some(date("2024-11-08")),
            },
            TeamForm {
                team: "nyk".to_owned(),
                games: 2,
                wins: 2,
                losses: 0,
                win_pct: 1.0,
                last_10: vec![1, 1],
                streak: "W2".to_owned(),
                next_game_date: Some(date("2024-11-06")),
            },
        ]
    );
}

#[tokio::test]
async fn team_form_without_a_score_tape_ends_the_season_on_its_last_stored_game() {
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());

    let Derived { value: inputs, deps } = history.team_form_inputs(NBA, ML, noon("2024-11-05")).await.unwrap();
    let report = inputs.assemble();

    assert!(deps.as_str().contains("absent=scores/nba.csv"), "{deps}");
    assert_eq!(report.season_end, Some(date("2024-11-02")));
    assert_eq!(
        report.teams.iter().map(|t| t.next_game_date).collect::<Vec<_>>(),
        vec![None, None]
    );
}

#[tokio::test]
async fn an_export_of_all_history_holds_every_season_oldest_first_under_a_combined_snapshot() {
    use super::export::{ExportSeasons, season_snapshot};
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    two_games(&store, 2023, "2023-11-01", "2023-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());
    let now = noon("2024-11-05");

    let plan = history.export(NBA, ML, ExportSeasons::All, now).await.unwrap();
    let all = history.load_export(&plan.value).await.unwrap();
    let seasons: Vec<SeasonLabel> = all.seasons.iter().map(|d| d.season).collect();
    assert_eq!(seasons, vec![season(2023), season(2024)]);
    assert_eq!(all.label, "all");
    assert_eq!(all.total(), 4);
    let tokens: Vec<String> = all.seasons.iter().map(|d| season_snapshot(d)).collect();
    assert_eq!(
        all.snapshot,
        linecast_paging::combined_snapshot(tokens.iter().map(String::as_str))
    );

    let current_plan = history.export(NBA, ML, ExportSeasons::Current, now).await.unwrap();
    let current = history.load_export(&current_plan.value).await.unwrap();
    assert_eq!(current.label, "2024-25");
    // The snapshot /results gives for the season: its version and row count.
    let data = &current.seasons[0];
    assert_eq!(
        current.snapshot,
        linecast_paging::snapshot_token(&data.version.version, 2)
    );
    assert_ne!(current_plan.deps, plan.deps);

    // A republished older season changes the whole-history export only.
    two_games(&store, 2023, "2023-11-03", "2023-11-04");
    let again_plan = history.export(NBA, ML, ExportSeasons::All, now).await.unwrap();
    let again = history.load_export(&again_plan.value).await.unwrap();
    assert_ne!(again.snapshot, all.snapshot);
    assert_ne!(again_plan.deps, plan.deps);
    let current_again = history.export(NBA, ML, ExportSeasons::Current, now).await.unwrap();
    assert_eq!(current_again.deps, current_plan.deps);
}

#[tokio::test]
async fn an_export_is_planned_from_versions_and_a_whole_history_leaves_the_graded_cache_as_it_was() {
    use super::export::ExportSeasons;
    let store = Arc::new(MemoryStore::new());
    two_games(&store, 2024, "2024-11-01", "2024-11-02");
    two_games(&store, 2023, "2023-11-01", "2023-11-02");
    two_games(&store, 2022, "2022-11-01", "2022-11-02");
    let history = history(&store, crate::memory::Budget::default().seasons());
    let now = noon("2024-11-05");

    // Planning grades nothing.
    let plan = history.export(NBA, ML, ExportSeasons::All, now).await.unwrap();
    assert_eq!(history.cache_stats().entries, 0);
    assert_eq!(plan.value.versions.len(), 3);
    assert!(plan.deps.as_str().contains("seasons=all"), "{}", plan.deps);

    // One season in the cache (as /results leaves it); loading every
    // season uses that copy and keeps none of the others.
    let cached = history.season(NBA, ML, season(2023)).await.unwrap();
    let all = history.load_export(&plan.value).await.unwrap();
    assert_eq!(all.seasons.len(), 3);
    assert!(Arc::ptr_eq(&all.seasons[1], &cached));
    assert_eq!(history.cache_stats().entries, 1);

    // A single season's export reads through the cache like /results.
    let named = history
        .export(NBA, ML, ExportSeasons::Named(season(2022)), now)
        .await
        .unwrap();
    assert_eq!(history.cache_stats().entries, 1, "planning reads no season");
    history.load_export(&named.value).await.unwrap();
    assert_eq!(history.cache_stats().entries, 2);
}

#[tokio::test]
async fn an_export_of_a_season_or_a_history_without_a_store_is_not_found() {
    use super::export::ExportSeasons;
    let store = Arc::new(MemoryStore::new());
    let history = history(&store, crate::memory::Budget::default().seasons());
    let now = noon("2024-11-05");
    for asked in [ExportSeasons::All, ExportSeasons::Named(season(2020))] {
        let err = match history.export(NBA, ML, asked, now).await {
            Ok(plan) => history.load_export(&plan.value).await.unwrap_err(),
            Err(err) => err,
        };
        assert!(matches!(err, StoreError::NotFound { .. }), "{asked:?}: {err:?}");
    }
}
