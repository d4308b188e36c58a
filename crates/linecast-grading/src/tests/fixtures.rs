//! Hand-built season rows for the tests.

use chrono::{NaiveDate, NaiveTime};
use linecast_domain::{GameKey, ModelColumn, SeasonLabel, SeasonRow, SeasonType, Sport};

pub fn date(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// A regular-season game with no scores, lines or probabilities.
pub fn game(day: &str, away: &str, home: &str) -> SeasonRow {
    SeasonRow {
        key: GameKey::new(date(day), NaiveTime::from_hms_opt(19, 0, 0).unwrap(), away, home),
        game_id: linecast_domain::GameId::default(),
        season: SeasonLabel::starting(Sport::Nba, 2026),
        season_type: SeasonType::Regular,
        away_score: None,
        home_score: None,
        stored_outcome: None,
        lines: linecast_domain::Lines::default(),
        models: linecast_domain::ModelProbs::default(),
        quote_source: None,
        settlement_status: None,
        provenance: linecast_domain::Provenance::default(),
        extras: Vec::new(),
    }
}

pub trait RowExt: Sized {
    fn score(self, away: f64, home: f64) -> Self;
    fn ml(self, home: f64, away: f64) -> Self;
    fn spread(self, home_spread: f64, home_line: f64, away_line: f64) -> Self;
    fn total(self, over_under: f64, over: f64, under: f64) -> Self;
    fn prob(self, column: ModelColumn, p: f64) -> Self;
    /// BLEND and the six individual models all at `p`.
    fn all(self, p: f64) -> Self;
    fn kind(self, season_type: SeasonType) -> Self;
    fn source(self, source: &str) -> Self;
    /// Sets any line field, openers included.
    fn line(self, field: linecast_domain::LineField, value: f64) -> Self;
}

impl RowExt for SeasonRow {
    fn score(mut self, away: f64, home: f64) -> Self {
        self.away_score = Some(away);
        self.home_score = Some(home);
        self
    }
    fn ml(mut self, home: f64, away: f64) -> Self {
        self.lines.home_money_line = Some(home);
        self.lines.away_money_line = Some(away);
        self
    }
    fn spread(mut self, home_spread: f64, home_line: f64, away_line: f64) -> Self {
        self.lines.home_point_spread = Some(home_spread);
        self.lines.away_point_spread = Some(-home_spread);
        self.lines.home_point_spread_line = Some(home_line);
        self.lines.away_point_spread_line = Some(away_line);
        self
    }
    fn total(mut self, over_under: f64, over: f64, under: f64) -> Self {
        self.lines.over_under = Some(over_under);
        self.lines.over_line = Some(over);
        self.lines.under_line = Some(under);
        self
    }
    fn prob(mut self, column: ModelColumn, p: f64) -> Self {
        self.models.set(column, Some(p));
        self
    }
    fn all(mut self, p: f64) -> Self {
        self.models.set(ModelColumn::Blend, Some(p));
        for c in ModelColumn::INDIVIDUAL {
            self.models.set(c, Some(p));
        }
        self
    }
    fn kind(mut self, season_type: SeasonType) -> Self {
        self.season_type = season_type;
        self
    }
    fn source(mut self, source: &str) -> Self {
        self.provenance.model_probability_source = Some(source.into());
        self.provenance.forecast_source = Some(source.into());
        self
    }
    fn line(mut self, field: linecast_domain::LineField, value: f64) -> Self {
        self.lines.set(field, Some(value));
        self
    }
}
