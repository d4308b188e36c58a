//! The OpenAPI document served at `/openapi.json`. Its paths come from the
//! route table (`routes::table`), the table the dispatcher routes by, so
//! the schema and the router cannot disagree; this module only adds what
//! no route carries: info, tags, security schemes, shared component
//! schemas, and the per-event schema of the change stream.

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

/// The refusals every key-gated operation can answer, declared once: an
/// operation that names a security scheme gets these responses unless it
/// declares its own wording for the same status (account routes, for
/// example, say which dependency their 503 is about).
struct GatedErrorResponses;

/// Status and description of each refusal of the access gate.
pub const GATED_ERRORS: [(&str, &str); 4] = [
    ("401", "Missing, invalid, expired or revoked key"),
    ("403", "No active subscription"),
    (
        "429",
        "Rate limit exceeded, not counted. Per key: 50 requests per second sustained, bursts of up to 100 \
         (a token bucket; the burst is the server's LINECAST_RATE_BURST); detail `Rate limit exceeded. Limit: 50 \
         requests per second`. Per customer: the monthly quota (UTC calendar month); detail `Rate limit exceeded. \
         Limit: <n> requests per month`. Per client address: too many failed key checks (LINECAST_AUTH_FAILURE_RATE, \
         default 20 per second, bursts of 40). Per customer, on the change stream and on exports: more open streams \
         (LINECAST_MAX_STREAMS_PER_CUSTOMER, default 5) or exports in flight (LINECAST_MAX_DOWNLOADS_PER_CUSTOMER, \
         default 2) than allowed; detail `Too many event streams: ...` or `Too many large downloads: ...`. `Retry-After` is the whole number of seconds until a call would be \
         admitted. `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers) describe the `burst` \
         bucket and the `monthly` quota on every limited response, for example `RateLimit-Policy: \"burst\";q=100;w=1, \
         \"monthly\";q=200000;w=2592000` and `RateLimit: \"burst\";r=99;t=1, \"monthly\";r=199873;t=691200`.",
    ),
    ("503", "Object storage or the accounts database unavailable"),
];

/// The headers of a 429 (and, but for `Retry-After`, of every limited response).
const LIMIT_HEADERS: [(&str, &str); 3] = [
    (
        "Retry-After",
        "Whole seconds (at least 1) until a call would be admitted",
    ),
    (
        "RateLimit-Policy",
        "The limits: `\"burst\";q=<burst>;w=1` and, once known, `\"monthly\";q=<quota>;w=2592000`",
    ),
    (
        "RateLimit",
        "What is left of each limit known at this response: `r` calls, `t` seconds until refilled or reset",
    ),
];

fn string_header(description: &str) -> utoipa::openapi::header::Header {
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(utoipa::openapi::schema::Object::with_type(utoipa::openapi::schema::Type::String).into())
        .description(Some(description))
        .build()
}

impl Modify for GatedErrorResponses {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.options,
                &mut item.head,
                &mut item.patch,
                &mut item.trace,
            ]
            .into_iter()
            .flatten()
            {
                if operation.security.as_ref().is_none_or(Vec::is_empty) {
                    continue;
                }
                for (status, description) in GATED_ERRORS {
                    operation
                        .responses
                        .responses
                        .entry(status.to_owned())
                        .or_insert_with(|| {
                            let mut response = ResponseBuilder::new().description(description).content(
                                "application/json",
                                ContentBuilder::new()
                                    .schema(Some(Ref::from_schema_name("ErrorBody")))
                                    .build(),
                            );
                            if status == "429" {
                                for (name, about) in LIMIT_HEADERS {
                                    response = response.header(name, string_header(about));
                                }
                            }
                            response.build().into()
                        });
                }
            }
        }
    }
}

/// The media type of the change stream.
const EVENT_STREAM: &str = "text/event-stream";

/// The change stream described one event at a time, as OpenAPI 3.2's
/// `itemSchema` does (schemathesis checks every event against it): an
/// event is its `id`, `event` and `data` fields, `data` being the JSON of
/// the event type's schema (`contentMediaType`/`contentSchema`). Comment
/// lines (`: ping`) are not events. The route declares the stream's
/// status, wording and media type; this replaces the media type's
/// schema (a plain string, which would describe each event as a string).
struct EventStreamItems;

/// Each event type and the component schema of its `data`.
const EVENT_TYPES: [(&str, &str); 3] = [
    ("release", "ReleaseEventData"),
    ("status", "StatusEventData"),
    ("resync", "ResyncEventData"),
];

fn event_item_schema() -> utoipa::openapi::Schema {
    use utoipa::openapi::Ref;
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, OneOfBuilder, Type};
    let mut events = OneOfBuilder::new().description(Some(
        "One server-sent event: `id` (what to send back as `Last-Event-ID`), `event` (its type) and `data` \
         (one line of JSON of the type's schema). `release` and `status` always carry an id; `resync` carries \
         the newest id the stream knows, if any.",
    ));
    for (name, data) in EVENT_TYPES {
        let mut event = ObjectBuilder::new().schema_type(Type::Object);
        if name != "resync" {
            event = event.required("id");
        }
        event = event
            .property(
                "id",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .pattern(Some("^[0-9]{13}-[rs]-[0-9a-f]{16}$")),
            )
            .property(
                "event",
                ObjectBuilder::new().schema_type(Type::String).enum_values(Some([name])),
            )
            .property(
                "data",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .content_media_type("application/json")
                    .content_schema(Some(Ref::from_schema_name(data))),
            )
            .required("event")
            .required("data")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)));
        events = events.item(event);
    }
    events.build().into()
}

impl Modify for EventStreamItems {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, RefOr};
        let Some(operation) = openapi
            .paths
            .paths
            .get_mut(crate::routes::table::EVENTS.path)
            .and_then(|item| item.get.as_mut())
        else {
            return;
        };
        if let Some(RefOr::T(response)) = operation.responses.responses.get_mut("200") {
            response.content.insert(
                EVENT_STREAM.to_owned(),
                ContentBuilder::new()
                    .item_schema(Some(event_item_schema()))
                    .build()
                    .into(),
            );
        }
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
        crate::schema::StrategyId,
        crate::presentation::calibration::CalibrationFormatCode,
        crate::presentation::export::ExportFormat,
        crate::presentation::events::ReleaseEventData,
        crate::presentation::events::StatusEventData,
        crate::presentation::events::ResyncEventData
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
        (name = "compatibility", description = "Legacy endpoints with explicit empty payloads"),
        (name = "billing", description = "Subscriptions set by the billing provider (Stripe webhooks)")
    )
)]
pub struct ApiDoc;

/// The base document (no paths), with the version of this build.
pub fn base() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    env!("CARGO_PKG_VERSION").clone_into(&mut doc.info.version);
    doc
}

/// The whole document: each row of the route table (`routes::table`), in
/// the table's order, at its path with its handler's operation.
pub fn document() -> utoipa::openapi::OpenApi {
    use utoipa::openapi::path::Paths;
    let mut doc = base();
    // The portal's pages are HTML for people, not part of the API; the
    // document and Swagger UI describe the API, they are not in it.
    for row in crate::routes::table::ENDPOINTS.iter().filter(|r| {
        !matches!(
            r.serving,
            crate::endpoint::Serving::Page(_) | crate::endpoint::Serving::Description(_)
        )
    }) {
        let mut schemas = Vec::new();
        (row.schemas)(&mut schemas);
        let mut paths = Paths::new();
        for method in (row.methods)() {
            let mut operation = (row.operation)();
            let tags = (row.tags)();
            if !tags.is_empty() {
                operation
                    .tags
                    .get_or_insert_with(Vec::new)
                    .extend(tags.into_iter().map(ToString::to_string));
            }
            paths.add_path_operation(row.path, vec![method], operation);
        }
        doc.paths.merge(paths);
        doc.components
            .get_or_insert_with(utoipa::openapi::Components::new)
            .schemas
            .extend(schemas);
    }
    GatedErrorResponses.modify(&mut doc);
    EventStreamItems.modify(&mut doc);
    doc
}
