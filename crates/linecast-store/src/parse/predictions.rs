//! `predictions/{sport}/{model_type}.csv`: the current predictions of one
//! model type.

use std::sync::Arc;

use linecast_domain::artifacts::{KEY_COLUMNS, PredictionRow, PredictionTable};
use linecast_domain::{GameId, LineField, ModelColumn, ModelProbs, ModelType, Sport};

use super::odds::{line_columns, read_lines, refuse_impossible};
use super::problems::Problems;
use super::sheet::{Cells, Col, Sheet, number_games};

/// Parses a prediction artifact.
///
/// Only the current and opening line fields of `model_type` are read; line
/// columns of other model types are known contract columns and are ignored
/// (not kept as extras). A `0` in an opening column is kept as 0.0 here:
/// suppressing that placeholder is the serving layer's job.
pub fn predictions(
    sport: Sport,
    model_type: ModelType,
    bytes: &[u8],
    problems: &mut Problems,
) -> Option<PredictionTable> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let key = sheet.key_columns(problems);
    let blend = sheet.require(ModelColumn::Blend.code(), problems);
    let (key, blend) = (key?, blend?);
    let fields: Vec<LineField> = model_type
        .line_fields()
        .iter()
        .chain(model_type.open_fields())
        .filter_map(|n| LineField::parse(n))
        .collect();
    let lines = line_columns(&sheet, &fields);
    let models = model_columns(&sheet);
    let models_present = models.iter().map(|(m, _)| *m).collect();
    let extras = extra_columns(sheet.headers(), |name| {
        KEY_COLUMNS.contains(&name) || LineField::parse(name).is_some() || ModelColumn::parse(name).is_ok()
    });
    let mut rows = Vec::new();
    sheet.each_row(problems, |c| {
        let k = c.key(&key);
        let l = read_lines(c, &lines);
        refuse_impossible(c, sport, &lines, &l);
        let m = read_models(c, &models);
        if m.get(ModelColumn::Blend).is_none() && c.ok() {
            c.fail(blend.name, "required value is empty");
        }
        let x = read_extras(c, &extras);
        if let (Some(key), true) = (k, c.ok()) {
            rows.push(PredictionRow {
                key,
                game_id: GameId::default(),
                lines: l,
                models: m,
                extras: x,
            });
        }
    });
    number_games(sport, &mut rows, |r| &r.key, |r| &mut r.game_id);
    Some(PredictionTable {
        sport,
        model_type,
        models_present,
        rows,
    })
}

/// The model probability columns present, in catalog order.
pub fn model_columns(sheet: &Sheet<'_>) -> Vec<(ModelColumn, Col)> {
    ModelColumn::ALL
        .iter()
        .filter_map(|&m| sheet.column(m.code()).map(|c| (m, c)))
        .collect()
}

pub fn read_models(c: &mut Cells<'_>, cols: &[(ModelColumn, Col)]) -> ModelProbs {
    let mut probs = ModelProbs::default();
    for &(model, col) in cols {
        probs.set(model, c.probability(Some(col)));
    }
    probs
}

/// Indexes and names of the header columns `known` does not claim, in order.
pub fn extra_columns(headers: &[Arc<str>], known: impl Fn(&str) -> bool) -> Vec<(usize, Arc<str>)> {
    headers
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.is_empty() && !known(h))
        .map(|(i, h)| (i, Arc::clone(h)))
        .collect()
}

/// The raw values of the extra columns, empty cells kept as "".
pub fn read_extras(c: &Cells<'_>, extras: &[(usize, Arc<str>)]) -> Vec<(Arc<str>, String)> {
    extras
        .iter()
        .map(|(i, name)| (Arc::clone(name), c.at(*i).to_owned()))
        .collect()
}
