//! `GET /api/v1/odds/{sport}`: current odds for every market. The slate
//! comes from `Slate::odds`, the JSON shape from `presentation::slate`.

use actix_web::{HttpRequest, HttpResponse, get, web};
use linecast_domain::time::et_date;

use crate::error::ApiError;
use crate::params::SportPath;
use crate::presentation::slate::OddsResponse;
use crate::responses::{CacheKey, PRIVATE, Resolutions};
use crate::state::AppState;

#[utoipa::path(
    operation_id = "odds", tag = "data",
    params(crate::params::SportPath),
    security(("api_key_header" = []), ("bearer" = []), ("api_key_query" = [])),
    responses(
        (status = 200, description = "Current odds", body = OddsResponse),
        (status = 304, description = "Not modified: If-None-Match named this body's ETag; no body"),
        (status = 400, description = "Unknown sport", body = crate::error::ErrorBody),
        (status = 404, description = "No odds artifact for that sport", body = crate::error::ErrorBody)
    )
)]
#[get("/{sport}")]
pub async fn odds(req: HttpRequest, state: web::Data<AppState>, path: SportPath) -> Result<HttpResponse, ApiError> {
    let SportPath(sport) = path;
    let now = state.clock.now();
    let resolution = Resolutions::key("odds", &[&sport], et_date(now));
    if let Some(body) = state.resolutions.get(&resolution) {
        return Ok(body.respond(&req, PRIVATE));
    }
    let served = state.slate.odds(sport, now).await?;
    let key = CacheKey::new("odds")
        .with(sport)
        .with(&served.odds.version.version)
        .with(served.slate_date);
    let rendered = state
        .responses
        .get_or_render(key, || Ok(OddsResponse::from(&served)))
        .await?;
    state.resolutions.put(resolution, rendered.clone());
    Ok(rendered.respond(&req, PRIVATE))
}
