//! No bearer secret reaches a log line: a run that uses every kind of
//! token a URL or header carries (a sign-in link, a download link, a key
//! in `?api_key=`, a key in `X-API-Key`, a key as a path segment), on
//! matched routes and on paths that answer 404 or 405, leaves none of them
//! in the captured logs; the lines still say which route was asked.

use crate::helpers::{capture_logs, captured_logs, fixture_now, spawn_app};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_link_token_download_token_or_full_key_reaches_the_logs() {
    capture_logs();
    let app = spawn_app().await;
    let key = app.api_key.clone();
    assert!(key.starts_with("sk_service_") && key.len() > 30, "{key}");
    let link = crate::helpers::demo_sign_in_link(&app, fixture_now()).await;

    // A key in the query, in the header, and as a path segment.
    let res = app
        .client
        .get(format!("{}/api/v1/sports?api_key={key}", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(app.get_authed("/api/v1/customers/me").await.status(), 200);
    let res = app
        .client
        .delete(format!("{}/api/v1/customers/me/api-keys/{key}", app.address))
        .header("X-API-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400, "revoking the key in use is refused");

    // Download tokens: the links of a refresh, each fetched, and one on a
    // path that does not exist.
    let res = app
        .client
        .post(format!("{}/api/v1/service-sports-data/refresh", app.address))
        .header("X-API-Key", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let refreshed: serde_json::Value = res.json().await.unwrap();
    let mut download_tokens = Vec::new();
    for item in refreshed["downloads"].as_array().unwrap() {
        let url = item["url"].as_str().unwrap();
        let path = &url[url.find("/api/v1/downloads/").unwrap()..];
        download_tokens.push(path.trim_start_matches("/api/v1/downloads/").to_owned());
        assert_eq!(app.get(path).await.status(), 200);
    }
    assert!(!download_tokens.is_empty());
    let token = &download_tokens[0];
    let res = app.get_keyed(&format!("/api/v1/downloads/{token}/x"), &key, &[]).await;
    assert_eq!(res.status(), 404);
    let detail = res.text().await.unwrap();
    assert!(
        detail.contains("/api/v1/downloads/REDACTED/x") && !detail.contains(token.as_str()),
        "{detail}"
    );
    let res = app
        .client
        .post(format!("{}/api/v1/downloads/{token}", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    let detail: serde_json::Value = res.json().await.unwrap();
    assert!(!detail.to_string().contains(token.as_str()), "{detail}");

    // The sign-in link: previewed, used, then asked again (404), and on a
    // longer path (404, whose detail does not echo it either).
    let path = format!("/portal/link/{link}");
    assert_eq!(app.get(&path).await.status(), 200);
    let res = app.client.post(format!("{}{path}", app.address)).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(app.get(&path).await.status(), 404);
    let res = app.get(&format!("{path}/more")).await;
    assert_eq!(res.status(), 404);
    let detail = res.text().await.unwrap();
    assert!(!detail.contains(&link), "{detail}");

    let logs = captured_logs();
    let body = key.trim_start_matches("sk_service_");
    let mut secrets: Vec<&str> = vec![link.as_str(), body];
    secrets.extend(download_tokens.iter().map(String::as_str));
    for secret in secrets {
        assert!(!logs.contains(secret), "a secret reached the logs: {secret}");
    }
    // The lines are there, with the route and the masked path.
    assert!(
        logs.contains("route=/portal/link/{token} path=/portal/link/REDACTED"),
        "no link line"
    );
    assert!(
        logs.contains("route=/api/v1/downloads/{token} path=/api/v1/downloads/REDACTED"),
        "no download line"
    );
    assert!(logs.contains("api_key=REDACTED"), "no query line");
}
