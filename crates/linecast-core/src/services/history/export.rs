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
use crate::{Derived, ObjectVersion, StoreError};

/// The seasons an export asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

/// What an export holds, known from its seasons' object versions alone:
/// the body's cache key is made from it before any season is read or
/// graded, and only a body not cached yet loads the seasons
/// ([`History::load_export`]).
#[derive(Debug, Clone)]
pub struct ExportPlan {
    pub sport: Sport,
    pub model_type: ModelType,
    pub asked: ExportSeasons,
    /// The season label, or `all`.
    pub label: String,
    /// Each season with the version the plan was made for, oldest first.
    pub versions: Vec<(SeasonLabel, ObjectVersion)>,
}

impl History {
    /// The plan of an export: the current or a named season, or every
    /// archived one (`NotFound` when there is none), with what its body
    /// depends on (the seasons' store versions; nothing is graded).
    pub async fn export(
        &self,
        sport: Sport,
        model_type: ModelType,
        asked: ExportSeasons,
        now: DateTime<Utc>,
    ) -> Result<Derived<ExportPlan>, StoreError> {
        let (label, seasons) = match asked {
            ExportSeasons::Current => {
                let season = self.season_or_current(sport, model_type, None, now).await?;
                (season.to_string(), vec![season])
            }
            ExportSeasons::Named(season) => (season.to_string(), vec![season]),
            ExportSeasons::All => {
                let labels = self.seasons(sport, model_type).await?;
                if labels.is_empty() {
                    return Err(StoreError::NotFound {
                        object: linecast_domain::artifacts::keys::seasons_prefix(sport, model_type),
                    });
                }
                ("all".to_owned(), labels)
            }
        };
        let versions = self.versions(sport, model_type, &seasons).await?;
        let deps = versions
            .iter()
            .fold(crate::Deps::new().param("seasons", &label), |deps, (_, v)| {
                deps.object(v)
            });
        Ok(Derived::new(
            ExportPlan {
                sport,
                model_type,
                asked,
                label,
                versions,
            },
            deps,
        ))
    }

    /// The seasons of a planned export, graded. One season is read through
    /// the graded-season cache as `/results` reads it. Every season
    /// (`all`) uses the cache's copy where it holds that version and
    /// grades the others for this export only, so an export of eleven
    /// seasons never pushes the seasons other requests use out of the cache.
    pub async fn load_export(&self, plan: &ExportPlan) -> Result<Export, StoreError> {
        let mut seasons = Vec::with_capacity(plan.versions.len());
        for (season, version) in &plan.versions {
            let data = match plan.asked {
                ExportSeasons::All => {
                    self.season_unkept(plan.sport, plan.model_type, *season, version)
                        .await?
                }
                ExportSeasons::Current | ExportSeasons::Named(_) => {
                    self.season(plan.sport, plan.model_type, *season).await?
                }
            };
            seasons.push(data);
        }
        seasons.sort_by_key(|d| d.season);
        let snapshots: Vec<String> = seasons.iter().map(|d| season_snapshot(d)).collect();
        let snapshot = match (plan.asked, snapshots.as_slice()) {
            (ExportSeasons::Current | ExportSeasons::Named(_), [one]) => one.clone(),
            _ => combined_snapshot(snapshots.iter().map(String::as_str)),
        };
        Ok(Export {
            sport: plan.sport,
            model_type: plan.model_type,
            label: plan.label.clone(),
            seasons,
            snapshot,
        })
    }
}
