//! Historical datasets: what a customer owns, the monthly refresh that signs
//! a link per owned refreshable product (8 per UTC month, one taken only
//! after every link is signed, atomically), and the embedded store's signed
//! downloads. No HTTP here: errors say what failed, the API picks the status.

use std::sync::Arc;

use bytes::Bytes;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use linecast_domain::Sport;

use crate::ports::signer::{DOWNLOAD_TTL, DownloadTokens, SignerError, TokenRefused, UrlSigner};
use crate::{Accounts, AccountsError, ArtifactStore, StoreError, UsageMeter};

/// Refreshes per UTC month.
pub const REFRESH_LIMIT: u32 = 8;

use crate::services::access::{month_of, next_reset};

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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use linecast_domain::artifacts::{Product, ProductCatalog};

    use super::*;
    use crate::testing::{MemoryAccounts, MemorySigner, MemoryStore};

    const CUSTOMER: i64 = 7;

    fn at(rfc3339: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(rfc3339).unwrap().with_timezone(&Utc)
    }

    /// Half a second past 18:00 UTC on Nov 22: links expire at whole seconds.
    fn now() -> DateTime<Utc> {
        at("2026-11-22T18:00:00.5Z")
    }

    fn product(id: &str, sport: Sport, refreshable: bool) -> Product {
        Product {
            product_id: id.into(),
            sport,
            filename: format!("{id}.csv"),
            key: format!("datasets/{}/{id}.csv", sport.code()),
            refreshable,
        }
    }

    struct World {
        ledger: Arc<MemoryAccounts>,
        store: Arc<MemoryStore>,
        signer: Arc<MemorySigner>,
        datasets: Datasets,
    }

    /// A catalog of two refreshable histories and one frozen archive.
    async fn world(owned: &[&str], expires_at: Option<DateTime<Utc>>) -> World {
        let ledger = Arc::new(MemoryAccounts::new());
        let owned: Vec<String> = owned.iter().map(|s| (*s).to_owned()).collect();
        ledger
            .grant_entitlement(CUSTOMER, &owned, &[Sport::Mlb, Sport::Nba], expires_at)
            .await
            .unwrap();
        let store = Arc::new(MemoryStore::new());
        store.put_product_catalog(ProductCatalog {
            products: vec![
                product("mlb_history", Sport::Mlb, true),
                product("nba_history", Sport::Nba, true),
                product("nba_archive", Sport::Nba, false),
            ],
        });
        let signer = Arc::new(MemorySigner::new());
        let datasets = Datasets::new(
            ledger.clone(),
            ledger.clone(),
            store.clone(),
            signer.clone(),
            signer.clone(),
        );
        World {
            ledger,
            store,
            signer,
            datasets,
        }
    }

    #[tokio::test]
    async fn status_reports_the_entitlement_and_the_refreshes_left_and_consumes_nothing() {
        let w = world(&["nba_history"], None).await;
        for _ in 0..2 {
            let status = w.datasets.status(CUSTOMER, now()).await.unwrap();
            assert_eq!(
                status,
                DatasetStatus {
                    active: true,
                    expires_at: None,
                    owned_products: vec!["nba_history".into()],
                    owned_sports: vec![Sport::Mlb, Sport::Nba],
                    refreshes_used: 0,
                    refreshes_remaining: 8,
                    refresh_limit: 8,
                    next_reset_at: at("2026-12-01T00:00:00Z"),
                }
            );
        }
        let stranger = w.datasets.status(99, now()).await.unwrap();
        assert!(!stranger.active);
        assert!(stranger.owned_products.is_empty());
    }

    #[tokio::test]
    async fn an_expired_entitlement_is_inactive_and_refreshes_nothing() {
        let w = world(&["nba_history"], Some(at("2026-11-01T00:00:00Z"))).await;
        assert!(!w.datasets.status(CUSTOMER, now()).await.unwrap().active);
        let err = w.datasets.refresh(CUSTOMER, now()).await.unwrap_err();
        assert_eq!(err, RefreshError::NotEntitled);
        assert!(w.signer.signed().is_empty());
    }

    #[tokio::test]
    async fn a_refresh_signs_every_owned_refreshable_dataset_for_fifteen_minutes_then_takes_one() {
        let w = world(&["nba_history", "nba_archive", "mlb_history"], None).await;
        let refresh = w.datasets.refresh(CUSTOMER, now()).await.unwrap();
        let expires_at = at("2026-11-22T18:15:00Z");
        assert_eq!(refresh.refreshes_remaining, 7);
        assert_eq!(refresh.next_reset_at, at("2026-12-01T00:00:00Z"));
        assert_eq!(
            refresh.downloads,
            vec![
                SignedDownload {
                    sport: Sport::Mlb,
                    filename: "mlb_history.csv".into(),
                    url: "memory://datasets/mlb/mlb_history.csv?filename=mlb_history.csv&expires=1795371300".into(),
                    expires_at,
                },
                SignedDownload {
                    sport: Sport::Nba,
                    filename: "nba_history.csv".into(),
                    url: "memory://datasets/nba/nba_history.csv?filename=nba_history.csv&expires=1795371300".into(),
                    expires_at,
                },
            ]
        );
        assert_eq!(w.ledger.refreshes_used(CUSTOMER, (2026, 11)).await.unwrap(), 1);
    }

    #[tokio::test]
    async fn the_ninth_refresh_of_a_month_is_refused_until_the_next_month() {
        let w = world(&["nba_history"], None).await;
        for remaining in (0..8).rev() {
            let refresh = w.datasets.refresh(CUSTOMER, now()).await.unwrap();
            assert_eq!(refresh.refreshes_remaining, remaining);
        }
        let err = w.datasets.refresh(CUSTOMER, now()).await.unwrap_err();
        // From 18:00:00.5 on Nov 22 to Dec 1: 8 days and 6 hours, less half a second.
        assert_eq!(
            err,
            RefreshError::Exhausted {
                retry_after_secs: 712_799
            }
        );
        assert_eq!(err.to_string(), "Refresh limit exceeded. Limit: 8 refreshes per month");
        let december = at("2026-12-01T00:00:00Z");
        assert_eq!(
            w.datasets
                .refresh(CUSTOMER, december)
                .await
                .unwrap()
                .refreshes_remaining,
            7
        );
    }

    #[tokio::test]
    async fn a_signing_failure_consumes_nothing() {
        let w = world(&["nba_history"], None).await;
        w.signer.fail_with(SignerError::Unavailable("no credentials".into()));
        let err = w.datasets.refresh(CUSTOMER, now()).await.unwrap_err();
        assert!(matches!(err, RefreshError::SigningUnavailable(_)), "{err:?}");
        assert_eq!(w.ledger.refreshes_used(CUSTOMER, (2026, 11)).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn a_missing_or_unreadable_catalog_and_an_unrefreshable_product_consume_nothing() {
        let w = world(&["nba_archive"], None).await;
        assert_eq!(
            w.datasets.refresh(CUSTOMER, now()).await.unwrap_err(),
            RefreshError::NothingRefreshable
        );
        w.store.remove(linecast_domain::artifacts::keys::PRODUCT_CATALOG);
        assert_eq!(
            w.datasets.refresh(CUSTOMER, now()).await.unwrap_err(),
            RefreshError::NoCatalog
        );
        w.store.fail_with(StoreError::Unavailable { reason: "down".into() });
        assert!(matches!(
            w.datasets.refresh(CUSTOMER, now()).await.unwrap_err(),
            RefreshError::CatalogUnavailable(_)
        ));
        assert_eq!(w.ledger.refreshes_used(CUSTOMER, (2026, 11)).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn a_genuine_token_downloads_its_file_and_an_expired_one_is_refused() {
        let w = world(&["nba_history"], None).await;
        w.store
            .put_dataset("datasets/nba/nba_history.csv", Bytes::from_static(b"date,home\n"));
        let expires_at = at("2026-11-22T18:15:00Z");
        let token = MemorySigner::token("datasets/nba/nba_history.csv", "nba \"history\".csv", expires_at);
        let download = w.datasets.download(&token, now()).await.unwrap();
        assert_eq!(
            download.filename, "nbahistory.csv",
            "spaces, quotes and backslashes are dropped"
        );
        assert_eq!(download.bytes, Bytes::from_static(b"date,home\n"));
        let late = at("2026-11-22T18:15:01Z");
        let err = w.datasets.download(&token, late).await.unwrap_err();
        assert_eq!(err.to_string(), "Download link refused: download token expired");
        let gone = MemorySigner::token("datasets/nba/gone.csv", "gone.csv", expires_at);
        assert!(matches!(
            w.datasets.download(&gone, now()).await.unwrap_err(),
            DownloadError::Store(StoreError::NotFound { .. })
        ));
    }
}
