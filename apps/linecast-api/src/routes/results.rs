//! Results paging and the season list: HTTP only. The season choice and
//! the page plan are the core history service's; the JSON shapes are
//! `presentation::history`.

use crate::routes::table;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use linecast_core::services::history::export::ExportSeasons;
use linecast_paging::Request;

use crate::auth::middleware::HeldSlot;
use crate::error::ApiError;
use crate::params::season as parse_season;
use crate::params::{RawQuery, SportModelPath};
use crate::presentation::export::ExportFormat;
use crate::presentation::history::{ResultsResponse, SeasonsResponse};
use crate::presentation::result_rows::render_rows;
use crate::responses::{Rendered, serve, serve_heavy};
use crate::state::AppState;

#[utoipa::path(
    get, path = table::RESULTS.path, tag = "history",
    params(
        crate::params::SportModelPath,
        ("limit" = Option<u32>, Query, description = "1 to 100000, default 100", minimum = 1, maximum = 100_000),
        ("season" = Option<String>, Query, pattern = r"^[0-9]{4}(-[0-9]{2})?$", description = "Season label (YYYY for mlb, YYYY-YY otherwise); omitted: the current season newest first"),
        ("offset" = Option<i64>, Query, description = "First row of the page, default 0", minimum = 0),
        ("snapshot" = Option<String>, Query, pattern = r"^[0-9a-f]{64}$", description = "With season: the first page's snapshot (64 hex)")
    ),
    responses(
        (status = 200, description = "A page of results", body = ResultsResponse),
        (status = 400, description = "Malformed sport, model_type, limit, offset, season or snapshot", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that sport, model type and season", body = crate::error::ErrorBody),
        (status = 409, description = "The snapshot changed between pages; restart from offset 0", body = crate::error::ErrorBody)
    )
)]
pub async fn results(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let named = query.get("season").map(|s| parse_season(sport, s)).transpose()?;
    let raw = |name: &str| query.get(name).map(String::as_str);
    let request = Request::parse(named.is_some(), raw("limit"), raw("offset"), raw("snapshot"))?;
    // A page may hold 100,000 rows: made off the request threads.
    let history = state.history.clone();
    let asked = request.clone();
    serve_heavy(
        &req,
        &state.responses,
        (sport, model_type, named, request),
        None,
        move |now| async move { history.results_page(sport, model_type, named, &asked, now).await },
        move |page, parts| async move {
            let rows = parts.season_rows(&page.data, render_rows).await;
            Rendered::new(&ResultsResponse::new(sport, model_type, &page, &rows))
        },
    )
    .await
}

#[utoipa::path(
    get, path = table::RESULT_SEASONS.path, tag = "history",
    params(
        crate::params::SportModelPath
    ),
    responses(
        (status = 200, description = "Seasons with history", body = SeasonsResponse),
        (status = 400, description = "Unknown sport or model type", body = crate::error::ErrorBody)
    )
)]
pub async fn result_seasons(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    serve(
        &req,
        &state.responses,
        &(sport, model_type),
        |now| state.history.season_list(sport, model_type, now),
        |list| Rendered::new(&SeasonsResponse::new(sport, model_type, list)),
    )
    .await
}

#[utoipa::path(
    get, path = table::RESULTS_EXPORT.path, tag = "history",
    params(
        crate::params::SportModelPath,
        ("season" = Option<String>, Query, pattern = r"^([0-9]{4}(-[0-9]{2})?|all)$", description = "A season label (YYYY for mlb, YYYY-YY otherwise), or `all` for every archived season oldest first; default the current season"),
        ("format" = ExportFormat, Query, description = "`csv` or `parquet`")
    ),
    responses(
        (status = 200, description = "Every row `/results` serves for the season(s), oldest first, as a file (counted as one request). CSV: one header row, null as an empty cell; gzip/br by Accept-Encoding. Parquet: typed columns, Snappy, the snapshot and columns version in the key-value metadata.",
            headers(
                ("Content-Disposition" = String, description = "attachment; filename=\"{sport}_{model_type}_{season or all}.{csv|parquet}\""),
                ("X-Linecast-Snapshot" = String, description = "The 64-hex snapshot /results gives for the season; with season=all a hash over every season's snapshot"),
                ("ETag" = String, description = "Strong tag of the file")
            ),
            content(
                (String = "text/csv"),
                (Vec<u8> = "application/vnd.apache.parquet")
            )
        ),
        (status = 400, description = "Unknown sport or model type, a malformed season, or a missing or unknown format", body = crate::error::ErrorBody),
        (status = 404, description = "No season store for that season (or none at all with season=all)", body = crate::error::ErrorBody)
    )
)]
pub async fn results_export(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: SportModelPath,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let SportModelPath { sport, model_type } = path;
    let asked = match query.get("season").map(String::as_str) {
        None => ExportSeasons::Current,
        Some("all") => ExportSeasons::All,
        Some(raw) => ExportSeasons::Named(parse_season(sport, raw)?),
    };
    let format = ExportFormat::parse(query.get("format"))?;
    // The download slot the gate took: held until the file has been sent.
    let slot = req.extensions_mut().remove::<HeldSlot>().map(|HeldSlot(slot)| slot);
    let (plan_history, load_history) = (state.history.clone(), state.history.clone());
    serve_heavy(
        &req,
        &state.responses,
        (sport, model_type, asked, format),
        slot,
        // The body's key comes from the seasons' versions; the seasons are
        // read and graded only when that body is not cached.
        move |now| async move { plan_history.export(sport, model_type, asked, now).await },
        move |plan, _| async move { format.render(&load_history.load_export(&plan).await?) },
    )
    .await
}
