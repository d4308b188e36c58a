//! `scores/{sport}.csv`: the game-score tape.

use linecast_domain::artifacts::{GameStatus, ScoreRow};
use linecast_domain::{SeasonLabel, SeasonType, Sport};

use super::problems::Problems;
use super::sheet::{Cells, Col, Sheet};

/// Parses a score tape; every season label must be valid for `sport`.
pub fn scores(sport: Sport, bytes: &[u8], problems: &mut Problems) -> Option<Vec<ScoreRow>> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let key = sheet.key_columns(problems);
    let season = sheet.require("season", problems);
    let season_type = sheet.require("season_type", problems);
    let status = sheet.require("status", problems);
    let away_score = sheet.column("away_score");
    let home_score = sheet.column("home_score");
    let (key, season, season_type, status) = (key?, season?, season_type?, status?);
    let mut rows = Vec::new();
    sheet.each_row(problems, |c| {
        let k = c.key(&key);
        let s = season_label(c, sport, season);
        let t = c.text(season_type).map(SeasonType::parse);
        let st = c.text(status).and_then(|v| {
            let parsed = GameStatus::parse(v);
            if parsed.is_none() {
                c.fail(
                    "status",
                    format!("'{v}' is not one of scheduled, in_progress, final, postponed"),
                );
            }
            parsed
        });
        let away = c.number(away_score);
        let home = c.number(home_score);
        if let (Some(key), Some(season), Some(season_type), Some(status), true) = (k, s, t, st, c.ok()) {
            rows.push(ScoreRow {
                key,
                season,
                season_type,
                away_score: away,
                home_score: home,
                status,
            });
        }
    });
    Some(rows)
}

/// A required season label valid for `sport`.
pub fn season_label(c: &mut Cells<'_>, sport: Sport, col: Col) -> Option<SeasonLabel> {
    let value = c.text(col)?;
    match SeasonLabel::parse(sport, value) {
        Ok(label) => Some(label),
        Err(err) => {
            c.fail(col.name, err.to_string());
            None
        }
    }
}
