//! The OpenAPI document served at `/openapi.json`. Every route registered in
//! `startup.rs` is listed here; a test checks that the two agree.

use utoipa::OpenApi;

use crate::routes::{edge_picks, health, public_picks, root};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "linecast",
        description = "Sports model data: predictions, odds, graded results, summaries, strategies and market comparisons for mlb, nba, nfl, nhl, ncaaf and ncaab. Every error has the shape {error, detail, timestamp}.",
        license(name = "Apache-2.0")
    ),
    paths(
        root::root,
        health::health,
        health::readiness,
        health::liveness,
        public_picks::public_ml_picks,
        edge_picks::edge_picks,
        edge_picks::track_record,
        edge_picks::edge_picks_for_date,
    ),
    components(schemas(crate::error::ErrorBody)),
    tags(
        (name = "service", description = "Identity and health"),
        (name = "public", description = "Free, unauthenticated feeds"),
        (name = "compatibility", description = "Legacy endpoints with explicit empty payloads")
    )
)]
pub struct ApiDoc;

/// The document, with the version of this build.
pub fn document() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    doc.info.version = env!("CARGO_PKG_VERSION").to_owned();
    doc
}

/// Every path template of the document, for the 405-vs-404 decision.
pub fn path_templates(doc: &utoipa::openapi::OpenApi) -> Vec<String> {
    doc.paths.paths.keys().cloned().collect()
}
