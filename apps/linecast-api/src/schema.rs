//! OpenAPI-only types: the allowed values of path and query parameters, so
//! generated clients and fuzzers know them. Handlers still parse raw strings
//! (to answer 400 in the error shape, naming the parameter).

use serde::Serialize;
use utoipa::ToSchema;

/// A sport code.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum SportCode {
    Mlb,
    Nba,
    Nfl,
    Nhl,
    Ncaaf,
    Ncaab,
}

/// A model type.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModelTypeCode {
    OverUnder,
    WonOnPoints,
    WonOnSpread,
}

/// A public market name.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarketCode {
    OverUnder,
    Moneyline,
    Spread,
}

/// A strategy accounting.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccountingCode {
    LegacyV1,
    RecordedV2,
}

/// A sport code of the legacy picks endpoints.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum LegacySportCode {
    Mlb,
    Nba,
    Nfl,
    Nhl,
    Ncaaf,
    Ncaab,
}

/// A market name of the legacy picks endpoints.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LegacyMarketCode {
    Spread,
    Total,
    Moneyline,
}

/// One of the sixteen strategy ids.
#[derive(Debug, Serialize, ToSchema)]
pub enum StrategyId {
    #[serde(rename = "line-pb")]
    LinePb,
    #[serde(rename = "line-pf")]
    LinePf,
    #[serde(rename = "line-nb")]
    LineNb,
    #[serde(rename = "line-nf")]
    LineNf,
    #[serde(rename = "edge-pb")]
    EdgePb,
    #[serde(rename = "edge-pf")]
    EdgePf,
    #[serde(rename = "edge-nb")]
    EdgeNb,
    #[serde(rename = "edge-nf")]
    EdgeNf,
    #[serde(rename = "hybrid-pb-pb")]
    HybridPbPb,
    #[serde(rename = "hybrid-pb-nf")]
    HybridPbNf,
    #[serde(rename = "hybrid-nf-pb")]
    HybridNfPb,
    #[serde(rename = "hybrid-nf-nf")]
    HybridNfNf,
    #[serde(rename = "hybrid-pf-pf")]
    HybridPfPf,
    #[serde(rename = "hybrid-pf-nb")]
    HybridPfNb,
    #[serde(rename = "hybrid-nb-pf")]
    HybridNbPf,
    #[serde(rename = "hybrid-nb-nb")]
    HybridNbNb,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn documented_strategy_ids_are_exactly_the_engines() {
        let all = [
            StrategyId::LinePb,
            StrategyId::LinePf,
            StrategyId::LineNb,
            StrategyId::LineNf,
            StrategyId::EdgePb,
            StrategyId::EdgePf,
            StrategyId::EdgeNb,
            StrategyId::EdgeNf,
            StrategyId::HybridPbPb,
            StrategyId::HybridPbNf,
            StrategyId::HybridNfPb,
            StrategyId::HybridNfNf,
            StrategyId::HybridPfPf,
            StrategyId::HybridPfNb,
            StrategyId::HybridNbPf,
            StrategyId::HybridNbNb,
        ];
        let mut documented: Vec<String> = all
            .iter()
            .map(|s| serde_json::to_value(s).unwrap().as_str().unwrap().to_owned())
            .collect();
        let mut engine: Vec<String> = linecast_strategies::strategy_ids()
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        documented.sort();
        engine.sort();
        assert_eq!(documented, engine);
    }

    #[test]
    fn documented_codes_match_the_catalog() {
        let sports = [
            SportCode::Mlb,
            SportCode::Nba,
            SportCode::Nfl,
            SportCode::Nhl,
            SportCode::Ncaaf,
            SportCode::Ncaab,
        ];
        for (doc, real) in sports.iter().zip(linecast_domain::Sport::ALL) {
            assert_eq!(serde_json::to_value(doc).unwrap(), real.code());
        }
        let types = [
            ModelTypeCode::OverUnder,
            ModelTypeCode::WonOnPoints,
            ModelTypeCode::WonOnSpread,
        ];
        for (doc, real) in types.iter().zip(linecast_domain::ModelType::ALL) {
            assert_eq!(serde_json::to_value(doc).unwrap(), real.code());
        }
    }
}
