//! `GET /api/v1/games/{game_id}/history`: every kept release of one market
//! that carried a game, with its opening and closing release. The history
//! comes from `Releases::game_history`, the JSON shape from
//! `linecast_payloads::games`.

use actix_web::HttpResponse;
use linecast_payloads::games::GameHistoryResponse;

use crate::error::ApiError;
use crate::params;
use crate::responses::Rendered;
use crate::routes::read::{NoPath, Read};
use linecast_operation::operation;

/// One game's history across kept releases
///
/// Lists every kept release of the `model_type` predictions that carried the game, oldest first: when it
/// was published, its digest, and the game as that release served it (model probabilities, current and
/// opening lines, EV), and `after_start`: whether it was published at or after the game's scheduled start
/// (as the latest release carrying the game states it). `opening` is the first of them; `closing` the last
/// not `after_start` (null when every kept release came after the start). A game id that is not of the game id form
/// is a 400 naming `game_id`; one that no kept release carried is a 404. Each call counts as one request
/// of the monthly quota.
///
/// See [payloads.md: Game history](/docs/payloads.md#game-history-get-apiv1gamesgame_idhistory-ai-key).
#[operation(
    tag = "data",
    params(
        ("game_id" = String, Path, description = "A game id as every endpoint serves it: {sport}-{YYYYMMDD}-{away}-{home}, -2 for a doubleheader's second game", example = "nba-20261120-boston_celtics-new_york_knicks"),
        ("model_type" = linecast_payloads::schema::ModelTypeCode, Query, description = "The market whose releases to read")
    ),
    responses(
        (status = 200, description = "The game's kept releases", body = GameHistoryResponse),
        (status = 400, description = "A malformed game_id, or a missing or unknown model_type", body = crate::error::ErrorBody),
        (status = 404, description = "No kept release of that market carried the game", body = crate::error::ErrorBody)
    )
)]
pub async fn game_history(read: Read<NoPath>) -> Result<HttpResponse, ApiError> {
    let game_id = read.req.match_info().query("game_id");
    let model_type = params::required(&read.query, "model_type", params::model_type)?;
    let releases = &read.state.releases;
    // The plan (the series' kept releases) keys the body; the game's rows
    // are read only when no body is cached for it.
    let plan = |now| releases.game_history_plan(game_id, model_type, now);
    read.serve_planned(&(game_id, model_type), plan, |plan, now| async move {
        let history = releases.game_history(&plan.game_id, plan.model_type, now).await?;
        Rendered::new(&GameHistoryResponse::from(&history.value))
    })
    .await
}
