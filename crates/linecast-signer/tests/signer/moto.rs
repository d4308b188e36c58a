//! Presigned links against a real S3-compatible server (moto). Ignored by
//! default because it needs `moto_server` on the machine; run with
//! `cargo test -p linecast-signer -- --ignored` (set `MOTO_SERVER` to its path
//! if it is not at the pyenv shim). moto checks neither expiry nor the
//! response-* overrides, so this proves the link, extra signed query included,
//! is accepted and serves the bytes; the query itself is asserted in `presign`.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use linecast_core::{DOWNLOAD_TTL, SystemClock, UrlSigner};
use linecast_signer::PresignSigner;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path;
use object_store::signer::Url;
use object_store::{ObjectStoreExt as _, PutPayload};

/// Kills the server this test started, and only it.
struct Moto(Child);

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_moto() -> (Moto, u16) {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let program = std::env::var("MOTO_SERVER").unwrap_or_else(|_| "/root/.pyenv/shims/moto_server".to_owned());
    let child = Command::new(program)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("moto_server must be installed for this ignored test");
    let moto = Moto(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "moto_server did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    (moto, port)
}

/// One HTTP/1.1 request without a client library; returns the status line
/// and the body.
fn http(method: &str, port: u16, target: &str) -> (String, Vec<u8>) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let status = head.lines().next().unwrap().to_owned();
    (status, raw[split + 4..].to_vec())
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs moto_server"]
async fn a_presigned_link_with_its_download_name_downloads_the_dataset_from_an_s3_server() {
    let (_moto, port) = start_moto();
    let (status, _) = http("PUT", port, "/linecast-data");
    assert!(status.contains(" 200"), "create bucket: {status}");
    linecast_tls::install();
    let s3 = AmazonS3Builder::new()
        .with_region("us-east-1")
        .with_bucket_name("linecast-data")
        .with_access_key_id("testing")
        .with_secret_access_key("testing")
        .with_endpoint(format!("http://127.0.0.1:{port}"))
        .with_allow_http(true)
        .build()
        .unwrap();
    let key = "datasets/nba/nba_history.csv";
    s3.put(&Path::from(key), PutPayload::from_static(b"game_id,home\n1,BOS\n"))
        .await
        .unwrap();

    let signer = PresignSigner::new(Arc::new(s3), Arc::new(SystemClock));
    let url = Url::parse(
        &signer
            .sign(key, "nba_history.csv", Utc::now() + DOWNLOAD_TTL)
            .await
            .unwrap(),
    )
    .unwrap();
    let target = format!("{}?{}", url.path(), url.query().unwrap());
    let (status, body) = http("GET", port, &target);

    assert!(status.contains(" 200"), "{status}");
    assert_eq!(body, b"game_id,home\n1,BOS\n");
}
