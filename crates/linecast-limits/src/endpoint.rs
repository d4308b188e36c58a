//! Where Redis is, and what its TLS certificate is checked against.
//!
//! `redis://` is plain TCP. `rediss://` is TLS through rustls (with the
//! process's ring provider, `linecast-tls`): the server's certificate must
//! chain to the system's roots, or, when a CA file is given, to the
//! certificates in that file only (a managed Redis with its own CA, such as
//! Memorystore's in-transit encryption). The host name (or IP address) in
//! the URL must be one the certificate names. A certificate that does not
//! verify fails the connection attempt at once; it is never retried as if
//! the server were down, nor downgraded to plain TCP.

use std::path::Path;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::LimitsError;

/// A Redis URL and, for `rediss://`, the CA certificates to trust instead
/// of the system's roots.
#[derive(Clone)]
pub struct RedisEndpoint {
    url: String,
    ca_pem: Option<Vec<u8>>,
}

impl std::fmt::Debug for RedisEndpoint {
    /// The URL may carry a password: only its scheme is shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisEndpoint")
            .field("tls", &self.is_tls())
            .field("ca_file", &self.ca_pem.is_some())
            .finish_non_exhaustive()
    }
}

impl RedisEndpoint {
    /// `url` (`redis://host:port/db` or `rediss://host:port/db`), verified
    /// against the system's roots when it is `rediss://`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            ca_pem: None,
        }
    }

    /// Trusts only the CA certificates (PEM) in the file at `path` for this
    /// `rediss://` endpoint. Refused for a `redis://` URL (a CA file there
    /// would be ignored and the connection left in clear), and for a file
    /// that cannot be read or holds no certificate.
    pub fn with_ca_file(self, path: &Path) -> Result<Self, LimitsError> {
        let pem = std::fs::read(path)
            .map_err(|e| LimitsError::Unavailable(format!("reading the CA file {}: {e}", path.display())))?;
        self.with_ca_pem(pem)
            .map_err(|e| LimitsError::Unavailable(format!("the CA file {}: {e}", path.display())))
    }

    /// [`Self::with_ca_file`] with the file's bytes.
    pub fn with_ca_pem(mut self, pem: Vec<u8>) -> Result<Self, String> {
        if !self.is_tls() {
            return Err("a CA file is only used with a rediss:// URL, and the Redis URL is not one".to_owned());
        }
        let mut certificates = 0;
        for cert in CertificateDer::pem_slice_iter(&pem) {
            cert.map_err(|e| format!("not a PEM certificate: {e}"))?;
            certificates += 1;
        }
        if certificates == 0 {
            return Err("holds no PEM certificate (-----BEGIN CERTIFICATE-----)".to_owned());
        }
        self.ca_pem = Some(pem);
        Ok(self)
    }

    /// Whether the connection is TLS (`rediss://`).
    pub fn is_tls(&self) -> bool {
        self.url
            .get(..9)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("rediss://"))
    }

    /// The client for this endpoint (no connection is made yet).
    pub(crate) fn client(&self) -> redis::RedisResult<redis::Client> {
        if self.is_tls() {
            // rustls takes the process's provider: ring, installed once.
            linecast_tls::install();
        }
        match &self.ca_pem {
            Some(pem) => redis::Client::build_with_tls(
                self.url.as_str(),
                redis::TlsCertificates {
                    client_tls: None,
                    root_cert: Some(pem.clone()),
                },
            ),
            None => redis::Client::open(self.url.as_str()),
        }
    }
}

impl From<&str> for RedisEndpoint {
    fn from(url: &str) -> Self {
        Self::new(url)
    }
}

impl From<&String> for RedisEndpoint {
    fn from(url: &String) -> Self {
        Self::new(url.as_str())
    }
}

impl From<String> for RedisEndpoint {
    fn from(url: String) -> Self {
        Self::new(url)
    }
}

impl From<&RedisEndpoint> for RedisEndpoint {
    fn from(endpoint: &RedisEndpoint) -> Self {
        endpoint.clone()
    }
}

/// Whether a connection error is a certificate the client did not trust
/// (as opposed to a server that is down or slow).
pub(crate) fn is_untrusted_certificate(e: &redis::RedisError) -> bool {
    let text = e.to_string();
    text.contains("invalid peer certificate") || text.contains("certificate")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const NOT_A_CERT: &[u8] = b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";

    #[test]
    fn only_rediss_is_tls_whatever_the_case_of_the_scheme() {
        assert!(RedisEndpoint::new("rediss://10.0.0.3:6378").is_tls());
        assert!(RedisEndpoint::new("REDISS://h:1").is_tls());
        assert!(!RedisEndpoint::new("redis://127.0.0.1:6379").is_tls());
        assert!(!RedisEndpoint::new("redis").is_tls());
    }

    #[test]
    fn a_ca_file_is_refused_for_plain_redis_and_when_it_holds_no_certificate() {
        let plain = RedisEndpoint::new("redis://127.0.0.1:6379").with_ca_pem(b"anything".to_vec());
        assert!(plain.unwrap_err().contains("rediss://"));
        let tls = || RedisEndpoint::new("rediss://127.0.0.1:6380");
        assert!(
            tls()
                .with_ca_pem(Vec::new())
                .unwrap_err()
                .contains("no PEM certificate")
        );
        assert!(
            tls()
                .with_ca_pem(b"hello".to_vec())
                .unwrap_err()
                .contains("no PEM certificate")
        );
        assert!(tls().with_ca_pem(NOT_A_CERT.to_vec()).is_err());
        let missing = tls()
            .with_ca_file(Path::new("/nonexistent/linecast-ca.pem"))
            .unwrap_err();
        assert!(
            missing.to_string().contains("/nonexistent/linecast-ca.pem"),
            "{missing}"
        );
    }

    #[test]
    fn the_debug_form_never_shows_the_url() {
        let shown = format!("{:?}", RedisEndpoint::new("rediss://:s3cret@10.0.0.3:6378"));
        assert!(!shown.contains("s3cret") && !shown.contains("10.0.0.3"), "{shown}");
    }
}
