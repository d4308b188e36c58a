use std::collections::HashSet;

use crate::helpers::spawn_app;

#[tokio::test]
async fn openapi_lists_every_route_with_unique_operation_ids_and_the_error_schema() {
    let app = spawn_app().await;
    let (status, doc) = app.get_json("/openapi.json").await;
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let paths = doc["paths"].as_object().unwrap();
    for expected in [
        "/",
        "/api/v1/health",
        "/api/v1/readiness",
        "/api/v1/liveness",
        "/api/v1/public/ml-picks/{sport}/{market}",
        "/api/v1/edge-picks",
        "/api/v1/edge-picks/{date_str}",
        "/api/v1/edge-picks/track-record",
    ] {
        assert!(paths.contains_key(expected), "missing {expected}");
    }
    let mut ids = HashSet::new();
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            assert!(ids.insert(id.to_owned()), "duplicate operationId {id}");
            let mut seen = HashSet::new();
            for param in op["parameters"].as_array().into_iter().flatten() {
                let name = (param["name"].as_str().unwrap(), param["in"].as_str().unwrap());
                assert!(seen.insert(name), "{method} {path} declares {name:?} twice");
            }
            for segment in path.split('/').filter(|s| s.starts_with('{')) {
                let name = segment.trim_matches(|c| c == '{' || c == '}');
                assert!(
                    seen.contains(&(name, "path")),
                    "{method} {path} does not document its path parameter {name}"
                );
            }
            for (code, response) in op["responses"].as_object().unwrap() {
                assert!(
                    response["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{method} {path} {code} lacks a description"
                );
            }
        }
    }
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
    assert!(doc["components"]["schemas"]["PublicPicksResponse"].is_object());
}

/// The public contract, snapshotted: any schema change shows up in review.
/// Regenerate with `UPDATE_SNAPSHOTS=1 cargo test -p linecast-api --test api openapi`.
#[test]
fn the_openapi_document_matches_its_committed_snapshot() {
    let doc = serde_json::to_value(linecast_api::openapi::document()).unwrap();
    let mut text = serde_json::to_string_pretty(&doc).unwrap();
    text.push('\n');
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/snapshots/openapi.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).expect("snapshot exists; run with UPDATE_SNAPSHOTS=1 to create it");
    assert!(
        committed == text,
        "openapi.json changed; review and regenerate the snapshot with UPDATE_SNAPSHOTS=1"
    );
}

#[tokio::test]
async fn every_authenticated_route_declares_the_three_security_schemes_and_public_ones_none() {
    let doc = serde_json::to_value(linecast_api::openapi::document()).unwrap();
    let schemes = doc["components"]["securitySchemes"].as_object().unwrap();
    for name in ["api_key_header", "bearer", "api_key_query"] {
        assert!(schemes.contains_key(name), "{name}");
    }
    let public = [
        "/",
        "/api/v1/health",
        "/api/v1/readiness",
        "/api/v1/liveness",
        "/api/v1/data-status/{sport}",
        "/api/v1/public/ml-picks/{sport}/{market}",
        "/api/v1/public/ledger",
        "/api/v1/public/ledger/{date}",
        "/api/v1/public/scorecard/{sport}/{model_type}",
        "/api/v1/edge-picks",
        "/api/v1/edge-picks/{date_str}",
        "/api/v1/edge-picks/track-record",
        "/api/v1/downloads/{token}",
        // Authenticated by Stripe's signature, never a key.
        "/billing/stripe/webhook",
    ];
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let secured = op
                .get("security")
                .and_then(|s| s.as_array())
                .is_some_and(|s| s.len() == 3);
            assert_eq!(secured, !public.contains(&path.as_str()), "{method} {path}");
            if secured {
                assert!(op["responses"]["401"].is_object(), "{method} {path} documents 401");
                assert!(op["responses"]["429"].is_object(), "{method} {path} documents 429");
            }
        }
    }
}

/// Every `$ref` in the document resolves to a component schema or header.
#[test]
fn every_schema_reference_resolves() {
    fn walk(v: &serde_json::Value, refs: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(r)) = map.get("$ref") {
                    refs.push(r.clone());
                }
                map.values().for_each(|x| walk(x, refs));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|x| walk(x, refs)),
            _ => {}
        }
    }
    let doc = serde_json::to_value(linecast_api::openapi::document()).unwrap();
    let mut refs = Vec::new();
    walk(&doc, &mut refs);
    assert!(!refs.is_empty());
    for r in refs {
        let (kind, name) = r
            .strip_prefix("#/components/")
            .and_then(|rest| rest.split_once('/'))
            .unwrap_or_else(|| panic!("unexpected ref {r}"));
        assert!(["schemas", "headers"].contains(&kind), "unexpected ref {r}");
        assert!(doc["components"][kind][name].is_object(), "dangling {r}");
    }
}

/// Every response payload has a real schema: no object in the document is
/// left opaque (an object schema with neither properties nor typed
/// additional properties), so generated clients get typed models.
#[test]
fn no_payload_is_documented_as_an_opaque_object() {
    fn walk(node: &serde_json::Value, at: &str, opaque: &mut Vec<String>) {
        match node {
            serde_json::Value::Object(map) => {
                let is_object = map.get("type").is_some_and(|t| t == "object");
                if is_object && !map.contains_key("properties") && !map.contains_key("additionalProperties") {
                    opaque.push(at.to_owned());
                }
                for (key, child) in map {
                    // An array that is always empty needs no item shape.
                    if key == "items" && map.get("maxItems").is_some_and(|m| m == 0) {
                        continue;
                    }
                    walk(child, &format!("{at}/{key}"), opaque);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{at}/{i}"), opaque);
                }
            }
            _ => {}
        }
    }
    let doc = serde_json::to_value(linecast_api::openapi::document()).unwrap();
    let mut opaque = Vec::new();
    walk(&doc, "", &mut opaque);
    assert!(opaque.is_empty(), "opaque object schemas: {opaque:#?}");
}

/// The history and strategy payloads are closed: a key the document does
/// not name (or, in a result row, an unknown column that is not text) breaks
/// the schema. Every test body is validated, so a pure crate that adds or
/// renames a key fails the suite instead of drifting from generated clients.
#[tokio::test]
async fn history_and_strategy_schemas_reject_keys_they_do_not_document() {
    let app = spawn_app().await;
    let cases: &[(&str, &[&str])] = &[
        ("/api/v1/results/nba/won_on_points", &["", "/results/0"]),
        ("/api/v1/summary/nba/won_on_points", &["", "/summaries/0"]),
        ("/api/v1/summary/nba/over_under", &["/summaries/0"]),
        (
            "/api/v1/models/nba/won_on_points/tracking",
            &[
                "",
                "/snapshot",
                "/snapshot/season/BLEND",
                "/weekly/0",
                "/recent_games/0",
            ],
        ),
        ("/api/v1/results/nba/won_on_points/team-form", &["", "/teams/0"]),
        (
            "/api/v1/results/nba/won_on_points/rolling",
            &["", "/seasons/0", "/seasons/0/models/BLEND/0"],
        ),
        ("/api/v1/results/nba/won_on_points/density", &["", "/cells/0/0"]),
        (
            "/api/v1/strategies/nba/won_on_points?accounting=recorded_v2",
            &["", "/strategies/0", "/strategies/0/exclusions"],
        ),
        (
            "/api/v1/strategies/nba/won_on_points/replay/line-pf?accounting=recorded_v2&include_excluded=true",
            &["", "/strategy", "/games/0", "/excluded_rows/0"],
        ),
    ];
    for (path, pointers) in cases {
        let (status, body) = app.get_authed_json(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        for pointer in *pointers {
            let mut changed = body.clone();
            let target = changed
                .pointer_mut(pointer)
                .and_then(serde_json::Value::as_object_mut)
                .unwrap_or_else(|| panic!("{path} has an object at '{pointer}': {body}"));
            target.insert("undocumented_key".to_owned(), serde_json::json!(1));
            let errors = crate::contract::violations("GET", path, 200, &changed);
            assert!(
                !errors.is_empty(),
                "{path}: an undocumented key at '{pointer}' passed the schema"
            );
        }
    }
}
