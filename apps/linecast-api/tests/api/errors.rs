use crate::helpers::{assert_error_shape, spawn_app};

#[tokio::test]
async fn an_unknown_route_is_a_404_in_the_error_shape() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/no-such-thing").await;
    let detail = assert_error_shape(status, &body, 404);
    assert!(detail.contains("/no-such-thing"));
    // Under /api/v1 the access gate answers first (fail closed): without a
    // key it is a 401, with one the 404.
    let (status, body) = app.get_json("/api/v1/no-such-thing").await;
    assert_eq!(assert_error_shape(status, &body, 401), "API key required");
    let (status, body) = app.get_authed_json("/api/v1/no-such-thing").await;
    let detail = assert_error_shape(status, &body, 404);
    assert!(detail.contains("/api/v1/no-such-thing"));
}

#[tokio::test]
async fn a_wrong_method_on_a_known_route_is_a_405_in_the_error_shape() {
    let app = spawn_app().await;
    for method in [
        reqwest::Method::POST,
        reqwest::Method::DELETE,
        reqwest::Method::from_bytes(b"TRACE").unwrap(),
    ] {
        let res = app
            .client
            .request(
                method.clone(),
                format!("{}/api/v1/public/ml-picks/nba/moneyline", app.address),
            )
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let body: serde_json::Value = res.json().await.unwrap();
        assert_error_shape(status, &body, 405);
    }
}

#[tokio::test]
async fn an_unknown_sport_is_a_400_naming_the_parameter_and_allowed_values() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/cricket/moneyline").await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(detail.contains("sport") && detail.contains("cricket"), "{detail}");
    assert!(detail.contains("mlb, nba, nfl, nhl, ncaaf, ncaab"), "{detail}");
}

#[tokio::test]
async fn an_unknown_market_is_a_400_naming_the_public_market_names() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/won_on_points").await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(
        detail.contains("market") && detail.contains("over_under, moneyline, spread"),
        "{detail}"
    );
}

#[tokio::test]
async fn a_malformed_boolean_is_a_400_naming_upcoming_only() {
    let app = spawn_app().await;
    let (status, body) = app
        .get_json("/api/v1/public/ml-picks/nba/moneyline?upcoming_only=perhaps")
        .await;
    let detail = assert_error_shape(status, &body, 400);
    assert!(
        detail.contains("upcoming_only") && detail.contains("perhaps"),
        "{detail}"
    );
}

#[tokio::test]
async fn a_malformed_edge_picks_date_is_a_400_naming_date_str() {
    let app = spawn_app().await;
    for bad in ["2026-13-01", "yesterday", "2026-2-1"] {
        let (status, body) = app.get_json(&format!("/api/v1/edge-picks/{bad}")).await;
        let detail = assert_error_shape(status, &body, 400);
        assert!(detail.contains("date_str"), "{detail}");
    }
}

#[tokio::test]
async fn a_missing_artifact_is_a_404_and_an_unreadable_one_a_503_never_empty_data() {
    let app = crate::helpers::spawn_app_with(crate::helpers::fixture_now(), |dir| {
        std::fs::remove_file(dir.join("predictions/nba/won_on_points.csv")).unwrap();
        // A directory where a file should be: the read fails with an I/O error.
        let odd = dir.join("predictions/nhl/won_on_points.csv");
        std::fs::remove_file(&odd).unwrap();
        std::fs::create_dir_all(odd.join("x")).unwrap();
    })
    .await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_error_shape(status, &body, 404);
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nhl/moneyline").await;
    assert!(status == 503 || status == 404, "status {status} body {body}");
    assert_ne!(status, 200);
}

#[tokio::test]
async fn a_corrupt_artifact_is_a_503_that_does_not_leak_its_cause() {
    let app = crate::helpers::spawn_app_with(crate::helpers::fixture_now(), |dir| {
        let path = dir.join("predictions/nba/over_under.csv");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("not-a-date,19:00:00,a,b\n");
        std::fs::write(path, text).unwrap();
    })
    .await;
    let (status, body) = app.get_json("/api/v1/public/ml-picks/nba/over_under").await;
    let detail = assert_error_shape(status, &body, 503);
    assert!(!detail.contains("not-a-date"), "{detail}");
    // Other artifacts keep working.
    let (status, _) = app.get_json("/api/v1/public/ml-picks/nba/moneyline").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_oversized_body_is_a_413_and_bad_json_a_400_in_the_error_shape() {
    let app = spawn_app().await;
    let url = format!("{}/api/v1/customers/me/api-keys", app.address);
    let big = format!("{{\"name\":\"{}\"}}", "x".repeat(200 * 1024));
    let res = app
        .client
        .post(&url)
        .header("X-API-Key", &app.api_key)
        .header("Content-Type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.unwrap();
    assert_error_shape(status, &body, 413);
    for bad in ["{\"name\":", "[]", "{\"nom\":\"x\"}"] {
        let res = app
            .client
            .post(&url)
            .header("X-API-Key", &app.api_key)
            .header("Content-Type", "application/json")
            .body(bad)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let body: serde_json::Value = res.json().await.unwrap();
        assert_error_shape(status, &body, 400);
    }
}

#[tokio::test]
async fn delete_on_the_rename_resource_is_a_405_allowing_patch_not_a_key_lookup() {
    let app = spawn_app().await;
    let res = app
        .client
        .delete(format!("{}/api/v1/customers/me/api-keys/rename", app.address))
        .header("X-API-Key", &app.api_key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["allow"], "PATCH");
    let status = res.status().as_u16();
    let body: serde_json::Value = res.json().await.unwrap();
    assert_error_shape(status, &body, 405);
}
