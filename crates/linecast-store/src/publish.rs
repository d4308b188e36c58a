//! Publishing a store (`linecast-admin data publish`): every artifact of a
//! source store copied to a target store (a folder, an S3 or GCS bucket),
//! after the whole source has passed the data contract.
//!
//! - **Nothing on a breach.** The source is validated first
//!   ([`crate::validate`]); any problem stops the publish before its first
//!   write.
//! - **Unchanged objects are left alone.** An object already in the target
//!   with the same bytes is not written again: a write would be a new
//!   object version, which the servers' watchers announce as a release and
//!   their caches parse again.
//! - **A server never sees half a version.** Objects are written in the
//!   order the data contract asks of a pipeline ("Publishing a new
//!   generation"): what others name before what names it, the day's release
//!   manifests, which the servers read to date and judge a release, last.
//!   Each object is one PUT, which the backend swaps whole.
//! - **Nothing is deleted.** An object of the target that the source lacks
//!   stays, and so do linecast's own objects (`archive/`), which are never
//!   copied either.

use std::collections::BTreeMap;

use futures::{StreamExt as _, TryStreamExt as _};
use linecast_core::StoreError;

use crate::errors::from_object_store;
use crate::store::ObjectArtifactStore;
use crate::validate::{Kind, ValidationReport, classify, is_linecast_own, validate};

/// How many objects of one step are copied at once.
const PARALLEL: usize = 8;

/// Whether a publish writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishMode {
    /// Copy what differs.
    Write,
    /// Only say what would be copied.
    DryRun,
}

/// What one object of the source came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishedObject {
    pub key: String,
    pub bytes: u64,
    /// Written (or, in a dry run, to be written); false: the target held
    /// these bytes already.
    pub written: bool,
}

/// Every object of the source, in the order it was handled.
#[derive(Debug, Clone, Default)]
pub struct PublishReport {
    pub objects: Vec<PublishedObject>,
}

impl PublishReport {
    pub fn written(&self) -> impl Iterator<Item = &PublishedObject> {
        self.objects.iter().filter(|o| o.written)
    }

    pub fn unchanged(&self) -> impl Iterator<Item = &PublishedObject> {
        self.objects.iter().filter(|o| !o.written)
    }
}

/// Why a publish stopped.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The source breaks the data contract; nothing was written.
    #[error("the source breaks the data contract ({} problem(s)); nothing was published", .0.problems.len())]
    Invalid(ValidationReport),
    /// A store call failed; `done` holds what was handled before it (the
    /// target holds those objects; a later run skips them).
    #[error("{error}")]
    Store { error: StoreError, done: PublishReport },
}

/// The step of an artifact in a publish: each step is written after every
/// object of the steps before it. Datasets before the catalog naming them;
/// teams before what names their slugs; the tables before the predictions
/// and odds priced on them; the release manifests, which name the
/// publication of all the rest, last.
fn step_of(kind: Kind) -> u8 {
    match kind {
        Kind::Dataset(_) => 0,
        Kind::Teams(_) => 1,
        Kind::Scores(_) | Kind::Season(..) | Kind::Markets(_) => 2,
        Kind::Predictions(..) | Kind::Odds(_) | Kind::Books(_) => 3,
        Kind::Catalog => 4,
        Kind::Release(..) => 5,
    }
}

/// Copies every artifact of `source` to `target` (see the module's rules).
pub async fn publish(
    source: &ObjectArtifactStore,
    target: &ObjectArtifactStore,
    mode: PublishMode,
) -> Result<PublishReport, PublishError> {
    let report = validate(source).await;
    if !report.problems.is_empty() {
        return Err(PublishError::Invalid(report));
    }
    let keys = artifact_keys(source).await.map_err(|error| PublishError::Store {
        error,
        done: PublishReport::default(),
    })?;
    let mut steps: BTreeMap<u8, Vec<String>> = BTreeMap::new();
    for key in keys {
        // The validation passed, so every key classifies.
        let Ok(kind) = classify(&key) else { continue };
        steps.entry(step_of(kind)).or_default().push(key);
    }
    let mut done = PublishReport::default();
    for keys in steps.into_values() {
        let mut copies = futures::stream::iter(keys)
            .map(|key| copy_one(source, target, key, mode))
            .buffer_unordered(PARALLEL);
        let mut failed = None;
        while let Some(result) = copies.next().await {
            match result {
                Ok(object) => done.objects.push(object),
                Err(error) => failed = failed.or(Some(error)),
            }
        }
        // The step's other copies finish first, so `done` is what the
        // target holds; the next step never starts.
        if let Some(error) = failed {
            return Err(PublishError::Store { error, done });
        }
    }
    Ok(done)
}

/// A memory store holding `objects` (key, bytes): a generated store,
/// published without a folder.
pub async fn in_memory(objects: Vec<(String, Vec<u8>)>) -> Result<ObjectArtifactStore, StoreError> {
    let store = ObjectArtifactStore::from_url("memory://", crate::StoreOptions::default())?;
    for (key, bytes) in objects {
        store.put(&key, bytes.into()).await?;
    }
    Ok(store)
}

/// The source's keys but linecast's own, sorted.
async fn artifact_keys(source: &ObjectArtifactStore) -> Result<Vec<String>, StoreError> {
    let metas: Vec<object_store::ObjectMeta> = source
        .object_store()
        .list(None)
        .try_collect()
        .await
        .map_err(|e| from_object_store("/", e))?;
    let mut keys: Vec<String> = metas
        .into_iter()
        .map(|m| m.location.to_string())
        .filter(|k| !is_linecast_own(k))
        .collect();
    keys.sort();
    Ok(keys)
}

async fn copy_one(
    source: &ObjectArtifactStore,
    target: &ObjectArtifactStore,
    key: String,
    mode: PublishMode,
) -> Result<PublishedObject, StoreError> {
    let (_, bytes) = source.get(&key).await?;
    let size = bytes.len() as u64;
    let same = match target.size_now(&key).await? {
        Some(there) if there == size => target.get(&key).await?.1 == bytes,
        _ => false,
    };
    if !same && mode == PublishMode::Write {
        target.put(&key, bytes).await?;
    }
    Ok(PublishedObject {
        key,
        bytes: size,
        written: !same,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn release_manifests_come_last_and_what_is_named_before_what_names_it() {
        let step = |key: &str| step_of(classify(key).unwrap());
        let manifest = step("releases/nba/2026-11-21.json");
        for other in [
            "datasets/nba/nba_history.csv",
            "teams/nba.csv",
            "scores/nba.csv",
            "seasons/nba/over_under/2025-26.csv",
            "markets/nba.csv",
            "predictions/nba/over_under.csv",
            "odds/nba.csv",
            "products/catalog.json",
        ] {
            assert!(step(other) < manifest, "{other}");
        }
        assert!(step("datasets/nba/nba_history.csv") < step("products/catalog.json"));
        assert!(step("teams/nba.csv") < step("scores/nba.csv"));
        assert!(step("teams/nba.csv") < step("markets/nba.csv"));
        assert!(step("seasons/nba/over_under/2025-26.csv") < step("predictions/nba/over_under.csv"));
        assert!(step("scores/nba.csv") < step("odds/nba.csv"));
    }
}
