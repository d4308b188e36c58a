//! The JSON shapes of the slate: predictions, odds and the public pick feed,
//! with their formats (American prices, spread points, pick labels) and
//! rounding. Built from what `linecast_core::services::slate` returns; the
//! pick rule, the served columns and EV are decided there, not here.

use linecast_core::services::slate::{
    OddsSlate, PredictionSlate, PublicPick, PublicSlate, expected_values, model_probability, scheduled_start,
    started_at,
};
use linecast_domain::artifacts::{PredictionRow, TeamRow, TeamTable};
use linecast_domain::{LineField, ModelColumn, ModelType, Side};
use serde::Serialize;
use utoipa::ToSchema;

use crate::rounding::{round2, round4};
use crate::schema::{ModelProbabilities, NamedNumbers};

/// One game. Besides the fields below, each game carries its market's line
/// fields: over_under: `over_under, over_line, under_line, open_over_under,
/// ev_pos, ev_neg`; won_on_spread: `away_point_spread, home_point_spread,
/// away_point_spread_line, home_point_spread_line, open_away_point_spread,
/// open_home_point_spread, ev_away_spread, ev_home_spread`; won_on_points:
/// `away_money_line, home_money_line, open_away_money_line,
/// open_home_money_line, ev_away_ml, ev_home_ml`. Openers are null when no
/// real opener exists; EV is percent, null without a valid price.
#[derive(Debug, Serialize, ToSchema)]
pub struct PredictionGame {
    /// The game's id, the same on every endpoint and in every release
    /// (`{sport}-{YYYYMMDD}-{away_slug}-{home_slug}`, `-2` for a
    /// doubleheader's second game; [payloads.md](/docs/payloads.md#game-ids)).
    #[schema(example = "mlb-20261011-athletics-chicago_white_sox")]
    pub game_id: String,
    /// `YYYY-MM-DD` (ET).
    #[schema(format = Date)]
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    /// Team slug.
    pub away_team: String,
    /// Team slug.
    pub home_team: String,
    /// Model column to probability of the positive side (home, or over):
    /// every column of `models_used`, null where the artifact's cell is
    /// empty; IMPLIED is recomputed from the game's current prices.
    pub predictions: ModelProbabilities,
    #[serde(flatten)]
    pub lines: PredictionLines,
}

/// The predictions payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct PredictionsResponse {
    pub sport: String,
    pub model_type: String,
    /// Publication time of the predictions artifact (RFC 3339 UTC with every
    /// digit to the microsecond: passed back as `as_of`, it reads this
    /// version's release).
    #[schema(format = DateTime, example = "2026-11-20T13:58:02.114207Z")]
    pub predictions_date: String,
    /// Sorted by date then ET time.
    pub games: Vec<PredictionGame>,
    /// The model columns every game's `predictions` carries, in catalog
    /// order: IMPLIED (always) and the artifact's columns.
    pub models_used: Vec<String>,
    /// With `as_of` only: the kept release the answer comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<ReleaseStamp>,
}

/// The kept release an `as_of` answer was read from.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReleaseStamp {
    /// When the release was published (the object's last-modified time,
    /// RFC 3339 UTC with its fraction of a second: given back as `as_of`,
    /// it reads this release).
    #[schema(format = DateTime, example = "2026-11-20T13:58:02.114Z")]
    pub published_at: String,
    /// SHA-256 of the release's bytes, lowercase hex: the same bytes are
    /// the same digest on every instance.
    #[schema(example = "9f2c4e0b4f6a1d3e8b7c5a6d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f")]
    pub digest: String,
}

impl From<&linecast_core::ports::releases::KeptRelease> for ReleaseStamp {
    fn from(release: &linecast_core::ports::releases::KeptRelease) -> Self {
        Self {
            // Every digit kept: the instant is exact, so passing it back as
            // `as_of` reads this very release.
            published_at: crate::time::exact(release.published_at),
            digest: release.digest.clone(),
        }
    }
}

/// The line, opener and EV fields of one prediction game: exactly the
/// fields of its model type, in contract order (current lines, openers,
/// then EV of the negative and the positive side).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct PredictionLines(pub NamedNumbers);

/// What each served line field holds, for the schema: every field of every
/// model type, with the model type that serves it.
const LINE_FIELD_DOCS: [(&str, &str); 20] = [
    ("over_under", "over_under: the current total"),
    ("over_line", "over_under: American price of the over"),
    ("under_line", "over_under: American price of the under"),
    (
        "open_over_under",
        "over_under: the opening total; null when no real opener exists",
    ),
    (
        "ev_neg",
        "over_under: EV of the under in percent (1 − BLEND at under_line); null without a valid price",
    ),
    (
        "ev_pos",
        "over_under: EV of the over in percent (BLEND at over_line); null without a valid price",
    ),
    ("away_point_spread", "won_on_spread: the away team's current spread"),
    ("home_point_spread", "won_on_spread: the home team's current spread"),
    (
        "away_point_spread_line",
        "won_on_spread: American price of the away spread",
    ),
    (
        "home_point_spread_line",
        "won_on_spread: American price of the home spread",
    ),
    (
        "open_away_point_spread",
        "won_on_spread: the away team's opening spread; null when no real opener exists",
    ),
    (
        "open_home_point_spread",
        "won_on_spread: the home team's opening spread; null when no real opener exists",
    ),
    (
        "ev_away_spread",
        "won_on_spread: EV of the away spread in percent; null without a valid price",
    ),
    (
        "ev_home_spread",
        "won_on_spread: EV of the home spread in percent; null without a valid price",
    ),
    (
        "away_money_line",
        "won_on_points: American moneyline price of the away team",
    ),
    (
        "home_money_line",
        "won_on_points: American moneyline price of the home team",
    ),
    (
        "open_away_money_line",
        "won_on_points: the away team's opening moneyline; null when no real opener exists",
    ),
    (
        "open_home_money_line",
        "won_on_points: the home team's opening moneyline; null when no real opener exists",
    ),
    (
        "ev_away_ml",
        "won_on_points: EV of the away moneyline in percent; null without a valid price",
    ),
    (
        "ev_home_ml",
        "won_on_points: EV of the home moneyline in percent; null without a valid price",
    ),
];

impl utoipa::PartialSchema for PredictionLines {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        let mut object = ObjectBuilder::new().schema_type(Type::Object).description(Some(
            "The market's line fields of one game: exactly the fields of its model type (current lines, \
openers, then EV of the negative and the positive side), each a number or null.",
        ));
        for (name, description) in LINE_FIELD_DOCS {
            object = object.property(
                name,
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Number, Type::Null]))
                    .description(Some(description)),
            );
        }
        object.into()
    }
}

impl ToSchema for PredictionLines {}

/// The current and opening line fields of one public-feed game: exactly
/// the fields of its market, in contract order (no EV on the free feed).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct PickLines(pub NamedNumbers);

impl utoipa::PartialSchema for PickLines {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
        let mut object = ObjectBuilder::new().schema_type(Type::Object).description(Some(
            "The market's current and opening line fields: exactly the fields of the feed's market, each a \
number or null.",
        ));
        for (name, description) in LINE_FIELD_DOCS.iter().filter(|(name, _)| !name.starts_with("ev_")) {
            object = object.property(
                *name,
                ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Number, Type::Null]))
                    .description(Some(*description)),
            );
        }
        object
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .into()
    }
}

impl ToSchema for PickLines {}

/// One game's current odds. Prices are American; null when not offered.
#[derive(Debug, Serialize, ToSchema)]
pub struct OddsGame {
    /// The game's id, the same on every endpoint and in every release
    /// (`{sport}-{YYYYMMDD}-{away_slug}-{home_slug}`, `-2` for a
    /// doubleheader's second game; [payloads.md](/docs/payloads.md#game-ids)).
    #[schema(example = "mlb-20261011-athletics-chicago_white_sox")]
    pub game_id: String,
    /// The odds feed's own id of the game.
    pub match_id: String,
    #[schema(format = Date)]
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    pub away_team: String,
    pub home_team: String,
    pub away_point_spread: Option<f64>,
    pub away_point_spread_line: Option<f64>,
    pub home_point_spread: Option<f64>,
    pub home_point_spread_line: Option<f64>,
    pub away_money_line: Option<f64>,
    pub home_money_line: Option<f64>,
    pub over_under: Option<f64>,
    pub over_line: Option<f64>,
    pub under_line: Option<f64>,
    /// `YYYY-MM-DD HH:MM:SS` (UTC).
    pub last_updated: String,
    /// The scheduled start as a UTC instant (RFC 3339), from `date` and
    /// `time` (ET).
    #[schema(format = DateTime, example = "2026-11-21T00:30:00Z")]
    pub starts_at: Option<String>,
    /// True once the scheduled start has passed (judged at the request, or
    /// at `as_of`): a started game's prices are not a pre-game quote.
    pub started: bool,
}

/// The odds payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct OddsResponse {
    pub sport: String,
    /// The served slate date (`YYYY-MM-DD`, ET).
    #[schema(format = Date)]
    pub date: String,
    /// Sorted by date then ET time.
    pub games: Vec<OddsGame>,
    /// Newest `last_updated` of the games, `YYYY-MM-DD HH:MM:SS` (UTC); null with no games.
    pub last_updated: Option<String>,
    /// With `as_of` only: the kept release the answer comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<ReleaseStamp>,
}

pub(crate) const FREE_NOTE: &str = "Only free predictions are included in this public feed. Paid workflows (all model columns, odds, results, summaries, strategies and account tooling) need a paid API plan and an API key.";

/// One game of the public feed.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicPickGame {
    /// The game's id, the same on every endpoint and in every release
    /// (`{sport}-{YYYYMMDD}-{away_slug}-{home_slug}`, `-2` for a
    /// doubleheader's second game; [payloads.md](/docs/payloads.md#game-ids)).
    #[schema(example = "mlb-20261011-athletics-chicago_white_sox")]
    pub game_id: String,
    /// `YYYY-MM-DD` (ET).
    #[schema(format = Date)]
    pub date: String,
    /// `HH:MM:SS` ET.
    pub time: String,
    /// Display name.
    pub away_team: String,
    /// Display name.
    pub home_team: String,
    /// Display label of the picked side and market, e.g. `Boston Celtics ML`, `Over 224.5`.
    pub pick: String,
    /// `home`, `away`, `over`, `under`, or `none` when BLEND is exactly 0.5.
    pub pick_side: String,
    /// BLEND probability of the positive side (home, or over).
    pub blend_probability: f64,
    /// The picked side's BLEND probability (0.5 to 1).
    pub confidence: f64,
    /// Short line summary, e.g. `COL +115`, `Over 8.5 (-110)`.
    pub market_line: String,
    /// The picked side's no-vig probability; null with a one-sided price.
    pub implied_probability: Option<f64>,
    /// The market's current and opening line fields; openers null when no real opener exists.
    pub lines: PickLines,
    /// Model column to probability of the positive side: every column of
    /// `models_used`, null where empty; IMPLIED from the current prices.
    pub models: ModelProbabilities,
}

/// The public feed.
#[derive(Debug, Serialize, ToSchema)]
pub struct PublicPicksResponse {
    pub sport: String,
    /// `over_under`, `moneyline` or `spread`.
    pub market: String,
    pub model_type: String,
    /// Publication time of the predictions artifact (RFC 3339 UTC with every
    /// digit to the microsecond: passed back as `as_of`, it reads this
    /// version's release).
    #[schema(format = DateTime, example = "2026-11-20T13:58:02.114207Z")]
    pub predictions_date: String,
    /// Sorted by date then ET time.
    pub games: Vec<PublicPickGame>,
    /// The model columns every game's `models` carries: IMPLIED and the artifact's, in catalog order.
    pub models_used: Vec<String>,
    pub note: String,
}

/// `+115`, `-110`; one decimal only when the price has one.
pub(crate) fn fmt_american(price: f64) -> String {
    let body = if price.fract() == 0.0 {
        format!("{}", price.abs() as i64)
    } else {
        format!("{:.1}", price.abs())
    };
    if price > 0.0 {
        format!("+{body}")
    } else {
        format!("-{body}")
    }
}

/// `+3`, `-1.5`; `PK` for a pick'em spread.
pub(crate) fn fmt_points(points: f64) -> String {
    if points == 0.0 {
        "PK".to_owned()
    } else if points > 0.0 {
        format!("+{points}")
    } else {
        format!("{points}")
    }
}

/// `predictions` / `models` of one game: every served column, the
/// artifact's cells as they are and IMPLIED at 6 decimals (as on result rows).
pub(crate) fn probabilities(row: &PredictionRow, model_type: ModelType, columns: &[ModelColumn]) -> ModelProbabilities {
    let mut named = Vec::with_capacity(columns.len());
    for column in columns {
        let mut value = model_probability(row, model_type, *column);
        if *column == ModelColumn::Implied {
            value = value.map(crate::rounding::implied);
        }
        named.push((column.code(), value));
    }
    ModelProbabilities(NamedNumbers(named))
}

/// The market's current and opening line fields, in contract order.
fn line_fields(row: &PredictionRow, model_type: ModelType) -> Vec<(&'static str, Option<f64>)> {
    let names = model_type.line_fields().iter().chain(model_type.open_fields());
    let mut lines = Vec::with_capacity(names.clone().count() + 2);
    for name in names {
        if let Some(field) = LineField::parse(name) {
            lines.push((*name, row.lines.served(field)));
        }
    }
    lines
}

pub fn prediction_game(row: &PredictionRow, model_type: ModelType, columns: &[ModelColumn]) -> PredictionGame {
    let mut lines = line_fields(row, model_type);
    let (neg, pos) = expected_values(row, model_type);
    let (neg_name, pos_name) = model_type.ev_fields();
    lines.push((neg_name, neg.map(round2)));
    lines.push((pos_name, pos.map(round2)));
    PredictionGame {
        game_id: row.game_id.to_string(),
        date: row.key.date_string(),
        time: row.key.time_string(),
        away_team: row.key.away_team.to_string(),
        home_team: row.key.home_team.to_string(),
        predictions: probabilities(row, model_type, columns),
        lines: PredictionLines(NamedNumbers(lines)),
    }
}

impl From<&PredictionSlate> for PredictionsResponse {
    fn from(slate: &PredictionSlate) -> Self {
        let columns = slate.models();
        let games = slate
            .games()
            .into_iter()
            .map(|row| prediction_game(row, slate.model_type, &columns))
            .collect();
        Self {
            sport: slate.sport.code().to_owned(),
            model_type: slate.model_type.code().to_owned(),
            predictions_date: crate::time::exact(slate.predictions.version.last_modified),
            games,
            models_used: columns.iter().map(|m| m.code().to_owned()).collect(),
            release: slate.release.as_ref().map(ReleaseStamp::from),
        }
    }
}

const STAMP: &str = "%Y-%m-%d %H:%M:%S";

impl From<&OddsSlate> for OddsResponse {
    fn from(slate: &OddsSlate) -> Self {
        let games = slate
            .games()
            .into_iter()
            .map(|r| {
                let l = &r.lines;
                OddsGame {
                    game_id: r.game_id.to_string(),
                    match_id: r.match_id.clone(),
                    date: r.key.date_string(),
                    time: r.key.time_string(),
                    away_team: r.key.away_team.to_string(),
                    home_team: r.key.home_team.to_string(),
                    away_point_spread: l.get(LineField::AwayPointSpread),
                    away_point_spread_line: l.get(LineField::AwayPointSpreadLine),
                    home_point_spread: l.get(LineField::HomePointSpread),
                    home_point_spread_line: l.get(LineField::HomePointSpreadLine),
                    away_money_line: l.get(LineField::AwayMoneyLine),
                    home_money_line: l.get(LineField::HomeMoneyLine),
                    over_under: l.get(LineField::OverUnder),
                    over_line: l.get(LineField::OverLine),
                    under_line: l.get(LineField::UnderLine),
                    last_updated: r.last_updated.format(STAMP).to_string(),
                    starts_at: scheduled_start(&r.key).map(crate::time::rfc3339),
                    started: started_at(&r.key, slate.judged_at),
                }
            })
            .collect();
        Self {
            sport: slate.sport.code().to_owned(),
            date: slate.slate_date.format("%Y-%m-%d").to_string(),
            games,
            last_updated: slate.last_updated().map(|t| t.format(STAMP).to_string()),
            release: slate.release.as_ref().map(ReleaseStamp::from),
        }
    }
}

/// Display names from the league's team table; without one (the table is
/// missing from the store), every team is served by its slug.
struct Names<'a> {
    teams: Option<&'a TeamTable>,
}

impl Names<'_> {
    fn find(&self, slug: &str) -> Option<&TeamRow> {
        self.teams.and_then(|t| t.find(slug))
    }

    fn display(&self, slug: &str) -> String {
        self.find(slug).map_or_else(
            || {
                tracing::warn!(team = slug, "team missing from the team table; serving its slug");
                slug.to_owned()
            },
            |t| t.display_name.clone(),
        )
    }

    fn abbreviation(&self, slug: &str) -> String {
        self.find(slug)
            .map_or_else(|| slug.to_ascii_uppercase(), |t| t.abbreviation.clone())
    }
}

/// `(pick, market_line)` of a pick: `Boston Celtics ML` / `BOS -150`,
/// `Boston Celtics -3.5` / `BOS -3.5 (-110)`, `Over 224.5` / `Over 224.5 (-110)`.
fn labels(pick: &PublicPick<'_>, model_type: ModelType, names: &Names<'_>) -> (String, String) {
    let (Some(side), team) = (pick.side, pick.team()) else {
        return ("No pick".to_owned(), "No pick (BLEND 0.50)".to_owned());
    };
    let price_text = pick.price.map(fmt_american);
    let with_price = |mut line: String| {
        if let Some(p) = &price_text {
            line.push_str(" (");
            line.push_str(p);
            line.push(')');
        }
        line
    };
    let team = team.unwrap_or_default();
    match model_type {
        ModelType::WonOnPoints => (
            format!("{} ML", names.display(team)),
            format!(
                "{} {}",
                names.abbreviation(team),
                price_text.clone().unwrap_or_else(|| "ML".to_owned())
            ),
        ),
        ModelType::WonOnSpread => {
            let pts = pick.points.map_or_else(|| "spread".to_owned(), fmt_points);
            (
                format!("{} {pts}", names.display(team)),
                with_price(format!("{} {pts}", names.abbreviation(team))),
            )
        }
        ModelType::OverUnder => {
            let word = if side == Side::Positive { "Over" } else { "Under" };
            let total = pick.points.map_or_else(|| "total".to_owned(), |t| t.to_string());
            (format!("{word} {total}"), with_price(format!("{word} {total}")))
        }
    }
}

fn public_game(
    pick: &PublicPick<'_>,
    model_type: ModelType,
    columns: &[ModelColumn],
    names: &Names<'_>,
) -> PublicPickGame {
    let row = pick.row;
    let (label, market_line) = labels(pick, model_type, names);
    PublicPickGame {
        game_id: row.game_id.to_string(),
        date: row.key.date_string(),
        time: row.key.time_string(),
        away_team: names.display(&row.key.away_team),
        home_team: names.display(&row.key.home_team),
        pick: label,
        pick_side: pick.side.map_or("none", |side| model_type.side_label(side)).to_owned(),
        blend_probability: pick.blend,
        confidence: round4(pick.confidence),
        market_line,
        implied_probability: pick.implied.map(round4),
        lines: PickLines(NamedNumbers(line_fields(row, model_type))),
        models: probabilities(row, model_type, columns),
    }
}

impl From<&PublicSlate> for PublicPicksResponse {
    fn from(feed: &PublicSlate) -> Self {
        let slate = &feed.slate;
        let columns = slate.models();
        let names = Names {
            teams: feed.teams.as_ref().map(|t| t.value.as_ref()),
        };
        let games = feed
            .picks()
            .iter()
            .map(|pick| public_game(pick, slate.model_type, &columns, &names))
            .collect();
        Self {
            sport: slate.sport.code().to_owned(),
            market: feed.market.code().to_owned(),
            model_type: slate.model_type.code().to_owned(),
            predictions_date: crate::time::exact(slate.predictions.version.last_modified),
            games,
            models_used: columns.iter().map(|m| m.code().to_owned()).collect(),
            note: FREE_NOTE.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_and_points_format_like_a_sportsbook() {
        assert_eq!(fmt_american(115.0), "+115");
        assert_eq!(fmt_american(-110.0), "-110");
        assert_eq!(fmt_points(-1.5), "-1.5");
        assert_eq!(fmt_points(3.0), "+3");
        assert_eq!(fmt_points(0.0), "PK");
    }
}
