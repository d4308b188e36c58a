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

/// `grading` of summary and model tracking: an object whose keys name the
/// grading rules and whose values state them in one sentence each. The keys
/// and sentences come from [`linecast_grading::GRADING_RULES`], so the
/// document and the payload cannot drift apart.
#[derive(Debug, Clone, Copy, Default)]
pub struct GradingRules;

impl Serialize for GradingRules {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_rules(s, linecast_grading::GRADING_RULES.iter())
    }
}

impl utoipa::PartialSchema for GradingRules {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        rules_schema(
            "The grading rules shared by results, summary and tracking: rule name → the rule in one sentence.",
            linecast_grading::GRADING_RULES.iter(),
        )
    }
}

/// The grading rules of calibration: the shared ones, then one per
/// calibration definition.
#[derive(Debug, Clone, Copy)]
pub struct CalibrationRules;

impl Serialize for CalibrationRules {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_rules(s, linecast_grading::calibration::calibration_grading_rules())
    }
}

impl utoipa::PartialSchema for CalibrationRules {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        rules_schema(
            "The grading rules shared by results, summary and tracking, then one per calibration definition: rule \
             name → the rule in one sentence.",
            linecast_grading::calibration::calibration_grading_rules(),
        )
    }
}

impl ToSchema for CalibrationRules {}

fn serialize_rules<'a, S: serde::Serializer>(
    s: S,
    rules: impl Iterator<Item = &'a (&'a str, &'a str)>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let rules: Vec<_> = rules.collect();
    let mut map = s.serialize_map(Some(rules.len()))?;
    for (name, sentence) in rules {
        map.serialize_entry(name, sentence)?;
    }
    map.end()
}

/// A closed object with one required string property per rule.
fn rules_schema<'a>(
    description: &str,
    rules: impl Iterator<Item = &'a (&'a str, &'a str)>,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Type};
    let mut object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .description(Some(description));
    for (name, sentence) in rules {
        object = object
            .property(
                *name,
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some(*sentence)),
            )
            .required(*name);
    }
    object
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .into()
}

impl ToSchema for GradingRules {}

/// What each model column holds, for the schema.
const fn column_description(column: linecast_domain::ModelColumn) -> &'static str {
    use linecast_domain::ModelColumn as C;
    match column {
        C::Implied => "No-vig probability of the positive side from both current prices; null when one side is missing",
        C::Ai => "AI model probability; present only when the artifact has the column",
        C::Blend => "Ensemble blend probability",
        C::Catb => "Gradient-boosted trees model",
        C::Rf => "Random forest",
        C::Lgb => "Light gradient boosting model",
        C::Logr => "Logistic regression",
        C::Xgb => "Extreme gradient boosting model",
        C::Xt => "Extra trees",
    }
}

/// Model column → probability of the positive side (home, or over), null
/// where the artifact's cell is empty. Every game of a payload carries the
/// same keys: the payload's `models_used`, IMPLIED included.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelProbabilities(pub NamedNumbers);

impl Serialize for ModelProbabilities {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Numbers by name, written as one JSON object in the order given: each
/// name a key, each number its value or null (also for a number that is
/// not finite). Built per game without a map: the names are the catalog's
/// own static strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NamedNumbers(pub Vec<(&'static str, Option<f64>)>);

impl Serialize for NamedNumbers {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, &value.filter(|x| x.is_finite()))?;
        }
        map.end()
    }
}

impl utoipa::PartialSchema for ModelProbabilities {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
        let mut object = ObjectBuilder::new().schema_type(Type::Object).description(Some(
            "Model column → probability of the positive side (home, or over); every column of models_used, \
null where the artifact's cell is empty. IMPLIED is always present.",
        ));
        for column in linecast_domain::ModelColumn::ALL {
            object = object.property(
                column.code(),
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Number, Type::Null]))
                    .minimum(Some(0.0))
                    .maximum(Some(1.0))
                    .description(Some(column_description(*column))),
            );
        }
        object
            .required(linecast_domain::ModelColumn::Implied.code())
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for ModelProbabilities {}
