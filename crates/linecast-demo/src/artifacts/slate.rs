//! The current-slate artifacts: predictions per model type (yesterday, today
//! and tomorrow), odds (today and tomorrow) and the prediction-market
//! snapshot (games not yet started, professional leagues only).

use linecast_domain::{ModelColumn, ModelType, Sport};

use super::{League, line_value};
use crate::csvw::Csv;
use crate::rng::{Rng, fnv};
use crate::season::{has_ai, model_index};
use crate::teams::roster;

/// The one prediction artifact that carries columns no contract names.
fn has_extra_columns(sport: Sport, model_type: ModelType) -> bool {
    sport == Sport::Nba && model_type == ModelType::WonOnSpread
}

pub(crate) fn predictions(league: &League, model_type: ModelType) -> Vec<u8> {
    let mi = model_index(model_type);
    let games: Vec<_> = league
        .window(league.yesterday(), league.tomorrow(), 3)
        .into_iter()
        .filter(|g| g.models[mi].is_some())
        .collect();
    let with_ai = has_ai(league.sport, model_type)
        && games
            .iter()
            .any(|g| g.models[mi].is_some_and(|m| m.get(ModelColumn::Ai).is_some()));
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
    for g in games {
        csv.cell(&g.key.date_string());
        csv.cell(&g.key.time_string());
        csv.cell(&g.key.away_team);
        csv.cell(&g.key.home_team);
        for f in model_type.line_fields().iter().chain(model_type.open_fields()) {
            csv.line(line_value(g, f));
        }
        for m in &models {
            csv.prob(g.models[mi].and_then(|p| p.get(*m)));
        }
        if extras {
            csv.int(Some(g.rest_days));
            csv.int(Some(g.travel_km));
        }
        csv.end_row();
    }
    csv.into_bytes()
}

pub(crate) fn odds(league: &League) -> Vec<u8> {
    const LINES: [&str; 9] = [
        "away_point_spread",
        "away_point_spread_line",
        "home_point_spread",
        "home_point_spread_line",
        "away_money_line",
        "home_money_line",
        "over_under",
        "over_line",
        "under_line",
    ];
    let mut header = vec!["match_id", "date", "time_est", "away_team", "home_team"];
    header.extend(LINES);
    header.push("last_updated");
    let mut csv = Csv::new(&header);
    for g in league.window(league.today, league.tomorrow(), 1) {
        let id = fnv(&format!(
            "{}|{}|{}|{}|{}",
            league.sport, g.key.date, g.key.time_est, g.key.away_team, g.key.home_team
        ));
        csv.cell(&format!("{id:016x}"));
        csv.cell(&g.key.date_string());
        csv.cell(&g.key.time_string());
        csv.cell(&g.key.away_team);
        csv.cell(&g.key.home_team);
        for f in LINES {
            csv.line(line_value(g, f));
        }
        let stamp_day = league.today.min(g.key.date);
        let planned = stamp_day
            .and_hms_opt(12 + (id % 3) as u32, ((id >> 8) % 60) as u32, ((id >> 16) % 60) as u32)
            .map(|t| crate::capped(t.and_utc(), league.not_after));
        csv.opt(planned.map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string()).as_deref());
        csv.end_row();
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
