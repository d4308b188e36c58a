//! Typed season-store rows. Known columns are parsed into fields; every other
//! column is kept verbatim, in its original order, in `extras`.

use std::sync::Arc;

use crate::{GameKey, ModelColumn, SeasonLabel, Text};

/// `season_type` of a row. Professional leagues grade only `Regular` and
/// `Postseason`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SeasonType {
    Preseason,
    Regular,
    Postseason,
    Other(Text),
}

impl SeasonType {
    pub fn parse(value: &str) -> Self {
        match value {
            "preseason" => SeasonType::Preseason,
            "regular" => SeasonType::Regular,
            "postseason" => SeasonType::Postseason,
            other => SeasonType::Other(other.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            SeasonType::Preseason => "preseason",
            SeasonType::Regular => "regular",
            SeasonType::Postseason => "postseason",
            SeasonType::Other(s) => s,
        }
    }

    /// Regular season or postseason.
    pub fn is_competitive(&self) -> bool {
        matches!(self, SeasonType::Regular | SeasonType::Postseason)
    }
}

/// The market line fields of a row. Every field is optional: a missing
/// value is `None`, never zero.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Lines {
    pub home_money_line: Option<f64>,
    pub away_money_line: Option<f64>,
    pub open_home_money_line: Option<f64>,
    pub open_away_money_line: Option<f64>,
    pub home_point_spread: Option<f64>,
    pub away_point_spread: Option<f64>,
    pub home_point_spread_line: Option<f64>,
    pub away_point_spread_line: Option<f64>,
    pub open_home_point_spread: Option<f64>,
    pub open_away_point_spread: Option<f64>,
    pub over_under: Option<f64>,
    pub open_over_under: Option<f64>,
    pub over_line: Option<f64>,
    pub under_line: Option<f64>,
}

/// A named line field, so rows can be read and written generically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineField {
    HomeMoneyLine,
    AwayMoneyLine,
    OpenHomeMoneyLine,
    OpenAwayMoneyLine,
    HomePointSpread,
    AwayPointSpread,
    HomePointSpreadLine,
    AwayPointSpreadLine,
    OpenHomePointSpread,
    OpenAwayPointSpread,
    OverUnder,
    OpenOverUnder,
    OverLine,
    UnderLine,
}

impl LineField {
    /// Every line field in contract column order.
    pub const ALL: [LineField; 14] = [
        LineField::HomeMoneyLine,
        LineField::AwayMoneyLine,
        LineField::OpenHomeMoneyLine,
        LineField::OpenAwayMoneyLine,
        LineField::HomePointSpread,
        LineField::AwayPointSpread,
        LineField::HomePointSpreadLine,
        LineField::AwayPointSpreadLine,
        LineField::OpenHomePointSpread,
        LineField::OpenAwayPointSpread,
        LineField::OverUnder,
        LineField::OpenOverUnder,
        LineField::OverLine,
        LineField::UnderLine,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            LineField::HomeMoneyLine => "home_money_line",
            LineField::AwayMoneyLine => "away_money_line",
            LineField::OpenHomeMoneyLine => "open_home_money_line",
            LineField::OpenAwayMoneyLine => "open_away_money_line",
            LineField::HomePointSpread => "home_point_spread",
            LineField::AwayPointSpread => "away_point_spread",
            LineField::HomePointSpreadLine => "home_point_spread_line",
            LineField::AwayPointSpreadLine => "away_point_spread_line",
            LineField::OpenHomePointSpread => "open_home_point_spread",
            LineField::OpenAwayPointSpread => "open_away_point_spread",
            LineField::OverUnder => "over_under",
            LineField::OpenOverUnder => "open_over_under",
            LineField::OverLine => "over_line",
            LineField::UnderLine => "under_line",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Opening-line fields (`open_*`).
    pub const fn is_opener(self) -> bool {
        matches!(
            self,
            LineField::OpenHomeMoneyLine
                | LineField::OpenAwayMoneyLine
                | LineField::OpenHomePointSpread
                | LineField::OpenAwayPointSpread
                | LineField::OpenOverUnder
        )
    }
}

impl LineField {
    /// Fields holding an American price (money lines and the spread and
    /// total prices, openers included).
    pub const fn is_price(self) -> bool {
        matches!(
            self,
            LineField::HomeMoneyLine
                | LineField::AwayMoneyLine
                | LineField::OpenHomeMoneyLine
                | LineField::OpenAwayMoneyLine
                | LineField::HomePointSpreadLine
                | LineField::AwayPointSpreadLine
                | LineField::OverLine
                | LineField::UnderLine
        )
    }

    /// Fields holding a point spread (current or opening, either side).
    pub const fn is_spread(self) -> bool {
        matches!(
            self,
            LineField::HomePointSpread
                | LineField::AwayPointSpread
                | LineField::OpenHomePointSpread
                | LineField::OpenAwayPointSpread
        )
    }

    /// Why `value` in this field of a `sport` row cannot have been quoted,
    /// or `None` when it can: a price strictly between −100 and +100 (no
    /// American price is), or a spread other than ±1.5 in a league whose
    /// spread is fixed (the mlb run line, the nhl puck line). An opener of
    /// exactly zero is the contract's "no opener" placeholder and passes.
    /// The data contract's one home of these rules: every predictions and
    /// odds object is read through it.
    #[expect(
        clippy::float_cmp,
        reason = "a quoted line is exactly ±1.5 (exact in binary); anything else is another line"
    )]
    pub fn impossible(self, sport: crate::Sport, value: f64) -> Option<String> {
        if self.is_opener() && value == 0.0 {
            return None;
        }
        if self.is_price() && !(value.is_finite() && value.abs() >= 100.0) {
            return Some(format!(
                "{value} is not an American price (none lies strictly between -100 and +100)"
            ));
        }
        if self.is_spread()
            && let Some(fixed) = sport.fixed_spread()
            && value.abs() != fixed
        {
            return Some(format!(
                "{value} is not a {sport} spread: its line is fixed at ±{fixed}"
            ));
        }
        None
    }
}

/// An opener as a real line: an opener of exactly zero is the placeholder
/// feeds write when they had no opener (data contract), so it is `None`.
/// The one home of that rule: served rows, the strategies' line move and
/// the replay's opening lines all read openers through it.
pub fn real_opener(value: Option<f64>) -> Option<f64> {
    value.filter(|v| *v != 0.0)
}

impl Lines {
    /// The recorded prices of a market's two sides, positive side first:
    /// home then away money line (won_on_points), home then away spread
    /// price (won_on_spread), over then under price (over_under). The one
    /// home of which fields price which side.
    pub const fn side_prices(&self, model_type: crate::ModelType) -> (Option<f64>, Option<f64>) {
        match model_type {
            crate::ModelType::WonOnPoints => (self.home_money_line, self.away_money_line),
            crate::ModelType::WonOnSpread => (self.home_point_spread_line, self.away_point_spread_line),
            crate::ModelType::OverUnder => (self.over_line, self.under_line),
        }
    }

    pub fn get(&self, field: LineField) -> Option<f64> {
        match field {
            LineField::HomeMoneyLine => self.home_money_line,
            LineField::AwayMoneyLine => self.away_money_line,
            LineField::OpenHomeMoneyLine => self.open_home_money_line,
            LineField::OpenAwayMoneyLine => self.open_away_money_line,
            LineField::HomePointSpread => self.home_point_spread,
            LineField::AwayPointSpread => self.away_point_spread,
            LineField::HomePointSpreadLine => self.home_point_spread_line,
            LineField::AwayPointSpreadLine => self.away_point_spread_line,
            LineField::OpenHomePointSpread => self.open_home_point_spread,
            LineField::OpenAwayPointSpread => self.open_away_point_spread,
            LineField::OverUnder => self.over_under,
            LineField::OpenOverUnder => self.open_over_under,
            LineField::OverLine => self.over_line,
            LineField::UnderLine => self.under_line,
        }
    }

    /// The value as served to clients: an opener goes through
    /// [`real_opener`] (a placeholder zero is `None`).
    pub fn served(&self, field: LineField) -> Option<f64> {
        let value = self.get(field);
        if field.is_opener() { real_opener(value) } else { value }
    }

    /// The opener for `field` when a real one exists (placeholder zeros removed).
    pub fn real_opener(&self, field: LineField) -> Option<f64> {
        self.served(field)
    }

    pub fn set(&mut self, field: LineField, value: Option<f64>) {
        let slot = match field {
            LineField::HomeMoneyLine => &mut self.home_money_line,
            LineField::AwayMoneyLine => &mut self.away_money_line,
            LineField::OpenHomeMoneyLine => &mut self.open_home_money_line,
            LineField::OpenAwayMoneyLine => &mut self.open_away_money_line,
            LineField::HomePointSpread => &mut self.home_point_spread,
            LineField::AwayPointSpread => &mut self.away_point_spread,
            LineField::HomePointSpreadLine => &mut self.home_point_spread_line,
            LineField::AwayPointSpreadLine => &mut self.away_point_spread_line,
            LineField::OpenHomePointSpread => &mut self.open_home_point_spread,
            LineField::OpenAwayPointSpread => &mut self.open_away_point_spread,
            LineField::OverUnder => &mut self.over_under,
            LineField::OpenOverUnder => &mut self.open_over_under,
            LineField::OverLine => &mut self.over_line,
            LineField::UnderLine => &mut self.under_line,
        };
        *slot = value;
    }
}

/// Model probabilities of the positive side, one slot per `ModelColumn`.
///
/// Held as nine plain floats, NaN standing for "no probability" (half the
/// size of nine `Option<f64>`): a stored probability is always finite (the
/// parsers refuse anything else), and [`ModelProbs::set`] reads a
/// non-finite value as `None`, so nothing is lost.
#[derive(Clone, Copy)]
pub struct ModelProbs([f64; 9]);

impl Default for ModelProbs {
    fn default() -> Self {
        Self([f64::NAN; 9])
    }
}

impl PartialEq for ModelProbs {
    fn eq(&self, other: &Self) -> bool {
        ModelColumn::ALL.iter().all(|c| self.get(*c) == other.get(*c))
    }
}

impl std::fmt::Debug for ModelProbs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.present().map(|(c, p)| (c.code(), p)))
            .finish()
    }
}

impl ModelProbs {
    pub fn get(&self, column: ModelColumn) -> Option<f64> {
        Some(self.0[column.index()]).filter(|p| !p.is_nan())
    }

    /// Sets one column; `None` or a non-finite value clears it.
    pub fn set(&mut self, column: ModelColumn, value: Option<f64>) {
        self.0[column.index()] = value.filter(|p| p.is_finite()).unwrap_or(f64::NAN);
    }

    /// Columns with a value, in catalog order.
    pub fn present(&self) -> impl Iterator<Item = (ModelColumn, f64)> + '_ {
        ModelColumn::ALL.iter().filter_map(|c| self.get(*c).map(|p| (*c, p)))
    }
}

/// The text columns of a season store with a fixed meaning, in contract
/// order: the quote source, the settlement status, then the six forecast
/// provenance columns of [`Provenance`]. The one list the store parser and
/// the demo-data writer share.
pub const SEASON_TEXT_COLUMNS: [&str; 8] = [
    "quote_source",
    "settlement_status",
    "model_probability_source",
    "model_training_through",
    "model_reconstruction_method",
    "forecast_source",
    "forecast_run",
    "forecast_published_at",
];

/// Forecast provenance of a season-store row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// `model_probability_source`: e.g. `live`, `walk_forward`, `reconstructed_oos`.
    pub model_probability_source: Option<Text>,
    /// `forecast_source`: `live` or `walk_forward`; `None` when the game has no prediction.
    pub forecast_source: Option<Text>,
    pub forecast_run: Option<Text>,
    /// RFC 3339 UTC instant, kept verbatim.
    pub forecast_published_at: Option<Text>,
    pub model_training_through: Option<Text>,
    pub model_reconstruction_method: Option<Text>,
}

/// One game of a season store.
#[derive(Debug, Clone, PartialEq)]
pub struct SeasonRow {
    pub key: GameKey,
    /// The public game id, numbered over the whole season table
    /// ([`crate::assign_game_ids`]).
    pub game_id: crate::GameId,
    pub season: SeasonLabel,
    pub season_type: SeasonType,
    pub away_score: Option<f64>,
    pub home_score: Option<f64>,
    /// The outcome column as stored (1/0), `None` when absent.
    pub stored_outcome: Option<u8>,
    pub lines: Lines,
    pub models: ModelProbs,
    pub quote_source: Option<Text>,
    pub settlement_status: Option<Text>,
    pub provenance: Provenance,
    /// Unknown columns, `(name, raw value)` in the artifact's column order.
    /// Names are shared between rows of one artifact.
    pub extras: Vec<(Arc<str>, String)>,
}

impl SeasonRow {
    /// The values of [`SEASON_TEXT_COLUMNS`], in that order.
    pub fn texts(&self) -> [Option<&str>; 8] {
        let p = &self.provenance;
        [
            self.quote_source.as_deref(),
            self.settlement_status.as_deref(),
            p.model_probability_source.as_deref(),
            p.model_training_through.as_deref(),
            p.model_reconstruction_method.as_deref(),
            p.forecast_source.as_deref(),
            p.forecast_run.as_deref(),
            p.forecast_published_at.as_deref(),
        ]
    }

    /// True when both scores are present.
    pub fn has_final(&self) -> bool {
        self.away_score.is_some() && self.home_score.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sport;

    #[test]
    fn a_price_inside_minus_to_plus_one_hundred_and_a_moved_run_or_puck_line_are_impossible() {
        let bad = |f: LineField, sport: Sport, v: f64| f.impossible(sport, v).is_some();
        // Prices: ±100 and beyond are quotable; anything strictly inside is not.
        for ok in [-100.0, 100.0, -110.0, 257.0, -10_000.0] {
            assert!(!bad(LineField::HomeMoneyLine, Sport::Nba, ok), "{ok}");
            assert!(!bad(LineField::OverLine, Sport::Nhl, ok), "{ok}");
        }
        for no in [-99.0, 99.0, 0.0, -0.5, 50.0, f64::NAN] {
            assert!(bad(LineField::AwayMoneyLine, Sport::Nba, no), "{no}");
            assert!(bad(LineField::UnderLine, Sport::Mlb, no), "{no}");
            assert!(bad(LineField::HomePointSpreadLine, Sport::Nfl, no), "{no}");
        }
        // Totals and spreads are not prices.
        assert!(!bad(LineField::OverUnder, Sport::Nba, 5.5));
        assert!(!bad(LineField::HomePointSpread, Sport::Nba, -3.5));
        assert!(
            !bad(LineField::HomePointSpread, Sport::Nfl, 0.0),
            "a pick'em is a spread of 0"
        );
        // The run line and the puck line are ±1.5, never anything else.
        for sport in [Sport::Mlb, Sport::Nhl] {
            for ok in [1.5, -1.5] {
                assert!(!bad(LineField::AwayPointSpread, sport, ok));
                assert!(!bad(LineField::OpenHomePointSpread, sport, ok));
            }
            for no in [-0.5, -2.0, 0.0, 2.5, 1.0] {
                assert!(bad(LineField::HomePointSpread, sport, no), "{sport} {no}");
            }
        }
        // An opener of exactly zero is the placeholder for "no opener".
        assert!(!bad(LineField::OpenHomeMoneyLine, Sport::Nba, 0.0));
        assert!(!bad(LineField::OpenAwayPointSpread, Sport::Nhl, 0.0));
        assert!(bad(LineField::OpenHomeMoneyLine, Sport::Nba, 50.0));
        assert!(bad(LineField::OpenAwayPointSpread, Sport::Nhl, -0.5));
    }

    #[test]
    fn the_texts_of_a_row_line_up_with_the_season_text_columns() {
        let own = |name: &str| Some(Text::from(name));
        let row = SeasonRow {
            key: crate::GameKey::new(chrono::NaiveDate::MIN, chrono::NaiveTime::MIN, "away", "home"),
            game_id: crate::GameId::default(),
            season: SeasonLabel::parse(crate::Sport::Nba, "2025-26").unwrap_or_else(|e| panic!("{e}")),
            season_type: SeasonType::Regular,
            away_score: None,
            home_score: None,
            stored_outcome: None,
            lines: Lines::default(),
            models: ModelProbs::default(),
            quote_source: own("quote_source"),
            settlement_status: own("settlement_status"),
            provenance: Provenance {
                model_probability_source: own("model_probability_source"),
                forecast_source: own("forecast_source"),
                forecast_run: own("forecast_run"),
                forecast_published_at: own("forecast_published_at"),
                model_training_through: own("model_training_through"),
                model_reconstruction_method: own("model_reconstruction_method"),
            },
            extras: Vec::new(),
        };
        assert_eq!(row.texts().map(Option::unwrap_or_default), SEASON_TEXT_COLUMNS);
    }

    #[test]
    fn placeholder_zero_openers_are_served_as_null_but_current_zeros_are_kept() {
        let mut lines = Lines::default();
        lines.set(LineField::OpenHomeMoneyLine, Some(0.0));
        lines.set(LineField::OpenOverUnder, Some(8.5));
        lines.set(LineField::HomePointSpread, Some(0.0));
        assert_eq!(lines.served(LineField::OpenHomeMoneyLine), None);
        assert_eq!(lines.served(LineField::OpenOverUnder), Some(8.5));
        assert_eq!(lines.served(LineField::HomePointSpread), Some(0.0));
        assert_eq!(lines.served(LineField::OpenAwayMoneyLine), None);
    }

    #[test]
    fn each_market_prices_its_positive_side_first() {
        let mut lines = Lines::default();
        lines.set(LineField::HomeMoneyLine, Some(-150.0));
        lines.set(LineField::AwayMoneyLine, Some(130.0));
        lines.set(LineField::HomePointSpreadLine, Some(-110.0));
        lines.set(LineField::OverLine, Some(-105.0));
        assert_eq!(
            lines.side_prices(crate::ModelType::WonOnPoints),
            (Some(-150.0), Some(130.0))
        );
        assert_eq!(lines.side_prices(crate::ModelType::WonOnSpread), (Some(-110.0), None));
        assert_eq!(lines.side_prices(crate::ModelType::OverUnder), (Some(-105.0), None));
    }

    #[test]
    fn line_field_names_round_trip() {
        for f in LineField::ALL {
            assert_eq!(LineField::parse(f.name()), Some(f));
        }
    }
}
