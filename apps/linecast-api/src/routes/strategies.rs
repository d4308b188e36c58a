//! Strategy leaderboards and replays: HTTP only. `accounting` absent means
//! the deprecated `legacy_v1`, announced with a `Deprecation` header. The
//! season choice and the replays are the core strategies service's; the
//! JSON shapes are `linecast_payloads::strategies`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use actix_web::http::header::{HeaderName, HeaderValue};
use linecast_operation::operation;
use linecast_payloads::strategies::{ReplayResponse, StrategiesResponse, deprecation_header_value};
use linecast_strategies::Accounting;

use crate::error::ApiError;
use crate::params::{self, RawQuery, SportModelPath};
use crate::responses::Rendered;

fn accounting(query: &RawQuery) -> Result<Accounting, ApiError> {
    match query.get("accounting") {
        None => Ok(Accounting::LegacyV1),
        Some(raw) => {
            Accounting::parse(raw).map_err(|_| ApiError::invalid_param("accounting", raw, "legacy_v1, recorded_v2"))
        }
    }
}

/// Adds the deprecation header of legacy_v1.
fn announce(mut res: HttpResponse, accounting: Accounting) -> HttpResponse {
    if accounting.is_deprecated()
        && let Ok(value) = HeaderValue::from_str(&deprecation_header_value())
    {
        res.headers_mut().insert(HeaderName::from_static("deprecation"), value);
    }
    res
}

/// The sixteen betting strategies of one market, ranked by season ROI
///
/// Returns the line-move, model-edge and hybrid strategies: those with at least 30 decisive bets ranked
/// by ROI (descending), then the others by sample size, unranked. `season` defaults to the latest season
/// in the store. `accounting` chooses how bets settle: `recorded_v2` at the recorded price of the side
/// bet, or `legacy_v1` (used when `accounting` is absent), which is deprecated and answered with a
/// `Deprecation: @1795219200` header; any other value is a 400. Each call counts as one request of the
/// monthly quota.
///
/// See [payloads.md: Leaderboard](/docs/payloads.md#leaderboard-get-apiv1strategiessportmodel_type-ai-key).
#[operation(
    tag = "strategies",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "YYYY for mlb, YYYY-YY otherwise; default the latest season in the store"),
        ("accounting" = Option<linecast_payloads::schema::AccountingCode>, Query, description = "legacy_v1 (default, deprecated) or recorded_v2")
    ),
    responses(
        (status = 200, description = "The leaderboard; legacy_v1 carries a Deprecation header", body = StrategiesResponse,
            headers(("Deprecation" = String, description = "On legacy_v1 accounting"))),
        (status = 400, description = "Unknown sport or model type, malformed season or accounting", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
pub async fn strategies(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let key = (
        sport,
        model_type,
        params::named_season(sport, &read.query)?,
        accounting(&read.query)?,
    );
    let load = |_| read.state.strategies.leaderboard(sport, model_type, key.2, key.3);
    let res = read.serve(&key, load, |(data, board)| {
        Rendered::new(&StrategiesResponse::new(data, board))
    });
    Ok(announce(res.await?, key.3))
}

/// Bet-by-bet replay of one strategy over a season
///
/// Returns the strategy's leaderboard entry and every bet it made, oldest first, with the price it
/// settled at, the outcome, the profit in units and the running total; the totals equal the entry
/// exactly. `season` and `accounting` work as on the leaderboard (`legacy_v1`, used when `accounting` is
/// absent, is deprecated and answered with a `Deprecation` header). `include_excluded=true` adds the
/// excluded candidate games, each with its reason. An unknown `strategy_id` is a 400 listing the sixteen
/// ids; each call counts as one request of the monthly quota.
///
/// See [payloads.md: Replay](/docs/payloads.md#replay-get-apiv1strategiessportmodel_typereplaystrategy_id-ai-key).
#[operation(
    tag = "strategies",
    params(
        crate::params::SportModelPath,
        ("strategy_id" = linecast_payloads::schema::StrategyId, Path, description = "One of the sixteen ids, e.g. line-pb, edge-nf, hybrid-pb-pb", example = "edge-pb"),
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "YYYY for mlb, YYYY-YY otherwise; default the latest season in the store"),
        ("accounting" = Option<linecast_payloads::schema::AccountingCode>, Query, description = "legacy_v1 (default, deprecated) or recorded_v2"),
        ("include_excluded" = Option<bool>, Query, description = "true adds excluded_rows with a reason each")
    ),
    responses(
        (status = 200, description = "The replay; its totals equal the leaderboard entry", body = ReplayResponse,
            headers(("Deprecation" = String, description = "On legacy_v1 accounting"))),
        (status = 400, description = "Unknown strategy id (the detail lists the valid ids), sport or model type; malformed season, accounting or include_excluded", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season", body = crate::error::ErrorBody)
    )
)]
pub async fn strategy_replay(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    // Strategy ids are unreserved characters only, which the router has
    // already percent-decoded; core refuses an unknown one.
    let strategy_id = read.req.match_info().query("strategy_id");
    let (accounting, named) = (accounting(&read.query)?, params::named_season(sport, &read.query)?);
    let include_excluded = params::boolean(&read.query, "include_excluded", false)?;
    let key = (sport, model_type, named, accounting, strategy_id, include_excluded);
    let load = |_| {
        read.state
            .strategies
            .replay(sport, model_type, named, accounting, strategy_id, include_excluded)
    };
    let res = read.serve(&key, load, |(data, replay)| {
        Rendered::new(&ReplayResponse::new(data, replay))
    });
    Ok(announce(res.await?, accounting))
}
