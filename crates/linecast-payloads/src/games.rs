//! The JSON shape of a game's history: every kept release of one market
//! that carried the game, oldest first, with its opening and closing
//! release. Built from `linecast_core::services::releases::GameHistory`;
//! which release opens and which closes is decided there.

use linecast_core::services::releases::{GameHistory, GameRelease};
use serde::Serialize;
use utoipa::ToSchema;

use crate::slate::{PredictionGame, prediction_game};

/// One kept release that carried the game: the release, then the game as
/// that release served it (the fields of a predictions game: its date and
/// start, the model probabilities, the current and opening lines and EV).
#[derive(Debug, Serialize, ToSchema)]
pub struct GameHistoryEntry<'a> {
    /// When the release was published (RFC 3339 UTC, exact).
    #[schema(format = DateTime, example = "2026-11-20T13:58:02.114Z")]
    pub published_at: String,
    /// SHA-256 of the release's bytes, lowercase hex.
    #[schema(value_type = String)]
    pub digest: &'a str,
    /// The model columns this release served, in catalog order.
    #[schema(value_type = Vec<String>)]
    pub models_used: Vec<&'static str>,
    /// The release was published at or after the game's scheduled start
    /// (as the latest release carrying the game states it). Listed, and
    /// served by `as_of`, but never the closing.
    pub after_start: bool,
    #[serde(flatten)]
    pub game: PredictionGame,
}

/// `GET /api/v1/games/{game_id}/history`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameHistoryResponse<'a> {
    #[schema(example = "nba-20261120-boston_celtics-new_york_knicks")]
    pub game_id: String,
    pub sport: String,
    pub model_type: String,
    /// Every kept release that carried the game, oldest first.
    pub releases: Vec<GameHistoryEntry<'a>>,
    /// The first release that carried the game.
    pub opening: GameHistoryEntry<'a>,
    /// The last release published before the game's scheduled start (the
    /// last entry not `after_start`); null when every kept release came
    /// after the start.
    pub closing: Option<GameHistoryEntry<'a>>,
}

fn entry<'a>(history: &GameHistory, e: &'a GameRelease) -> GameHistoryEntry<'a> {
    GameHistoryEntry {
        published_at: crate::time::exact(e.release.published_at),
        digest: &e.release.digest,
        models_used: e.models.iter().map(|m| m.code()).collect(),
        after_start: e.after_start,
        game: prediction_game(&e.row, history.model_type, &e.models),
    }
}

impl<'a> From<&'a GameHistory> for GameHistoryResponse<'a> {
    fn from(history: &'a GameHistory) -> Self {
        let releases: Vec<GameHistoryEntry> = history.entries.iter().map(|e| entry(history, e)).collect();
        Self {
            game_id: history.game_id.clone(),
            sport: history.sport.code().to_owned(),
            model_type: history.model_type.code().to_owned(),
            opening: entry(history, &history.opening),
            closing: history.closing().map(|e| entry(history, e)),
            releases,
        }
    }
}
