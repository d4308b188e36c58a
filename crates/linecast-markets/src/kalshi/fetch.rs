//! Reading every open market of one series, page by page, within one
//! deadline.

use linecast_core::ports::markets::MarketsError;
use reqwest::Url;

use super::KalshiConfig;
use super::wire::{MarketsPage, WireMarket};

/// All open markets of `series`, or `Unavailable` if the pages do not all
/// arrive within `config.timeout`.
pub(crate) async fn open_markets(
    http: &reqwest::Client,
    config: &KalshiConfig,
    series: &str,
) -> Result<Vec<WireMarket>, MarketsError> {
    // The client's own timeout bounds each request; this bounds the sum, so
    // a slow paginated answer cannot hold the endpoint for pages x timeout.
    match tokio::time::timeout(config.timeout, all_pages(http, config, series)).await {
        Ok(result) => result,
        Err(_) => Err(MarketsError::Unavailable(format!(
            "kalshi {series}: no answer within {:?}",
            config.timeout
        ))),
    }
}

async fn all_pages(
    http: &reqwest::Client,
    config: &KalshiConfig,
    series: &str,
) -> Result<Vec<WireMarket>, MarketsError> {
    let unavailable = |what: String| MarketsError::Unavailable(format!("kalshi {series}: {what}"));
    let endpoint = format!("{}/markets", config.base_url.trim_end_matches('/'));
    let mut markets = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..config.max_pages {
        let mut url = Url::parse(&endpoint).map_err(|e| unavailable(format!("base url: {e}")))?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("series_ticker", series).append_pair("status", "open");
            query.append_pair("limit", &config.page_limit.to_string());
            if let Some(cursor) = &cursor {
                query.append_pair("cursor", cursor);
            }
        }
        let response = http
            .get(url)
            .send()
            .await
            .map_err(|e| unavailable(format!("request: {e}")))?;
        let status = response.status();
        if !status.is_success() {
            return Err(unavailable(format!("answered {status}")));
        }
        let body = response.bytes().await.map_err(|e| unavailable(format!("body: {e}")))?;
        let page: MarketsPage =
            serde_json::from_slice(&body).map_err(|e| unavailable(format!("not the markets format: {e}")))?;
        let last = page.markets.is_empty() || page.cursor.as_deref().is_none_or(str::is_empty);
        markets.extend(page.markets);
        if last {
            return Ok(markets);
        }
        cursor = page.cursor;
    }
    Err(unavailable(format!("more than {} pages", config.max_pages)))
}
