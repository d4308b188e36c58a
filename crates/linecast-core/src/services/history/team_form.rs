//! Team form of the current season: the season's rows with the score tape's
//! next scheduled games. Owns only the assembly; the form itself (record,
//! last ten, streak) is `linecast_grading::team_form`.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::NaiveDate;
use linecast_domain::SeasonLabel;
use linecast_domain::artifacts::{GameStatus, ScoreRow};
use linecast_grading::{TeamForm, team_form};

use super::season::SeasonData;
use crate::Versioned;

/// What team form is computed from: everything its value depends on.
#[derive(Debug, Clone)]
pub struct TeamFormInputs {
    pub season: SeasonLabel,
    pub data: Arc<SeasonData>,
    /// The score tape, absent when the store has none.
    pub tape: Option<Versioned<Vec<ScoreRow>>>,
    /// Today's ET date: next game dates are on or after it.
    pub today: NaiveDate,
}

/// Team form as served.
#[derive(Debug, Clone, PartialEq)]
pub struct TeamFormReport {
    /// Last game date of the season on the score tape (or in the store).
    pub season_end: Option<NaiveDate>,
    pub teams: Vec<TeamForm>,
}

impl TeamFormInputs {
    /// Computes the form of every team.
    pub fn assemble(&self) -> TeamFormReport {
        assemble(
            &self.data,
            self.tape.as_ref().map(|t| t.value.as_slice()),
            self.season,
            self.today,
        )
    }
}

/// Team form from a graded season and the score tape: next game dates come
/// from scheduled or in-progress tape games on or after `today`; the season
/// ends on its latest game on the tape or in the store.
pub fn assemble(data: &SeasonData, tape: Option<&[ScoreRow]>, season: SeasonLabel, today: NaiveDate) -> TeamFormReport {
    let mut next: HashMap<linecast_domain::TeamName, NaiveDate> = HashMap::new();
    let mut season_end = data.last_date();
    for game in tape.unwrap_or_default() {
        if game.season == season {
            season_end = season_end.max(Some(game.key.date));
        }
        if game.key.date >= today && matches!(game.status, GameStatus::Scheduled | GameStatus::InProgress) {
            for team in [&game.key.away_team, &game.key.home_team] {
                let entry = next.entry(team.clone()).or_insert(game.key.date);
                *entry = (*entry).min(game.key.date);
            }
        }
    }
    let teams = team_form(&data.table.rows, data.sport, data.model_type, |team| {
        next.get(team).copied()
    });
    TeamFormReport { season_end, teams }
}
