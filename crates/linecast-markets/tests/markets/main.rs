//! Integration tests of the prediction-market adapters against a stub of
//! Kalshi's API and an in-memory artifact store.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cache;
mod fake_store;
mod file;
mod kalshi;
mod stub;

use chrono::NaiveTime;
use linecast_domain::artifacts::{GameStatus, ScoreRow, TeamRow, TeamTable};
use linecast_domain::{GameKey, SeasonLabel, SeasonType, Sport};

pub fn key(date: &str, time: &str, away: &str, home: &str) -> GameKey {
    GameKey::new(
        date.parse().unwrap(),
        NaiveTime::parse_from_str(time, "%H:%M").unwrap(),
        away,
        home,
    )
}

pub fn mlb_teams() -> TeamTable {
    let row = |slug: &str, name: &str, abbr: &str| TeamRow {
        slug: slug.into(),
        display_name: name.into(),
        abbreviation: abbr.into(),
    };
    TeamTable {
        teams: vec![
            row("dodgers", "Los Angeles Dodgers", "LAD"),
            row("padres", "San Diego Padres", "SD"),
            row("yankees", "New York Yankees", "NYY"),
            row("mariners", "Seattle Mariners", "SEA"),
            row("diamondbacks", "Arizona Diamondbacks", "ARI"),
            row("rockies", "Colorado Rockies", "COL"),
        ],
    }
}

pub fn scheduled(key: GameKey) -> ScoreRow {
    ScoreRow {
        key,
        season: SeasonLabel::parse(Sport::Mlb, "2026").unwrap(),
        season_type: SeasonType::Regular,
        away_score: None,
        home_score: None,
        status: GameStatus::Scheduled,
    }
}
