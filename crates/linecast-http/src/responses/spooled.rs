//! Files too large to hold: rendered once to disk, served from there.
//!
//! A history export grows with every release kept (tens of megabytes at a
//! season of releases), so it is not held in memory the way a
//! [`super::Rendered`] body is. Its rows are written, as they are made,
//! into a [`SpoolFile`]: a file under the spool directory (and, for a
//! compressible body, its gzip variant beside it, written in the same
//! pass), hashed on the way for its strong `ETag`. What the render holds
//! stays near one release's rows and one Parquet row group, whatever the
//! file's length.
//!
//! The finished [`Spooled`] file is kept by the key of what it was made
//! from ([`SpoolCache`], weighed in bytes on disk, `LINECAST_SPOOL_BYTES`)
//! and served like any file body: `If-None-Match` (304), `Range` and
//! `If-Range` (206, 416), the gzip variant when `Accept-Encoding` accepts
//! it, [`sliced::CHUNK`] bytes read at a time as the connection drains.
//! A file leaves the disk when it has left the cache and the last response
//! sending it has ended. The spool directory is the process's own (a fresh
//! directory under `LINECAST_VAR_DIR`), removed when the server stops.

use std::fs::File;
use std::future::Future;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use actix_web::body::SizedStream;
use actix_web::http::StatusCode;
use actix_web::http::header::{ACCEPT_ENCODING, CONTENT_RANGE, HeaderName, HeaderValue, IF_NONE_MATCH};
use actix_web::{HttpRequest, HttpResponse};
use bytes::Bytes;
use linecast_core::services::slots::Slot;
use sha2::{Digest, Sha256};

use super::{Coding, Selected, finish_headers, negotiate, select_part, sliced, tags};
use crate::error::ApiError;

/// Where spooled files are written: a directory of this process's own.
pub struct SpoolDir {
    dir: tempfile::TempDir,
    next: AtomicU64,
}

impl SpoolDir {
    /// A fresh directory `spool-*` under `parent` (made if missing),
    /// removed with this value.
    pub fn new(parent: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(parent)?;
        Ok(Self {
            dir: tempfile::Builder::new().prefix("spool-").tempdir_in(parent)?,
            next: AtomicU64::new(0),
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A new file to write a body into; `compressible` also writes its gzip
    /// variant.
    pub fn file(&self, compressible: bool) -> Result<SpoolFile, ApiError> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let identity = self.dir.path().join(format!("{n}.body"));
        let gzip = compressible.then(|| self.dir.path().join(format!("{n}.body.gz")));
        // From here on the files are removed with `paths` unless finished.
        let paths = Paths { identity, gzip };
        let open = |path: &Path| File::create(path).map(|f| Counted::new(BufWriter::with_capacity(sliced::CHUNK, f)));
        let out = open(&paths.identity).map_err(|e| spool_failed(&paths.identity, &e))?;
        let gz = match &paths.gzip {
            Some(path) => Some(flate2::write::GzEncoder::new(
                open(path).map_err(|e| spool_failed(path, &e))?,
                flate2::Compression::new(6),
            )),
            None => None,
        };
        Ok(SpoolFile {
            out,
            gz,
            hash: Sha256::new(),
            paths: Some(paths),
        })
    }
}

fn spool_failed(path: &Path, e: &std::io::Error) -> ApiError {
    ApiError::Unavailable {
        detail: "The file could not be written; try again shortly.".to_owned(),
        cause: format!("spool file {}: {e}", path.display()),
    }
}

/// A writer that counts the bytes it passed on.
struct Counted<W> {
    inner: W,
    len: u64,
}

impl<W> Counted<W> {
    fn new(inner: W) -> Self {
        Self { inner, len: 0 }
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The files of one body, removed when dropped.
#[derive(Debug)]
struct Paths {
    identity: PathBuf,
    gzip: Option<PathBuf>,
}

impl Drop for Paths {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.identity);
        if let Some(gzip) = &self.gzip {
            let _ = std::fs::remove_file(gzip);
        }
    }
}

/// A body being written to disk: bytes written go to the file (hashed and
/// counted) and, for a compressible body, through gzip to its variant.
pub struct SpoolFile {
    out: Counted<BufWriter<File>>,
    gz: Option<flate2::write::GzEncoder<Counted<BufWriter<File>>>>,
    hash: Sha256,
    /// Taken by `finish`; removed with the value otherwise (a render that
    /// failed leaves nothing behind).
    paths: Option<Paths>,
}

impl Write for SpoolFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write_all(buf)?;
        if let Some(gz) = &mut self.gz {
            gz.write_all(buf)?;
        }
        self.hash.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()?;
        if let Some(gz) = &mut self.gz {
            gz.flush()?;
        }
        Ok(())
    }
}

impl SpoolFile {
    /// The finished body, of `content_type`: everything flushed to disk,
    /// tagged by the hash of its bytes.
    pub fn finish(mut self, content_type: HeaderValue) -> Result<Spooled, ApiError> {
        let Some(paths) = self.paths.take() else {
            return Err(ApiError::Internal("a spool file finished twice".to_owned()));
        };
        let failed = |e: std::io::Error| spool_failed(&paths.identity, &e);
        self.out.flush().map_err(failed)?;
        let gzip_len = match self.gz.take() {
            Some(gz) => {
                let mut out = gz.finish().map_err(failed)?;
                out.flush().map_err(failed)?;
                Some(out.len)
            }
            None => None,
        };
        let digest = std::mem::take(&mut self.hash).finalize();
        Ok(Spooled {
            lens: [self.out.len, gzip_len.unwrap_or(0)],
            compressible: gzip_len.is_some(),
            etags: tags(&digest),
            content_type,
            headers: Vec::new(),
            paths,
        })
    }
}

/// A body on disk, served from there.
#[derive(Debug)]
pub struct Spooled {
    paths: Paths,
    /// Bytes of the identity and the gzip variant.
    lens: [u64; 2],
    compressible: bool,
    etags: [HeaderValue; 3],
    content_type: HeaderValue,
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl Spooled {
    /// Adds a header sent with this body (on 200 and 304 alike).
    #[must_use]
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// Bytes on disk (both variants).
    pub fn weight(&self) -> u64 {
        self.lens[0] + self.lens[1] + 256
    }

    /// The coding `req` gets: gzip when it accepts gzip and the body has
    /// that variant (a spooled body has no brotli variant), else identity.
    fn coding_for(&self, req: &HttpRequest) -> Coding {
        if !self.compressible {
            return Coding::Identity;
        }
        let accept = req.headers().get(ACCEPT_ENCODING).and_then(|v| v.to_str().ok());
        // The client's choice with brotli refused: gzip or identity.
        match negotiate(accept.map(|a| format!("{a}, br;q=0")).as_deref()) {
            Coding::Gzip => Coding::Gzip,
            Coding::Identity | Coding::Brotli => Coding::Identity,
        }
    }

    /// The response to `req`, as [`super::Rendered::respond_holding`]
    /// answers for a file body: 304 on a matching `If-None-Match`, else
    /// the variant `Accept-Encoding` takes, whole or the one range asked,
    /// read from disk as it is sent; `slot` is held until the body ends.
    pub fn respond_holding(
        self: &Arc<Self>,
        req: &HttpRequest,
        cache_control: &'static str,
        slot: Option<Slot>,
    ) -> Result<HttpResponse, ApiError> {
        let coding = self.coding_for(req);
        let etag = &self.etags[coding as usize];
        let not_modified = req
            .headers()
            .get(IF_NONE_MATCH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| super::names_a_tag(v, &self.etags));
        let mut res = if not_modified {
            HttpResponse::new(StatusCode::NOT_MODIFIED)
        } else {
            let (path, len) = match coding {
                Coding::Gzip => (self.paths.gzip.as_deref().unwrap_or(&self.paths.identity), self.lens[1]),
                Coding::Identity | Coding::Brotli => (self.paths.identity.as_path(), self.lens[0]),
            };
            let (status, first, last, content_range) = match select_part(req, true, etag, len) {
                Selected::Whole => (StatusCode::OK, 0, len, None),
                Selected::Part { first, last, range } => (StatusCode::PARTIAL_CONTENT, first, last + 1, Some(range)),
                Selected::Unsatisfiable { range } => (StatusCode::RANGE_NOT_SATISFIABLE, 0, 0, Some(range)),
            };
            let file = File::open(path).map_err(|e| spool_failed(path, &e))?;
            let stream = read_range(file, first, last, self.clone(), slot);
            let mut res = HttpResponse::build(status).body(SizedStream::new(last - first, stream));
            if let Some(range) = content_range {
                res.headers_mut().insert(CONTENT_RANGE, range);
            }
            res
        };
        finish_headers(
            &mut res,
            etag,
            &self.content_type,
            coding,
            not_modified,
            &self.headers,
            true,
            cache_control,
        );
        Ok(res)
    }
}

/// Bytes `first..end` of `file`, [`sliced::CHUNK`] at a time, each read
/// off the request threads when the connection asks for it; `keep` (the
/// body, so its files stay) and `slot` are held until the stream ends.
fn read_range(
    file: File,
    first: u64,
    end: u64,
    keep: Arc<Spooled>,
    slot: Option<Slot>,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> {
    struct Reading {
        file: Option<File>,
        at: u64,
        end: u64,
        _keep: Arc<Spooled>,
        _slot: Option<Slot>,
    }
    let state = Reading {
        file: Some(file),
        at: first,
        end,
        _keep: keep,
        _slot: slot,
    };
    futures::stream::unfold(state, |mut state| async move {
        if state.at >= state.end {
            return None;
        }
        let file = state.file.take()?;
        let (at, n) = (
            state.at,
            usize::try_from((state.end - state.at).min(sliced::CHUNK as u64)).unwrap_or(sliced::CHUNK),
        );
        let read = tokio::task::spawn_blocking(move || {
            let mut buf = vec![0_u8; n];
            read_exact_at(&file, &mut buf, at).map(|()| (file, buf))
        })
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)));
        match read {
            Ok((file, buf)) => {
                state.file = Some(file);
                state.at += n as u64;
                Some((Ok(Bytes::from(buf)), state))
            }
            Err(e) => {
                state.at = state.end;
                Some((Err(e), state))
            }
        }
    })
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

#[cfg(not(unix))]
fn read_exact_at(mut file: &File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    use std::io::{Read as _, Seek as _};
    file.seek(std::io::SeekFrom::Start(at))?;
    file.read_exact(buf)
}

/// Spooled bodies by key, within `LINECAST_SPOOL_BYTES` of disk.
pub struct SpoolCache {
    dir: Arc<SpoolDir>,
    cache: linecast_core::memory::Budgeted<super::CacheKey, Arc<Spooled>>,
}

impl SpoolCache {
    /// A cache of files under `dir` holding at most `budget_bytes` of them.
    pub fn new(dir: SpoolDir, budget_bytes: u64) -> Self {
        Self {
            dir: Arc::new(dir),
            cache: linecast_core::memory::Budgeted::new(budget_bytes, |_k, v: &Arc<Spooled>| v.weight()),
        }
    }

    /// Where its files are written.
    pub fn dir(&self) -> &Arc<SpoolDir> {
        &self.dir
    }

    /// The body for `key` when it is made already.
    pub(super) async fn cached(&self, key: &super::CacheKey) -> Option<Arc<Spooled>> {
        let hit = self.cache.get(key).await;
        if hit.is_some() {
            crate::metrics::response_cache("hit");
        }
        hit
    }

    /// The body for `key`, made by `make` on a miss (concurrent misses of
    /// one key make it once). Errors are not cached.
    pub(super) async fn get_or_make(
        &self,
        key: super::CacheKey,
        make: impl Future<Output = Result<Spooled, ApiError>>,
    ) -> Result<Arc<Spooled>, ApiError> {
        if let Some(hit) = self.cache.get(&key).await {
            crate::metrics::response_cache("hit");
            return Ok(hit);
        }
        crate::metrics::response_cache("miss");
        self.cache
            .try_get_with(key, async move { make.await.map(Arc::new) })
            .await
            .map_err(|e| Arc::try_unwrap(e).unwrap_or_else(|shared| (*shared).clone()))
    }

    /// Files held now, exactly (for tests).
    pub async fn held(&self) -> u64 {
        self.cache.held().await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::io::Read as _;

    use super::*;

    #[test]
    fn a_spool_file_is_its_bytes_and_their_gzip_and_leaves_nothing_when_dropped() {
        let parent = tempfile::tempdir().unwrap();
        let dir = SpoolDir::new(parent.path()).unwrap();
        let data: Vec<u8> = (0..300_000_u32).flat_map(|i| (i % 1000).to_le_bytes()).collect();
        let mut file = dir.file(true).unwrap();
        for chunk in data.chunks(7_001) {
            file.write_all(chunk).unwrap();
        }
        let body = file.finish(HeaderValue::from_static("text/csv")).unwrap();
        assert_eq!(std::fs::read(&body.paths.identity).unwrap(), data);
        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(File::open(body.paths.gzip.as_ref().unwrap()).unwrap())
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, data);
        // The tag is the one a body of these bytes held in memory carries.
        let held = super::super::Rendered::from_bytes(Bytes::from(data.clone()), "text/csv");
        assert_eq!(&body.etags[0], held.etag(Coding::Identity));
        assert_eq!(&body.etags[1], held.etag(Coding::Gzip));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        drop(body);
        let unfinished = dir.file(false).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        drop(unfinished);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "nothing left behind");
        let path = dir.path().to_owned();
        drop(dir);
        assert!(!path.exists(), "the directory goes with the server");
    }
}
