//! `GET /api/v1/predictions/{sport}/{model_type}`: today's model
//! probabilities with the market's lines and EV per side. The handler only
//! speaks HTTP: the slate comes from `Slate::predictions`, the JSON shape
//! from `linecast_payloads::slate`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_operation::operation;
use linecast_payloads::slate::PredictionsResponse;

use crate::error::ApiError;
use crate::params::{self, SportModelPath};
use crate::presentation::export::{ExportFile, ExportFormat};
use crate::presentation::history_export;
use crate::responses::Rendered;

/// Today's model probabilities and lines for one sport and model type
///
/// Returns the predictions artifact of the sport and model type: per game, each model column's probability
/// of the positive side (home for moneyline and spread, over for totals), `IMPLIED` from the current
/// prices, the current and opening lines and the EV of each side. With `upcoming_only=true` (the default;
/// `1/0`, `yes/no` and `on/off` also work) games dated before the served slate are left out: today's ET
/// slate once today's run has completed, otherwise the newest earlier slate whose run completed; `false`
/// returns every row of the artifact. With `as_of=<RFC 3339>` the answer is what this endpoint answered at
/// that instant: the kept release current then (named by the `release` object), with `upcoming_only` judged
/// on that instant's ET date; it never changes, so it is served with `Cache-Control: private, max-age=86400`.
/// A future instant is a 400, an instant before the first kept release a 404 saying when history starts.
/// Each call counts as one request of the monthly quota; send the
/// `ETag` back in `If-None-Match` to get a 304 without a body (still counted).
///
/// See [payloads.md: Predictions](/docs/payloads.md#predictions-get-apiv1predictionssportmodel_type-ai-key).
#[operation(
    tag = "data",
    params(
        crate::params::SportModelPath,
        ("upcoming_only" = Option<bool>, Query, description = "Default true: leave out games before today's ET slate; the latest completed slate stays visible until today's run completes. false returns the whole artifact."),
        ("as_of" = Option<String>, Query, format = DateTime, description = "An RFC 3339 instant in the past: answer as this endpoint answered then, from the kept release current at that instant.", example = "2026-11-20T14:00:00Z")
    ),
    responses(
        (status = 200, description = "Today's predictions", body = PredictionsResponse),
        (status = 400, description = "Unknown sport or model type, a malformed boolean, or a malformed or future as_of", body = crate::error::ErrorBody),
        (status = 404, description = "No predictions artifact for that sport and model type, or no release kept at or before as_of (the detail says when history starts)", body = crate::error::ErrorBody)
    )
)]
pub async fn predictions(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let upcoming = params::boolean(&read.query, "upcoming_only", true)?;
    let (releases, slate) = (&read.state.releases, &read.state.slate);
    let current = |now| slate.predictions(sport, model_type, upcoming, now);
    let past = |at, now| releases.predictions_at(sport, model_type, upcoming, at, now);
    let render = |slate: &_| Rendered::new(&PredictionsResponse::from(slate));
    read.serve_or_as_of(&(sport, model_type, upcoming), current, past, render)
        .await
}

/// Every kept release of one sport and model type's predictions, one row per game and release
///
/// Returns a CSV or Parquet file with one row per game of every kept release of the predictions, oldest
/// release first: `game_id`, `published_at`, `digest`, the game's date, ET start and teams, the model
/// columns, and the market's current lines, openers and EV as that release served them. `season` (a
/// season label) keeps the games of that season; without it, or with `all`, every kept release is
/// exported. `format` (`csv` or `parquet`) is required. The call counts as one request of the monthly
/// quota whatever the file's size, and holds one of the customer's download slots until its last byte
/// is sent.
///
/// See [payloads.md: History export](/docs/payloads.md#history-export-get-apiv1predictionssportmodel_typehistoryexport-ai-key).
#[operation(
    tag = "data",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^([0-9]{4}(-[0-9]{2})?|all)$", description = "A season label (YYYY for mlb, YYYY-YY otherwise): only that season's games; `all` or absent: every kept release"),
        ("format" = ExportFormat, Query, description = "`csv` or `parquet`"),
        ("Range" = Option<String>, Header, max_length = 64, description = "One byte range of the file (`bytes=first-last`, `bytes=first-`, `bytes=-suffix`), of the variant Accept-Encoding selects: 206 with those bytes."),
        ("If-Range" = Option<String>, Header, max_length = 64, description = "The file's ETag: the range only while the file is still that version, else the whole file")
    ),
    responses(
        (status = 200, description = "One row per game and kept release, oldest release first, as a file (counted as one request). CSV: one header row, null as an empty cell. Parquet: typed columns, Snappy.",
            headers(
                ("Content-Disposition" = String, description = "attachment; filename=\"{sport}_{model_type}_history_{season or all}.{csv|parquet}\""),
                ("ETag" = String, description = "Strong tag of the file"),
                ("Accept-Ranges" = String, description = "bytes: a Range fetches part of the file")
            ),
            content(
                (ExportFile = "application/vnd.apache.parquet"),
                (String = "text/csv")
            )
        ),
        (status = 206, description = "The bytes the Range asked for (resume a download cut short)",
            headers(
                ("Content-Range" = String, description = "bytes first-last/length"),
                ("Accept-Ranges" = String, description = "bytes")
            ),
            content(
                (ExportFile = "application/vnd.apache.parquet"),
                (String = "text/csv")
            )
        ),
        (status = 416, description = "The Range lies past the end of the file; Content-Range says its length (bytes */length)",
            headers(("Content-Range" = String, description = "bytes */length"))
        ),
        (status = 400, description = "Unknown sport or model type, a malformed season, or a missing or unknown format", body = crate::error::ErrorBody)
    )
)]
pub async fn history_export(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let season = params::season_or_all(sport, &read.query)?;
    let format = ExportFormat::parse(read.query.get("format"))?;
    let (plan_releases, rows_releases) = (read.state.releases.clone(), read.state.releases.clone());
    read.serve_spooled(
        (sport, model_type, season, format),
        move |now| async move { plan_releases.history_export(sport, model_type, season, now).await },
        move |plan, spool| async move { history_export::render(format, &plan, &rows_releases, &spool).await },
    )
    .await
}
