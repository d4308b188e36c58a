//! Turns simulated seasons into the objects of `docs/data-contract.md`. Each
//! submodule writes one family of artifacts; all of them read the same games,
//! so every object agrees with every other.

mod releases;
mod slate;
mod store;
mod tape;

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::{LineField, Sport};

use crate::calendar::plus;
use crate::market::Snapshot;
use crate::season::Game;

pub(crate) use releases::{catalog, releases};
pub(crate) use slate::{books, markets, odds, predictions};
pub(crate) use store::{datasets, season_store};
pub(crate) use tape::{scores, teams};

/// One league's generated history; `seasons[0]` is the latest season.
#[derive(Debug)]
pub(crate) struct League {
    pub sport: Sport,
    /// Teams in the league's schedule (see [`crate::teams::roster`]).
    pub teams: usize,
    pub seasons: Vec<Vec<Game>>,
    pub today: NaiveDate,
    /// No generated instant lies after it ([`crate::GenOptions::not_after`]).
    pub not_after: Option<DateTime<Utc>>,
    /// The release at "now": today's predictions and odds objects are it.
    pub release_now: DateTime<Utc>,
}

impl League {
    pub(crate) fn latest(&self) -> &[Game] {
        self.seasons.first().map_or(&[], Vec::as_slice)
    }

    /// The latest season's games a release at `t` carries, in key order,
    /// each with its values in that release.
    pub(crate) fn carried(&self, t: DateTime<Utc>) -> Vec<(&Game, &Snapshot)> {
        let mut games: Vec<(&Game, &Snapshot)> = self
            .latest()
            .iter()
            .filter_map(|g| {
                let path = g.path.as_ref()?;
                if !path.carries(t, g.key.date) {
                    return None;
                }
                Some((g, path.at(t)?))
            })
            .collect();
        games.sort_by(|a, b| a.0.key.cmp(&b.0.key));
        games
    }

    pub(crate) fn tomorrow(&self) -> NaiveDate {
        plus(self.today, 1)
    }
}

pub(crate) fn line_value(game: &Game, name: &str) -> Option<f64> {
    LineField::parse(name).and_then(|f| game.lines.get(f))
}
