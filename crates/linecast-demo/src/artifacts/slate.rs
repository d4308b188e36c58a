//! The release artifacts: predictions per model type and odds as a release
//! at an instant carries them (see `market.rs`), and the prediction-market
//! snapshot (games of today and tomorrow, professional leagues only).

use chrono::{DateTime, Utc};
use linecast_domain::{LineField, ModelColumn, ModelType, Sport};

use super::{League, line_value};
use crate::csvw::Csv;
use crate::rng::{Rng, fnv};
use crate::season::Game;
use crate::season::{has_ai, model_index};
use crate::teams::roster;

/// The one prediction artifact that carries columns no contract names.
fn has_extra_columns(sport: Sport, model_type: ModelType) -> bool {
    sport == Sport::Nba && model_type == ModelType::WonOnSpread
}

/// The predictions release of `model_type` at `t`: every game the release
/// carries that has a prediction, its current lines, its openers (the
/// game's first release) and its model columns at `t`.
pub(crate) fn predictions(league: &League, model_type: ModelType, t: DateTime<Utc>) -> Vec<u8> {
    let mi = model_index(model_type);
    let with_ai = has_ai(league.sport, model_type);
    let extras = has_extra_columns(league.sport, model_type);
    let mut header: Vec<&str> = vec!["date", "time_est", "away_team", "home_team"];
    header.extend(model_type.line_fields());
    header.extend(model_type.open_fields());
    let mut models = vec![ModelColumn::Blend];
    models.extend(ModelColumn::INDIVIDUAL);
    if with_ai {
        models.push(ModelColumn::Ai);
    }
    header.extend(models.iter().map(|m| m.code()));
    if extras {
        header.extend(["home_rest_days", "travel_km"]);
    }
    let mut csv = Csv::new(&header);
    for (g, snap) in league.carried(t) {
        let Some(probs) = snap.models[mi] else { continue };
        csv.cell(&g.key.date_string());
        csv.cell(&g.key.time_string());
        csv.cell(&g.key.away_team);
        csv.cell(&g.key.home_team);
        for f in model_type.line_fields() {
            csv.line(LineField::parse(f).and_then(|f| snap.lines.get(f)));
        }
        for f in model_type.open_fields() {
            csv.line(opener(g, f));
        }
        for m in &models {
            csv.prob(probs.get(*m));
        }
        if extras {
            csv.int(Some(g.rest_days));
            csv.int(Some(g.travel_km));
        }
        csv.end_row();
    }
    csv.into_bytes()
}

/// An opener as the releases print it: the game's first release, also
/// where the season store carries the pipeline's placeholder zero.
fn opener(g: &Game, field: &str) -> Option<f64> {
    let stored = line_value(g, field);
    if stored != Some(0.0) {
        return stored;
    }
    let current = field.strip_prefix("open_")?;
    let first = g.path.as_ref()?.snaps.first()?;
    LineField::parse(current).and_then(|f| first.lines.get(f))
}

/// The line columns of the odds and books releases, in order.
const ODDS_LINES: [LineField; 9] = [
    LineField::AwayPointSpread,
    LineField::AwayPointSpreadLine,
    LineField::HomePointSpread,
    LineField::HomePointSpreadLine,
    LineField::AwayMoneyLine,
    LineField::HomeMoneyLine,
    LineField::OverUnder,
    LineField::OverLine,
    LineField::UnderLine,
];

/// The odds release at `t`: every game the release carries with its current
/// lines; `last_updated` is `t`, or the game's last pre-start release once
/// it has started.
pub(crate) fn odds(league: &League, t: DateTime<Utc>) -> Vec<u8> {
    let mut header = vec!["match_id", "date", "time_est", "away_team", "home_team"];
    header.extend(ODDS_LINES.iter().map(|f| f.name()));
    header.push("last_updated");
    let mut csv = Csv::new(&header);
    for (g, snap) in league.carried(t) {
        csv.cell(&match_id(league, g));
        csv.cell(&g.key.date_string());
        csv.cell(&g.key.time_string());
        csv.cell(&g.key.away_team);
        csv.cell(&g.key.home_team);
        for f in ODDS_LINES {
            csv.line(snap.lines.get(f));
        }
        let updated = g.path.as_ref().map_or(t, |p| p.instant(p.index_at(t).unwrap_or(0)));
        csv.cell(&updated.format("%Y-%m-%d %H:%M:%S").to_string());
        csv.end_row();
    }
    csv.into_bytes()
}

/// A game's `match_id` in the odds and books releases.
fn match_id(league: &League, g: &Game) -> String {
    let id = fnv(&format!(
        "{}|{}|{}|{}|{}",
        league.sport, g.key.date, g.key.time_est, g.key.away_team, g.key.home_team
    ));
    format!("{id:016x}")
}

/// The books release at `t` (`books/{sport}.csv`): one row per game the
/// release carries and book that quotes it, games in key order and books in
/// catalogue order, with the book's prices at `t` (frozen at its last
/// pre-start quote once the game has started) and `last_update`, the
/// release at which that book last changed any of the game's prices.
pub(crate) fn books(league: &League, t: DateTime<Utc>) -> Vec<u8> {
    let mut header = vec![
        "match_id",
        "date",
        "time_est",
        "away_team",
        "home_team",
        "book",
        "book_title",
    ];
    header.extend(ODDS_LINES.iter().map(|f| f.name()));
    header.push("last_update");
    let mut csv = Csv::new(&header);
    for (g, _) in league.carried(t) {
        let Some(path) = g.path.as_ref() else { continue };
        let Some(k) = path.index_at(t) else { continue };
        for run in &path.books {
            let Some(quote) = run.at(k) else { continue };
            csv.cell(&match_id(league, g));
            csv.cell(&g.key.date_string());
            csv.cell(&g.key.time_string());
            csv.cell(&g.key.away_team);
            csv.cell(&g.key.home_team);
            csv.cell(run.book.key.as_str());
            csv.cell(run.book.title);
            for f in ODDS_LINES {
                csv.line(quote.lines.get(f));
            }
            csv.cell(&quote.updated.format("%Y-%m-%dT%H:%M:%SZ").to_string());
            csv.end_row();
        }
    }
    csv.into_bytes()
}

/// `markets/{sport}.csv`: one ticker per game of today and tomorrow with
/// prices near the true home win probability; a few sides have no price.
pub(crate) fn markets(league: &League) -> Vec<u8> {
    let mut csv = Csv::new(&[
        "date",
        "time_est",
        "away_team",
        "home_team",
        "ticker",
        "home_price",
        "away_price",
        "captured_at",
    ]);
    let table = roster(league.sport, league.teams);
    let mut rng = Rng::stream(0, &format!("markets/{}/{}", league.sport, league.today));
    let games = league
        .latest()
        .iter()
        .filter(|g| g.key.date >= league.today && g.key.date <= league.tomorrow());
    let mut games: Vec<_> = games.collect();
    games.sort_by(|a, b| a.key.cmp(&b.key));
    for (i, g) in games.into_iter().enumerate() {
        let home = (g.home_win + rng.normal() * 0.02).clamp(0.03, 0.97);
        let price = |p: f64| format!("{:.2}", p.clamp(0.01, 0.99));
        csv.cell(&g.key.date_string());
        csv.cell(&g.key.time_string());
        csv.cell(&g.key.away_team);
        csv.cell(&g.key.home_team);
        csv.cell(&format!(
            "KX{}GAME-{}{}{}{}",
            league.sport.upper_code(),
            g.key.date.format("%y%b%d").to_string().to_uppercase(),
            g.key.time_est.format("%H%M"),
            table[g.away].2,
            table[g.home].2
        ));
        let (h, a) = match i % 11 {
            5 => (None, None),
            3 => (Some(price(home)), None),
            _ => (Some(price(home)), Some(price(1.02 - home))),
        };
        csv.opt(h.as_deref());
        csv.opt(a.as_deref());
        let planned = league
            .today
            .and_hms_opt(15, 5 + (i % 50) as u32, 0)
            .map(|t| crate::capped(t.and_utc(), league.not_after));
        csv.opt(planned.map(|t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string()).as_deref());
        csv.end_row();
    }
    csv.into_bytes()
}
