//! Redis over TLS (`rediss://`): a `redis-server` started here with only a
//! TLS port (`--port 0 --tls-port N`) and a certificate made here, signed
//! by a CA made here. Two instances trusting that CA through
//! `LINECAST_REDIS_CA_FILE` share one quota and one rate bucket exactly,
//! leased or asked per request; an instance that does not trust the
//! certificate stops at start with an error that says so, quickly.
//!
//! Without `redis-server` on PATH (or one built without TLS) the tests are
//! skipped with a message, unless `LINECAST_REQUIRE_REDIS_TLS_TEST` is set
//! (CI), where they fail.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use linecast_api::settings::Settings;
use linecast_api::startup::Application;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};

use crate::concurrency::{
    Backend, two_instances_share_one_count_and_one_rate_bucket, two_instances_trusting,
    two_leasing_instances_serve_the_quota_exactly, unique_now,
};
use crate::helpers::{fixture_now, fixtures_dir};

/// A CA made for one test: its certificate (PEM) and what signs with it.
struct Authority {
    pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Authority {
    fn new(name: &str) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let key = KeyPair::generate().unwrap();
        let pem = params.self_signed(&key).unwrap().pem();
        Self {
            pem,
            issuer: Issuer::new(params, key),
        }
    }

    /// A server certificate for 127.0.0.1 and localhost, and its key (PEM).
    fn server_certificate(&self) -> (String, String) {
        let mut params = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()]).unwrap();
        params
            .distinguished_name
            .push(DnType::CommonName, "linecast test redis");
        params.use_authority_key_identifier_extension = true;
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert.pem(), key.serialize_pem())
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|dir| Path::new(dir).join(program))
        .find(|p| p.is_file())
}

fn skip(why: &str) {
    assert!(
        std::env::var_os("LINECAST_REQUIRE_REDIS_TLS_TEST").is_none(),
        "LINECAST_REQUIRE_REDIS_TLS_TEST is set but {why}"
    );
    // Written to the process's stderr, past the test harness's capture, so
    // a skip shows in a plain `cargo test` run.
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: {why}; the Redis TLS tests need Debian's redis-server (apt-get install redis-server)"
    );
}

/// A TLS-only `redis-server` on a free loopback port, stopped on drop.
pub(crate) struct TlsRedis {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl TlsRedis {
    /// Started with a server certificate `authority` signed, or `None` (and
    /// a SKIP line) when no TLS-capable redis-server is installed.
    fn start(authority: &Authority) -> Option<Self> {
        let Some(program) = on_path("redis-server") else {
            skip("redis-server is not on PATH");
            return None;
        };
        let dir = tempfile::tempdir().unwrap();
        let (cert, key) = authority.server_certificate();
        std::fs::write(dir.path().join("server.pem"), cert).unwrap();
        std::fs::write(dir.path().join("server.key"), key).unwrap();
        std::fs::write(dir.path().join("ca.pem"), &authority.pem).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = std::fs::File::create(dir.path().join("redis.log")).unwrap();
        let path = |name: &str| dir.path().join(name).display().to_string();
        let child = Command::new(program)
            .args(["--port", "0", "--bind", "127.0.0.1", "--tls-port", &port.to_string()])
            .args([
                "--tls-cert-file",
                &path("server.pem"),
                "--tls-key-file",
                &path("server.key"),
            ])
            .args(["--tls-ca-cert-file", &path("ca.pem"), "--tls-auth-clients", "no"])
            .args(["--save", "", "--appendonly", "no", "--dir", &path("")])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut server = Self { child, port, dir };
        // Generous: a loaded 2-core machine may take seconds to start it.
        let deadline = Instant::now() + Duration::from_mins(1);
        loop {
            if let Some(status) = server.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(server.dir.path().join("redis.log")).unwrap_or_default();
                skip(&format!(
                    "redis-server exited ({status}) instead of serving TLS:\n{log}"
                ));
                return None;
            }
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(server);
            }
            assert!(
                Instant::now() < deadline,
                "redis-server did not listen on {port} within a minute"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn url(&self) -> String {
        format!("rediss://127.0.0.1:{}", self.port)
    }

    fn ca_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_leasing_instances_over_rediss_trusting_a_ca_file_serve_the_monthly_quota_exactly() {
    let authority = Authority::new("linecast test CA");
    let Some(redis) = TlsRedis::start(&authority) else {
        return;
    };
    let now = unique_now();
    let (first, second) = two_instances_trusting(&redis.url(), Some(redis.ca_file()), None, now, true).await;
    two_leasing_instances_serve_the_quota_exactly(first, second, now, Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_unleased_instances_over_rediss_trusting_a_ca_file_keep_one_exact_count_and_limit() {
    let authority = Authority::new("linecast test CA");
    let Some(redis) = TlsRedis::start(&authority) else {
        return;
    };
    let now = unique_now();
    let (first, second) = two_instances_trusting(&redis.url(), Some(redis.ca_file()), None, now, false).await;
    two_instances_share_one_count_and_one_rate_bucket(first, second, now, Backend::Sqlite).await;
}

/// Neither the system's roots nor another CA's file trust the server's
/// certificate: the start fails within seconds (no hang, no retry as if
/// Redis were down), saying the certificate is not trusted and naming the
/// setting that fixes it. The same server is accepted with its own CA.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rediss_server_whose_certificate_is_not_trusted_stops_the_start_with_a_clear_error() {
    let authority = Authority::new("linecast test CA");
    let Some(redis) = TlsRedis::start(&authority) else {
        return;
    };
    let other = tempfile::tempdir().unwrap();
    let other_ca = other.path().join("other-ca.pem");
    std::fs::write(&other_ca, Authority::new("another CA").pem).unwrap();
    for (ca_file, leases) in [(None, true), (Some(other_ca.clone()), true), (Some(other_ca), false)] {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        crate::helpers::copy_fixture(&fixtures_dir(), &store);
        let mut settings = Settings::for_tests(&format!("file://{}", store.display()), dir.path(), fixture_now());
        settings.redis_url = Some(redis.url());
        settings.redis_ca_file.clone_from(&ca_file);
        settings.redis_leases = leases;
        let started = Instant::now();
        let built = tokio::time::timeout(Duration::from_mins(2), Application::build(settings))
            .await
            .unwrap_or_else(|_| panic!("the start hung ({ca_file:?})"));
        let Err(err) = built else {
            panic!("a server trusting {ca_file:?} started against an untrusted certificate");
        };
        let text = format!("{err:#}");
        assert!(text.contains("certificate is not trusted"), "{ca_file:?}: {text}");
        assert!(text.contains("LINECAST_REDIS_CA_FILE"), "{ca_file:?}: {text}");
        // A certificate error is not waited out like an outage (the
        // reconnect policy's retries take well under a second); a minute
        // leaves room for a loaded machine.
        assert!(
            started.elapsed() < Duration::from_mins(1),
            "{ca_file:?}: failed after {:?}",
            started.elapsed()
        );
    }
    // The same server with its own CA: the instance starts.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    crate::helpers::copy_fixture(&fixtures_dir(), &store);
    let mut settings = Settings::for_tests(&format!("file://{}", store.display()), dir.path(), fixture_now());
    settings.redis_url = Some(redis.url());
    settings.redis_ca_file = Some(redis.ca_file());
    let app = Application::build(settings).await.unwrap();
    drop(app);
}
