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
            let id = op["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path} has no operationId"));
            assert!(ids.insert(id.to_owned()), "duplicate operationId {id}");
            for (code, response) in op["responses"].as_object().unwrap() {
                assert!(response["description"].as_str().is_some_and(|d| !d.is_empty()), "{method} {path} {code} lacks a description");
            }
        }
    }
    assert!(doc["components"]["schemas"]["ErrorBody"].is_object());
    assert!(doc["components"]["schemas"]["PublicPicksResponse"].is_object());
}
