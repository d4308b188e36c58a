//! Season stores (`seasons/{sport}/{model_type}/{season}.csv`) and the
//! downloadable historical datasets (`datasets/{sport}/*.csv`).

use linecast_domain::odds::no_vig_from_raw;
use linecast_domain::row::SEASON_TEXT_COLUMNS;
use linecast_domain::{LineField, ModelColumn, ModelType, Sport};

use super::League;
use crate::csvw::Csv;
use crate::season::{Game, model_index};

/// Contract order of the model columns in a season store (AI is appended when present).
const STORE_MODELS: [ModelColumn; 8] = [
    ModelColumn::Blend,
    ModelColumn::Implied,
    ModelColumn::Catb,
    ModelColumn::Rf,
    ModelColumn::Lgb,
    ModelColumn::Logr,
    ModelColumn::Xgb,
    ModelColumn::Xt,
];

/// Columns no contract names; consumers must keep them verbatim.
const EXTRAS: [&str; 2] = ["home_rest_days", "travel_km"];

/// The stored binary outcome: 1 when the positive side won, 0 otherwise
/// (a push reads 0), empty without a final or without the market's line.
pub(crate) fn outcome(game: &Game, model_type: ModelType) -> Option<u8> {
    let (h, a) = (f64::from(game.home_score?), f64::from(game.away_score?));
    let l = &game.lines;
    let won = match model_type {
        ModelType::WonOnPoints => {
            l.home_money_line.or(l.away_money_line)?;
            h > a
        }
        ModelType::WonOnSpread => h + l.home_point_spread? > a,
        ModelType::OverUnder => h + a > l.over_under?,
    };
    Some(u8::from(won))
}

/// IMPLIED as the pipeline stores it: no-vig probability of both recorded prices.
pub(crate) fn implied(game: &Game, model_type: ModelType) -> Option<f64> {
    let (pos, neg) = game.lines.side_prices(model_type);
    no_vig_from_raw(pos, neg).map(crate::sim::round4)
}

fn model_cell(csv: &mut Csv, game: &Game, model_type: ModelType, column: ModelColumn) {
    if column == ModelColumn::Implied {
        // Stored only beside a prediction, as the pipeline does.
        let value = game.models[model_index(model_type)].and(implied(game, model_type));
        csv.prob(value);
    } else {
        csv.prob(game.models[model_index(model_type)].and_then(|m| m.get(column)));
    }
}

pub(crate) fn season_store(games: &[Game], model_type: ModelType) -> Vec<u8> {
    let with_ai = games
        .iter()
        .any(|g| g.models[model_index(model_type)].is_some_and(|m| m.get(ModelColumn::Ai).is_some()));
    let mut header: Vec<&str> = vec![
        "date",
        "time_est",
        "season",
        "season_type",
        "away_team",
        "home_team",
        "away_score",
        "home_score",
        model_type.outcome_column(),
    ];
    header.extend(LineField::ALL.iter().map(|f| f.name()));
    header.extend(STORE_MODELS.iter().map(|c| c.code()));
    if with_ai {
        header.push(ModelColumn::Ai.code());
    }
    header.extend(SEASON_TEXT_COLUMNS);
    header.extend(EXTRAS);
    let mut csv = Csv::new(&header);
    let mut rows: Vec<&Game> = games.iter().filter(|g| g.in_store).collect();
    rows.sort_by(|a, b| a.key.cmp(&b.key));
    for g in rows {
        key_cells(&mut csv, g);
        csv.cell(&outcome(g, model_type).map(|o| o.to_string()).unwrap_or_default());
        for f in LineField::ALL {
            csv.line(g.lines.get(f));
        }
        for c in STORE_MODELS {
            model_cell(&mut csv, g, model_type, c);
        }
        if with_ai {
            model_cell(&mut csv, g, model_type, ModelColumn::Ai);
        }
        let p = &g.provenance;
        csv.opt(g.quote_source);
        csv.opt(g.settlement);
        for v in [
            &p.model_probability_source,
            &p.model_training_through,
            &p.model_reconstruction_method,
            &p.forecast_source,
            &p.forecast_run,
            &p.forecast_published_at,
        ] {
            csv.opt(v.as_deref());
        }
        csv.int(Some(g.rest_days));
        csv.int(Some(g.travel_km));
        csv.end_row();
    }
    csv.into_bytes()
}

fn key_cells(csv: &mut Csv, g: &Game) {
    csv.cell(&g.key.date_string());
    csv.cell(&g.key.time_string());
    csv.cell(&g.season.to_string());
    csv.cell(g.phase.as_str());
    csv.cell(&g.key.away_team);
    csv.cell(&g.key.home_team);
    csv.int(g.away_score);
    csv.int(g.home_score);
}

/// Filenames of a league's datasets, with whether a refresh may re-sign them.
pub(crate) fn dataset_files(sport: Sport) -> Vec<(String, bool)> {
    let mut files = vec![(format!("{sport}_history.csv"), true)];
    if sport == Sport::Nba {
        files.push(("nba_closing_lines.csv".to_owned(), false));
    }
    files
}

/// `{sport}_history.csv`: every stored game of every season with the season
/// store columns of all three model types joined on the game key; nba also
/// gets a closing-lines file that is sold but not refreshable.
pub(crate) fn datasets(league: &League) -> Vec<(String, Vec<u8>)> {
    let mut games: Vec<&Game> = league.seasons.iter().flatten().filter(|g| g.in_store).collect();
    games.sort_by(|a, b| a.key.cmp(&b.key));
    let mut header: Vec<String> = [
        "date",
        "time_est",
        "season",
        "season_type",
        "away_team",
        "home_team",
        "away_score",
        "home_score",
    ]
    .map(String::from)
    .to_vec();
    header.extend(ModelType::ALL.iter().map(|m| m.outcome_column().to_owned()));
    header.extend(LineField::ALL.iter().map(|f| f.name().to_owned()));
    for mt in ModelType::ALL {
        header.extend(STORE_MODELS.iter().map(|c| format!("{mt}_{c}")));
    }
    header.extend(["quote_source", "settlement_status", "model_probability_source"].map(String::from));
    let mut csv = Csv::new(&header);
    for g in &games {
        key_cells(&mut csv, g);
        for mt in ModelType::ALL {
            csv.cell(&outcome(g, *mt).map(|o| o.to_string()).unwrap_or_default());
        }
        for f in LineField::ALL {
            csv.line(g.lines.get(f));
        }
        for mt in ModelType::ALL {
            for c in STORE_MODELS {
                model_cell(&mut csv, g, *mt, c);
            }
        }
        csv.opt(g.quote_source);
        csv.opt(g.settlement);
        csv.opt(g.provenance.model_probability_source.as_deref());
        csv.end_row();
    }
    let mut out = vec![(format!("{}_history.csv", league.sport), csv.into_bytes())];
    if league.sport == Sport::Nba {
        let mut header = vec!["date", "time_est", "away_team", "home_team"];
        header.extend(LineField::ALL.iter().map(|f| f.name()));
        let mut csv = Csv::new(&header);
        for g in &games {
            csv.cell(&g.key.date_string());
            csv.cell(&g.key.time_string());
            csv.cell(&g.key.away_team);
            csv.cell(&g.key.home_team);
            for f in LineField::ALL {
                csv.line(g.lines.get(f));
            }
            csv.end_row();
        }
        out.push(("nba_closing_lines.csv".to_owned(), csv.into_bytes()));
    }
    out
}
