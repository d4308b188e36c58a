//! `GET /api/v1/odds/{sport}`: current odds for every market. The slate
//! comes from `Slate::odds`, the JSON shape from `linecast_payloads::slate`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_operation::operation;
use linecast_payloads::slate::OddsResponse;

use crate::error::ApiError;
use crate::params::SportPath;
use crate::responses::Rendered;

/// Current sportsbook odds for every game of one sport
///
/// Returns every row of the sport's odds artifact, sorted by date then ET time: the spread, moneyline and
/// total lines in American odds (null when not offered) and when the book last moved them (UTC), with
/// the served slate `date` (the rule of predictions) and the newest `last_updated`. With `as_of=<RFC 3339>`
/// the answer is what this endpoint answered at that instant, from the kept release current then (named by
/// the `release` object), served with `Cache-Control: private, max-age=86400`. Each call counts as
/// one request of the monthly quota; send the `ETag` back in `If-None-Match` to get a 304 without a body
/// (still counted).
///
/// See [payloads.md: Odds](/docs/payloads.md#odds-get-apiv1oddssport-ai-key).
#[operation(
    tag = "data",
    params(
        crate::params::SportPath,
        ("as_of" = Option<String>, Query, format = DateTime, description = "An RFC 3339 instant in the past: answer as this endpoint answered then, from the kept release current at that instant.", example = "2026-11-20T14:00:00Z")
    ),
    responses(
        (status = 200, description = "Current odds", body = OddsResponse),
        (status = 400, description = "Unknown sport, or a malformed or future as_of", body = crate::error::ErrorBody),
        (status = 404, description = "No odds artifact for that sport, or no release kept at or before as_of (the detail says when history starts)", body = crate::error::ErrorBody)
    )
)]
pub async fn odds(read: Read<SportPath>) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = read.path;
    let (releases, slate) = (&read.state.releases, &read.state.slate);
    let past = |at, now| releases.odds_at(sport, at, now);
    let render = |slate: &_| Rendered::new(&OddsResponse::from(slate));
    read.serve_or_as_of(&sport, |now| slate.odds(sport, now), past, render)
        .await
}
