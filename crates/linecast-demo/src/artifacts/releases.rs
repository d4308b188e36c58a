//! Daily release manifests for the last seven slates of each league and the
//! dataset product catalog.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::artifacts::{
    Product, ProductCatalog, ReleaseArtifacts, ReleaseManifest, ReleaseMarket, SlateKind, keys,
};
use linecast_domain::{ModelType, Sport};

use super::League;
use super::store::dataset_files;
use crate::calendar::plus;
use crate::capped;
use crate::rng::fnv;
use crate::season::release_id;

fn planned(date: NaiveDate, h: u32, m: u32, s: u32) -> Option<DateTime<Utc>> {
    date.and_hms_opt(h, m, s).map(|t| t.and_utc())
}

/// Manifests for `today - 6 ..= today`, every run completed. A day without
/// games in the league is an `off_day` slate (mlb in November, the NFL on a
/// Wednesday). `held_from` names the league whose today's moneyline market
/// holds one game.
pub(crate) fn releases(league: &League, holds_a_game: bool) -> Vec<(String, Vec<u8>)> {
    let sport = league.sport;
    (0..7)
        .rev()
        .filter_map(|back| {
            let day = plus(league.today, -back);
            let manifest = manifest(league, sport, day, holds_a_game && back == 0);
            let mut json = serde_json::to_vec_pretty(&manifest).ok()?;
            json.push(b'\n');
            Some((keys::release(sport, day), json))
        })
        .collect()
}

fn manifest(league: &League, sport: Sport, day: NaiveDate, hold: bool) -> ReleaseManifest {
    let mut slate: Vec<_> = league.latest().iter().filter(|g| g.key.date == day).collect();
    slate.sort_by(|a, b| a.key.cmp(&b.key));
    let active = !slate.is_empty();
    let jitter = (fnv(&format!("{sport}{day}")) % 20) as u32;
    let id = release_id(sport, day);
    let predictions = planned(day, 13, 30 + jitter, 0).map(|t| capped(t, league.not_after));
    let is_today = day == league.today;
    let at = |date, h, m, s| planned(date, h, m, s).map(|t| capped(t, league.not_after));
    let markets: BTreeMap<ModelType, ReleaseMarket> = ModelType::ALL
        .iter()
        .map(|mt| {
            let held = if hold && *mt == ModelType::WonOnPoints {
                slate
                    .first()
                    .map(|g| {
                        format!(
                            "{} {} {}@{}",
                            g.key.date_string(),
                            g.key.time_string(),
                            g.key.away_team,
                            g.key.home_team
                        )
                    })
                    .into_iter()
                    .collect()
            } else {
                Vec::new()
            };
            let market = ReleaseMarket {
                expected: active,
                published_at: if active { predictions } else { None },
                release_id: active.then(|| id.clone()),
                source_as_of: at(day, 12, 55, 0),
                held_games: held,
                odds_arrived_at: match (active, is_today) {
                    (false, _) => None,
                    (true, true) => at(day, 12, 50, 0),
                    (true, false) => at(day, 15, 0, 0),
                },
                predictions_rebuilt_at: match (active, is_today) {
                    (false, _) => None,
                    (true, true) => predictions,
                    (true, false) => at(day, 15, 4, 0),
                },
                // Every generated rebuild absorbs the odds before it.
                odds_pending_since: None,
            };
            (*mt, market)
        })
        .collect();
    ReleaseManifest {
        sport,
        slate_date: day,
        release_id: id.clone(),
        run_started_at: at(day, 13, 2, jitter),
        run_completed_at: at(day, 13, 34 + jitter, 57),
        slate: if active { SlateKind::Active } else { SlateKind::OffDay },
        source_as_of: at(day, 12, 55, 0),
        artifacts: ReleaseArtifacts {
            predictions,
            results: at(day, 13, 31 + jitter, 0),
            summaries: at(day, 13, 32 + jitter, 0),
            model_tracking: at(day, 13, 33 + jitter, 30),
        },
        markets,
    }
}

pub(crate) fn catalog() -> Vec<u8> {
    let products = Sport::ALL
        .iter()
        .flat_map(|sport| {
            dataset_files(*sport)
                .into_iter()
                .map(move |(filename, refreshable)| Product {
                    product_id: filename.trim_end_matches(".csv").to_owned(),
                    sport: *sport,
                    key: keys::dataset(*sport, &filename),
                    filename,
                    refreshable,
                })
        })
        .collect();
    let mut json = serde_json::to_vec_pretty(&ProductCatalog { products }).unwrap_or_default();
    json.push(b'\n');
    json
}
