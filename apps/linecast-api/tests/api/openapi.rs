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
        "/api/v1/edge-picks",
        "/api/v1/edge-picks/{date_str}",
        "/api/v1/edge-picks/track-record",
        "/api/v1/downloads/{token}",
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

/// Every `$ref` in the document resolves to a component schema.
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
        let name = r
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("unexpected ref {r}"));
        assert!(doc["components"]["schemas"][name].is_object(), "dangling {r}");
    }
}
