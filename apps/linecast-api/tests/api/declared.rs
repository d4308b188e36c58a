//! The document declares what the service sends. Every operation of the
//! served `/openapi.json` is called (with and without a key, with and
//! without `If-None-Match`, and cross-origin); each answer's status must be
//! one its operation documents, and every header it carries must be
//! declared on that response, but for the headers HTTP itself defines for
//! every message. And each row of the route table agrees with its
//! operation: the keyed rows, and only they, name the security schemes;
//! the rows whose bodies carry an ETag document a 304.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::helpers::spawn_app;

/// Headers of the message itself (RFC 9110/9112), never part of an API's
/// contract: framing, the body's media type and coding, the date.
const MESSAGE_HEADERS: [&str; 6] = [
    "content-type",
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "date",
];

/// A value for each path parameter: the first of its enum, else one that
/// names real demo data (or, for a key or a token, one that does not).
fn fill(doc: &Value, template: &str, parameters: &[Value]) -> String {
    let mut path = template.to_owned();
    for p in parameters.iter().filter(|p| p["in"] == "path") {
        let name = p["name"].as_str().unwrap();
        let value = match resolve(doc, &p["schema"])["enum"].as_array().and_then(|e| e.first()) {
            Some(first) => first.as_str().unwrap().to_owned(),
            None => match name {
                // The ledger's days end today (the fixtures' UTC date).
                "date" if template.contains("/ledger/") => crate::helpers::FIXTURE_TODAY.to_owned(),
                "date" | "date_str" => "2026-11-20".to_owned(),
                "api_key" => "sk_service_XXXX*****".to_owned(),
                "token" => "not-a-token".to_owned(),
                "game_id" => "nba-20261115-dallas_mavericks-charlotte_hornets".to_owned(),
                // The endpoint the examples' test stores (elsewhere the
                // documented 404); no such delivery.
                "endpoint_id" => "ep_000000000000000000000000".to_owned(),
                "delivery_id" => "1".to_owned(),
                other => panic!("no value for the path parameter {other} of {template}"),
            },
        };
        path = path.replace(&format!("{{{name}}}"), &value);
    }
    // The data routes are called for a sport with demo data everywhere.
    path.replace("/mlb", "/nba")
}

/// A schema, or the component its `$ref` names.
fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        Some(name) => &doc["components"]["schemas"][name],
        None => schema,
    }
}

/// The required query of an operation, spelled from its enums.
fn query(doc: &Value, parameters: &[Value]) -> String {
    let pairs: Vec<String> = parameters
        .iter()
        .filter(|p| p["in"] == "query" && p["required"] == true)
        .map(|p| {
            let value = resolve(doc, &p["schema"])["enum"]
                .as_array()
                .and_then(|e| e.first())
                .and_then(Value::as_str)
                .unwrap_or("csv");
            format!("{}={value}", p["name"].as_str().unwrap())
        })
        .collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!("?{}", pairs.join("&"))
    }
}

#[tokio::test]
async fn every_header_of_every_answer_is_declared_on_its_response() {
    let app = spawn_app().await;
    app.keep_releases().await;
    let (status, doc) = app.get_json("/openapi.json").await;
    assert_eq!(status, 200);
    let mut called = 0;
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (template, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
            let url = format!("{}{}", fill(&doc, template, &parameters), query(&doc, &parameters));
            let keyed = operation["security"].as_array().is_some_and(|s| !s.is_empty());
            let mut etag = None;
            // Keyed, then (for keyed operations) without a key; then
            // revalidating with the ETag the first answer gave.
            for round in 0..3 {
                if round == 1 && !keyed {
                    continue;
                }
                if round == 2 && etag.is_none() {
                    continue;
                }
                let mut req = app
                    .client
                    .request(method.to_uppercase().parse().unwrap(), format!("{}{url}", app.address))
                    .header("Origin", "http://localhost:9");
                if round != 1 {
                    req = req.header("X-API-Key", &app.api_key);
                }
                if round == 2 {
                    req = req.header("If-None-Match", etag.clone().unwrap());
                }
                if method != "get" {
                    req = req.header("Content-Type", "application/json").body("{}");
                }
                let res = req.send().await.unwrap();
                called += 1;
                let status = res.status().as_u16().to_string();
                let response = &operation["responses"][&status];
                assert!(
                    response.is_object(),
                    "{method} {template} answered {status}, which it does not document"
                );
                if round == 0 {
                    etag = res.headers().get("etag").map(|v| v.to_str().unwrap().to_owned());
                }
                let declared: BTreeSet<String> = response["headers"]
                    .as_object()
                    .map(|h| h.keys().map(|k| k.to_ascii_lowercase()).collect())
                    .unwrap_or_default();
                for name in res.headers().keys() {
                    let name = name.as_str();
                    seen.insert(name.to_owned());
                    assert!(
                        MESSAGE_HEADERS.contains(&name) || declared.contains(name),
                        "{method} {template} {status} sends {name}, which its response does not declare \
                         (declared: {declared:?})"
                    );
                }
            }
        }
    }
    assert!(called >= 60, "only {called} calls");
    // The walk met the headers it is about.
    for name in [
        "x-request-id",
        "etag",
        "ratelimit",
        "x-ratelimit-remaining",
        "access-control-allow-origin",
    ] {
        assert!(seen.contains(name), "no answer carried {name}: {seen:?}");
    }
}

/// Each declared header resolves to a component with a description.
#[tokio::test]
async fn every_declared_header_is_described() {
    let app = spawn_app().await;
    let (_, doc) = app.get_json("/openapi.json").await;
    let components = doc["components"]["headers"].as_object().unwrap();
    for (name, header) in components {
        let about = header["description"].as_str().unwrap_or_default();
        assert!(about.len() > 10, "{name} has no meaning: {header}");
    }
    for name in [
        "RateLimit-Policy",
        "RateLimit",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
        "X-RateLimit-Tier",
        "Retry-After",
        "ETag",
        "Cache-Control",
        "Vary",
        "X-Request-Id",
    ] {
        assert!(components.contains_key(name), "{name} is not declared");
    }
}

/// The route table and the document agree, row by row: a keyed row names
/// the three schemes and documents 401, 403 and 429; a row open to anyone
/// names none; a row serving validated bodies documents a 304; a page or
/// the description is not an operation at all.
#[tokio::test]
async fn each_row_and_its_operation_agree() {
    use linecast_api::endpoint::{Access, Serving};
    let app = spawn_app().await;
    let (_, doc) = app.get_json("/openapi.json").await;
    for row in linecast_api::routes::table::ENDPOINTS {
        let operation = &doc["paths"][row.path][row.method.as_str().to_ascii_lowercase()];
        if matches!(row.serving, Serving::Page(_) | Serving::Description(_)) {
            assert!(operation.is_null(), "{row:?} is in the document");
            continue;
        }
        assert!(operation.is_object(), "{row:?} is not in the document");
        assert_eq!(operation["operationId"], row.name, "{row:?}");
        let schemes: Vec<&str> = operation["security"]
            .as_array()
            .map(|s| {
                s.iter()
                    .flat_map(|r| r.as_object().unwrap().keys())
                    .map(String::as_str)
                    .collect()
            })
            .unwrap_or_default();
        let responses = &operation["responses"];
        match row.access {
            Access::Key(_) | Access::KeyHolding(..) => {
                assert_eq!(schemes, ["api_key_header", "bearer", "api_key_query"], "{row:?}");
                for status in ["401", "403", "429", "503"] {
                    assert!(responses[status].is_object(), "{row:?} lacks {status}");
                }
                assert!(responses["401"]["headers"]["WWW-Authenticate"].is_object(), "{row:?}");
            }
            Access::PerAddress => {
                assert!(schemes.is_empty(), "{row:?}");
                assert!(responses["429"]["headers"]["Retry-After"].is_object(), "{row:?}");
                assert!(responses["401"].is_null(), "{row:?}");
            }
            _ => {
                assert!(schemes.is_empty(), "{row:?}");
                assert!(responses["401"].is_null(), "{row:?}");
            }
        }
        let validated = matches!(row.serving, Serving::Read(_) | Serving::Fresh(_));
        assert_eq!(responses["304"].is_object(), validated, "{row:?}: 304");
        let (_, ok) = responses
            .as_object()
            .unwrap()
            .iter()
            .find(|(s, _)| s.starts_with('2'))
            .unwrap_or_else(|| panic!("{row:?} has no 2xx"));
        assert!(ok["headers"]["Cache-Control"].is_object(), "{row:?}");
        assert_eq!(ok["headers"]["ETag"].is_object(), validated, "{row:?}: ETag");
        assert!(
            operation["summary"].as_str().is_some_and(|s| !s.is_empty())
                && operation["description"]
                    .as_str()
                    .is_some_and(|d| d.contains("/docs/payloads.md#")),
            "{row:?}: a summary and a description linking its section of payloads.md"
        );
    }
}

/// A live answer cut down to an example: each list to its first item.
fn cut(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().take(1).map(cut).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), cut(v))).collect()),
        other => other.clone(),
    }
}

/// A value with its instants blanked: the fixture store's files are
/// copied for each test, so their publication times are the copy's.
fn settled(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(settled).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), settled(v))).collect()),
        Value::String(s) if chrono::DateTime::parse_from_rfc3339(s).is_ok() => Value::from("<date-time>"),
        other => other.clone(),
    }
}

/// The shape of a value: its keys and the JSON type of each leaf.
fn shape(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Null => Value::from("null"),
        Value::Bool(_) => Value::from("boolean"),
        Value::Number(_) => Value::from("number"),
        Value::String(_) => Value::from("string"),
    }
}

/// Every read operation answering JSON has one example, and it is a live
/// answer of the demo data (the committed fixture store, at the fixtures'
/// frozen instant) with each list cut to its first item: equal to it for
/// the pipeline's reads, of the same shape for answers made per caller
/// (keys, usage, account). `UPDATE_SNAPSHOTS=1` rewrites the examples.
#[tokio::test]
async fn each_example_is_a_live_answer_of_the_demo_data() {
    use linecast_api::endpoint::Serving;
    let app = spawn_app().await;
    app.keep_releases().await;
    // The webhook endpoint the filled paths name, stored as the demo
    // customer's (creating one over the API would resolve its host).
    let customer = crate::helpers::demo_customer(&app).await.customer_id;
    app.state
        .webhooks
        .store()
        .create_endpoint(
            linecast_core::ports::webhooks::NewEndpoint {
                id: "ep_000000000000000000000000".to_owned(),
                customer_id: customer,
                url: "https://hooks.example.com/linecast".to_owned(),
                description: Some("trading desk".to_owned()),
                event_types: vec!["release.published".to_owned()],
                sports: vec!["nba".to_owned()],
                secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".to_owned(),
            },
            crate::helpers::fixture_now(),
        )
        .await
        .unwrap();
    let (_, doc) = app.get_json("/openapi.json").await;
    let committed: serde_json::Map<String, Value> =
        serde_json::from_str(linecast_api::openapi::EXAMPLES).expect("openapi-examples.json is a JSON object");
    let mut live = serde_json::Map::new();
    for row in linecast_api::routes::table::ENDPOINTS {
        let operation = &doc["paths"][row.path]["get"];
        if row.method != actix_web::http::Method::GET
            || !operation["responses"]["200"]["content"]["application/json"].is_object()
        {
            continue;
        }
        let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
        let url = format!("{}{}", fill(&doc, row.path, &parameters), query(&doc, &parameters));
        let (status, body) = app.get_authed_json(&url).await;
        assert_eq!(status, 200, "{url}: {body}");
        let example = cut(&body);
        if std::env::var_os("UPDATE_SNAPSHOTS").is_none() {
            let written = committed
                .get(row.name)
                .unwrap_or_else(|| panic!("{} has no example; run with UPDATE_SNAPSHOTS=1", row.name));
            if matches!(row.serving, Serving::Read(_)) {
                assert_eq!(
                    settled(written),
                    settled(&example),
                    "{}: the example drifted from the demo data",
                    row.name
                );
            } else {
                assert_eq!(
                    shape(written),
                    shape(&example),
                    "{}: the example's shape drifted",
                    row.name
                );
            }
            assert_eq!(
                &operation["responses"]["200"]["content"]["application/json"]["example"], written,
                "{}: the document serves its example",
                row.name
            );
        }
        live.insert(row.name.to_owned(), example);
    }
    // The writes, in a customer's order: create a key, rename it, revoke
    // it, refresh the dataset links. Their answers are made per caller
    // (a new key each time): compared by shape.
    let send = |method: &str, path: &str, body: Option<Value>| {
        let mut req = app
            .client
            .request(method.parse().unwrap(), format!("{}{path}", app.address))
            .header("X-API-Key", &app.api_key);
        if let Some(body) = body {
            req = req.json(&body);
        }
        req.send()
    };
    let created: Value = send(
        "POST",
        "/api/v1/customers/me/api-keys",
        Some(serde_json::json!({"name": "Example key"})),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let key = created["api_key"]
        .as_str()
        .unwrap_or_else(|| panic!("a created key: {created}"))
        .to_owned();
    let writes = [
        ("create_api_key", created),
        (
            "rename_api_key",
            send(
                "PATCH",
                "/api/v1/customers/me/api-keys/rename",
                Some(serde_json::json!({"api_key_to_rename": key, "new_name": "Renamed key"})),
            )
            .await
            .unwrap()
            .json()
            .await
            .unwrap(),
        ),
        (
            "revoke_api_key",
            send("DELETE", &format!("/api/v1/customers/me/api-keys/{key}"), None)
                .await
                .unwrap()
                .json()
                .await
                .unwrap(),
        ),
        (
            "update_endpoint",
            send(
                "PATCH",
                "/api/v1/webhooks/endpoints/ep_000000000000000000000000",
                Some(serde_json::json!({"description": "trading desk, nba only"})),
            )
            .await
            .unwrap()
            .json()
            .await
            .unwrap(),
        ),
        (
            "rotate_secret",
            send(
                "POST",
                "/api/v1/webhooks/endpoints/ep_000000000000000000000000/rotate-secret",
                None,
            )
            .await
            .unwrap()
            .json()
            .await
            .unwrap(),
        ),
        (
            "delete_endpoint",
            send("DELETE", "/api/v1/webhooks/endpoints/ep_000000000000000000000000", None)
                .await
                .unwrap()
                .json()
                .await
                .unwrap(),
        ),
        (
            "dataset_refresh",
            send("POST", "/api/v1/service-sports-data/refresh", None)
                .await
                .unwrap()
                .json()
                .await
                .unwrap(),
        ),
    ];
    // The billing webhook's answer to a signed delivery (Stripe reads only
    // its status; the body says what was done).
    let billing = crate::billing::billing_app(|_| {}).await;
    let event =
        crate::billing::subscription_event("evt_example", "customer.subscription.updated", 1, "active", "price_ai");
    let (status, ack) = crate::billing::deliver(
        &billing,
        Some(&crate::billing::signed(crate::billing::NEW, &event)),
        &event,
    )
    .await;
    assert_eq!(status, 200, "{ack}");
    for (name, body) in writes.into_iter().chain([("stripe_webhook", ack)]) {
        assert!(body.get("error").is_none(), "{name}: {body}");
        let example = cut(&body);
        if std::env::var_os("UPDATE_SNAPSHOTS").is_none() {
            let written = committed
                .get(name)
                .unwrap_or_else(|| panic!("{name} has no example; run with UPDATE_SNAPSHOTS=1"));
            assert_eq!(shape(written), shape(&example), "{name}: the example's shape drifted");
        }
        live.insert(name.to_owned(), example);
    }
    // Every operation answering JSON has its example in the document.
    for item in doc["paths"].as_object().unwrap().values() {
        for (method, operation) in item.as_object().unwrap() {
            let ok = &operation["responses"]["200"]["content"]["application/json"];
            if ok.is_object() && std::env::var_os("UPDATE_SNAPSHOTS").is_none() {
                assert!(
                    ok["example"].is_object() || ok["example"].is_array(),
                    "{method} {} has no example",
                    operation["operationId"]
                );
            }
        }
    }
    assert!(live.len() >= 25, "only {} examples", live.len());
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi-examples.json");
        let mut text = serde_json::to_string_pretty(&Value::Object(live)).unwrap();
        text.push('\n');
        std::fs::write(path, text).unwrap();
    }
}
