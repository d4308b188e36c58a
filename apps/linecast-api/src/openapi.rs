//! The OpenAPI document served at `/openapi.json`. Its operations come from
//! the route registration itself (`routes::register`, through
//! utoipa-actix-web), so the schema and the router cannot disagree; this
//! module only adds what no route carries: info, tags, security schemes and
//! shared component schemas.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The three ways to send a key: `X-API-Key` (recommended), Bearer, `?api_key=`.
struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key_header",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-API-Key",
                "Recommended. Wins over Authorization when both are sent.",
            ))),
        );
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("Authorization: Bearer <API_KEY>"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "api_key_query",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "api_key",
                "Works, but keys reach logs; prefer the header.",
            ))),
        );
    }
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "linecast",
        description = "Sports model data: predictions, odds, graded results, summaries, strategies and market comparisons for mlb, nba, nfl, nhl, ncaaf and ncaab. Every error has the shape {error, detail, timestamp}.",
        license(name = "Apache-2.0")
    ),
    components(schemas(
        crate::error::ErrorBody,
        crate::schema::SportCode,
        crate::schema::ModelTypeCode,
        crate::schema::MarketCode,
        crate::schema::AccountingCode,
        crate::schema::LegacySportCode,
        crate::schema::LegacyMarketCode,
        crate::schema::StrategyId
    )),
    modifiers(&SecuritySchemes),
    tags(
        (name = "service", description = "Identity and health"),
        (name = "public", description = "Free, unauthenticated feeds"),
        (name = "data", description = "Model data; needs an API key"),
        (name = "history", description = "Graded results and aggregates; needs an API key"),
        (name = "strategies", description = "Strategy leaderboards and replays; needs an API key"),
        (name = "account", description = "Customer account, usage and API keys"),
        (name = "datasets", description = "Historical dataset refresh and signed downloads"),
        (name = "compatibility", description = "Legacy endpoints with explicit empty payloads")
    )
)]
pub struct ApiDoc;

/// The base document (no paths), with the version of this build.
pub fn base() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    env!("CARGO_PKG_VERSION").clone_into(&mut doc.info.version);
    doc
}

/// The whole document, collected from the route registration.
pub fn document() -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt;
    let app = actix_web::App::new().into_utoipa_app().openapi(base());
    let (_, doc) = crate::routes::register(app).split_for_parts();
    doc
}

/// Every path template of the document with its methods (`GET, POST`), for
/// the 405-vs-404 decision and the `Allow` header.
pub fn path_methods(doc: &utoipa::openapi::OpenApi) -> Vec<(String, String)> {
    let value = serde_json::to_value(doc).unwrap_or_default();
    let Some(paths) = value.get("paths").and_then(|p| p.as_object()) else {
        return Vec::new();
    };
    paths
        .iter()
        .map(|(path, item)| {
            let methods: Vec<String> = item
                .as_object()
                .map(|ops| {
                    ops.keys()
                        .filter(|k| !k.starts_with("x-") && *k != "parameters")
                        .map(|k| k.to_ascii_uppercase())
                        .collect()
                })
                .unwrap_or_default();
            (path.clone(), methods.join(", "))
        })
        .collect()
}
