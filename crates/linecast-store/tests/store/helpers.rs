//! Shared builders: CSV objects, in-memory stores and an instrumented
//! object store that counts requests and can be switched to failing.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use linecast_store::{ObjectArtifactStore, StoreOptions};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore, ObjectStoreExt,
    PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

pub const TEAMS: &str =
    "slug,display_name,abbreviation\nboston_celtics,Boston Celtics,BOS\nnew_york_knicks,New York Knicks,NYK\n";

pub const SCORES: &str = "date,time_est,season,season_type,away_team,home_team,away_score,home_score,status\n\
2025-11-20,19:30:00,2025-26,regular,boston_celtics,new_york_knicks,101,99,final\n\
2025-11-22,19:30,2025-26,regular,new_york_knicks,boston_celtics,,,scheduled\n";

/// A season store with an unknown column `note` between known ones.
pub const SEASON: &str = "date,time_est,away_team,home_team,season,season_type,away_score,home_score,note,over,over_under,open_over_under,over_line,under_line,BLEND,IMPLIED,CATB,settlement_status,forecast_published_at,zeta\n\
2025-11-20,19:30:00,boston_celtics,new_york_knicks,2025-26,regular,101,99,hello,1,210.5,0,-110,-110,0.61,,0.55,settled,2025-11-20T23:00:00Z,z1\n\
2025-11-22,19:30:00,new_york_knicks,boston_celtics,2025-26,regular,,,,,212,211.5,-105,-115,0.4,0.5,,,,\n";

pub fn options(ttl: Duration) -> StoreOptions {
    StoreOptions {
        version_ttl: ttl,
        ..StoreOptions::default()
    }
}

pub async fn put(store: &Arc<dyn ObjectStore>, key: &str, body: &str) {
    store
        .put(&Path::from(key), PutPayload::from(body.to_owned()))
        .await
        .unwrap();
}

/// A memory store holding a small valid nba data set.
pub async fn nba_store(ttl: Duration) -> ObjectArtifactStore {
    let store = ObjectArtifactStore::from_url("memory://", options(ttl)).unwrap();
    let raw = store.object_store();
    put(&raw, "teams/nba.csv", TEAMS).await;
    put(&raw, "scores/nba.csv", SCORES).await;
    put(&raw, "seasons/nba/over_under/2025-26.csv", SEASON).await;
    store
}

/// Wraps a store, counting GET/HEAD requests, and fails every call while
/// `failing` is set (as a refused connection would).
#[derive(Debug)]
pub struct Instrumented {
    pub inner: Arc<dyn ObjectStore>,
    pub failing: AtomicBool,
    pub heads: AtomicUsize,
    pub gets: AtomicUsize,
}

impl Instrumented {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: Arc::new(InMemory::new()),
            failing: AtomicBool::new(false),
            heads: AtomicUsize::new(0),
            gets: AtomicUsize::new(0),
        })
    }

    pub fn requests(&self) -> usize {
        self.heads.load(Ordering::SeqCst) + self.gets.load(Ordering::SeqCst)
    }

    fn check(&self) -> object_store::Result<()> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(object_store::Error::Generic {
                store: "instrumented",
                source: "connection refused (simulated)".into(),
            });
        }
        Ok(())
    }
}

impl fmt::Display for Instrumented {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Instrumented")
    }
}

#[async_trait]
impl ObjectStore for Instrumented {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.check()?;
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.check()?;
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> object_store::Result<GetResult> {
        if options.head {
            self.heads.fetch_add(1, Ordering::SeqCst);
        } else {
            self.gets.fetch_add(1, Ordering::SeqCst);
        }
        self.check()?;
        self.inner.get_opts(location, options).await
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> object_store::Result<Vec<Bytes>> {
        self.check()?;
        self.inner.get_ranges(location, ranges).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        if let Err(e) = self.check() {
            return futures::stream::once(async move { Err(e) }).boxed();
        }
        self.inner.list(prefix)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.check()?;
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> object_store::Result<()> {
        self.check()?;
        self.inner.copy_opts(from, to, options).await
    }
}
