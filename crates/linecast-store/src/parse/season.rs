//! `seasons/{sport}/{model_type}/{season}.csv`: the season store.

use std::collections::HashMap;

use linecast_domain::artifacts::{KEY_COLUMNS, SeasonTable};
use linecast_domain::row::SEASON_TEXT_COLUMNS;
use linecast_domain::{
    GameId, GameKey, LineField, ModelColumn, ModelType, Provenance, SeasonLabel, SeasonRow, SeasonType, Sport,
};

use super::odds::{line_columns, read_lines};
use super::predictions::{extra_columns, model_columns, read_extras, read_models};
use super::problems::Problems;
use super::scores::season_label;
use super::sheet::{Sheet, number_games};

/// Column named in a duplicate-key problem.
const KEY_COLUMN_LIST: &str = "date,time_est,away_team,home_team";

/// Parses a season store. Every row's `season` must equal `season` (the
/// label in the object key) and game keys must be unique. All line columns
/// are read whatever the model type; `0` openers are kept as 0.0 (the
/// serving layer suppresses that placeholder).
#[expect(
    clippy::many_single_char_names,
    reason = "one short name per cell keeps the row readable"
)]
pub fn season(
    sport: Sport,
    model_type: ModelType,
    season: SeasonLabel,
    bytes: &[u8],
    problems: &mut Problems,
) -> Option<SeasonTable> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let key = sheet.key_columns(problems);
    let season_col = sheet.require("season", problems);
    let season_type = sheet.require("season_type", problems);
    let (key, season_col, season_type) = (key?, season_col?, season_type?);
    let away_score = sheet.column("away_score");
    let home_score = sheet.column("home_score");
    let outcome = sheet.column(model_type.outcome_column());
    let lines = line_columns(&sheet, &LineField::ALL);
    let models = model_columns(&sheet);
    let [
        quote,
        settlement,
        prob_source,
        training,
        method,
        forecast_source,
        forecast_run,
        published,
    ] = SEASON_TEXT_COLUMNS.map(|n| sheet.column(n));
    let outcome_name = model_type.outcome_column();
    let extras = extra_columns(sheet.headers(), |name| {
        KEY_COLUMNS.contains(&name)
            || matches!(name, "season" | "season_type" | "away_score" | "home_score")
            || name == outcome_name
            || SEASON_TEXT_COLUMNS.contains(&name)
            || LineField::parse(name).is_some()
            || ModelColumn::parse(name).is_ok()
    });
    let columns = sheet.headers().to_vec();
    let mut rows = Vec::new();
    let mut seen: HashMap<GameKey, usize> = HashMap::new();
    sheet.each_row(problems, |c| {
        let k = c.key(&key);
        let s = season_label(c, sport, season_col);
        if let Some(s) = s
            && s != season
        {
            c.fail(
                "season",
                format!("row season '{s}' differs from the object's season '{season}'"),
            );
        }
        let t = c.text(season_type).map(SeasonType::parse);
        let away = c.number(away_score);
        let home = c.number(home_score);
        let stored_outcome = c.outcome(outcome);
        let l = read_lines(c, &lines);
        let m = read_models(c, &models);
        let provenance = Provenance {
            model_probability_source: c.opt_text(prob_source),
            forecast_source: c.opt_text(forecast_source),
            forecast_run: c.opt_text(forecast_run),
            forecast_published_at: c.opt_timestamp_text(published),
            model_training_through: c.opt_date_text(training),
            model_reconstruction_method: c.opt_text(method),
        };
        let quote_source = c.opt_text(quote);
        let settlement_status = c.opt_text(settlement);
        let x = read_extras(c, &extras);
        let (Some(key), Some(season_type), true) = (k, t, c.ok()) else {
            return;
        };
        if let Some(first) = seen.get(&key) {
            c.fail(KEY_COLUMN_LIST, format!("duplicate game key (first at row {first})"));
            return;
        }
        seen.insert(key.clone(), c.row());
        rows.push(SeasonRow {
            key,
            game_id: GameId::default(),
            season,
            season_type,
            away_score: away,
            home_score: home,
            stored_outcome,
            lines: l,
            models: m,
            quote_source,
            settlement_status,
            provenance,
            extras: x,
        });
    });
    number_games(sport, &mut rows, |r| &r.key, |r| &mut r.game_id);
    Some(SeasonTable {
        sport,
        model_type,
        season,
        columns,
        rows,
    })
}
