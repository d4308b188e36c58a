//! Bulk export of graded history: which seasons one export holds, oldest
//! first, and the snapshot that names them. The rows are the very rows
//! `/results` serves ([`SeasonData::served_rows`] under
//! [`SeasonData::served_columns`]); writing them (CSV, Parquet) is the
//! API's presentation.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_paging::{combined_snapshot, snapshot_token};

use super::{History, SeasonData};
use crate::{Derived, StoreError};

/// The seasons an export asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportSeasons {
    /// The current season (as `/results` without `season`).
    Current,
    Named(SeasonLabel),
    /// Every archived season, oldest first.
    All,
}

/// The seasons of one export.
#[derive(Debug, Clone)]
pub struct Export {
    pub sport: Sport,
    pub model_type: ModelType,
    /// The season label, or `all`.
    pub label: String,
    /// Oldest first.
    pub seasons: Vec<Arc<SeasonData>>,
    /// One season: the snapshot `/results` gives for it. All: a hash over
    /// every season's snapshot, oldest first.
    pub snapshot: String,
}

impl Export {
    /// Rows across every season.
    pub fn total(&self) -> usize {
        self.seasons.iter().map(|d| d.total()).sum()
    }
}

/// The snapshot `/results?season=` gives for this season generation.
pub fn season_snapshot(data: &SeasonData) -> String {
    snapshot_token(&data.version.version, data.total())
}

impl History {
    /// The seasons of an export: the current or a named season, or every
    /// archived one (`NotFound` when there is none).
    pub async fn export(
        &self,
        sport: Sport,
        model_type: ModelType,
        asked: ExportSeasons,
        now: DateTime<Utc>,
    ) -> Result<Derived<Export>, StoreError> {
        let (label, seasons) = match asked {
            ExportSeasons::Current => {
                let data = self.chosen_season(sport, model_type, None, now).await?.value;
                (data.season.to_string(), vec![data])
            }
            ExportSeasons::Named(season) => (season.to_string(), vec![self.season(sport, model_type, season).await?]),
            ExportSeasons::All => {
                let labels = self.seasons(sport, model_type).await?;
                if labels.is_empty() {
                    return Err(StoreError::NotFound {
                        object: linecast_domain::artifacts::keys::seasons_prefix(sport, model_type),
                    });
                }
                ("all".to_owned(), self.load_all(sport, model_type, &labels).await?)
            }
        };
        let snapshots: Vec<String> = seasons.iter().map(|d| season_snapshot(d)).collect();
        let snapshot = match (asked, snapshots.as_slice()) {
            (ExportSeasons::Current | ExportSeasons::Named(_), [one]) => one.clone(),
            _ => combined_snapshot(snapshots.iter().map(String::as_str)),
        };
        let deps = seasons
            .iter()
            .fold(crate::Deps::new().param("seasons", &label), |deps, d| {
                deps.and(&d.deps())
            });
        Ok(Derived::new(
            Export {
                sport,
                model_type,
                label,
                seasons,
                snapshot,
            },
            deps,
        ))
    }
}
