//! OpenAPI schemas of the nested shapes that the pure crates serialize:
//! result rows, summary entries, tracking points, team-form entries,
//! rolling and density cells (`linecast-grading`, core history), strategy
//! entries, replay games and excluded rows (`linecast-strategies`).
//!
//! Schema only: nothing here is constructed. The response types of
//! `history.rs` and `strategies.rs` point their fields at these with
//! `#[schema(value_type = ...)]`. Every object is closed
//! (`additionalProperties: false`, from `deny_unknown_fields`) except the
//! result row, whose unknown store columns are part of the contract, and
//! the API tests validate every body they receive against the document, so
//! a key a pure crate adds, drops or retypes fails a test instead of
//! drifting from what clients generate.

use std::collections::HashMap;

use chrono::NaiveDate;
use linecast_core::services::archive_check::ArchiveCheck;
use linecast_domain::artifacts::KEY_COLUMNS;
use linecast_domain::row::SEASON_TEXT_COLUMNS;
use linecast_domain::{LineField, ModelColumn, ModelType};
use serde::Serialize;
use utoipa::openapi::schema::{
    AdditionalProperties, KnownFormat, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

// ---- results -------------------------------------------------------------

/// One result row: every stored column in artifact order (unknown store
/// columns included, as strings), the outcome column and IMPLIED
/// recomputed by the grading rules, then `push`, `graded`,
/// `ungraded_reason`, `game_id`, `archive_check` and `forecast_digest`.
pub struct ResultRow;

fn nullable(ty: Type, description: &str) -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([ty, Type::Null]))
        .description(Some(description))
        .build()
}

impl utoipa::PartialSchema for ResultRow {
    fn schema() -> RefOr<Schema> {
        let text = |d: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(d))
                .build()
        };
        let mut row = ObjectBuilder::new().schema_type(Type::Object).description(Some(
            "One game of the season store, graded. Unknown store columns appear verbatim as strings \
(null when empty).",
        ));
        for key in KEY_COLUMNS {
            let what = match key {
                "date" => "Game date, YYYY-MM-DD (Eastern)",
                "time_est" => "Start time, HH:MM:SS (Eastern)",
                _ => "Team slug",
            };
            let mut column = text(what);
            if key == "date" {
                column.format = Some(SchemaFormat::KnownFormat(KnownFormat::Date));
            }
            row = row.property(key, column).required(key);
        }
        row = row
            .property("season", text("Season label"))
            .required("season")
            .property(
                "season_type",
                text("preseason, regular, postseason or another store value"),
            )
            .required("season_type");
        for key in ["away_score", "home_score"] {
            row = row.property(key, nullable(Type::Number, "Final score; null before a final"));
        }
        for model_type in ModelType::ALL {
            row = row.property(
                model_type.outcome_column(),
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                    .minimum(Some(0.0))
                    .maximum(Some(1.0))
                    .description(Some(
                        "The row's market outcome column (one per row, by model type): 1 when the home/over \
side won or covered, 0 otherwise (a push reads 0), null without a final and a line",
                    )),
            );
        }
        for column in ModelColumn::ALL {
            let what = if *column == ModelColumn::Implied {
                "No-vig probability of the positive side from both recorded prices, 6 decimals; null with a \
one-sided price. Always present."
            } else {
                "Model probability of the positive side (home, or over); null where the store's cell is empty"
            };
            row = row.property(column.code(), nullable(Type::Number, what));
        }
        row = row.required(ModelColumn::Implied.code());
        for field in LineField::ALL {
            row = row.property(
                field.name(),
                nullable(
                    Type::Number,
                    "Market line or American price; placeholder zero openers are null",
                ),
            );
        }
        for key in SEASON_TEXT_COLUMNS {
            let mut column = nullable(Type::String, "Provenance text; null where empty");
            // The store holds these checked (docs/data-contract.md).
            column.format = match key {
                "forecast_published_at" => Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)),
                "model_training_through" => Some(SchemaFormat::KnownFormat(KnownFormat::Date)),
                _ => None,
            };
            row = row.property(key, column);
        }
        row.property(
            "push",
            nullable(
                Type::Boolean,
                "True for a final exactly on the line, false for a decided game, null without a final or line",
            ),
        )
        .required("push")
        .property(
            "graded",
            ObjectBuilder::new()
                .schema_type(Type::Boolean)
                .description(Some("True when at least one model graded the game")),
        )
        .required("graded")
        .property(
            "ungraded_reason",
            OneOfBuilder::new()
                .item(ObjectBuilder::new().schema_type(Type::Null))
                .item(Ref::from_schema_name(UngradedReasonCode::name()))
                .description(Some("Why no model graded the game; null when graded")),
        )
        .required("ungraded_reason")
        .property("game_id", {
            let mut id = text(
                "The game's id, the same on every endpoint and in every release: \
{sport}-{YYYYMMDD}-{away_slug}-{home_slug}, -2 for a doubleheader's second game (/docs/payloads.md#game-ids)",
            );
            id.examples = vec![serde_json::json!("nba-20251104-boston_celtics-new_york_knicks")];
            id
        })
        .required("game_id")
        .property(
            "archive_check",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(ArchiveCheck::ALL.map(ArchiveCheck::as_str)))
                .description(Some(
                    "A live row checked against the kept predictions release its forecast_published_at names \
(/docs/payloads.md#archive-check): matched (published before the start, carrying the game with the row's BLEND \
at 4 decimals), mismatch (published at or after the start, without the game, or with another BLEND), not_kept \
(no release kept at that instant, or no forecast_published_at); not_applicable for every non-live row",
                )),
        )
        .required("archive_check")
        .property(
            "forecast_digest",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
                .pattern(Some("^[0-9a-f]{64}$"))
                .description(Some(
                    "The SHA-256 (lowercase hex) of the kept release the forecast came from when archive_check \
is matched; null otherwise",
                )),
        )
        .required("forecast_digest")
        .additional_properties(Some(AdditionalProperties::RefOr(RefOr::T(Schema::Object(nullable(
            Type::String,
            "An unknown store column, verbatim",
        ))))))
        .into()
    }
}

impl ToSchema for ResultRow {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((UngradedReasonCode::name().into(), UngradedReasonCode::schema()));
    }
}

/// Why no model graded a game.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UngradedReasonCode {
    /// No final score.
    NoFinal,
    /// No line the market posted.
    NoLine,
    /// The final landed exactly on the line.
    Push,
    /// No model has a probability for the game.
    NoPrediction,
}

// ---- summary -------------------------------------------------------------

/// One model's summary. Percentages are 0-100 with one decimal, null
/// without a denominator. The side keys are `over %`/`under %` for
/// over_under and `home %`/`away %` for the other model types (with their
/// 1W and 4W variants); the other set is absent.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = SummaryEntry)]
pub struct SummaryEntryShape {
    /// Model column name, or ENSEMBLE.
    model: String,
    /// Games the model picked and the result (pushes and no-pick games are not counted).
    total_games: u64,
    wins: u64,
    losses: u64,
    /// Graded games where the model had a probability but picked no side.
    abstained: u64,
    #[serde(rename = "win %")]
    #[schema(required = true)]
    win: Option<f64>,
    #[serde(rename = "fade %")]
    #[schema(required = true)]
    fade: Option<f64>,
    /// Over the trailing 7 days ending on the latest decided game.
    #[serde(rename = "win % 1W")]
    #[schema(required = true)]
    win_1w: Option<f64>,
    /// Over the trailing 28 days ending on the latest decided game.
    #[serde(rename = "win % 4W")]
    #[schema(required = true)]
    win_4w: Option<f64>,
    #[serde(rename = "over %")]
    over: Option<f64>,
    #[serde(rename = "under %")]
    under: Option<f64>,
    #[serde(rename = "over % 1W")]
    over_1w: Option<f64>,
    #[serde(rename = "over % 4W")]
    over_4w: Option<f64>,
    #[serde(rename = "under % 1W")]
    under_1w: Option<f64>,
    #[serde(rename = "under % 4W")]
    under_4w: Option<f64>,
    #[serde(rename = "home %")]
    home: Option<f64>,
    #[serde(rename = "away %")]
    away: Option<f64>,
    #[serde(rename = "home % 1W")]
    home_1w: Option<f64>,
    #[serde(rename = "home % 4W")]
    home_4w: Option<f64>,
    #[serde(rename = "away % 1W")]
    away_1w: Option<f64>,
    #[serde(rename = "away % 4W")]
    away_4w: Option<f64>,
    /// Mean return per game of one unit on the side with the higher
    /// expected value (a push returns the stake); null for ENSEMBLE and
    /// without a priced game.
    #[serde(rename = "ev roi")]
    #[schema(required = true)]
    ev_roi: Option<f64>,
    #[serde(rename = "ev roi 1W")]
    #[schema(required = true)]
    ev_roi_1w: Option<f64>,
    #[serde(rename = "ev roi 4W")]
    #[schema(required = true)]
    ev_roi_4w: Option<f64>,
    /// Equals `ev roi`.
    #[serde(rename = "ev roi season")]
    #[schema(required = true)]
    ev_roi_season: Option<f64>,
    #[serde(rename = "bt bets")]
    bt_bets: u64,
    #[serde(rename = "bt wins")]
    bt_wins: u64,
    #[serde(rename = "bt losses")]
    bt_losses: u64,
    /// 4 decimals.
    #[serde(rename = "bt units")]
    bt_units: f64,
}

// ---- tracking ------------------------------------------------------------

/// Where a season's probabilities came from.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ForecastSourceCode {
    Live,
    WalkForward,
    Mixed,
}

/// A model's win rate: `win_pct` is percent 0-100 with one decimal, null
/// when `n` is 0 (or below the payload's minimum sample).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WinPct)]
pub struct WinPctShape {
    #[schema(required = true)]
    win_pct: Option<f64>,
    /// Graded picks (wins + losses).
    n: u64,
}

/// Season, last 4 weeks and last week; each maps a model name to its rate.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = TrackingSnapshot)]
pub struct TrackingSnapshotShape {
    season: HashMap<String, WinPctShape>,
    last_4w: HashMap<String, WinPctShape>,
    last_1w: HashMap<String, WinPctShape>,
}

/// One point of the weekly rolling-4W series.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = WeeklyPoint)]
pub struct WeeklyPointShape {
    /// Last day of the 28-day window.
    week_ending: NaiveDate,
    /// Model name → rate; `win_pct` is null below `min_weekly_sample`.
    models: HashMap<String, WinPctShape>,
}

/// One graded game of the hit/miss matrix.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RecentGame)]
pub struct RecentGameShape {
    #[schema(format = Date)]
    date: String,
    time_est: String,
    away_team: String,
    home_team: String,
    /// Model name → 1 hit, 0 miss, null when the model made no graded pick.
    hits: HashMap<String, Option<u8>>,
}

// ---- team form -----------------------------------------------------------

/// One team's record in the market from its own side: moneyline wins,
/// spread covers, and for totals the overs of its games. A push is no result.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamFormEntry {
    team: String,
    /// Decided games.
    games: u64,
    wins: u64,
    losses: u64,
    /// wins / games, 0 to 1 with 3 decimals.
    win_pct: f64,
    /// The last (up to) 10 results, 1 win / 0 loss, the most recent last.
    last_10: Vec<u8>,
    /// `W` or `L` then the length of the current run, e.g. `W3`.
    streak: String,
    /// The team's next scheduled game on the score tape; null when none.
    #[schema(required = true)]
    next_game_date: Option<NaiveDate>,
}

// ---- rolling and density -------------------------------------------------

/// One point of a rolling curve.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RollingPoint)]
pub struct RollingPointShape {
    date: NaiveDate,
    /// Percent 0-100, one decimal, over the 28 days ending on `date`.
    win_pct: f64,
    /// Graded picks in those 28 days.
    n: u64,
}

/// One season's curves: model name → points, oldest first (dates where the
/// model had no graded pick in the window are skipped).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = RollingSeason)]
pub struct RollingSeasonShape {
    season: String,
    models: HashMap<String, Vec<RollingPointShape>>,
}

/// One cell of the density grid.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = DensityCell)]
pub struct DensityCellShape {
    /// Graded BLEND picks whose probability falls in the bin.
    n: u64,
    /// Share of those picks that hit, 0 to 1 with 4 decimals; null when `n` is 0.
    #[schema(required = true)]
    hit_rate: Option<f64>,
}

// ---- strategies ----------------------------------------------------------

/// How a settled bet ended.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeCode {
    Win,
    Loss,
    Push,
}

/// Why a candidate game is not a bet for a rule.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExclusionReason {
    /// The rule did not fire.
    Pass,
    /// An opener, BLEND or IMPLIED needed by the signal is missing.
    MissingSignal,
    /// The side bet has no valid American price.
    MissingOrInvalidPrice,
    /// `settlement_status` is not `settled` (recorded_v2 only).
    UnverifiedFinal,
}

/// Candidate games a rule did not bet, by reason (recorded_v2).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = Exclusions)]
pub struct ExclusionsShape {
    pass: u64,
    missing_signal: u64,
    missing_or_invalid_price: u64,
    unverified_final: u64,
}

/// One strategy's season-to-date record.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = StrategyEntry)]
pub struct StrategyEntryShape {
    #[schema(value_type = crate::schema::StrategyId)]
    id: String,
    name: String,
    /// `Line`, `Δ Edge` or `Hybrid`.
    signal: String,
    /// 1-based among ranked strategies by ROI descending; null when not ranked.
    #[schema(required = true)]
    rank: Option<u32>,
    wins: u64,
    losses: u64,
    /// `W-L` under legacy_v1, `W-L-P` under recorded_v2.
    record: String,
    /// W / (W + L) in percent, 2 decimals; 0 when `n` is 0.
    win_pct: f64,
    /// Profit / stakes × 100, 2 decimals; null when there is no eligible bet.
    #[schema(required = true)]
    roi: Option<f64>,
    /// Decisive bets: W + L.
    n: u64,
    /// True only when `n` >= `min_sample`.
    ranked: bool,
    /// Profit in units of a one-unit stake, 4 decimals.
    units: f64,
    /// recorded_v2 only.
    pushes: Option<u64>,
    /// recorded_v2 only: every candidate game the rule was evaluated on;
    /// W + L + P + the sum of `exclusions`.
    candidates: Option<u64>,
    /// recorded_v2 only.
    exclusions: Option<ExclusionsShape>,
}

/// One bet of a replay.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ReplayGame)]
pub struct ReplayGameShape {
    /// The game's id, as on every other endpoint ([payloads.md](/docs/payloads.md#game-ids)).
    #[schema(example = "nba-20251104-boston_celtics-new_york_knicks")]
    game_id: String,
    #[schema(format = Date)]
    date: String,
    time_est: String,
    away_team: String,
    home_team: String,
    away_score: f64,
    home_score: f64,
    /// `home`/`away` or `over`/`under`.
    side: String,
    /// The American price the bet settled at.
    price: f64,
    /// The side's opening line (money line, spread or total); null without an opener.
    #[schema(required = true)]
    open_line: Option<f64>,
    /// The side's recorded line.
    #[schema(required = true)]
    close_line: Option<f64>,
    /// Null on a push.
    #[schema(required = true)]
    won: Option<bool>,
    outcome: OutcomeCode,
    profit_units: f64,
    running_units: f64,
}

/// A candidate game the strategy did not bet, with the reason.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(as = ExcludedRow)]
pub struct ExcludedRowShape {
    /// The game's id, as on every other endpoint ([payloads.md](/docs/payloads.md#game-ids)).
    #[schema(example = "nba-20251104-boston_celtics-new_york_knicks")]
    game_id: String,
    #[schema(format = Date)]
    date: String,
    time_est: String,
    away_team: String,
    home_team: String,
    /// The side the rule would have bet; null for `pass` and `missing_signal`.
    #[schema(required = true)]
    side: Option<String>,
    reason: ExclusionReason,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use linecast_grading::{ForecastSource, UngradedReason};
    use linecast_strategies::{Exclusion, Outcome};
    use serde_json::Value;

    use super::*;

    fn json<T: Serialize>(v: &T) -> Value {
        serde_json::to_value(v).unwrap()
    }

    /// Each documented code is the value the pure crate serves for the
    /// variant of the same meaning, pair by pair.
    #[test]
    fn documented_codes_are_the_served_values() {
        let reasons = [
            (UngradedReasonCode::NoFinal, UngradedReason::NoFinal),
            (UngradedReasonCode::NoLine, UngradedReason::NoLine),
            (UngradedReasonCode::Push, UngradedReason::Push),
            (UngradedReasonCode::NoPrediction, UngradedReason::NoPrediction),
        ];
        for (doc, real) in &reasons {
            assert_eq!(json(doc), real.as_str());
        }
        let sources = [
            (ForecastSourceCode::Live, ForecastSource::Live),
            (ForecastSourceCode::WalkForward, ForecastSource::WalkForward),
            (ForecastSourceCode::Mixed, ForecastSource::Mixed),
        ];
        for (doc, real) in &sources {
            assert_eq!(json(doc), json(real));
        }
        let outcomes = [
            (OutcomeCode::Win, Outcome::Win),
            (OutcomeCode::Loss, Outcome::Loss),
            (OutcomeCode::Push, Outcome::Push),
        ];
        for (doc, real) in &outcomes {
            assert_eq!(json(doc), json(real));
        }
        let exclusions = [
            (ExclusionReason::Pass, Exclusion::Pass),
            (ExclusionReason::MissingSignal, Exclusion::MissingSignal),
            (ExclusionReason::MissingOrInvalidPrice, Exclusion::MissingOrInvalidPrice),
            (ExclusionReason::UnverifiedFinal, Exclusion::UnverifiedFinal),
        ];
        for (doc, real) in &exclusions {
            assert_eq!(json(doc), json(real));
        }
    }
}
