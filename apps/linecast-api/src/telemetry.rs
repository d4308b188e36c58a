//! Tracing setup and request logging. `api_key` query values are redacted
//! from every log line.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use tracing_subscriber::EnvFilter;

use crate::settings::LogFormat;

/// Installs the global subscriber (`RUST_LOG`, default `info`).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    let _ = match format {
        LogFormat::Json => builder.json().try_init(),
        LogFormat::Human => builder.try_init(),
    };
}

/// Replaces the value of every `api_key` query pair with `REDACTED`.
pub fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if name.eq_ignore_ascii_case("api_key") => format!("{name}=REDACTED"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Logs one line per request: method, path, redacted query, status, latency.
pub async fn log_requests(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = req.method().to_string();
    let path = req.path().to_owned();
    let query = redact_query(req.query_string());
    let res = next.call(req).await?;
    tracing::info!(
        method = %method,
        path = %path,
        query = %query,
        status = res.status().as_u16(),
        latency_us = started.elapsed().as_micros() as u64,
        "request"
    );
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_values_never_reach_the_log() {
        assert_eq!(
            redact_query("a=1&api_key=sk_service_secret&b=2"),
            "a=1&api_key=REDACTED&b=2"
        );
        assert_eq!(redact_query("API_KEY=x"), "API_KEY=REDACTED");
        assert_eq!(redact_query(""), "");
    }
}
