//! Historical datasets: what a customer owns, the monthly refresh that signs
//! a link per owned refreshable product (8 per UTC month, one taken only
//! after every link is signed, atomically), and the embedded store's signed
//! downloads. No HTTP here: errors say what failed, the API picks the status.

use std::sync::Arc;

use bytes::Bytes;
use chrono::{DateTime, Datelike, DurationRound, TimeDelta, TimeZone, Utc};
use linecast_domain::Sport;

use crate::ports::signer::{DOWNLOAD_TTL, DownloadTokens, SignerError, TokenRefused, UrlSigner};
use crate::{Accounts, AccountsError, ArtifactStore, Month, StoreError, UsageMeter};

/// Refreshes per UTC month.
pub const REFRESH_LIMIT: u32 = 8;

/// The refresh window: the UTC calendar month of `now`.
pub fn month_of(now: DateTime<Utc>) -> Month {
    (now.year(), now.month())
}

/// First instant of the next UTC month, when the refresh count resets.
pub fn next_reset(now: DateTime<Utc>) -> DateTime<Utc> {
    let (y, m) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    Utc.with_ymd_and_hms(y, m, 1, 0, 0, 0).single().unwrap_or(now)
}

/// What a customer owns and how many refreshes are left this month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetStatus {
    /// An unexpired entitlement with at least one product.
    pub active: bool,
    pub expires_at: Option<DateTime<Utc>>,
    pub owned_products: Vec<String>,
    pub owned_sports: Vec<Sport>,
    pub refreshes_used: u32,
    pub refreshes_remaining: u32,
    pub refresh_limit: u32,
    pub next_reset_at: DateTime<Utc>,
}

/// One signed link of a refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedDownload {
    pub sport: Sport,
    pub filename: String,
    pub url: String,
    pub expires_at: DateTime<Utc>,
}

/// The result of a refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refresh {
    pub refreshes_remaining: u32,
    pub next_reset_at: DateTime<Utc>,
    pub downloads: Vec<SignedDownload>,
}

/// Why a refresh took nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefreshError {
    /// No unexpired entitlement with a product.
    #[error("No active historical dataset entitlement: datasets are bought separately")]
    NotEntitled,
    /// The month's refreshes are used; the count resets in `retry_after_secs`.
    #[error("Refresh limit exceeded. Limit: {REFRESH_LIMIT} refreshes per month")]
    Exhausted { retry_after_secs: u64 },
    /// The store publishes no product catalog.
    #[error("No refreshable dataset is published for your products")]
    NoCatalog,
    /// None of the owned products is refreshable.
    #[error("None of your products has a refreshable dataset")]
    NothingRefreshable,
    /// The catalog could not be read; nothing was consumed.
    #[error("The dataset catalog is temporarily unavailable; nothing was consumed")]
    CatalogUnavailable(StoreError),
    /// A link could not be signed; nothing was consumed.
    #[error("Download signing is temporarily unavailable; nothing was consumed")]
    SigningUnavailable(SignerError),
    #[error(transparent)]
    Accounts(#[from] AccountsError),
}

/// Why a download was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DownloadError {
    /// Malformed, tampered with or expired.
    #[error("Download link refused: {0}")]
    Refused(TokenRefused),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A verified download: the file's bytes and the filename to serve it as
/// (reduced to printable ASCII without quotes or backslashes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    pub filename: String,
    pub bytes: Bytes,
}

/// The dataset use cases.
pub struct Datasets {
    accounts: Arc<dyn Accounts>,
    usage: Arc<dyn UsageMeter>,
    store: Arc<dyn ArtifactStore>,
    signer: Arc<dyn UrlSigner>,
    tokens: Arc<dyn DownloadTokens>,
}

struct Owned {
    products: Vec<String>,
    sports: Vec<Sport>,
    expires_at: Option<DateTime<Utc>>,
    active: bool,
}

impl Datasets {
    pub fn new(
        accounts: Arc<dyn Accounts>,
        usage: Arc<dyn UsageMeter>,
        store: Arc<dyn ArtifactStore>,
        signer: Arc<dyn UrlSigner>,
        tokens: Arc<dyn DownloadTokens>,
    ) -> Self {
        Self {
            accounts,
            usage,
            store,
            signer,
            tokens,
        }
    }

    async fn owned(&self, customer_id: i64, now: DateTime<Utc>) -> Result<Owned, AccountsError> {
        Ok(match self.accounts.get_entitlement(customer_id).await? {
            None => Owned {
                products: vec![],
                sports: vec![],
                expires_at: None,
                active: false,
            },
            Some(e) => Owned {
                active: e.expires_at.is_none_or(|t| now < t) && !e.owned_products.is_empty(),
                products: e.owned_products,
                sports: e.owned_sports,
                expires_at: e.expires_at,
            },
        })
    }

    /// The customer's entitlement and refresh count; consumes nothing.
    pub async fn status(&self, customer_id: i64, now: DateTime<Utc>) -> Result<DatasetStatus, AccountsError> {
        let owned = self.owned(customer_id, now).await?;
        let used = self.usage.refreshes_used(customer_id, month_of(now)).await?;
        Ok(DatasetStatus {
            active: owned.active,
            expires_at: owned.expires_at,
            owned_products: owned.products,
            owned_sports: owned.sports,
            refreshes_used: used,
            refreshes_remaining: REFRESH_LIMIT.saturating_sub(used),
            refresh_limit: REFRESH_LIMIT,
            next_reset_at: next_reset(now),
        })
    }

    /// Signs a link, valid `DOWNLOAD_TTL` (to the whole second), for every
    /// owned refreshable product of the catalog, then takes one refresh.
    /// Any failure before the last link consumes nothing.
    pub async fn refresh(&self, customer_id: i64, now: DateTime<Utc>) -> Result<Refresh, RefreshError> {
        let month = month_of(now);
        let owned = self.owned(customer_id, now).await?;
        if !owned.active {
            return Err(RefreshError::NotEntitled);
        }
        let exhausted = || RefreshError::Exhausted {
            retry_after_secs: (next_reset(now) - now).num_seconds().max(1) as u64,
        };
        if self.usage.refreshes_used(customer_id, month).await? >= REFRESH_LIMIT {
            return Err(exhausted());
        }
        let catalog = match self.store.product_catalog().await {
            Ok(c) => c,
            Err(StoreError::NotFound { .. }) => return Err(RefreshError::NoCatalog),
            Err(e) => return Err(RefreshError::CatalogUnavailable(e)),
        };
        let products: Vec<_> = catalog
            .value
            .products
            .iter()
            .filter(|p| p.refreshable && owned.products.contains(&p.product_id))
            .collect();
        if products.is_empty() {
            return Err(RefreshError::NothingRefreshable);
        }
        let expires_at = (now + DOWNLOAD_TTL)
            .duration_trunc(TimeDelta::seconds(1))
            .unwrap_or(now + DOWNLOAD_TTL);
        let mut downloads = Vec::with_capacity(products.len());
        for p in products {
            let url = self
                .signer
                .sign(&p.key, &p.filename, expires_at)
                .await
                .map_err(RefreshError::SigningUnavailable)?;
            downloads.push(SignedDownload {
                sport: p.sport,
                filename: p.filename.clone(),
                url,
                expires_at,
            });
        }
        // Every link exists: only now take one refresh, atomically.
        let Some(used) = self
            .usage
            .try_consume_refresh(customer_id, month, REFRESH_LIMIT, now)
            .await?
        else {
            return Err(exhausted());
        };
        Ok(Refresh {
            refreshes_remaining: REFRESH_LIMIT.saturating_sub(used),
            next_reset_at: next_reset(now),
            downloads,
        })
    }

    /// The file a download token grants at `now`.
    pub async fn download(&self, token: &str, now: DateTime<Utc>) -> Result<Download, DownloadError> {
        let granted = self.tokens.verify(token, now).map_err(DownloadError::Refused)?;
        let bytes = self.store.dataset_bytes(&granted.object_key).await?;
        let filename = granted
            .filename
            .chars()
            .filter(|c| c.is_ascii_graphic() && *c != '"' && *c != '\\')
            .collect();
        Ok(Download { filename, bytes })
    }
}
