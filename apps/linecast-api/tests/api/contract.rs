//! Every JSON response the in-process tests receive through the helpers is
//! validated against the OpenAPI schema of its route, method and status: an
//! undocumented status or a body that breaks its schema fails the test that
//! received it. Every server-sent event they read from the change stream is
//! validated against the stream's per-event `schema` (`validate_event`).

use std::sync::OnceLock;

use actix_web::dev::ResourceDef;
use serde_json::{Value, json};

struct Contract {
    doc: Value,
    routes: Vec<(ResourceDef, String)>,
}

fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        let doc = serde_json::to_value(linecast_api::openapi::document()).unwrap();
        let routes = doc["paths"]
            .as_object()
            .unwrap()
            .keys()
            .map(|p| (ResourceDef::new(p.as_str()), p.clone()))
            .collect();
        Contract { doc, routes }
    })
}

fn escape(segment: &str) -> String {
    segment
        .replace('~', "~0")
        .replace('/', "~1")
        .replace('{', "%7B")
        .replace('}', "%7D")
}

/// Validates one response; panics naming the route and the violations.
pub fn validate(method: &str, url_path: &str, status: u16, body: &Value) {
    let path = url_path.split('?').next().unwrap_or(url_path);
    let errors = violations(method, url_path, status, body);
    assert!(
        errors.is_empty(),
        "{method} {path} {status} breaks its schema: {errors:?}\nbody: {body}"
    );
}

/// The schema violations of one response (at most five); empty when it
/// conforms. Panics when the status is not documented for the operation.
pub fn violations(method: &str, url_path: &str, status: u16, body: &Value) -> Vec<String> {
    let c = contract();
    let path = url_path.split('?').next().unwrap_or(url_path);
    if path == "/openapi.json" || path.starts_with("/docs") {
        return Vec::new(); // the document itself and Swagger UI are not API operations
    }
    // The most specific template: fewest path parameters.
    let template = c
        .routes
        .iter()
        .filter(|(def, _)| def.is_match(path))
        .min_by_key(|(_, t)| t.matches('{').count())
        .map(|(_, t)| t.clone());
    let method = method.to_ascii_lowercase();
    let pointer = match template {
        Some(t) if c.doc["paths"][&t][&method].is_object() => {
            let responses = &c.doc["paths"][&t][&method]["responses"];
            assert!(
                responses[status.to_string()].is_object(),
                "{method} {t} answered {status}, which its OpenAPI operation does not document: {body}"
            );
            if responses[status.to_string()]["content"]["application/json"]["schema"].is_null() {
                return Vec::new();
            }
            format!(
                "#/paths/{}/{method}/responses/{status}/content/application~1json/schema",
                escape(&t)
            )
        }
        // Unknown route or method: the error shape.
        _ => {
            assert!(
                status >= 400,
                "{method} {path} is not in the document but answered {status}"
            );
            "#/components/schemas/ErrorBody".to_owned()
        }
    };
    let mut schema = c.doc.clone();
    schema["$ref"] = json!(pointer);
    // Formats are checked too: a `date` or `date-time` field must be one.
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("schema for {pointer} does not compile: {e}"));
    validator
        .iter_errors(body)
        .map(|e| format!("{} at {} (schema {pointer})", e, e.instance_path))
        .take(5)
        .collect()
}

fn compiled(doc: &Value, pointer: &str) -> jsonschema::Validator {
    let mut schema = doc.clone();
    schema["$ref"] = json!(pointer);
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("schema for {pointer} does not compile: {e}"))
}

/// Validates one server-sent event of the change stream, as an SSE parser
/// gives it (`id`, `event`, and `data` as text), against the stream's
/// `itemSchema`, and its `data`, read as JSON, against the schema its event
/// type names in `contentSchema` (JSON Schema leaves that keyword to the
/// application). Panics naming the violations.
pub fn validate_event(event: &Value) {
    let c = contract();
    let path = escape(linecast_api::routes::table::EVENTS.path);
    let pointer = format!("#/paths/{path}/get/responses/200/content/text~1event-stream/schema");
    let errors: Vec<String> = compiled(&c.doc, &pointer)
        .iter_errors(event)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .take(5)
        .collect();
    assert!(
        errors.is_empty(),
        "an event breaks the stream's per-event schema: {errors:?}\nevent: {event}"
    );
    let item = c
        .doc
        .pointer(&pointer[1..])
        .unwrap_or_else(|| panic!("{pointer} is in the document"));
    let branch = item["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|branch| {
            branch["properties"]["event"]["enum"]
                .as_array()
                .unwrap()
                .contains(&event["event"])
        })
        .unwrap_or_else(|| panic!("no branch of the per-event schema names {}", event["event"]));
    let data_schema = branch["properties"]["data"]["contentSchema"]["$ref"].as_str().unwrap();
    let data: Value = serde_json::from_str(event["data"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("an event's data is not JSON ({e}): {event}"));
    let errors: Vec<String> = compiled(&c.doc, data_schema)
        .iter_errors(&data)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .take(5)
        .collect();
    assert!(
        errors.is_empty(),
        "an event's data breaks {data_schema}: {errors:?}\ndata: {data}"
    );
}
