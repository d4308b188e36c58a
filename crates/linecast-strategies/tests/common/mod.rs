//! A small row builder for the worked examples and the properties.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use chrono::{Days, NaiveDate, NaiveTime};
use linecast_domain::{GameKey, Lines, ModelColumn, ModelProbs, Provenance, SeasonLabel, SeasonRow, SeasonType, Sport};

/// A builder for one game: regular season, settled, no lines, no BLEND.
pub struct G(pub SeasonRow);

impl G {
    /// Game number `i` (one per day, so replays order them by `i`).
    pub fn new(i: u64, away_score: Option<f64>, home_score: Option<f64>) -> Self {
        let date = NaiveDate::from_ymd_opt(2025, 11, 1)
            .unwrap()
            .checked_add_days(Days::new(i))
            .unwrap();
        G(SeasonRow {
            key: GameKey::new(
                date,
                NaiveTime::from_hms_opt(19, 30, 0).unwrap(),
                format!("away_{i}"),
                format!("home_{i}"),
            ),
            game_id: format!("nba-{}-away_{i}-home_{i}", date.format("%Y%m%d")).into(),
            season: SeasonLabel::parse(Sport::Nba, "2025-26").unwrap(),
            season_type: SeasonType::Regular,
            away_score,
            home_score,
            stored_outcome: None,
            lines: Lines::default(),
            models: ModelProbs::default(),
            quote_source: Some("closing".into()),
            settlement_status: Some("settled".into()),
            provenance: Provenance::default(),
            extras: Vec::new(),
        })
    }

    pub fn final_score(i: u64, away: f64, home: f64) -> Self {
        Self::new(i, Some(away), Some(home))
    }

    pub fn ml(mut self, home: Option<f64>, away: Option<f64>, open_home: Option<f64>) -> Self {
        let l = &mut self.0.lines;
        (l.home_money_line, l.away_money_line, l.open_home_money_line) = (home, away, open_home);
        self
    }

    /// Home spread opener and close, and both spread prices.
    pub fn spread(
        mut self,
        open_home: Option<f64>,
        home: Option<f64>,
        home_line: Option<f64>,
        away_line: Option<f64>,
    ) -> Self {
        let l = &mut self.0.lines;
        l.open_home_point_spread = open_home;
        l.home_point_spread = home;
        l.away_point_spread = home.map(|h| -h);
        (l.home_point_spread_line, l.away_point_spread_line) = (home_line, away_line);
        self
    }

    pub fn total(mut self, open: Option<f64>, close: Option<f64>, over: Option<f64>, under: Option<f64>) -> Self {
        let l = &mut self.0.lines;
        (l.open_over_under, l.over_under, l.over_line, l.under_line) = (open, close, over, under);
        self
    }

    pub fn blend(mut self, p: Option<f64>) -> Self {
        self.0.models.set(ModelColumn::Blend, p);
        self
    }

    pub fn status(mut self, s: Option<&str>) -> Self {
        self.0.settlement_status = s.map(Into::into);
        self
    }

    pub fn stored(mut self, outcome: u8) -> Self {
        self.0.stored_outcome = Some(outcome);
        self
    }

    pub fn season_type(mut self, t: SeasonType) -> Self {
        self.0.season_type = t;
        self
    }
}
