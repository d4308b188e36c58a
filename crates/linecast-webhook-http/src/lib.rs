//! The `WebhookSender` port over HTTP: one reqwest client (rustls, no
//! proxy, no redirects, the Standard Webhooks timeout) whose resolver
//! checks every address a receiver's host resolves to, at every
//! connection, so a name that moved to a refused address after its
//! endpoint was saved is refused at delivery, and the connection is only
//! ever made to an address that was checked.
//!
//! Owns the HTTP and DNS side of an attempt: the lookup (a [`Lookup`]; the
//! system's by default, a table in tests), the request, the timeout and
//! reading the start of the response. The address ranges are
//! `linecast_webhooks::address`; what an outcome means is the schedule's.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use futures::future::BoxFuture;
use linecast_core::ports::webhooks::{AdmitError, SendOutcome, SendReport, WebhookSender};
use linecast_webhooks::address::{AddressRefusal, check_address, check_url};
use linecast_webhooks::events::BODY_PREVIEW;
use linecast_webhooks::schedule::TIMEOUT;
use url::Host;

/// The longest wait for one name's addresses.
pub const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

/// Resolves a host name to its addresses.
pub trait Lookup: Send + Sync + fmt::Debug {
    fn lookup(&self, host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>>;
}

/// The system resolver (`getaddrinfo` through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        let host = host.to_owned();
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .map(|a| a.ip())
                .collect())
        })
    }
}

/// A resolver answering from a table that can change while it is used
/// (tests: a name that moves to another address after it was saved).
/// A name not in the table does not resolve.
#[derive(Debug, Clone, Default)]
pub struct TableLookup {
    table: Arc<RwLock<HashMap<String, Vec<IpAddr>>>>,
}

impl TableLookup {
    pub fn new() -> Self {
        Self::default()
    }

    /// `host` now resolves to `addresses`.
    pub fn set(&self, host: &str, addresses: Vec<IpAddr>) {
        self.table
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(host.to_ascii_lowercase(), addresses);
    }
}

impl Lookup for TableLookup {
    fn lookup(&self, host: &str) -> BoxFuture<'static, std::io::Result<Vec<IpAddr>>> {
        let found = self
            .table
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&host.to_ascii_lowercase())
            .cloned();
        Box::pin(async move {
            found.ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such host in the table"))
        })
    }
}

/// An address the rules refuse, as the resolver reports it (found again
/// in a failed request's error chain).
#[derive(Debug, Clone, Copy)]
struct Refused(AddressRefusal);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the host resolves to {}", self.0)
    }
}

impl std::error::Error for Refused {}

/// What a host resolves to, every address checked: the first refused
/// address refuses the host (one bad address is enough to refuse it: a
/// client may connect to any of them).
async fn resolve_checked(
    lookup: &dyn Lookup,
    host: &str,
    allow_loopback: bool,
) -> Result<Vec<IpAddr>, Box<dyn std::error::Error + Send + Sync>> {
    // A resolver that does not answer is a name that does not resolve,
    // not a request held open.
    let addresses = tokio::time::timeout(LOOKUP_TIMEOUT, lookup.lookup(host))
        .await
        .map_err(|_| format!("{host} did not resolve within {} s", LOOKUP_TIMEOUT.as_secs()))??;
    if addresses.is_empty() {
        return Err(format!("{host} resolves to no address").into());
    }
    for ip in &addresses {
        check_address(*ip, allow_loopback).map_err(Refused)?;
    }
    Ok(addresses)
}

struct CheckedResolver {
    lookup: Arc<dyn Lookup>,
    allow_loopback: bool,
}

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let lookup = self.lookup.clone();
        let allow_loopback = self.allow_loopback;
        Box::pin(async move {
            let addresses = resolve_checked(lookup.as_ref(), name.as_str(), allow_loopback).await?;
            let addrs: reqwest::dns::Addrs = Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// The HTTP sender.
pub struct HttpSender {
    client: reqwest::Client,
    lookup: Arc<dyn Lookup>,
    allow_loopback: bool,
}

impl fmt::Debug for HttpSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpSender")
            .field("allow_loopback", &self.allow_loopback)
            .finish_non_exhaustive()
    }
}

impl HttpSender {
    /// A sender resolving through `lookup`; `allow_loopback` lets loopback
    /// receivers through (tests, local use); `timeout` bounds an attempt,
    /// connection and response included ([`TIMEOUT`] in production).
    pub fn new(lookup: Arc<dyn Lookup>, allow_loopback: bool, timeout: Duration) -> Result<Self, String> {
        linecast_tls::install();
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(CheckedResolver {
                lookup: lookup.clone(),
                allow_loopback,
            }))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .user_agent(concat!("linecast-webhooks/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("the webhook HTTP client could not be built: {e}"))?;
        Ok(Self {
            client,
            lookup,
            allow_loopback,
        })
    }

    /// The production sender: the system resolver and [`TIMEOUT`].
    pub fn system(allow_loopback: bool) -> Result<Self, String> {
        Self::new(Arc::new(SystemLookup), allow_loopback, TIMEOUT)
    }

    /// The URL's form, then every address its host stands for now.
    async fn check(&self, url: &str) -> Result<(), AdmitError> {
        let target = check_url(url, self.allow_loopback).map_err(|e| AdmitError::Refused {
            code: e.code(),
            message: e.to_string(),
        })?;
        // A literal address was checked by `check_url`.
        if let Some(Host::Domain(host)) = target.url().host() {
            resolve_checked(self.lookup.as_ref(), host, self.allow_loopback)
                .await
                .map_err(|e| match e.downcast_ref::<Refused>() {
                    Some(Refused(refusal)) => AdmitError::Refused {
                        code: refusal.code(),
                        message: format!("the host {host} resolves to {refusal}"),
                    },
                    None => AdmitError::Unresolved(host.to_owned()),
                })?;
        }
        Ok(())
    }
}

/// The refusal a failed request carries, if its resolver refused.
fn refusal_in(error: &reqwest::Error) -> Option<AddressRefusal> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(Refused(refusal)) = e.downcast_ref::<Refused>() {
            return Some(*refusal);
        }
        source = e.source();
    }
    None
}

/// The error's words, without the URL (the customer knows it), with
/// their causes.
fn describe(error: reqwest::Error) -> String {
    let error = error.without_url();
    let mut words = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(e) = source {
        words.push_str(": ");
        words.push_str(&e.to_string());
        source = e.source();
    }
    words
}

#[async_trait]
impl WebhookSender for HttpSender {
    async fn admit(&self, url: &str) -> Result<(), AdmitError> {
        self.check(url).await
    }

    async fn send(&self, url: &str, headers: &[(&'static str, String)], body: Bytes) -> SendReport {
        let started = Instant::now();
        let report = |outcome, body| SendReport {
            outcome,
            latency: started.elapsed(),
            body,
        };
        if let Err(e) = self.check(url).await {
            return report(
                match e {
                    AdmitError::Refused { code, .. } => SendOutcome::Refused(code),
                    AdmitError::Unresolved(host) => SendOutcome::ConnectFailed(format!("{host} does not resolve")),
                },
                Vec::new(),
            );
        }
        let mut request = self.client.post(url).body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        let mut response = match request.send().await {
            Ok(response) => response,
            Err(e) if e.is_timeout() => return report(SendOutcome::Timeout, Vec::new()),
            Err(e) => {
                let outcome = match refusal_in(&e) {
                    Some(refusal) => SendOutcome::Refused(refusal.code()),
                    None => SendOutcome::ConnectFailed(describe(e)),
                };
                return report(outcome, Vec::new());
            }
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let mut preview = Vec::new();
        // The start of the body only; a body that stalls past the timeout
        // ends the read with what came.
        while preview.len() < BODY_PREVIEW {
            match response.chunk().await {
                Ok(Some(chunk)) => preview.extend_from_slice(&chunk),
                Ok(None) | Err(_) => break,
            }
        }
        preview.truncate(BODY_PREVIEW);
        report(SendOutcome::Response { status, retry_after }, preview)
    }
}
