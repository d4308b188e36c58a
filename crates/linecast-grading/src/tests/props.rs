//! Properties of the grading rules over random seasons.

use chrono::{Days, NaiveDate};
use linecast_domain::{ModelColumn, ModelType, SeasonRow, SeasonType, Sport};
use proptest::prelude::*;

use super::fixtures::game;
use crate::window::Window;
use crate::{Model, Pick, grade_row, grade_rows, summarize};

/// A probability on a 1/40 grid, so 0.5 (abstain) comes up often and
/// `1 - p` is exact.
fn prob() -> impl Strategy<Value = Option<f64>> {
    prop::option::weighted(0.85, (0u32..=40).prop_map(|k| f64::from(k) / 40.0))
}

fn price() -> impl Strategy<Value = Option<f64>> {
    prop::option::weighted(
        0.85,
        prop_oneof![(100i32..400).prop_map(f64::from), (-400i32..=-100).prop_map(f64::from)],
    )
}

prop_compose! {
    /// A random row: small scores so pushes are common, any subset of
    /// lines, prices and probabilities, any game type.
    pub(super) fn row()(
        day in 0u64..60,
        scores in prop::option::weighted(0.8, (0u8..6, 0u8..6)),
        spread in prop::option::of(prop::sample::select(vec![-1.5, -1.0, 0.0, 1.0, 2.5])),
        total in prop::option::of(prop::sample::select(vec![4.0, 5.0, 5.5, 6.0])),
        prices in prop::collection::vec(price(), 6),
        probs in prop::collection::vec(prob(), 8),
        kind in prop::sample::select(vec![SeasonType::Regular, SeasonType::Postseason, SeasonType::Preseason]),
    ) -> SeasonRow {
        let d = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap() + Days::new(day);
        let mut r = game(&d.format("%Y-%m-%d").to_string(), "a", "b");
        r.season_type = kind;
        if let Some((a, h)) = scores {
            r.away_score = Some(f64::from(a));
            r.home_score = Some(f64::from(h));
        }
        r.lines.home_point_spread = spread;
        r.lines.over_under = total;
        r.lines.home_money_line = prices[0];
        r.lines.away_money_line = prices[1];
        r.lines.home_point_spread_line = prices[2];
        r.lines.away_point_spread_line = prices[3];
        r.lines.over_line = prices[4];
        r.lines.under_line = prices[5];
        let cols = [ModelColumn::Ai, ModelColumn::Blend, ModelColumn::Catb, ModelColumn::Rf,
            ModelColumn::Lgb, ModelColumn::Logr, ModelColumn::Xgb, ModelColumn::Xt];
        for (c, p) in cols.into_iter().zip(probs) {
            r.models.set(c, p);
        }
        r
    }
}

pub(super) fn context() -> impl Strategy<Value = (Sport, ModelType)> {
    (
        prop::sample::select(Sport::ALL.to_vec()),
        prop::sample::select(ModelType::ALL.to_vec()),
    )
}

pub(super) fn season() -> impl Strategy<Value = Vec<SeasonRow>> {
    prop::collection::vec(row(), 0..60)
}

/// The mirror of a row: every model says `1 - p` and the two prices of each
/// market swap sides, so IMPLIED mirrors too.
fn mirror(mut r: SeasonRow) -> SeasonRow {
    for c in ModelColumn::ALL {
        let p = r.models.get(*c).map(|p| 1.0 - p);
        r.models.set(*c, p);
    }
    let l = &mut r.lines;
    std::mem::swap(&mut l.home_money_line, &mut l.away_money_line);
    std::mem::swap(&mut l.home_point_spread_line, &mut l.away_point_spread_line);
    std::mem::swap(&mut l.over_line, &mut l.under_line);
    r
}

proptest! {
    /// A push never counts as a win, a loss or an abstention for any model,
    /// and never makes a row graded.
    #[test]
    fn a_push_never_counts_for_any_model(rows in season(), (sport, mt) in context()) {
        for r in &rows {
            let g = grade_row(r, sport, mt);
            if g.push == Some(true) {
                prop_assert!(!g.graded);
                for m in Model::ALL {
                    prop_assert_eq!(g.hit(m), None);
                }
            }
        }
        let without: Vec<_> = rows.iter().filter(|r| grade_row(r, sport, mt).push != Some(true)).cloned().collect();
        let (a, b) = (summarize(&rows, sport, mt), summarize(&without, sport, mt));
        let counts = |s: &crate::Summary| s.entries.iter().map(|e| (e.model, e.season, e.abstained)).collect::<Vec<_>>();
        prop_assert_eq!(counts(&a), counts(&b));
    }

    /// For every model: wins + losses + abstentions + rows the model did not
    /// grade equals the rows considered (in-scope rows).
    #[test]
    fn every_considered_row_is_a_win_loss_abstention_or_ungraded(rows in season(), (sport, mt) in context()) {
        let graded = grade_rows(&rows, sport, mt);
        let considered = graded.iter().filter(|g| g.in_scope).count();
        let s = summarize(&rows, sport, mt);
        for e in &s.entries {
            let ungraded = graded.iter().filter(|g| g.in_scope && (!g.graded || g.pick(e.model).is_none())).count();
            prop_assert_eq!(e.season.wins + e.season.losses + e.abstained + ungraded, considered, "{}", e.model);
        }
    }

    /// A model and its mirror (1 - p, prices swapped) have swapped wins and
    /// losses, overall and by side.
    #[test]
    fn a_model_and_its_mirror_have_swapped_wins_and_losses(rows in season(), (sport, mt) in context()) {
        let mirrored: Vec<_> = rows.iter().cloned().map(mirror).collect();
        let (a, b) = (summarize(&rows, sport, mt), summarize(&mirrored, sport, mt));
        prop_assert_eq!(a.entries.len(), b.entries.len());
        for (x, y) in a.entries.iter().zip(&b.entries) {
            prop_assert_eq!(x.model, y.model);
            prop_assert_eq!((x.season.wins, x.season.losses), (y.season.losses, y.season.wins));
            prop_assert_eq!(x.season.pos_n, y.season.neg_n);
            prop_assert_eq!(x.abstained, y.abstained);
        }
    }

    /// IMPLIED never picks when either price of the market is missing.
    #[test]
    fn implied_never_picks_with_a_one_sided_price(r in row(), (sport, mt) in context(), drop_home in any::<bool>()) {
        let mut r = r;
        let l = &mut r.lines;
        let slot = match (mt, drop_home) {
            (ModelType::WonOnPoints, true) => &mut l.home_money_line,
            (ModelType::WonOnPoints, false) => &mut l.away_money_line,
            (ModelType::WonOnSpread, true) => &mut l.home_point_spread_line,
            (ModelType::WonOnSpread, false) => &mut l.away_point_spread_line,
            (ModelType::OverUnder, true) => &mut l.over_line,
            (ModelType::OverUnder, false) => &mut l.under_line,
        };
        *slot = None;
        let g = grade_row(&r, sport, mt);
        prop_assert_eq!(g.implied, None);
        prop_assert_eq!(g.pick(Model::Column(ModelColumn::Implied)), None);
    }

    /// The 1W window lies inside the 4W window, so per model 1W counts never
    /// exceed 4W counts, which never exceed the season.
    #[test]
    fn the_one_week_window_is_inside_the_four_week_window(rows in season(), (sport, mt) in context(), day in 0i64..100_000) {
        let end = NaiveDate::from_ymd_opt(1900, 1, 1).unwrap() + chrono::Duration::days(day);
        let (w1, w4) = (Window::one_week(end), Window::four_weeks(end));
        prop_assert!(w4.start <= w1.start && w1.end == w4.end);
        for e in summarize(&rows, sport, mt).entries {
            prop_assert!(e.one_week.n() <= e.four_weeks.n() && e.four_weeks.n() <= e.season.n());
            prop_assert!(e.one_week.pos_n <= e.four_weeks.pos_n && e.one_week.neg_n <= e.four_weeks.neg_n);
        }
    }

    /// Regrading the rows one by one reproduces the summary: per model the
    /// sum of per-row hits is the summary's wins and the misses its losses.
    #[test]
    fn regrading_rows_reproduces_summary_counts(rows in season(), (sport, mt) in context()) {
        let s = summarize(&rows, sport, mt);
        for m in Model::ALL {
            let hits: Vec<bool> = rows.iter().filter_map(|r| grade_row(r, sport, mt).hit(m)).collect();
            let wins = hits.iter().filter(|h| **h).count();
            let entry = s.entries.iter().find(|e| e.model == m);
            prop_assert_eq!(entry.map_or(0, |e| e.season.wins), wins);
            prop_assert_eq!(entry.map_or(0, |e| e.season.losses), hits.len() - wins);
            let abstained = rows.iter().map(|r| grade_row(r, sport, mt))
                .filter(|g| g.graded && g.pick(m) == Some(Pick::Abstain)).count();
            if let Some(e) = entry {
                prop_assert_eq!(e.abstained, abstained);
            }
        }
    }

    /// A row is graded exactly when it has no ungraded reason, except an
    /// out-of-scope row, which has neither.
    #[test]
    fn graded_and_ungraded_reason_are_exclusive(r in row(), (sport, mt) in context()) {
        let g = grade_row(&r, sport, mt);
        if g.in_scope {
            prop_assert_ne!(g.graded, g.ungraded_reason.is_some());
        } else {
            prop_assert!(!g.graded && g.ungraded_reason.is_none());
        }
    }
}
