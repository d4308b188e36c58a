//! The OpenAPI document served at `/openapi.json`. Its paths come from the
//! route table (`routes::table`), the table the dispatcher routes by, so
//! the schema and the router cannot disagree; this module only adds what
//! no route carries: info, tags, security schemes, shared component
//! schemas, and the per-event schema of the change stream.

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::endpoint::{Access, Endpoint, Serving};

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

/// The refusals of the access gate, by the row's `Access`: an operation
/// gets each unless its handler declares its own wording for the status
/// (account routes, for example, say which dependency their 503 is about).
pub const GATED_ERRORS: [(&str, &str); 4] = [
    (
        "401",
        "Missing (`missing_key`), or unknown, expired or revoked (`invalid_key`) key; `WWW-Authenticate` names the scheme",
    ),
    (
        "403",
        "The plan has no API access (`no_api_access`) or the subscription is not active (`subscription_inactive`)",
    ),
    (
        "429",
        "Refused and not counted. `rate_limited`: the key's per-second bucket is empty (50 requests per second \
         sustained, bursts of up to 100; `RateLimit-Policy` states both), or this address failed too many key \
         checks (LINECAST_AUTH_FAILURE_RATE, default 20 per second, bursts of 40). `monthly_quota_exceeded`: the \
         customer's monthly quota (UTC calendar month) is used up; `Retry-After` is the seconds to the reset. \
         `too_many_concurrent`: more open streams (LINECAST_MAX_STREAMS_PER_CUSTOMER, default 5) or exports in \
         flight (LINECAST_MAX_DOWNLOADS_PER_CUSTOMER, default 2) than allowed. `Retry-After` is the whole number \
         of seconds until a call would be admitted.",
    ),
    (
        "503",
        "Object storage (`storage_unavailable`) or the accounts database (`accounts_unavailable`) is unavailable; retry with backoff",
    ),
];

/// A handler's own 503 or 429, in words narrower than the gate's (which
/// routes, being keyed, get anyway: `GATED_ERRORS`): by operation, in one
/// place, so no handler declares a 503 or a 429. A row listed here that
/// the gate also refuses keeps these words for that status.
const NARROWED_ERRORS: &[(&str, &str, &str)] = &[
    ("get_me", "503", ACCOUNTS_DOWN),
    ("get_usage", "503", ACCOUNTS_DOWN),
    ("list_api_keys", "503", ACCOUNTS_DOWN),
    ("create_api_key", "503", ACCOUNTS_DOWN),
    ("rename_api_key", "503", ACCOUNTS_DOWN),
    ("revoke_api_key", "503", ACCOUNTS_DOWN),
    (
        "stripe_webhook",
        "429",
        "Too many refused deliveries from this address (the per-address limit on failed credential checks); Stripe retries",
    ),
    (
        "stripe_webhook",
        "503",
        "The accounts database is unavailable; Stripe retries",
    ),
    ("picks_today", "503", ACCOUNTS_DOWN),
    ("picks_performance", "503", ACCOUNTS_DOWN),
    ("picks_for_date", "503", ACCOUNTS_DOWN),
    ("sports", "503", ACCOUNTS_DOWN),
    ("dataset_status", "503", ACCOUNTS_DOWN),
    (
        "dataset_refresh",
        "429",
        "The 8 monthly refreshes are used, or the request limits are exceeded",
    ),
    (
        "dataset_refresh",
        "503",
        "Signing, storage or the accounts database failed; nothing consumed",
    ),
    ("download", "503", STORAGE_DOWN),
    (
        "events",
        "429",
        "The customer already holds LINECAST_MAX_STREAMS_PER_CUSTOMER streams (default 5; not counted, with Retry-After), or the request limits are exceeded",
    ),
    (
        "readiness",
        "503",
        "Draining, starting, or a dependency only this instance uses is down",
    ),
    (
        "public_ledger",
        "503",
        "The accounts database, where the ledger is kept, is unavailable",
    ),
    (
        "public_ledger_day",
        "503",
        "The accounts database, where the ledger is kept, is unavailable",
    ),
    ("public_ml_picks", "503", STORAGE_DOWN),
    (
        "public_scorecard",
        "503",
        "The season store or the kept releases cannot be read",
    ),
    ("create_endpoint", "503", ACCOUNTS_DOWN),
    ("list_endpoints", "503", ACCOUNTS_DOWN),
    ("get_endpoint", "503", ACCOUNTS_DOWN),
    ("update_endpoint", "503", ACCOUNTS_DOWN),
    ("delete_endpoint", "503", ACCOUNTS_DOWN),
    ("rotate_secret", "503", ACCOUNTS_DOWN),
    ("test_endpoint", "503", ACCOUNTS_DOWN),
    ("attempts", "503", ACCOUNTS_DOWN),
    ("resend", "503", ACCOUNTS_DOWN),
    ("recover", "503", ACCOUNTS_DOWN),
];
const ACCOUNTS_DOWN: &str = "The accounts database is unavailable";
const STORAGE_DOWN: &str = "Object storage unavailable";

/// The refusal of a row within the per-address limit of public routes.
const PER_ADDRESS_ERROR: (&str, &str) = (
    "429",
    "`rate_limited`: more than the per-address rate of public routes (LINECAST_PUBLIC_RATE); `Retry-After` says when to retry",
);

/// Every response header the service sends, declared once under
/// `components/headers` and referenced by each response that can carry it:
/// (name, integer-valued, meaning).
pub const HEADERS: [(&str, bool, &str); 17] = [
    (
        "X-Request-Id",
        false,
        "The request's id: the caller's own `X-Request-Id` when it is 1 to 64 visible ASCII characters, else one the service made. Quoted as `request_id` in every error body and in the logs.",
    ),
    (
        "X-Content-Type-Options",
        false,
        "`nosniff`: the body is only ever its declared media type.",
    ),
    (
        "ETag",
        false,
        "Strong tag of the body (per content coding). Send it back in `If-None-Match` to get a 304 without a body.",
    ),
    (
        "Cache-Control",
        false,
        "How caches may keep the body: `private, no-cache` for model data, `public, max-age=30` for the public feed, `no-cache` for bodies any cache must revalidate, `no-store` for account data, probes and writes.",
    ),
    (
        "Vary",
        false,
        "`Accept-Encoding`: the body is sent gzip, brotli or identity as asked.",
    ),
    (
        "RateLimit-Policy",
        false,
        "The limits of the key (draft-ietf-httpapi-ratelimit-headers): `\"burst\";q=<burst>;w=1` and, once known, `\"monthly\";q=<quota>;w=2592000`.",
    ),
    (
        "RateLimit",
        false,
        "What is left of each limit at this response: `r` calls, `t` seconds until refilled or reset, for example `\"burst\";r=99;t=1, \"monthly\";r=199873;t=691200`.",
    ),
    ("X-RateLimit-Limit", true, "The customer's monthly request quota."),
    (
        "X-RateLimit-Remaining",
        true,
        "Requests left of the monthly quota after this one.",
    ),
    ("X-RateLimit-Reset", true, "The Unix second the quota month ends (UTC)."),
    ("X-RateLimit-Tier", false, "The rate tier of the key (`ai`)."),
    (
        "Retry-After",
        true,
        "Whole seconds (at least 1) until a call would be admitted.",
    ),
    (
        "WWW-Authenticate",
        false,
        "`Bearer realm=\"linecast\"`: send the key as `X-API-Key` (recommended) or `Authorization: Bearer`.",
    ),
    (
        "X-Accel-Buffering",
        false,
        "`no`: proxies are asked not to buffer the stream.",
    ),
    (
        "Access-Control-Allow-Origin",
        false,
        "`*`, on an answer to a request that carried `Origin` (cross-origin calls from a browser; `/api/v1` only, never with credentials).",
    ),
    (
        "Access-Control-Expose-Headers",
        false,
        "The headers a cross-origin page may read: the rate-limit headers, `Retry-After`, `ETag`, `X-Request-Id`, `Deprecation`, `Sunset`, `Content-Disposition`, `Accept-Ranges`, `Content-Range`.",
    ),
    (
        "Deprecation",
        false,
        "RFC 9745: this form of the resource is deprecated (`@<unix seconds>`); see /docs/payloads.md#versions-changes-and-deprecation.",
    ),
];

fn header_component(integer: bool, description: &str) -> utoipa::openapi::header::Header {
    use utoipa::openapi::schema::{KnownFormat, Object, ObjectBuilder, SchemaFormat, Type};
    let schema = if integer {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Int64)))
            .minimum(Some(0))
            .build()
    } else {
        Object::with_type(Type::String)
    };
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(Some(schema))
        .description(Some(description))
        .build()
}

/// Adds the component header `name` to `response`.
fn declare(response: &mut utoipa::openapi::Response, name: &str) {
    response.headers.insert(
        name.to_owned(),
        utoipa::openapi::RefOr::Ref(utoipa::openapi::Ref::new(format!("#/components/headers/{name}"))),
    );
}

/// A response of the error schema with `description` (the access gate's
/// refusals and the 304 are not declared by handlers).
fn error_response(description: &str) -> utoipa::openapi::Response {
    use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        )
        .build()
}

/// Applies what `row` says to its operation: the security of its access,
/// the gate's refusals, the 304 of a validated body, and the headers every
/// response of the row can carry. The handler declares none of these.
fn apply_row(row: &Endpoint, operation: &mut utoipa::openapi::path::Operation) {
    use utoipa::openapi::security::SecurityRequirement;
    use utoipa::openapi::{RefOr, ResponseBuilder};
    let keyed = matches!(row.access, Access::Key(_) | Access::KeyHolding(..));
    let cross_origin = crate::routes::cors::applies(row);
    operation.security = keyed.then(|| {
        ["api_key_header", "bearer", "api_key_query"]
            .into_iter()
            .map(|scheme| SecurityRequirement::new::<_, [&str; 0], &str>(scheme, []))
            .collect()
    });
    let responses = &mut operation.responses.responses;
    for (_, status, description) in NARROWED_ERRORS.iter().filter(|(name, ..)| *name == row.name) {
        responses
            .entry((*status).to_owned())
            .or_insert_with(|| error_response(description).into());
    }
    let refusals: &[(&str, &str)] = match row.access {
        Access::Key(_) | Access::KeyHolding(..) => &GATED_ERRORS,
        Access::PerAddress => std::slice::from_ref(&PER_ADDRESS_ERROR),
        Access::Open | Access::StripeSignature | Access::Session(_) => &[],
    };
    for (status, description) in refusals {
        responses
            .entry((*status).to_owned())
            .or_insert_with(|| error_response(description).into());
    }
    responses.entry("500".to_owned()).or_insert_with(|| {
        error_response("`internal_error`: a fault of the service, logged with the request id; nothing was counted")
            .into()
    });
    let validated = matches!(
        row.serving,
        Serving::Read(_) | Serving::Fresh(_) | Serving::Description(_)
    );
    if validated {
        // A 304 carries the headers its 200 would have (RFC 9110 15.4.5).
        let mut not_modified = ResponseBuilder::new()
            .description("Not modified: `If-None-Match` named this body's ETag; no body")
            .build();
        if let Some(RefOr::T(ok)) = responses.get("200") {
            not_modified.headers = ok.headers.clone();
        }
        responses.entry("304".to_owned()).or_insert_with(|| not_modified.into());
    }
    if row.serving == Serving::Stream
        && let Some(RefOr::T(ok)) = responses.get_mut("200")
    {
        ok.content
            .insert(EVENT_STREAM.to_owned(), event_stream_content().into());
    }
    for (status, response) in responses.iter_mut() {
        let RefOr::T(response) = response else { continue };
        let names = header_names(status, (keyed, cross_origin), validated, row.serving == Serving::Stream);
        // A header a handler declares itself (Deprecation, say) is the
        // component of its name: one meaning, stated once.
        for name in response.headers.keys().cloned().collect::<Vec<_>>() {
            if HEADERS.iter().any(|(known, ..)| *known == name) {
                declare(response, &name);
            }
        }
        for name in names {
            declare(response, name);
        }
    }
}

/// The headers a response of `status` can carry: the request id and
/// `nosniff` always; a success's caching (and its validator's, when
/// `validated`; a `stream`'s buffering); the gate's counters past a key
/// check when `keyed`; the refusals' own; CORS's when `cross_origin`.
fn header_names(status: &str, (keyed, cross_origin): (bool, bool), validated: bool, stream: bool) -> Vec<&'static str> {
    let success = status.starts_with('2') || status == "304";
    let mut names = vec!["X-Request-Id", "X-Content-Type-Options"];
    if success {
        names.push("Cache-Control");
        if validated {
            names.extend(["ETag", "Vary"]);
        }
        if stream {
            names.push("X-Accel-Buffering");
        }
    }
    // The gate's counters ride on every answer past the key check.
    if keyed && status != "401" && status != "403" {
        names.extend([
            "RateLimit-Policy",
            "RateLimit",
            "X-RateLimit-Limit",
            "X-RateLimit-Remaining",
            "X-RateLimit-Reset",
            "X-RateLimit-Tier",
        ]);
    }
    if status == "429" {
        names.push("Retry-After");
    }
    if status == "401" {
        names.push("WWW-Authenticate");
    }
    if cross_origin {
        names.extend(["Access-Control-Allow-Origin", "Access-Control-Expose-Headers"]);
    }
    names
}

/// The media type of the change stream.
const EVENT_STREAM: &str = "text/event-stream";

/// The change stream described one event at a time: in an OpenAPI 3.1
/// document the `schema` of `text/event-stream` is read as each event's
/// schema (schemathesis checks every event against it; 3.2's `itemSchema`
/// would be invalid 3.1, which linters and generators refuse): an
/// event is its `id`, `event` and `data` fields, `data` being the JSON of
/// the event type's schema (`contentMediaType`/`contentSchema`). Comment
/// lines (`: ping`) are not events. A `Stream` row's 200 gets it
/// (`apply_row`); the handler declares only the status and its wording.
fn event_stream_content() -> utoipa::openapi::content::Content {
    utoipa::openapi::ContentBuilder::new()
        .schema(Some(event_item_schema()))
        .build()
}

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

#[derive(OpenApi)]
#[openapi(
    info(
        title = "linecast",
        description = "Sports model data: predictions, odds, graded results, summaries, strategies and market comparisons for mlb, nba, nfl, nhl, ncaaf and ncaab.\n\nEvery error has the shape `{error, code, detail, timestamp, request_id}` (with `parameter` when one parameter is at fault); `code` is stable and listed in the `ErrorCode` schema. Every response carries `X-Request-Id`; authenticated answers carry the rate-limit headers. The manual of every payload, field by field: [/docs/payloads.md](/docs/payloads.md).",
        license(name = "Apache-2.0", url = "https://www.apache.org/licenses/LICENSE-2.0"),
        contact(name = "linecast API support", email = "api@linecast.example")
    ),
    servers((url = "/", description = "The deployment serving this document, production or a local demo alike (the document is served by the API it describes)")),
    components(schemas(
        crate::error::ErrorBody,
        linecast_payloads::schema::SportCode,
        linecast_payloads::schema::ModelTypeCode,
        linecast_payloads::schema::MarketCode,
        linecast_payloads::schema::AccountingCode,
        linecast_payloads::schema::LegacySportCode,
        linecast_payloads::schema::LegacyMarketCode,
        linecast_payloads::schema::StrategyId,
        linecast_payloads::calibration::CalibrationFormatCode,
        linecast_payloads::calibration::ClvFromCode,
        crate::presentation::export::ExportFormat,
        linecast_payloads::events::ReleaseEventData,
        linecast_payloads::events::StatusEventData,
        linecast_payloads::events::ResyncEventData,
        linecast_payloads::webhooks::ReleasePublished,
        linecast_payloads::webhooks::DataStatusChanged,
        linecast_payloads::webhooks::QuotaThreshold,
        linecast_payloads::webhooks::KeyExpiring,
        linecast_payloads::webhooks::EndpointDisabled,
        linecast_payloads::webhooks::TestEvent
    )),
    modifiers(&SecuritySchemes),
    tags(
        (name = "account", description = "Customer account, usage and API keys"),
        (name = "billing", description = "Subscriptions set by the billing provider (Stripe webhooks)"),
        (name = "compatibility", description = "Legacy endpoints with explicit empty payloads"),
        (name = "data", description = "Model data; needs an API key"),
        (name = "datasets", description = "Historical dataset refresh and signed downloads"),
        (name = "history", description = "Graded results and aggregates; needs an API key"),
        (name = "public", description = "Free, unauthenticated feeds"),
        (name = "service", description = "Identity and health"),
        (name = "strategies", description = "Strategy leaderboards and replays; needs an API key"),
        (name = "webhooks", description = "Signed webhooks (Standard Webhooks): the account's endpoints, their attempts, resending and recovering. Each delivery is a POST of `{type, timestamp, data}` with the headers `webhook-id`, `webhook-timestamp` and `webhook-signature`; `data` is the schema of its type: `ReleasePublished` (`release.published`), `DataStatusChanged` (`data_status.changed`), `QuotaThreshold` (`quota.threshold`), `KeyExpiring` (`key.expiring`), `EndpointDisabled` (`webhook.endpoint_disabled`), `TestEvent` (`webhook.test`).")
    )
)]
pub struct ApiDoc;

/// The base document (no paths), with the version of this build.
pub fn base() -> utoipa::openapi::OpenApi {
    let mut doc = ApiDoc::openapi();
    env!("CARGO_PKG_VERSION").clone_into(&mut doc.info.version);
    doc
}

/// The events linecast POSTs to an account's endpoints (OpenAPI 3.1
/// `webhooks`): one operation per event type, its body the Standard
/// Webhooks envelope around the type's `data`, with the three signature
/// headers.
fn webhooks() -> utoipa::openapi::path::Paths {
    use utoipa::openapi::path::{HttpMethod, Paths};
    let mut paths = Paths::new();
    for (event, schema, summary) in WEBHOOK_EVENTS {
        paths.add_path_operation(event, vec![HttpMethod::Post], webhook_operation(event, schema, summary));
    }
    paths
}

/// Each event type: its code, the schema of its `data` and its summary.
const WEBHOOK_EVENTS: [(&str, &str, &str); 6] = [
    (
        "release.published",
        "ReleasePublished",
        "A predictions or odds release was kept",
    ),
    (
        "data_status.changed",
        "DataStatusChanged",
        "A sport's data status changed",
    ),
    (
        "quota.threshold",
        "QuotaThreshold",
        "The account's usage reached 50, 80 or 100 % of its monthly quota",
    ),
    (
        "key.expiring",
        "KeyExpiring",
        "One of the account's API keys expires within 7 days, then within 1 day",
    ),
    (
        "webhook.endpoint_disabled",
        "EndpointDisabled",
        "One of the account's endpoints was disabled (a 410, or five days of failures)",
    ),
    (
        "webhook.test",
        "TestEvent",
        "A test event sent from the API or the portal",
    ),
];
/// The headers every delivery carries, with what each says.
const WEBHOOK_HEADERS: [(&str, &str); 3] = [
    (
        "webhook-id",
        "The message id: the same on every retry; for release and status events the change stream's event id. Deduplicate on it.",
    ),
    ("webhook-timestamp", "Unix seconds of this attempt."),
    (
        "webhook-signature",
        "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` under the endpoint's secret; two, space-separated, for 24 hours after a rotation.",
    ),
];

/// The operation of one event: the envelope around its `data`, the
/// signature headers and what an answer does.
fn webhook_operation(event: &str, schema: &str, summary: &str) -> utoipa::openapi::path::Operation {
    use utoipa::openapi::path::{OperationBuilder, ParameterBuilder, ParameterIn};
    use utoipa::openapi::request_body::RequestBodyBuilder;
    use utoipa::openapi::{
        ContentBuilder, KnownFormat, ObjectBuilder, Ref, Required, ResponseBuilder, SchemaFormat, Type,
    };
    let envelope = ObjectBuilder::new()
        .property(
            "type",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some([event])),
        )
        .property(
            "timestamp",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime))),
        )
        .property("data", Ref::from_schema_name(schema))
        .required("type")
        .required("timestamp")
        .required("data")
        .build();
    let mut operation = OperationBuilder::new()
        .summary(Some(summary))
        .description(Some(format!(
            "`{event}`, POSTed to each enabled endpoint subscribed to it. See [payloads.md: Webhooks](/docs/payloads.md#webhooks-key)."
        )))
        .operation_id(Some(format!("webhook_{}", event.replace('.', "_"))))
        .tag("webhooks")
        .request_body(Some(
            RequestBodyBuilder::new()
                .content("application/json", ContentBuilder::new().schema(Some(envelope)).build())
                .required(Some(Required::True))
                .build(),
        ))
        .response(
            "200",
            ResponseBuilder::new()
                .description("Any 2xx: delivered. A 410 disables the endpoint; anything else (or no answer within 15 s) is retried.")
                .build(),
        );
    for (name, about) in WEBHOOK_HEADERS {
        operation = operation.parameter(
            ParameterBuilder::new()
                .name(name)
                .parameter_in(ParameterIn::Header)
                .required(Required::True)
                .description(Some(about))
                .schema(Some(ObjectBuilder::new().schema_type(Type::String))),
        );
    }
    operation.build()
}

/// The whole document: each row of the route table (`routes::table`) that
/// has an operation, in the table's order, at its path with its handler's
/// operation and what the row says (`apply_row`).
pub fn document() -> utoipa::openapi::OpenApi {
    use utoipa::openapi::path::Paths;
    let mut doc = base();
    for row in crate::routes::table::ENDPOINTS {
        // The portal's pages and the API's own description are not part
        // of the API: their rows carry no operation.
        let Some(op) = &row.operation else { continue };
        let mut schemas = Vec::new();
        (op.schemas)(&mut schemas);
        let mut operation = (op.operation)();
        let tags = (op.tags)();
        if !tags.is_empty() {
            operation
                .tags
                .get_or_insert_with(Vec::new)
                .extend(tags.into_iter().map(ToString::to_string));
        }
        apply_row(row, &mut operation);
        let mut paths = Paths::new();
        paths.add_path_operation(row.path, vec![row.http_method()], operation);
        doc.paths.merge(paths);
        doc.components
            .get_or_insert_with(utoipa::openapi::Components::new)
            .schemas
            .extend(schemas);
    }
    doc.webhooks = Some(webhooks());
    let components = doc.components.get_or_insert_with(utoipa::openapi::Components::new);
    for (name, integer, description) in HEADERS {
        components
            .headers
            .insert(name.to_owned(), header_component(integer, description).into());
    }
    for schema in components.schemas.values_mut() {
        integers_with_format(schema);
    }
    add_examples(&mut doc);
    // The API is for customers outside: `x-internal: false` says so to
    // documentation tools (OWASP API9, inventory).
    for server in doc.servers.iter_mut().flatten() {
        server.extensions = Some(
            utoipa::openapi::extensions::ExtensionsBuilder::new()
                .add("x-internal", false)
                .build(),
        );
    }
    doc
}

/// The document as this deployment serves it: `document()`, with the
/// contact's address the payload manual at `public_url` (an absolute URL,
/// as the OpenAPI contact object requires).
pub fn served(public_url: &str) -> utoipa::openapi::OpenApi {
    let mut doc = document();
    if let Some(contact) = doc.info.contact.as_mut() {
        contact.url = Some(format!("{}/docs/payloads.md", public_url.trim_end_matches('/')));
    }
    doc
}

/// One example answer per read operation, by operation id: a live answer
/// of the demo data with each list cut to its first item, written and
/// checked by the API test `declared::each_examples_is_a_live_answer`
/// (`UPDATE_SNAPSHOTS=1` rewrites it), so an example cannot drift.
pub const EXAMPLES: &str = include_str!("../openapi-examples.json");

/// Sets each operation's example on its 200's JSON content.
fn add_examples(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::RefOr;
    let Ok(serde_json::Value::Object(examples)) = serde_json::from_str::<serde_json::Value>(EXAMPLES) else {
        return;
    };
    for item in doc.paths.paths.values_mut() {
        for operation in [&mut item.get, &mut item.post, &mut item.patch, &mut item.delete]
            .into_iter()
            .flatten()
        {
            let Some(example) = operation.operation_id.as_ref().and_then(|id| examples.get(id)) else {
                continue;
            };
            if let Some(RefOr::T(ok)) = operation.responses.responses.get_mut("200")
                && let Some(RefOr::T(content)) = ok.content.get_mut("application/json")
            {
                content.example = Some(example.clone());
            }
        }
    }
}

/// Gives every integer schema without a format `int64` (every integer
/// the service sends or takes fits in one; generated clients then type
/// it as a 64-bit integer, not an arbitrary-precision one).
fn integers_with_format(schema: &mut utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>) {
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::{
        AdditionalProperties, ArrayItems, KnownFormat, Schema, SchemaFormat, SchemaType, Type,
    };
    let RefOr::T(schema) = schema else { return };
    match schema {
        Schema::Object(object) => {
            let integer = match &object.schema_type {
                SchemaType::Type(t) => *t == Type::Integer,
                SchemaType::Array(types) => types.contains(&Type::Integer),
                SchemaType::AnyValue => false,
            };
            if integer && object.format.is_none() {
                object.format = Some(SchemaFormat::KnownFormat(KnownFormat::Int64));
            }
            object.properties.values_mut().for_each(integers_with_format);
            if let Some(extra) = object.additional_properties.as_deref_mut()
                && let AdditionalProperties::RefOr(inner) = extra
            {
                integers_with_format(inner);
            }
        }
        Schema::Array(array) => {
            if let ArrayItems::RefOrSchema(items) = &mut array.items {
                integers_with_format(items);
            }
        }
        Schema::OneOf(one) => one.items.iter_mut().for_each(integers_with_format),
        Schema::AllOf(all) => all.items.iter_mut().for_each(integers_with_format),
        Schema::AnyOf(any) => any.items.iter_mut().for_each(integers_with_format),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::NARROWED_ERRORS;
    use crate::routes::table::ENDPOINTS;

    #[test]
    fn each_narrowed_error_belongs_to_a_documented_row() {
        for (name, status, _) in NARROWED_ERRORS {
            let row = ENDPOINTS.iter().find(|row| row.name == *name);
            assert!(
                row.is_some_and(|row| row.operation.is_some()),
                "{name}: no documented row of that name"
            );
            assert!(matches!(*status, "429" | "503"), "{name}: {status}");
        }
    }
}
