//! Results paging and the season list: HTTP only. The season choice and
//! the page plan are the core history service's; the JSON shapes are
//! `linecast_payloads::history`.

use crate::routes::read::Read;
use actix_web::HttpResponse;
use linecast_core::services::history::export::ExportSeasons;
use linecast_operation::operation;
use linecast_paging::Request;
use linecast_payloads::history::{ResultsResponse, SeasonsResponse};
use linecast_payloads::result_rows::render_rows;

use crate::error::ApiError;
use crate::params::{self, SportModelPath};
use crate::presentation::export::{ExportFile, ExportFormat};
use crate::responses::Rendered;

/// A page of the graded result rows of one season
///
/// Returns result rows holding every column of the season store (then the outcome column and `IMPLIED`
/// when the store lacks them), followed by `push`, `graded`, `ungraded_reason`, `game_id`, `archive_check`
/// (a live row checked against the kept predictions release its `forecast_published_at` names) and
/// `forecast_digest`. Page with `limit`
/// (1 to 100000, default 100) and `offset` (default 0; past the end is an empty page), repeating with
/// `offset=next_offset` until `next_offset` is null. Without `season` the current season is served newest
/// game first and `snapshot` is null; with a named `season` it is served oldest game first, and every page
/// after the first must echo the first page's `snapshot` (a 400 without it, a 400 `invalid_snapshot` for
/// a token the service never issued). A 409 `snapshot_changed` means the season store was republished
/// while paging: restart from offset 0 without a snapshot. Each page counts as one request of the monthly
/// quota, a 304 included.
///
/// See [payloads.md: Results](/docs/payloads.md#results-get-apiv1resultssportmodel_type-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath,
        ("limit" = Option<u32>, Query, description = "1 to 100000, default 100", minimum = 1, maximum = 100_000),
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label (YYYY for mlb, YYYY-YY otherwise); omitted: the current season newest first"),
        ("offset" = Option<i64>, Query, description = "First row of the page, default 0", minimum = 0, maximum = 9_223_372_036_854_775_807_i64),
        ("snapshot" = Option<String>, Query, max_length = 64, pattern = r"^[0-9a-f]{64}$", description = "With season: the first page's snapshot (64 hex)")
    ),
    responses(
        (status = 200, description = "A page of results", body = ResultsResponse),
        (status = 400, description = "Malformed sport, model_type, limit, offset, season or snapshot", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that sport, model type and season", body = crate::error::ErrorBody),
        (status = 409, description = "The snapshot changed between pages; restart from offset 0", body = crate::error::ErrorBody)
    )
)]
pub async fn results(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let named = params::named_season(sport, &read.query)?;
    let raw = |name: &str| read.query.get(name).map(String::as_str);
    let request = Request::parse(named.is_some(), raw("limit"), raw("offset"), raw("snapshot"))?;
    // A page may hold 100,000 rows: made off the request threads. The
    // body depends on the season's generation and on the kept releases'
    // (the rows' archive checks).
    let (history, archive, asked) = (
        read.state.history.clone(),
        read.state.archive_checks.clone(),
        request.clone(),
    );
    let load = move |now| async move {
        let page = history.results_page(sport, model_type, named, &asked, now).await?;
        let kept = archive.kept(sport, model_type, now).await?;
        let checks = archive.season(&page.value.data, &kept).await?;
        Ok::<_, ApiError>(page.map(|deps| deps.param("archive", kept.generation), |page| (page, checks)))
    };
    read.serve_heavy(
        (sport, model_type, named, request),
        load,
        move |(page, checks), parts| async move {
            let rows = parts.season_rows(&page.data, &checks, render_rows).await;
            Rendered::new(&ResultsResponse::new(sport, model_type, &page, &rows))
        },
    )
    .await
}

/// Seasons with a season store for one sport and model type
///
/// Returns the season labels that have a store, newest first (the values `season` takes on `/results`),
/// and `current_season`: the newest season with a game played against a posted line (between seasons,
/// the one just finished). `live` is true while that season has a decided game within the last 14 days
/// (ET dates), and `live_season` then names it. Each call counts as one request of the monthly quota.
///
/// See [payloads.md: Seasons](/docs/payloads.md#seasons-get-apiv1resultssportmodel_typeseasons-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Seasons with history", body = SeasonsResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody)
    )
)]
pub async fn result_seasons(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let load = |now| read.state.history.season_list(sport, model_type, now);
    let render = |list: &_| Rendered::new(&SeasonsResponse::new(sport, model_type, list));
    read.serve(&(sport, model_type), load, render).await
}

/// One season, or all of history, of result rows as a CSV or Parquet file
///
/// Returns the rows `/results?season=…` serves when paged through the season, oldest first, with the
/// same columns and values; `season=all` gives every archived season one after the other, oldest first.
/// `format` (`csv` or `parquet`) is required and `season` defaults to the current season. The call counts
/// as one request of the monthly quota whatever the file's size; `X-Linecast-Snapshot` names the data
/// served, and an `If-None-Match` with the file's `ETag` is a 304 (still counted). An export holds one of
/// the customer's download slots (`LINECAST_MAX_DOWNLOADS_PER_CUSTOMER`, 2 by default) until its last byte
/// is sent; with all of them held the next is a 429 `too_many_concurrent`, not counted.
///
/// See [payloads.md: Export](/docs/payloads.md#export-get-apiv1resultssportmodel_typeexport-ai-key).
#[operation(
    tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, max_length = 7, pattern = r"^([0-9]{4}(-[0-9]{2})?|all)$", description = "A season label (YYYY for mlb, YYYY-YY otherwise), or `all` for every archived season oldest first; default the current season"),
        ("format" = ExportFormat, Query, description = "`csv` or `parquet`"),
        ("Range" = Option<String>, Header, max_length = 64, description = "One byte range of the file (`bytes=first-last`, `bytes=first-`, `bytes=-suffix`), of the variant Accept-Encoding selects: 206 with those bytes. Several ranges or a malformed value get the whole file."),
        ("If-Range" = Option<String>, Header, max_length = 64, description = "The file's ETag: the range only while the file is still that version, else the whole file")
    ),
    responses(
        (status = 200, description = "Every row `/results` serves for the season(s), oldest first, as a file (counted as one request). CSV: one header row, null as an empty cell; gzip/br by Accept-Encoding. Parquet: typed columns, Snappy, the snapshot and columns version in the key-value metadata.",
            headers(
                ("Content-Disposition" = String, description = "attachment; filename=\"{sport}_{model_type}_{season or all}.{csv|parquet}\""),
                ("X-Linecast-Snapshot" = String, description = "The 64-hex snapshot /results gives for the season; with season=all a hash over every season's snapshot"),
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
        (status = 400, description = "Unknown sport or model type, a malformed season, or a missing or unknown format", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season (or none at all with season=all)", body = crate::error::ErrorBody)
    )
)]
pub async fn results_export(read: Read<SportModelPath>) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = read.path;
    let asked = match read.query.get("season").map(String::as_str) {
        None => ExportSeasons::Current,
        Some("all") => ExportSeasons::All,
        Some(raw) => ExportSeasons::Named(params::season(sport, raw)?),
    };
    let format = ExportFormat::parse(read.query.get("format"))?;
    let (plan_history, load_history) = (read.state.history.clone(), read.state.history.clone());
    let (plan_archive, load_archive) = (read.state.archive_checks.clone(), read.state.archive_checks.clone());
    read.serve_heavy(
        (sport, model_type, asked, format),
        // The body's key comes from the seasons' versions and the kept
        // releases' generation; the seasons are read, graded and checked
        // only when that body is not cached.
        move |now| async move {
            let plan = plan_history.export(sport, model_type, asked, now).await?;
            let kept = plan_archive.kept(sport, model_type, now).await?;
            let generation = kept.generation.clone();
            Ok::<_, ApiError>(plan.map(|deps| deps.param("archive", generation), |plan| (plan, kept)))
        },
        move |(plan, kept), _| async move {
            let export = load_history.load_export(&plan).await?;
            let mut checks = Vec::with_capacity(export.seasons.len());
            for data in &export.seasons {
                checks.push(load_archive.season(data, &kept).await?);
            }
            format.render(&export, &checks)
        },
    )
    .await
}
