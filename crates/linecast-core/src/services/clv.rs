//! CLV's points in a game's timeline of kept predictions releases: its
//! **opening** (the first release that carried it), its **standing
//! forecast** and its **close** (both the last release published before
//! its scheduled start, as each release states the start). A release at or
//! after the start is never a CLV point.
//!
//! Owns which release gives a game's pick, first price and closing price
//! ([`ClvScan`]); the statistics over them are
//! `linecast_grading::calibration`'s. Knows nothing of storage: the caller
//! feeds it the releases, oldest first.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use linecast_domain::artifacts::PredictionRow;
use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::time::et_instant;
use linecast_domain::{GameId, ModelProbs, ModelType};
use linecast_grading::calibration::{ClvFrom, PriceMove, PriceMoves};

/// A game's row at one release: the no-vig probability of the positive
/// side (`None` without both prices) and the model columns.
#[derive(Debug, Clone, Copy)]
struct Point {
    no_vig: Option<f64>,
    models: ModelProbs,
}

impl Point {
    fn of(row: &PredictionRow, model_type: ModelType) -> Self {
        let (pos, neg) = row.lines.side_prices(model_type);
        Self {
            no_vig: no_vig_from_raw(pos, neg),
            models: row.models,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Seen {
    /// The game at its opening release.
    opening: Point,
    /// The game at the last release published before its start so far.
    before_start: Option<Point>,
}

/// The games of a run of kept predictions releases of one market, read
/// oldest release first ([`ClvScan::see`]), then their price moves
/// ([`ClvScan::moves`]).
#[derive(Debug, Clone)]
pub struct ClvScan {
    model_type: ModelType,
    games: HashMap<GameId, Seen>,
}

impl ClvScan {
    pub fn new(model_type: ModelType) -> Self {
        Self {
            model_type,
            games: HashMap::new(),
        }
    }

    /// Reads `row` as it stood in the release published at `published_at`.
    /// Releases must be seen oldest first.
    pub fn see(&mut self, published_at: DateTime<Utc>, row: &PredictionRow) {
        let point = Point::of(row, self.model_type);
        let before_start = et_instant(row.key.date, row.key.time_est).is_some_and(|start| published_at < start);
        let seen = self.games.entry(row.game_id.clone()).or_insert(Seen {
            opening: point,
            before_start: None,
        });
        if before_start {
            seen.before_start = Some(point);
        }
    }

    /// Each game with a close and a priced pick release: the pick and first
    /// price at its opening (`from` opening) or at its standing forecast
    /// (`from` forecast, the close's own release), the closing price at its
    /// close. A game whose pick release or close lacks a price, or that no
    /// release carried before its start, has none.
    pub fn moves(&self, from: ClvFrom) -> PriceMoves {
        self.games
            .iter()
            .filter_map(|(id, seen)| {
                let close = seen.before_start?;
                let pick = match from {
                    ClvFrom::Opening => seen.opening,
                    ClvFrom::Forecast => close,
                };
                Some((
                    id.clone(),
                    PriceMove {
                        opening: pick.no_vig?,
                        closing: close.no_vig?,
                        models: pick.models,
                        sharp_closing: None,
                        consensus_closing: None,
                    },
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{NaiveDate, NaiveTime};
    use linecast_domain::{GameKey, Lines, ModelColumn};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    /// A game on 2026-11-14 at 19:30 ET (00:30 UTC on the 15th).
    fn row(home: f64, away: f64, blend: f64) -> PredictionRow {
        let lines = Lines {
            home_money_line: Some(home),
            away_money_line: Some(away),
            ..Lines::default()
        };
        let mut models = ModelProbs::default();
        models.set(ModelColumn::Blend, Some(blend));
        PredictionRow {
            key: GameKey::new(
                NaiveDate::from_ymd_opt(2026, 11, 14).unwrap(),
                NaiveTime::from_hms_opt(19, 30, 0).unwrap(),
                "a",
                "h",
            ),
            game_id: "nba-20261114-a-h".into(),
            lines,
            models,
            extras: Vec::new(),
        }
    }

    #[test]
    fn the_pick_is_at_the_opening_the_close_is_the_last_release_before_the_start_and_a_later_one_is_ignored() {
        let mut scan = ClvScan::new(ModelType::WonOnPoints);
        // Opening: −120 / +100 → home 120/220 = 0.545455, away 0.5; no-vig home 0.521739.
        scan.see(at("2026-11-14T14:30:00Z"), &row(-120.0, 100.0, 0.40));
        // Close: −150 / +130 → home 0.6, away 0.434783; no-vig home 0.579832.
        scan.see(at("2026-11-14T23:30:00Z"), &row(-150.0, 130.0, 0.70));
        // At and after the start: never a CLV point.
        scan.see(at("2026-11-15T00:30:00Z"), &row(-300.0, 250.0, 0.90));
        scan.see(at("2026-11-15T02:00:00Z"), &row(-400.0, 300.0, 0.95));
        let opening = scan.moves(ClvFrom::Opening);
        let m = opening.get(&GameId::from("nba-20261114-a-h")).unwrap();
        assert!((m.opening - 0.521_739).abs() < 1e-6, "{m:?}");
        assert!((m.closing - 0.579_832).abs() < 1e-6, "{m:?}");
        assert_eq!(m.models.get(ModelColumn::Blend), Some(0.40));
        let forecast = scan.moves(ClvFrom::Forecast);
        let f = forecast.get(&GameId::from("nba-20261114-a-h")).unwrap();
        assert!((f.opening - 0.579_832).abs() < 1e-6, "{f:?}");
        assert!((f.closing - 0.579_832).abs() < 1e-6, "{f:?}");
        assert_eq!(f.models.get(ModelColumn::Blend), Some(0.70));
    }

    #[test]
    fn a_game_first_carried_after_its_start_has_no_move() {
        let mut scan = ClvScan::new(ModelType::WonOnPoints);
        scan.see(at("2026-11-15T01:00:00Z"), &row(-120.0, 100.0, 0.60));
        assert!(scan.moves(ClvFrom::Opening).is_empty());
        assert!(scan.moves(ClvFrom::Forecast).is_empty());
    }
}
