//! The scorecard's record: wins, losses and abstentions of each model over
//! the rows kept, and the win rate's Wilson interval, worked by hand.

use linecast_domain::{ModelColumn, ModelType, Sport};

use super::fixtures::{RowExt, game};
use crate::grade_rows;
use crate::interval::Interval;
use crate::scorecard::{Record, WIN_RATE_METHOD, records};

const ML: ModelType = ModelType::WonOnPoints;

fn of(list: &[(ModelColumn, Record)], model: ModelColumn) -> Record {
    list.iter().find(|(m, _)| *m == model).map(|(_, r)| *r).unwrap()
}

#[test]
fn a_record_counts_each_kept_graded_pick_once_and_abstentions_apart() {
    // Home wins every game (away 100, home 110), home −150 / away +130.
    let won = |day: &str, p: f64| {
        game(day, "a", "b")
            .score(100.0, 110.0)
            .ml(-150.0, 130.0)
            .prob(ModelColumn::Blend, p)
    };
    let rows = [
        won("2026-11-01", 0.7), // home pick: a win
        won("2026-11-02", 0.3), // away pick: a loss
        // No side: abstained (AI picks, so the row is graded).
        won("2026-11-03", 0.5).prob(ModelColumn::Ai, 0.7),
        won("2026-11-04", 0.8), // a win, but not kept below
        won("2026-11-05", 0.6), // a win
        // Not decided: no score, so not graded, never counted.
        game("2026-11-06", "a", "b")
            .ml(-150.0, 130.0)
            .prob(ModelColumn::Blend, 0.9),
    ];
    let graded = grade_rows(&rows, Sport::Nba, ML);
    let list = records(&graded, |i| i != 3);
    let blend = of(&list, ModelColumn::Blend);
    assert_eq!(
        blend,
        Record {
            wins: 2,
            losses: 1,
            abstained: 1
        }
    );
    assert_eq!(blend.n(), 3);
    // 2 of 3 = 0.666667 → 0.6667.
    assert_eq!(blend.win_rate(), Some(0.6667));
    // Wilson(2 of 3), z = 1.959964: centre (2/3 + z²/6) / (1 + z²/3) =
    // 1.306918 / 2.280486 = 0.573088; half-width z / 2.280486 ×
    // √((2/9)/3 + z²/36) = 0.859450 × 0.425094 = 0.365428 → [0.207660, 0.938508].
    assert_eq!(
        blend.win_rate_ci(),
        Some(Interval {
            n: 3,
            low: 0.207_66,
            high: 0.938_508
        })
    );
    // Every row kept: the fourth game's win counts too.
    assert_eq!(of(&records(&graded, |_| true), ModelColumn::Blend).wins, 3);
    // IMPLIED is the market's favourite, home at −150, on all five graded games.
    assert_eq!(
        of(&records(&graded, |_| true), ModelColumn::Implied),
        Record {
            wins: 5,
            losses: 0,
            abstained: 0
        }
    );
    // A model with no probability anywhere has no picks and no rate.
    let catb = of(&list, ModelColumn::Catb);
    assert_eq!(catb, Record::default());
    assert_eq!((catb.win_rate(), catb.win_rate_ci()), (None, None));
    assert_eq!(of(&list, ModelColumn::Ai).wins, 1);
}

#[test]
fn the_wilson_interval_reaches_the_bounds_only_at_all_or_none() {
    let all = Record {
        wins: 3,
        losses: 0,
        abstained: 0,
    };
    // 3 of 3: the upper bound is 1; the lower (3 + z²/2 − z√(z²/4)) / (3 + z²)
    // = 3 / 6.841459 = 0.438503.
    assert_eq!(
        all.win_rate_ci(),
        Some(Interval {
            n: 3,
            low: 0.438_503,
            high: 1.0
        })
    );
    assert_eq!(all.win_rate(), Some(1.0));
    let none = Record {
        wins: 0,
        losses: 3,
        abstained: 2,
    };
    assert_eq!(
        none.win_rate_ci(),
        Some(Interval {
            n: 3,
            low: 0.0,
            high: 0.561_497
        })
    );
    assert_eq!(none.win_rate(), Some(0.0));
    assert_eq!(WIN_RATE_METHOD, "wilson_score");
}
