//! The fixed catalog: six sports, three model types, three public markets and
//! the model probability columns. Codes are part of the public contract.

use std::fmt;

/// A code that is not in the catalog; `allowed` lists the valid codes so the
/// HTTP layer can name them in a 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} '{value}'; allowed: {allowed}")]
pub struct UnknownCode {
    pub kind: &'static str,
    pub value: String,
    pub allowed: String,
}

macro_rules! code_enum {
    ($(#[$meta:meta])* $name:ident, $kind:literal, { $($variant:ident => $code:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum $name {
            $(
                #[cfg_attr(feature = "serde", serde(rename = $code))]
                $variant,
            )+
        }

        impl $name {
            /// Every value, in catalog order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The public code.
            pub const fn code(self) -> &'static str {
                match self { $($name::$variant => $code),+ }
            }

            /// Parses a public code exactly (codes are case-sensitive).
            pub fn parse(value: &str) -> Result<Self, UnknownCode> {
                match value {
                    $($code => Ok($name::$variant),)+
                    _ => Err(UnknownCode {
                        kind: $kind,
                        value: value.to_owned(),
                        allowed: Self::allowed(),
                    }),
                }
            }

            /// The valid codes joined by `, `.
            pub fn allowed() -> String {
                [$($code),+].join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.code())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownCode;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }
    };
}

code_enum!(
    /// A league served by linecast.
    Sport, "sport", {
        Mlb => "mlb",
        Nba => "nba",
        Nfl => "nfl",
        Nhl => "nhl",
        Ncaaf => "ncaaf",
        Ncaab => "ncaab",
    }
);

impl Sport {
    /// The league's full name.
    pub const fn name(self) -> &'static str {
        match self {
            Sport::Mlb => "Major League Baseball",
            Sport::Nba => "National Basketball Association",
            Sport::Nfl => "National Football League",
            Sport::Nhl => "National Hockey League",
            Sport::Ncaaf => "NCAA Football",
            Sport::Ncaab => "NCAA Basketball",
        }
    }

    /// Professional leagues grade only regular-season and postseason games.
    pub const fn is_professional(self) -> bool {
        matches!(self, Sport::Mlb | Sport::Nba | Sport::Nfl | Sport::Nhl)
    }

    /// mlb seasons are labelled `YYYY`; every other league spans two years
    /// and is labelled `YYYY-YY`.
    pub const fn split_year(self) -> bool {
        !matches!(self, Sport::Mlb)
    }

    /// The prediction-market source covers mlb, nba, nfl and nhl only.
    pub const fn has_prediction_market(self) -> bool {
        self.is_professional()
    }

    /// The league's fixed point spread, when its spread market never moves
    /// its line: the mlb run line and the nhl puck line are ±1.5, only
    /// their prices move. `None` where spreads move by half points.
    pub const fn fixed_spread(self) -> Option<f64> {
        match self {
            Sport::Mlb | Sport::Nhl => Some(1.5),
            _ => None,
        }
    }

    /// Upper-case code used by the legacy picks endpoints (`MLB`, `NCAAF`).
    pub fn upper_code(self) -> String {
        self.code().to_ascii_uppercase()
    }
}

code_enum!(
    /// A model type, which fixes the market it predicts.
    ModelType, "model_type", {
        OverUnder => "over_under",
        WonOnPoints => "won_on_points",
        WonOnSpread => "won_on_spread",
    }
);

/// A side of a two-sided market, relative to the positive side of the model
/// type (home for moneyline and spread, over for totals).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Side {
    /// Home (moneyline, spread) or over (totals).
    Positive,
    /// Away (moneyline, spread) or under (totals).
    Negative,
}

impl Side {
    /// The other side.
    #[must_use]
    pub const fn opposite(self) -> Side {
        match self {
            Side::Positive => Side::Negative,
            Side::Negative => Side::Positive,
        }
    }
}

impl ModelType {
    /// Display name used by the discovery endpoint.
    pub const fn name(self) -> &'static str {
        match self {
            ModelType::OverUnder => "Over/Under",
            ModelType::WonOnPoints => "Moneyline",
            ModelType::WonOnSpread => "Point Spread",
        }
    }

    /// The binary outcome column of the season store.
    pub const fn outcome_column(self) -> &'static str {
        match self {
            ModelType::OverUnder => "over",
            ModelType::WonOnPoints => "won_on_points",
            ModelType::WonOnSpread => "won_on_spread",
        }
    }

    /// The public market that exposes this model type.
    pub const fn public_market(self) -> PublicMarket {
        match self {
            ModelType::OverUnder => PublicMarket::OverUnder,
            ModelType::WonOnPoints => PublicMarket::Moneyline,
            ModelType::WonOnSpread => PublicMarket::Spread,
        }
    }

    /// Label of a side in summary keys and picks: `over`/`under` or `home`/`away`.
    pub const fn side_label(self, side: Side) -> &'static str {
        match (self, side) {
            (ModelType::OverUnder, Side::Positive) => "over",
            (ModelType::OverUnder, Side::Negative) => "under",
            (_, Side::Positive) => "home",
            (_, Side::Negative) => "away",
        }
    }

    /// Current line fields served for this model type, in contract order.
    pub const fn line_fields(self) -> &'static [&'static str] {
        match self {
            ModelType::OverUnder => &["over_under", "over_line", "under_line"],
            ModelType::WonOnSpread => &[
                "away_point_spread",
                "home_point_spread",
                "away_point_spread_line",
                "home_point_spread_line",
            ],
            ModelType::WonOnPoints => &["away_money_line", "home_money_line"],
        }
    }

    /// Opening line fields served for this model type.
    pub const fn open_fields(self) -> &'static [&'static str] {
        match self {
            ModelType::OverUnder => &["open_over_under"],
            ModelType::WonOnSpread => &["open_away_point_spread", "open_home_point_spread"],
            ModelType::WonOnPoints => &["open_away_money_line", "open_home_money_line"],
        }
    }

    /// EV field names as (negative side, positive side).
    pub const fn ev_fields(self) -> (&'static str, &'static str) {
        match self {
            ModelType::OverUnder => ("ev_neg", "ev_pos"),
            ModelType::WonOnSpread => ("ev_away_spread", "ev_home_spread"),
            ModelType::WonOnPoints => ("ev_away_ml", "ev_home_ml"),
        }
    }
}

code_enum!(
    /// A market name of the public picks feed.
    PublicMarket, "market", {
        OverUnder => "over_under",
        Moneyline => "moneyline",
        Spread => "spread",
    }
);

impl PublicMarket {
    /// The model type backing this public market.
    pub const fn model_type(self) -> ModelType {
        match self {
            PublicMarket::OverUnder => ModelType::OverUnder,
            PublicMarket::Moneyline => ModelType::WonOnPoints,
            PublicMarket::Spread => ModelType::WonOnSpread,
        }
    }
}

code_enum!(
    /// A model probability column. Probabilities are of the positive side.
    ModelColumn, "model", {
        Implied => "IMPLIED",
        Ai => "AI",
        Blend => "BLEND",
        Catb => "CATB",
        Rf => "RF",
        Lgb => "LGB",
        Logr => "LOGR",
        Xgb => "XGB",
        Xt => "XT",
    }
);

impl ModelColumn {
    /// The six individual models whose votes form ENSEMBLE.
    pub const INDIVIDUAL: [ModelColumn; 6] = [
        ModelColumn::Catb,
        ModelColumn::Rf,
        ModelColumn::Lgb,
        ModelColumn::Logr,
        ModelColumn::Xgb,
        ModelColumn::Xt,
    ];

    /// Index into `ALL`, for dense per-model arrays.
    pub const fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_and_unknown_codes_name_the_allowed_values() {
        for s in Sport::ALL {
            assert_eq!(Sport::parse(s.code()), Ok(*s));
        }
        for m in ModelType::ALL {
            assert_eq!(ModelType::parse(m.code()), Ok(*m));
            assert_eq!(m.public_market().model_type(), *m);
        }
        let err = Sport::parse("NBA").unwrap_err();
        assert_eq!(err.allowed, "mlb, nba, nfl, nhl, ncaaf, ncaab");
        assert!(err.to_string().contains("sport"));
        assert!(ModelColumn::parse("blend").is_err());
        assert_eq!(ModelColumn::parse("BLEND"), Ok(ModelColumn::Blend));
    }

    #[test]
    fn public_markets_map_to_the_spec_model_types() {
        assert_eq!(
            PublicMarket::parse("moneyline").unwrap().model_type(),
            ModelType::WonOnPoints
        );
        assert_eq!(
            PublicMarket::parse("spread").unwrap().model_type(),
            ModelType::WonOnSpread
        );
        assert_eq!(
            PublicMarket::parse("over_under").unwrap().model_type(),
            ModelType::OverUnder
        );
        assert!(PublicMarket::parse("won_on_points").is_err());
    }

    #[test]
    fn only_professional_leagues_have_a_prediction_market() {
        let covered: Vec<_> = Sport::ALL
            .iter()
            .filter(|s| s.has_prediction_market())
            .map(|s| s.code())
            .collect();
        assert_eq!(covered, ["mlb", "nba", "nfl", "nhl"]);
    }

    #[test]
    fn model_type_names_match_discovery() {
        assert_eq!(ModelType::OverUnder.name(), "Over/Under");
        assert_eq!(ModelType::WonOnPoints.name(), "Moneyline");
        assert_eq!(ModelType::WonOnSpread.name(), "Point Spread");
    }

    #[test]
    fn model_column_index_matches_all_order() {
        for (i, c) in ModelColumn::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
    }
}
