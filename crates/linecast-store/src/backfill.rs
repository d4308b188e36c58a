//! Reading earlier versions of predictions and odds objects for backfill
//! (`linecast-admin releases import`): a directory or store whose first
//! level names the instant each version was published
//! (`2026-11-20T14:00:00Z/predictions/nba/won_on_points.csv`, or the basic
//! form `20261120T140000Z/...`), below which the data contract's keys.

use bytes::Bytes;
use chrono::{DateTime, NaiveDateTime, Utc};
use futures::TryStreamExt as _;
use linecast_core::StoreError;
use linecast_core::ports::releases::Series;
use object_store::ObjectStoreExt as _;

use crate::errors::from_object_store;
use crate::open::store_for_url;
use crate::options::StoreOptions;

/// One earlier version found under a backfill source.
#[derive(Debug, Clone)]
pub struct EarlierVersion {
    pub series: Series,
    pub published_at: DateTime<Utc>,
    /// The instant folder it was found in, as written.
    pub folder: String,
    /// Where it was found, for messages.
    pub location: String,
    pub bytes: Bytes,
}

/// The instant a backfill folder names: RFC 3339, or `YYYYMMDDTHHMMSSZ`.
pub fn backfill_instant(folder: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(folder)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            NaiveDateTime::parse_from_str(folder, "%Y%m%dT%H%M%SZ")
                .ok()
                .map(|t| t.and_utc())
        })
}

/// Every predictions or odds version under `url` (`file:///abs/dir`,
/// `s3://…`, `gs://…`), oldest first; objects that name no instant folder or
/// no predictions or odds key are listed in the second value, skipped.
pub async fn earlier_versions(
    url: &str,
    options: &StoreOptions,
) -> Result<(Vec<EarlierVersion>, Vec<String>), StoreError> {
    let store = store_for_url(url, options)?;
    let metas: Vec<object_store::ObjectMeta> = store
        .list(None)
        .try_collect()
        .await
        .map_err(|e| from_object_store(url, e))?;
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    for meta in metas {
        let location = meta.location.to_string();
        let Some((folder, key)) = location.split_once('/') else {
            skipped.push(location);
            continue;
        };
        let (Some(published_at), Some(series)) = (backfill_instant(folder), Series::of_key(key)) else {
            skipped.push(location);
            continue;
        };
        let bytes = store
            .get(&meta.location)
            .await
            .map_err(|e| from_object_store(&location, e))?
            .bytes()
            .await
            .map_err(|e| from_object_store(&location, e))?;
        found.push(EarlierVersion {
            series,
            published_at,
            folder: folder.to_owned(),
            location,
            bytes,
        });
    }
    found.sort_by_key(|v| (v.published_at, v.series));
    Ok((found, skipped))
}

/// The folders of `versions` that name an instant after `now`, each once,
/// in the order given (`earlier_versions` lists them oldest first). A version cannot have been published
/// after now: such a folder is a typo (a year, a month and day swapped), and
/// kept it would stay in every game history as a release from the future.
/// `releases import` refuses the whole source when any is found.
pub fn future_folders(versions: &[EarlierVersion], now: DateTime<Utc>) -> Vec<String> {
    let mut folders: Vec<String> = Vec::new();
    for v in versions.iter().filter(|v| v.published_at > now) {
        if !folders.contains(&v.folder) {
            folders.push(v.folder.clone());
        }
    }
    folders
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(folder: &str) -> EarlierVersion {
        EarlierVersion {
            series: Series::of_key("odds/nba.csv").unwrap(),
            published_at: backfill_instant(folder).unwrap(),
            folder: folder.to_owned(),
            location: format!("{folder}/odds/nba.csv"),
            bytes: Bytes::new(),
        }
    }

    #[test]
    fn a_folder_after_now_is_named_once_and_now_itself_is_not_after_now() {
        let now = DateTime::parse_from_rfc3339("2026-11-28T18:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let versions: Vec<EarlierVersion> = [
            "2026-11-20T14:00:00Z",
            "2026-11-28T18:00:00Z",
            "2026-11-28T13:00:01-05:00",
            "20990101T000000Z",
            "20990101T000000Z",
            "2026-11-28T18:00:01Z",
        ]
        .into_iter()
        .map(version)
        .collect();
        assert_eq!(
            future_folders(&versions, now),
            ["2026-11-28T13:00:01-05:00", "20990101T000000Z", "2026-11-28T18:00:01Z"]
        );
        assert!(future_folders(&versions[..2], now).is_empty());
    }

    #[test]
    fn a_folder_names_its_instant_in_rfc_3339_or_the_basic_form() {
        let t = DateTime::parse_from_rfc3339("2026-11-20T14:00:00Z").unwrap();
        assert_eq!(backfill_instant("2026-11-20T14:00:00Z"), Some(t.with_timezone(&Utc)));
        assert_eq!(
            backfill_instant("2026-11-20T09:00:00-05:00"),
            Some(t.with_timezone(&Utc))
        );
        assert_eq!(backfill_instant("20261120T140000Z"), Some(t.with_timezone(&Utc)));
        for bad in ["2026-11-20", "predictions", "20261120T1400Z", ""] {
            assert_eq!(backfill_instant(bad), None, "{bad}");
        }
    }
}
