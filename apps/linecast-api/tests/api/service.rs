use crate::helpers::spawn_app;

#[tokio::test]
async fn root_reports_every_spec_field_as_a_string() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/").await;
    assert_eq!(status, 200);
    for field in ["message", "version", "docs", "security_scan", "deployment_test"] {
        assert!(body[field].is_string(), "{field} in {body}");
    }
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn health_reports_each_dependency_with_status_and_latency() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "healthy", "{body}");
    for dep in ["cache", "object_storage"] {
        assert_eq!(body["dependencies"][dep]["status"], "ok", "{body}");
        assert!(body["dependencies"][dep]["latency_ms"].is_number());
    }
}

#[tokio::test]
async fn health_is_degraded_and_readiness_503_when_the_store_is_gone() {
    let app = spawn_app().await;
    std::fs::remove_dir_all(&app.store_dir).unwrap();
    std::fs::write(&app.store_dir, b"not a directory").unwrap();
    let (status, body) = app.get_json("/api/v1/health").await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "degraded", "{body}");
    assert_eq!(body["dependencies"]["object_storage"]["status"], "down", "{body}");
    let (status, body) = app.get_json("/api/v1/readiness").await;
    crate::helpers::assert_error_shape(status, &body, 503);
    let (status, _) = app.get_json("/api/v1/liveness").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn edge_picks_family_returns_explicit_empty_payloads() {
    let app = spawn_app().await;
    let (status, body) = app.get_json("/api/v1/edge-picks?sport=nba").await;
    assert_eq!(status, 200);
    assert_eq!(body["picks"], serde_json::json!([]));
    assert_eq!(body["total"], 0);
    let (status, body) = app.get_json("/api/v1/edge-picks/2026-11-15").await;
    assert_eq!(status, 200);
    assert_eq!(body["date"], "2026-11-15");
    assert_eq!(body["picks"], serde_json::json!([]));
    let (status, body) = app.get_json("/api/v1/edge-picks/track-record").await;
    assert_eq!(status, 200);
    assert_eq!(body["total_picks"], 0);
    assert!(body["note"].as_str().unwrap().contains("No validated betting selector"));
}

#[tokio::test]
async fn responses_are_compressed_when_the_client_asks() {
    let app = spawn_app().await;
    for encoding in ["gzip", "br"] {
        let res = app
            .client
            .get(format!(
                "{}/api/v1/public/ml-picks/nba/moneyline?upcoming_only=false",
                app.address
            ))
            .header("Accept-Encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.headers()["content-encoding"], encoding);
    }
}

/// Every body goes out through one serving path: a client asking for gzip
/// gets one gzip layer over the JSON it would get without asking, whether
/// the body is made per request or rendered once, and with an ETag. An
/// error body (a few bytes) is never compressed, and identity is said by
/// leaving `Content-Encoding` out.
#[tokio::test]
async fn every_kind_of_body_is_gzipped_once_when_the_client_asks() {
    let app = spawn_app().await;
    let paths = [
        // Made per request, outside the pipeline.
        "/openapi.json",
        "/api/v1/data-status/nba",
        "/api/v1/edge-picks?sport=nba",
        "/api/v1/markets/nba",
        "/api/v1/picks/today",
        "/api/v1/sports",
        "/api/v1/customers/me",
        "/api/v1/customers/me/api-keys",
        "/api/v1/health",
        "/api/v1/liveness",
        "/",
        // Read pipeline.
        "/api/v1/predictions/nba/won_on_points",
        "/api/v1/summary/nba/won_on_points",
    ];
    for path in paths {
        let plain = app.get_keyed(path, &app.api_key, &[]).await;
        let plain_status = plain.status();
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let plain: serde_json::Value = plain.json().await.unwrap();
        let res = app.get_keyed(path, &app.api_key, &[("Accept-Encoding", "gzip")]).await;
        assert_eq!(res.status(), plain_status, "{path}");
        assert_eq!(plain_status, 200, "{path}");
        assert_eq!(res.headers()["content-encoding"], "gzip", "{path}");
        assert!(res.headers()["etag"].to_str().unwrap().ends_with("-gz\""), "{path}");
        let json = crate::helpers::gunzip(&res.bytes().await.unwrap());
        let body: serde_json::Value = serde_json::from_slice(&json).unwrap_or_else(|e| panic!("{path}: {e}"));
        // Per-request bodies carry their instant; compare their shape.
        let keys = |v: &serde_json::Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(&body), keys(&plain), "{path}");
    }
    for path in ["/api/v1/downloads/not-a-token", "/api/v1/no-such-route"] {
        let res = app.get_keyed(path, &app.api_key, &[("Accept-Encoding", "gzip")]).await;
        assert!(res.status().is_client_error(), "{path}");
        assert!(res.headers().get("content-encoding").is_none(), "{path}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert!(body["error"].is_string(), "{path}");
    }
}

/// Swagger UI runs under a Content-Security-Policy that allows only its
/// own files: every response under `/docs` carries it, and the page has no
/// inline script or handler the policy would block (its configuration is
/// a file, read from `/docs/`).
#[tokio::test]
async fn swagger_ui_is_served_under_a_content_security_policy_it_works_under() {
    let app = spawn_app().await;
    let expected = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                    script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
                    form-action 'self'; frame-ancestors 'none'";
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for path in [
        "/docs",
        "/docs/",
        "/docs/index.html",
        "/docs/swagger-initializer.js",
        "/docs/swagger-ui-bundle.js",
        "/docs/swagger-ui.css",
    ] {
        let res = no_redirects.get(format!("{}{path}", app.address)).send().await.unwrap();
        assert!(res.status().as_u16() < 400, "{path}: {}", res.status());
        assert_eq!(
            res.headers()
                .get("content-security-policy")
                .map(|v| v.to_str().unwrap()),
            Some(expected),
            "{path}"
        );
    }
    let html = app.get("/docs/").await.text().await.unwrap().to_lowercase();
    let scripts: Vec<&str> = html.split("<script").skip(1).collect();
    assert!(!scripts.is_empty(), "{html}");
    for script in scripts {
        let tag = &script[..script.find('>').unwrap()];
        let src = tag
            .split("src=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_default();
        assert!(
            src.starts_with("./") && !src.contains("//"),
            "a script that is not a /docs/ file: {tag}"
        );
        let inline = &script[script.find('>').unwrap() + 1..script.find("</script").unwrap()];
        assert!(inline.trim().is_empty(), "an inline script: {inline}");
        let file = src.trim_start_matches("./");
        assert_eq!(app.get(&format!("/docs/{file}")).await.status(), 200, "{file}");
    }
    for handler in [" onload=", " onclick=", " onerror=", "javascript:"] {
        assert!(!html.contains(handler), "{handler} in {html}");
    }
    // Styles and images come from /docs/ too.
    for href in html.split("href=\"").skip(1).filter_map(|s| s.split('"').next()) {
        assert!(href.starts_with("./") || !href.contains(':'), "{href}");
    }
}

/// Swagger UI is rows of the route table: its page and files go out like
/// every other body (validator, 304, the coding asked for), it reads
/// `/openapi.json`, `/docs` leads to `/docs/`, and anything else under
/// `/docs/` or another method is the API's 404 or 405.
#[tokio::test]
async fn swagger_ui_is_served_at_docs() {
    let app = spawn_app().await;
    let res = app.get("/docs/").await;
    assert_eq!(res.status(), 200);
    assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = res.text().await.unwrap();
    assert!(html.to_lowercase().contains("swagger"), "{html}");

    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = no_redirects.get(format!("{}/docs", app.address)).send().await.unwrap();
    assert_eq!(res.status(), 301);
    assert_eq!(res.headers()["location"], "/docs/");

    let res = app.get("/docs/swagger-initializer.js").await;
    assert_eq!(res.status(), 200);
    let script = res.text().await.unwrap();
    assert!(script.contains("\"/openapi.json\""), "{script}");

    let plain = app.get("/docs/swagger-ui.css").await;
    assert_eq!(plain.status(), 200);
    assert!(plain.headers().get("content-encoding").is_none());
    let etag = plain.headers()["etag"].to_str().unwrap().to_owned();
    let css = plain.bytes().await.unwrap();
    let res = app
        .get_keyed("/docs/swagger-ui.css", "", &[("Accept-Encoding", "gzip")])
        .await;
    assert_eq!(res.headers()["content-encoding"], "gzip");
    assert_eq!(crate::helpers::gunzip(&res.bytes().await.unwrap()), css);
    let res = app
        .get_keyed("/docs/swagger-ui.css", "", &[("If-None-Match", &etag)])
        .await;
    assert_eq!(res.status(), 304);

    let res = app.get("/docs/no-such-file.js").await;
    assert_eq!(res.status(), 404);
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(body["error"].is_string(), "{body}");
    for path in ["/openapi.json", "/docs/", "/docs/swagger-ui.css"] {
        let res = no_redirects
            .post(format!("{}{path}", app.address))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 405, "{path}");
        assert_eq!(res.headers()["allow"], "GET", "{path}");
    }
}

/// An idle keep-alive connection outlives actix's default of 5 s (docs/decisions.md, "Connection cap and timeouts":
/// a load balancer with a 60 s idle timeout must be the one to close it).
/// The test only waits longer than the old default; a slow machine makes
/// the wait longer, never the connection shorter.
#[tokio::test]
async fn an_idle_connection_is_still_open_after_the_old_five_second_default() {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    async fn exchange(stream: &mut tokio::net::TcpStream) -> String {
        let request = "GET /api/v1/liveness HTTP/1.1\r\nHost: localhost\r\n\r\n";
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut seen = Vec::new();
        let mut buf = [0_u8; 4096];
        // The head, then a body as long as its Content-Length.
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().to_owned())
                    })
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0);
                if seen.len() >= end + 4 + length {
                    break;
                }
            }
        }
        String::from_utf8_lossy(&seen).to_string()
    }
    let app = spawn_app().await;
    let address = app.address.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let first = exchange(&mut stream).await;
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    let second = exchange(&mut stream).await;
    assert!(
        second.starts_with("HTTP/1.1 200"),
        "the connection was closed while idle: {second:?}"
    );
}
