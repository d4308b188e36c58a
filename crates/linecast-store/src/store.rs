//! `ObjectArtifactStore`: the `ArtifactStore` port over any object_store
//! backend, with parsed artifacts cached per object version.
//!
//! Read path: the key's last seen version is trusted for `version_ttl` (no
//! I/O); after that a HEAD fetches the version, and only a version not yet in
//! the parsed cache costs a GET and a parse. Concurrent misses share one
//! HEAD and one parse (moka `try_get_with`).

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use linecast_core::{ObjectVersion, StoreError, Versioned};
use moka::future::Cache;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};

use crate::errors::from_object_store;
use crate::open::store_for_url;
use crate::options::StoreOptions;

/// Parsed forms are larger than the CSV they came from; without a measured
/// heap size (no counting allocator) this factor turns object size into the
/// cache weight.
const PARSED_BYTES_PER_OBJECT_BYTE: u64 = 3;
/// How often a read retries when the object changes between HEAD and GET.
const CHANGED_RETRIES: usize = 3;

type AnyArc = Arc<dyn Any + Send + Sync>;

/// A directory listing and the dates parsed from it.
type ParsedListing = (Arc<Vec<String>>, Arc<Vec<chrono::NaiveDate>>);

#[derive(Clone)]
struct Parsed {
    version: ObjectVersion,
    /// A corrupt object is remembered too, so it is parsed once per version.
    value: Result<AnyArc, StoreError>,
    /// The heap the parsed value holds, measured at parse.
    heap_bytes: Option<u64>,
    /// Handed over, not kept (`Keep::FailureOnly`): it passes through the
    /// cache only so concurrent first reads share one parse, and weighs
    /// nothing while it does.
    handed_over: bool,
}

impl Parsed {
    /// The cache weight: the measured heap, else an estimate from the size.
    fn weight(&self) -> u64 {
        if self.handed_over && self.value.is_ok() {
            return 256;
        }
        self.heap_bytes
            .unwrap_or_else(|| self.version.size.saturating_mul(PARSED_BYTES_PER_OBJECT_BYTE))
            .saturating_add(256)
    }
}

/// Whether a parsed value stays in the store's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Kept until evicted (small artifacts read on every request).
    Value,
    /// Handed to a caller that keeps it itself (season stores: `History`);
    /// concurrent first reads still share one parse, and a parse failure is
    /// remembered, so it is not parsed again.
    FailureOnly,
}

enum LoadError {
    Store(StoreError),
    /// The object changed between HEAD and GET; carries the new version.
    Changed(ObjectVersion),
}

/// The artifact store over an object_store backend.
pub struct ObjectArtifactStore {
    store: Arc<dyn ObjectStore>,
    /// The bound of one store call ([`StoreOptions::timeout`]).
    timeout: std::time::Duration,
    /// Last seen version per key (NotFound remembered too), for `version_ttl`.
    versions: Cache<String, Result<ObjectVersion, StoreError>>,
    /// Parsed artifacts, within the artifacts share of the budget.
    parsed: linecast_core::memory::Budgeted<(String, String), Parsed>,
    /// Object file names per directory, for `version_ttl`.
    listings: Cache<String, Arc<Vec<String>>>,
    /// Whether the root holds nothing, for `version_ttl`.
    root_empty: Cache<(), bool>,
    /// Release dates parsed from the last listing seen per sport (parsed
    /// again only when the listing changes).
    release_dates: std::sync::Mutex<std::collections::HashMap<linecast_domain::Sport, ParsedListing>>,
    parses: AtomicU64,
    loads: AtomicU64,
}

impl std::fmt::Debug for ObjectArtifactStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectArtifactStore")
            .field("store", &self.store.to_string())
            .finish_non_exhaustive()
    }
}

impl ObjectArtifactStore {
    /// Opens `file:///abs/path`, `memory://`, `s3://bucket/prefix` or
    /// `gs://bucket/prefix`. Keys are relative to the URL's path.
    pub fn from_url(url: &str, options: StoreOptions) -> Result<Self, StoreError> {
        Ok(Self::new(store_for_url(url, &options)?, options))
    }

    /// Wraps an existing object store (already scoped to the data root).
    #[expect(
        clippy::needless_pass_by_value,
        reason = "options are a plain settings value, taken like from_url takes them"
    )]
    pub fn new(store: Arc<dyn ObjectStore>, options: StoreOptions) -> Self {
        let StoreOptions {
            cache_bytes,
            version_ttl,
            timeout,
            s3: _,
            gcs: _,
        } = options;
        let versions = Cache::builder().time_to_live(version_ttl).build();
        let listings = Cache::builder().time_to_live(version_ttl).build();
        let root_empty = Cache::builder().time_to_live(version_ttl).build();
        let parsed =
            linecast_core::memory::Budgeted::new(cache_bytes, |_key: &(String, String), value: &Parsed| value.weight());
        Self {
            store,
            timeout,
            versions,
            parsed,
            listings,
            root_empty,
            release_dates: std::sync::Mutex::new(std::collections::HashMap::new()),
            parses: AtomicU64::new(0),
            loads: AtomicU64::new(0),
        }
    }

    /// `call`, failed as object_store would fail it when it outlives the
    /// bound of one store call: every call to the backend goes through here.
    async fn within<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, object_store::Error>>,
    ) -> Result<T, object_store::Error> {
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| Err(crate::errors::deadline_passed(self.timeout)))
    }

    /// The underlying object store, scoped to the data root (for tests and tools).
    pub fn object_store(&self) -> Arc<dyn ObjectStore> {
        Arc::clone(&self.store)
    }

    /// The parsed-artifact cache's state, for metrics.
    pub fn cache_stats(&self) -> linecast_core::memory::CacheStats {
        self.parsed.stats()
    }

    /// How many times a parser has run (each is one object version read).
    pub fn parse_count(&self) -> u64 {
        self.parses.load(Ordering::Relaxed)
    }

    /// The release dates named by `listing` (`YYYY-MM-DD.json`), newest
    /// first, parsed once per listing.
    pub(crate) fn dates_of_listing(
        &self,
        sport: linecast_domain::Sport,
        listing: &Arc<Vec<String>>,
    ) -> Arc<Vec<chrono::NaiveDate>> {
        if let Ok(memo) = self.release_dates.lock()
            && let Some((seen, dates)) = memo.get(&sport)
            && Arc::ptr_eq(seen, listing)
        {
            return dates.clone();
        }
        let mut dates: Vec<chrono::NaiveDate> = listing
            .iter()
            .filter_map(|n| n.strip_suffix(".json"))
            .filter_map(|stem| chrono::NaiveDate::parse_from_str(stem, "%Y-%m-%d").ok())
            .collect();
        dates.sort_unstable_by(|a, b| b.cmp(a));
        dates.dedup();
        let dates = Arc::new(dates);
        if let Ok(mut memo) = self.release_dates.lock() {
            memo.insert(sport, (listing.clone(), dates.clone()));
        }
        dates
    }

    /// Parsed-cache hits and misses so far (a miss is one parse).
    pub fn cache_counts(&self) -> (u64, u64) {
        let parses = self.parse_count();
        (self.loads.load(Ordering::Relaxed).saturating_sub(parses), parses)
    }

    /// Whether the store's root holds no object at all (remembered for
    /// `version_ttl`). A missing data folder reads as empty on the local
    /// filesystem.
    pub async fn is_empty(&self) -> Result<bool, StoreError> {
        let init = async {
            let listing = self
                .within(self.store.list_with_delimiter(None))
                .await
                .map_err(|e| from_object_store("/", e))?;
            Ok::<_, StoreError>(listing.common_prefixes.is_empty() && listing.objects.is_empty())
        };
        self.root_empty.try_get_with((), init).await.map_err(|e| (*e).clone())
    }

    /// Reads `key` through the caches, parsing it with `parse` on a new
    /// version; `keep` says whether the parsed value stays cached here.
    pub(crate) async fn load<T, F>(&self, key: String, keep: Keep, parse: F) -> Result<Versioned<T>, StoreError>
    where
        T: Send + Sync + 'static,
        F: Fn(&str, &[u8]) -> Result<T, StoreError>,
    {
        self.loads.fetch_add(1, Ordering::Relaxed);
        for _ in 0..CHANGED_RETRIES {
            let version = self.version(&key).await?;
            let slot = (key.clone(), version.version.clone());
            let init = async {
                let (got, bytes) = self.get(&key).await.map_err(LoadError::Store)?;
                if got.version != version.version {
                    return Err(LoadError::Changed(got));
                }
                self.parses.fetch_add(1, Ordering::Relaxed);
                let (value, heap_bytes) =
                    linecast_heap::measured(|| parse(&key, &bytes).map(|v| Arc::new(v) as AnyArc));
                Ok(Parsed {
                    version: got,
                    value,
                    heap_bytes,
                    handed_over: keep == Keep::FailureOnly,
                })
            };
            let parsed = self.parsed.try_get_with(slot.clone(), init).await;
            if keep == Keep::FailureOnly
                && let Ok(handed) = &parsed
                && handed.value.is_ok()
            {
                self.parsed.invalidate(&slot).await;
            }
            match parsed {
                Ok(parsed) => {
                    let value = parsed.value?.downcast::<T>().map_err(|_| StoreError::Unavailable {
                        reason: format!("{key}: cached artifact has an unexpected type"),
                    })?;
                    return Ok(Versioned {
                        version: parsed.version,
                        value,
                        heap_bytes: parsed.heap_bytes,
                    });
                }
                Err(err) => match &*err {
                    LoadError::Store(e) => return Err(e.clone()),
                    LoadError::Changed(newer) => self.versions.insert(key.clone(), Ok(newer.clone())).await,
                },
            }
        }
        Err(StoreError::Unavailable {
            reason: format!("{key}: object kept changing while being read"),
        })
    }

    /// Reads an object that never changes once written (a kept release,
    /// named by its digest): parsed once per `version.version`, with no
    /// HEAD; the value carries `version` as given.
    pub(crate) async fn load_written_once<T, F>(
        &self,
        version: ObjectVersion,
        parse: F,
    ) -> Result<Versioned<T>, StoreError>
    where
        T: Send + Sync + 'static,
        F: Fn(&str, &[u8]) -> Result<T, StoreError>,
    {
        self.loads.fetch_add(1, Ordering::Relaxed);
        let key = version.key.clone();
        let slot = (key.clone(), version.version.clone());
        let init = async {
            let (got, bytes) = self.get(&key).await?;
            self.parses.fetch_add(1, Ordering::Relaxed);
            let (value, heap_bytes) = linecast_heap::measured(|| parse(&key, &bytes).map(|v| Arc::new(v) as AnyArc));
            Ok::<_, StoreError>(Parsed {
                version: got,
                value,
                heap_bytes,
                handed_over: false,
            })
        };
        let parsed = self.parsed.try_get_with(slot, init).await.map_err(|e| (*e).clone())?;
        let value = parsed.value?.downcast::<T>().map_err(|_| StoreError::Unavailable {
            reason: format!("{key}: cached artifact has an unexpected type"),
        })?;
        Ok(Versioned {
            version,
            value,
            heap_bytes: parsed.heap_bytes,
        })
    }

    /// Writes `bytes` under `key` unless an object is there already (a key
    /// named by its content's digest: whoever wrote it first wrote the same
    /// bytes). A backend without conditional writes is asked first.
    pub(crate) async fn put_once(&self, key: &str, bytes: Bytes) -> Result<(), StoreError> {
        use object_store::{PutMode, PutOptions};
        let path = path_of(key)?;
        let create = PutOptions {
            mode: PutMode::Create,
            ..PutOptions::default()
        };
        match self
            .within(self.store.put_opts(&path, bytes.clone().into(), create))
            .await
        {
            Ok(_) | Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => Ok(()),
            Err(object_store::Error::NotImplemented { .. }) => match self.within(self.store.head(&path)).await {
                Ok(_) => Ok(()),
                Err(object_store::Error::NotFound { .. }) => self
                    .within(self.store.put(&path, bytes.into()))
                    .await
                    .map(|_| ())
                    .map_err(|e| from_object_store(key, e)),
                Err(e) => Err(from_object_store(key, e)),
            },
            Err(e) => Err(from_object_store(key, e)),
        }
    }

    /// Writes `bytes` under `key`, replacing what is there in one PUT (the
    /// backend swaps the object whole: a reader sees the old bytes or the
    /// new, never a part).
    pub(crate) async fn put(&self, key: &str, bytes: Bytes) -> Result<(), StoreError> {
        let path = path_of(key)?;
        self.within(self.store.put(&path, bytes.into()))
            .await
            .map(|_| ())
            .map_err(|e| from_object_store(key, e))
    }

    /// The size of the object at `key` as the backend reports it now (no
    /// version window), `None` when there is none.
    pub(crate) async fn size_now(&self, key: &str) -> Result<Option<u64>, StoreError> {
        let path = path_of(key)?;
        match self.within(self.store.head(&path)).await {
            Ok(meta) => Ok(Some(meta.size)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(from_object_store(key, e)),
        }
    }

    /// Deletes `key`; a missing object is no error.
    pub(crate) async fn delete_key(&self, key: &str) -> Result<(), StoreError> {
        let path = path_of(key)?;
        match self.within(self.store.delete(&path)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(from_object_store(key, e)),
        }
    }

    /// The key's version: remembered for `version_ttl`, else one HEAD.
    pub(crate) async fn version(&self, key: &str) -> Result<ObjectVersion, StoreError> {
        let init = async {
            let path = path_of(key)?;
            match self.within(self.store.head(&path)).await {
                Ok(meta) => Ok(Ok(object_version(key, &meta))),
                // A missing object is remembered like a version, so repeated
                // reads of an absent optional artifact cost no I/O either.
                // In an empty store nothing is simply absent: nothing has
                // been published, and that is an outage, never a 404.
                Err(object_store::Error::NotFound { .. }) => {
                    if self.is_empty().await? {
                        Err(StoreError::Unavailable {
                            reason: format!("{key}: the store is empty; no artifact has been published"),
                        })
                    } else {
                        Ok(Err(StoreError::NotFound { object: key.to_owned() }))
                    }
                }
                Err(e) => Err(from_object_store(key, e)),
            }
        };
        match self.versions.try_get_with(key.to_owned(), init).await {
            Ok(found) => found,
            Err(err) => Err((*err).clone()),
        }
    }

    /// The object's bytes and the version they are.
    pub(crate) async fn get(&self, key: &str) -> Result<(ObjectVersion, Bytes), StoreError> {
        let path = path_of(key)?;
        let (version, bytes) = self
            .within(async {
                let result = self.store.get(&path).await?;
                let version = object_version(key, &result.meta);
                Ok((version, result.bytes().await?))
            })
            .await
            .map_err(|e| from_object_store(key, e))?;
        Ok((version, bytes))
    }

    /// Object file names directly under `dir`, remembered for `version_ttl`.
    pub(crate) async fn names_under(&self, dir: &str) -> Result<Arc<Vec<String>>, StoreError> {
        let init = async {
            let prefix = path_of(dir)?;
            let listing = self
                .within(self.store.list_with_delimiter(Some(&prefix)))
                .await
                .map_err(|e| from_object_store(dir, e))?;
            let names: Vec<String> = listing
                .objects
                .iter()
                .filter_map(|m| m.location.filename().map(str::to_owned))
                .collect();
            if names.is_empty() && self.is_empty().await? {
                return Err(StoreError::Unavailable {
                    reason: format!("{dir}: the store is empty; no artifact has been published"),
                });
            }
            Ok::<_, StoreError>(Arc::new(names))
        };
        self.listings
            .try_get_with(dir.to_owned(), init)
            .await
            .map_err(|e| (*e).clone())
    }

    /// Every watched object of `sport` with its current version: one
    /// listing per watched prefix (the odds file is one HEAD), bypassing the
    /// version window. Each version seen replaces the remembered one, so
    /// the next read uses it (and parses it once, if new).
    pub(crate) async fn list_watched(&self, sport: linecast_domain::Sport) -> Result<Vec<ObjectVersion>, StoreError> {
        use futures::TryStreamExt as _;
        let mut versions = Vec::new();
        for prefix in linecast_core::ports::store::watched_prefixes(sport) {
            if prefix.ends_with('/') {
                let path = path_of(prefix.trim_end_matches('/'))?;
                let metas: Vec<ObjectMeta> = self
                    .within(self.store.list(Some(&path)).try_collect())
                    .await
                    .map_err(|e| from_object_store(&prefix, e))?;
                versions.extend(metas.iter().map(|m| object_version(m.location.as_ref(), m)));
            } else {
                match self.within(self.store.head(&path_of(&prefix)?)).await {
                    Ok(meta) => versions.push(object_version(&prefix, &meta)),
                    Err(object_store::Error::NotFound { .. }) => {}
                    Err(e) => return Err(from_object_store(&prefix, e)),
                }
            }
        }
        for version in &versions {
            self.versions.insert(version.key.clone(), Ok(version.clone())).await;
        }
        // Directory listings are read again on next use, so a new season or
        // release file is listed as soon as the watcher has seen it.
        for model_type in linecast_domain::ModelType::ALL {
            self.listings
                .invalidate(&linecast_domain::artifacts::keys::seasons_prefix(sport, *model_type))
                .await;
        }
        self.listings
            .invalidate(&linecast_domain::artifacts::keys::releases_prefix(sport))
            .await;
        versions.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(versions)
    }

    /// One listing of the root: proves the store answers.
    pub(crate) async fn ping_root(&self) -> Result<(), StoreError> {
        self.within(self.store.list_with_delimiter(None))
            .await
            .map(|_| ())
            .map_err(|e| from_object_store("/", e))
    }
}

fn path_of(key: &str) -> Result<Path, StoreError> {
    Path::parse(key).map_err(|_| StoreError::NotFound { object: key.to_owned() })
}

/// e_tag when the store gives one, otherwise last-modified plus size.
fn object_version(key: &str, meta: &ObjectMeta) -> ObjectVersion {
    let version = meta.e_tag.clone().unwrap_or_else(|| {
        format!(
            "{}-{}",
            meta.last_modified
                .timestamp_nanos_opt()
                .unwrap_or(meta.last_modified.timestamp()),
            meta.size
        )
    });
    ObjectVersion {
        key: key.to_owned(),
        version,
        last_modified: meta.last_modified,
        size: meta.size,
    }
}
