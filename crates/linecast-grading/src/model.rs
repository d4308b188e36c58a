//! The graded models: the nine probability columns plus ENSEMBLE, with a
//! dense index so per-model tallies live in fixed arrays instead of maps.

use std::fmt;

use linecast_domain::ModelColumn;

/// Number of graded models (the nine columns plus ENSEMBLE).
pub const MODEL_COUNT: usize = 10;

/// A model that picks sides: a probability column, or ENSEMBLE (five or
/// more of the six individual models agreeing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    Column(ModelColumn),
    Ensemble,
}

impl Model {
    /// Every model in summary order: IMPLIED, AI, BLEND, CATB, RF, LGB,
    /// LOGR, XGB, XT, ENSEMBLE.
    pub const ALL: [Model; MODEL_COUNT] = [
        Model::Column(ModelColumn::Implied),
        Model::Column(ModelColumn::Ai),
        Model::Column(ModelColumn::Blend),
        Model::Column(ModelColumn::Catb),
        Model::Column(ModelColumn::Rf),
        Model::Column(ModelColumn::Lgb),
        Model::Column(ModelColumn::Logr),
        Model::Column(ModelColumn::Xgb),
        Model::Column(ModelColumn::Xt),
        Model::Ensemble,
    ];

    /// Position in `ALL`.
    pub const fn index(self) -> usize {
        match self {
            Model::Column(c) => c.index(),
            Model::Ensemble => MODEL_COUNT - 1,
        }
    }

    /// The public name (`BLEND`, `ENSEMBLE`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            Model::Column(c) => c.code(),
            Model::Ensemble => "ENSEMBLE",
        }
    }

    /// Parses a public model name, ENSEMBLE included.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Model {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_index_matches_all_order_and_names_round_trip() {
        for (i, m) in Model::ALL.iter().enumerate() {
            assert_eq!(m.index(), i);
            assert_eq!(Model::parse(m.name()), Some(*m));
        }
        assert_eq!(Model::Ensemble.name(), "ENSEMBLE");
        assert_eq!(Model::parse("blend"), None);
    }
}
