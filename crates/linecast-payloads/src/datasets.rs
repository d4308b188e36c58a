//! The JSON shapes of historical datasets (status, refresh). The
//! entitlement, quota and signing rules live in
//! `linecast_core::services::datasets`; the HTTP meaning of their failures
//! (403, 429 with `Retry-After`, 503) is the shell's error table.

use linecast_core::services::datasets::{DatasetStatus, Refresh};
use serde::Serialize;
use utoipa::ToSchema;

use crate::time::rfc3339;

/// What the customer owns and how many refreshes are left.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntitlementResponse {
    pub has_service_sports_data: bool,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    pub owned_products: Vec<String>,
    pub owned_sports: Vec<String>,
    pub refreshes_used: u32,
    pub refreshes_remaining: u32,
    pub refresh_limit: u32,
    /// First instant of the next UTC month.
    #[schema(format = DateTime)]
    pub next_reset_at: String,
}

/// One signed link.
#[derive(Debug, Serialize, ToSchema)]
pub struct DownloadItem {
    pub sport: String,
    pub filename: String,
    /// Signed link, valid for 15 minutes.
    pub url: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
}

/// The result of a refresh.
#[derive(Debug, Serialize, ToSchema)]
pub struct RefreshResponse {
    pub refreshes_remaining: u32,
    #[schema(format = DateTime)]
    pub next_reset_at: String,
    pub downloads: Vec<DownloadItem>,
}

impl From<DatasetStatus> for EntitlementResponse {
    fn from(s: DatasetStatus) -> Self {
        Self {
            has_service_sports_data: s.active,
            expires_at: s.expires_at.map(rfc3339),
            owned_products: s.owned_products,
            owned_sports: s.owned_sports.iter().map(|s| s.code().to_owned()).collect(),
            refreshes_used: s.refreshes_used,
            refreshes_remaining: s.refreshes_remaining,
            refresh_limit: s.refresh_limit,
            next_reset_at: rfc3339(s.next_reset_at),
        }
    }
}

impl From<Refresh> for RefreshResponse {
    fn from(r: Refresh) -> Self {
        Self {
            refreshes_remaining: r.refreshes_remaining,
            next_reset_at: rfc3339(r.next_reset_at),
            downloads: r
                .downloads
                .into_iter()
                .map(|d| DownloadItem {
                    sport: d.sport.code().to_owned(),
                    filename: d.filename,
                    url: d.url,
                    expires_at: rfc3339(d.expires_at),
                })
                .collect(),
        }
    }
}
