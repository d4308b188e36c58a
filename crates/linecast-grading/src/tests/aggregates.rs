//! Tracking, team form, rolling curves and density grids.

use linecast_domain::{ModelColumn, ModelType, SeasonLabel, SeasonType, Sport};

use super::fixtures::{RowExt, date, game};
use crate::density::bin_of;
use crate::tracking::{MIN_WEEKLY_SAMPLE, PROVENANCE_NONE};
use crate::{ForecastSource, Model, density, rolling, team_form, track};

const BLEND: Model = Model::Column(ModelColumn::Blend);
const ML: ModelType = ModelType::WonOnPoints;

fn decided(day: &str, away: &str, home: &str, home_wins: bool, p: f64) -> linecast_domain::SeasonRow {
    let (a, h) = if home_wins { (1.0, 2.0) } else { (2.0, 1.0) };
    game(day, away, home)
        .score(a, h)
        .ml(-150.0, 130.0)
        .prob(ModelColumn::Blend, p)
}

#[test]
fn tracking_counts_provenance_pushes_and_archive_games_over_in_scope_rows() {
    let rows = vec![
        decided("2026-11-01", "a", "b", true, 0.6).source("live"),
        decided("2026-11-02", "a", "b", false, 0.6).source("walk_forward"),
        game("2026-11-03", "a", "b")
            .score(2.0, 2.0)
            .ml(-150.0, 130.0)
            .prob(ModelColumn::Blend, 0.6)
            .source("live"),
        game("2026-11-04", "a", "b"),
        decided("2026-10-01", "a", "b", true, 0.6)
            .source("live")
            .kind(SeasonType::Preseason),
    ];
    let t = track(&rows, Sport::Nba, ML);
    assert_eq!(t.source, Some(ForecastSource::Mixed));
    assert_eq!(t.archive_games, 4, "the preseason row is outside the season");
    assert_eq!(t.total_games, 2);
    assert_eq!(t.ungraded_pushes, 1);
    assert_eq!(t.provenance.get("live"), Some(&2));
    assert_eq!(t.provenance.get("walk_forward"), Some(&1));
    assert_eq!(t.provenance.get(PROVENANCE_NONE), Some(&1));
    assert_eq!(
        (t.first_game_date, t.last_game_date),
        (Some(date("2026-11-01")), Some(date("2026-11-04")))
    );
    assert_eq!(t.min_weekly_sample, MIN_WEEKLY_SAMPLE);
    let season = t.snapshot.season.get(BLEND).unwrap();
    assert_eq!((season.win_pct, season.n), (Some(50.0), 2));
    assert_eq!(t.recent_games[0].key.date, date("2026-11-02"), "newest first");
    assert_eq!(t.recent_games[0].hits.get(BLEND), Some(&Some(0)));
}

#[test]
fn a_season_of_walk_forward_rows_has_source_walk_forward() {
    let rows = vec![decided("2026-11-01", "a", "b", true, 0.6).source("reconstructed_oos")];
    assert_eq!(track(&rows, Sport::Nba, ML).source, Some(ForecastSource::WalkForward));
    let live = vec![decided("2026-11-01", "a", "b", true, 0.6).source("live")];
    assert_eq!(track(&live, Sport::Nba, ML).source, Some(ForecastSource::Live));
}

#[test]
fn weekly_points_step_back_seven_days_and_hide_rates_below_the_minimum_sample() {
    let mut rows = Vec::new();
    for d in 1..=21 {
        rows.push(decided(&format!("2026-11-{d:02}"), "a", "b", d % 2 == 0, 0.6));
    }
    let t = track(&rows, Sport::Nba, ML);
    let ends: Vec<_> = t.weekly.iter().map(|w| w.week_ending).collect();
    assert_eq!(ends, [date("2026-11-07"), date("2026-11-14"), date("2026-11-21")]);
    let first = t.weekly[0].models.get(BLEND).unwrap();
    assert_eq!((first.win_pct, first.n), (None, 7));
    let last = t.weekly[2].models.get(BLEND).unwrap();
    assert_eq!((last.win_pct, last.n), (Some(47.6), 21));
}

#[test]
fn team_form_counts_moneyline_wins_from_each_side_and_a_push_is_no_result() {
    let rows = vec![
        decided("2026-11-01", "x", "y", true, 0.6),
        decided("2026-11-02", "y", "x", true, 0.6),
        decided("2026-11-03", "z", "y", false, 0.6),
        game("2026-11-04", "x", "y").score(3.0, 3.0).ml(-150.0, 130.0),
        game("2026-11-05", "x", "y").ml(-150.0, 130.0),
    ];
    let next = |team: &str| (team == "y").then(|| date("2026-11-05"));
    let form = team_form(&rows, Sport::Nba, ML, next);
    let names: Vec<_> = form.iter().map(|t| t.team.as_str()).collect();
    assert_eq!(names, ["x", "y", "z"]);
    let y = &form[1];
    assert_eq!((y.games, y.wins, y.losses), (3, 1, 2));
    assert_eq!(y.last_10, [1, 0, 0], "oldest first, newest last");
    assert_eq!(y.streak, "L2");
    assert!((y.win_pct - 0.333).abs() < 1e-12);
    assert_eq!(y.next_game_date, Some(date("2026-11-05")));
    assert_eq!(form[0].streak, "W1");
    assert_eq!(form[0].next_game_date, None);
}

#[test]
fn team_form_on_totals_gives_both_teams_the_over_and_last_10_keeps_ten() {
    let mut rows = Vec::new();
    for d in 1..=12 {
        let total = if d <= 9 { 10.0 } else { 1.0 };
        rows.push(
            game(&format!("2026-11-{d:02}"), "a", "b")
                .score(2.0, 3.0)
                .total(total, -110.0, -110.0),
        );
    }
    let form = team_form(&rows, Sport::Nba, ModelType::OverUnder, |_| None);
    for t in &form {
        assert_eq!((t.games, t.wins), (12, 3));
        assert_eq!(t.last_10, [0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
        assert_eq!(t.streak, "W3");
    }
}

#[test]
fn rolling_points_use_the_trailing_28_days_and_the_historical_average_pools_seasons() {
    let s1 = [
        decided("2026-11-01", "a", "b", true, 0.6),
        decided("2026-11-28", "a", "b", false, 0.6),
    ];
    let s1b = vec![decided("2026-11-29", "a", "b", false, 0.6)];
    let all: Vec<_> = s1.iter().chain(&s1b).cloned().collect();
    let label = SeasonLabel::starting(Sport::Nba, 2026);
    let prev = SeasonLabel::starting(Sport::Nba, 2025);
    let r = rolling(&[(prev, &s1b), (label, &all)], Sport::Nba, ML);
    let curve = r.seasons[1].models.get(BLEND).unwrap();
    let points: Vec<_> = curve.iter().map(|p| (p.date, p.win_pct, p.n)).collect();
    assert_eq!(
        points,
        [
            (date("2026-11-01"), 100.0, 1),
            (date("2026-11-28"), 50.0, 2),
            (date("2026-11-29"), 0.0, 2), // 11-01 left the window
        ]
    );
    assert_eq!(r.historical_average.get(BLEND), Some(&25.0), "1 win in 4 picks");
}

#[test]
fn density_bins_are_005_wide_with_inclusive_lower_edges() {
    assert_eq!(bin_of(0.0), 0);
    assert_eq!(bin_of(0.049_999), 0);
    assert_eq!(bin_of(0.05), 1);
    assert_eq!(bin_of(0.15), 3);
    assert_eq!(bin_of(0.5), 10);
    assert_eq!(bin_of(1.0), 19);
}

#[test]
fn density_covers_the_current_and_previous_ten_seasons_and_counts_blend_hits() {
    let cur = SeasonLabel::starting(Sport::Nba, 2026);
    let rows = vec![
        decided("2026-11-01", "a", "b", true, 0.62),
        decided("2026-11-02", "a", "b", false, 0.64),
        decided("2026-11-03", "a", "b", false, 0.30),
    ];
    let old = SeasonLabel::starting(Sport::Nba, 2015);
    let kept = SeasonLabel::starting(Sport::Nba, 2016);
    let d = density(cur, &[(cur, &rows), (old, &rows), (kept, &rows[..1])], Sport::Nba, ML);
    assert_eq!(d.y_labels, [kept, cur]);
    assert_eq!(d.x_labels.len(), 20);
    assert_eq!(d.x_labels[12], "0.60-0.65");
    let cell = d.cells[1][12];
    assert_eq!((cell.n, cell.hit_rate), (2, Some(0.5)));
    assert_eq!(d.cells[1][6].hit_rate, Some(1.0));
    assert_eq!(d.cells[1][0].hit_rate, None);
    assert_eq!(d.cells[0][12].n, 1);
}

/// Two dates of BLEND picks, summed over a window that holds both: every
/// count of the window is the sum of its dates (a home pick that wins, an
/// away pick that wins, a home pick that loses), and a window of one date
/// holds only that date. Models without a graded pick are not listed.
#[test]
fn a_window_sums_every_count_of_its_dates_and_lists_only_models_with_picks() {
    use crate::daily::{DailyTallies, per_model};
    use crate::grade::grade_rows;
    use crate::window::Window;

    let rows = vec![
        decided("2026-11-01", "a", "b", true, 0.6),
        decided("2026-11-02", "c", "d", false, 0.4),
        decided("2026-11-02", "e", "f", false, 0.6),
    ];
    let graded = grade_rows(&rows, Sport::Nba, ML);
    let daily = DailyTallies::new(&rows, &graded);
    assert_eq!(daily.dates(), [date("2026-11-01"), date("2026-11-02")]);
    let both = Window {
        start: date("2026-11-01"),
        end: date("2026-11-02"),
    };
    let blend = daily.sum(both)[BLEND.index()];
    assert_eq!(
        (
            blend.wins,
            blend.losses,
            blend.pos_wins,
            blend.pos_n,
            blend.neg_wins,
            blend.neg_n
        ),
        (2, 1, 1, 2, 1, 1)
    );
    let second = Window {
        start: date("2026-11-02"),
        end: date("2026-11-02"),
    };
    let blend = daily.sum(second)[BLEND.index()];
    assert_eq!(
        (
            blend.wins,
            blend.losses,
            blend.pos_wins,
            blend.pos_n,
            blend.neg_wins,
            blend.neg_n
        ),
        (1, 1, 0, 1, 1, 1)
    );
    // Only BLEND has probabilities, and IMPLIED comes from the prices (the
    // home favourite at -150 every time); the other models have no pick.
    let listed: Vec<Model> = per_model(&daily.sum(both), 0).0.into_iter().map(|(m, _)| m).collect();
    assert_eq!(listed, [Model::Column(ModelColumn::Implied), BLEND]);
}

#[test]
fn recent_games_name_only_models_with_a_graded_pick_in_the_season() {
    // payloads.md: `models` are the models with a graded pick, and each
    // recent game's `hits` is keyed by MODEL. XGB has a probability only on
    // a game without a final, so it has no graded pick and no key.
    let rows = vec![
        decided("2026-11-01", "a", "b", true, 0.6),
        game("2026-11-02", "a", "b")
            .ml(-150.0, 130.0)
            .prob(ModelColumn::Xgb, 0.7),
    ];
    let t = track(&rows, Sport::Nba, ML);
    let xgb = Model::Column(ModelColumn::Xgb);
    assert!(!t.models.contains(&xgb));
    assert_eq!(t.recent_games.len(), 1);
    assert_eq!(t.recent_games[0].hits.get(BLEND), Some(&Some(1)));
    assert_eq!(
        t.recent_games[0].hits.get(xgb),
        None,
        "no key for a model without a graded pick"
    );
}
