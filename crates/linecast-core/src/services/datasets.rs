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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::HashMap;
    use std::sync::Mutex;

    use async_trait::async_trait;
    use linecast_domain::artifacts::{Product, ProductCatalog};

    use super::*;
    use crate::testing::{MemorySigner, MemoryStore};
    use crate::{ApiKeyRecord, AuditEntry, Customer, Entitlement, NewApiKey, NewCustomer, SubscriptionStatus};

    /// Entitlements and the refresh ledger; the rest of the accounts port is
    /// not used by datasets and answers `Unavailable`.
    #[derive(Default)]
    struct Ledger {
        entitlements: Mutex<HashMap<i64, Entitlement>>,
        refreshes: Mutex<HashMap<(i64, Month), u32>>,
    }

    fn unused<T>() -> Result<T, AccountsError> {
        Err(AccountsError::Unavailable("not used by datasets".into()))
    }

    #[async_trait]
    impl Accounts for Ledger {
        async fn create_customer(&self, _: NewCustomer, _: DateTime<Utc>) -> Result<Customer, AccountsError> {
            unused()
        }
        async fn find_customer_by_email(&self, _: &str) -> Result<Option<Customer>, AccountsError> {
            unused()
        }
        async fn get_customer(&self, _: i64) -> Result<Customer, AccountsError> {
            unused()
        }
        async fn list_customers(&self) -> Result<Vec<Customer>, AccountsError> {
            unused()
        }
        async fn set_subscription(&self, _: &str, _: SubscriptionStatus) -> Result<Customer, AccountsError> {
            unused()
        }
        async fn insert_key(&self, _: NewApiKey, _: DateTime<Utc>) -> Result<ApiKeyRecord, AccountsError> {
            unused()
        }
        async fn find_key_by_hash(&self, _: &str) -> Result<Option<(ApiKeyRecord, Customer)>, AccountsError> {
            unused()
        }
        async fn list_keys(&self, _: i64) -> Result<Vec<ApiKeyRecord>, AccountsError> {
            unused()
        }
        async fn rename_key(&self, _: i64, _: &str) -> Result<(), AccountsError> {
            unused()
        }
        async fn revoke_key(&self, _: i64, _: DateTime<Utc>) -> Result<(), AccountsError> {
            unused()
        }
        async fn touch_last_used(&self, _: &[i64], _: DateTime<Utc>) -> Result<(), AccountsError> {
            unused()
        }
        async fn audit(&self, _: i64, _: Option<i64>, _: &str, _: &str, _: DateTime<Utc>) -> Result<(), AccountsError> {
            unused()
        }
        async fn audit_log(&self, _: i64) -> Result<Vec<AuditEntry>, AccountsError> {
            unused()
        }
        async fn grant_entitlement(
            &self,
            customer_id: i64,
            products: &[String],
            sports: &[Sport],
            expires_at: Option<DateTime<Utc>>,
        ) -> Result<Entitlement, AccountsError> {
            let e = Entitlement {
                customer_id,
                owned_products: products.to_vec(),
                owned_sports: sports.to_vec(),
                expires_at,
            };
            self.entitlements.lock().unwrap().insert(customer_id, e.clone());
            Ok(e)
        }
        async fn get_entitlement(&self, customer_id: i64) -> Result<Option<Entitlement>, AccountsError> {
            Ok(self.entitlements.lock().unwrap().get(&customer_id).cloned())
        }
        async fn ping(&self) -> Result<(), AccountsError> {
            Ok(())
        }
    }

    #[async_trait]
    impl UsageMeter for Ledger {
        async fn add_usage(&self, _: i64, _: Month, _: u64) -> Result<u64, AccountsError> {
            unused()
        }
        async fn add_usage_batch(&self, _: &[(i64, Month, u64)]) -> Result<(), AccountsError> {
            unused()
        }
        async fn get_usage(&self, _: i64, _: Month) -> Result<u64, AccountsError> {
            unused()
        }
        async fn try_consume_refresh(
            &self,
            customer_id: i64,
            month: Month,
            limit: u32,
            _: DateTime<Utc>,
        ) -> Result<Option<u32>, AccountsError> {
            let mut refreshes = self.refreshes.lock().unwrap();
            let used = refreshes.entry((customer_id, month)).or_default();
            if *used >= limit {
                return Ok(None);
            }
            *used += 1;
            Ok(Some(*used))
        }
        async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError> {
            Ok(self
                .refreshes
                .lock()
                .unwrap()
                .get(&(customer_id, month))
                .copied()
                .unwrap_or(0))
        }
    }

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
        ledger: Arc<Ledger>,
        store: Arc<MemoryStore>,
        signer: Arc<MemorySigner>,
        datasets: Datasets,
    }

    /// A catalog of two refreshable histories and one frozen archive.
    async fn world(owned: &[&str], expires_at: Option<DateTime<Utc>>) -> World {
        let ledger = Arc::new(Ledger::default());
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
