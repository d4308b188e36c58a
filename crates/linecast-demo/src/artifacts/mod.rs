//! Turns simulated seasons into the objects of `docs/data-contract.md`. Each
//! submodule writes one family of artifacts; all of them read the same games,
//! so every object agrees with every other.

mod releases;
mod slate;
mod store;
mod tape;

use chrono::NaiveDate;
use linecast_domain::{LineField, Sport};

use crate::calendar::plus;
use crate::season::Game;

pub(crate) use releases::{catalog, releases};
pub(crate) use slate::{markets, odds, predictions};
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
    pub not_after: Option<chrono::DateTime<chrono::Utc>>,
}

impl League {
    pub(crate) fn latest(&self) -> &[Game] {
        self.seasons.first().map_or(&[], Vec::as_slice)
    }

    /// Latest-season games dated within `[from, to]`; when there are none,
    /// the games of the last `fallback_days` game dates before `to`, so an
    /// out-of-season league still has its final slate.
    pub(crate) fn window(&self, from: NaiveDate, to: NaiveDate, fallback_days: usize) -> Vec<&Game> {
        let mut games: Vec<&Game> = self
            .latest()
            .iter()
            .filter(|g| g.key.date >= from && g.key.date <= to)
            .collect();
        if games.is_empty() {
            let mut dates: Vec<NaiveDate> = self.latest().iter().map(|g| g.key.date).filter(|d| *d <= to).collect();
            dates.dedup();
            let keep = &dates[dates.len().saturating_sub(fallback_days)..];
            games = self.latest().iter().filter(|g| keep.contains(&g.key.date)).collect();
        }
        games.sort_by(|a, b| a.key.cmp(&b.key));
        games
    }

    pub(crate) fn yesterday(&self) -> NaiveDate {
        plus(self.today, -1)
    }

    pub(crate) fn tomorrow(&self) -> NaiveDate {
        plus(self.today, 1)
    }
}

pub(crate) fn line_value(game: &Game, name: &str) -> Option<f64> {
    LineField::parse(name).and_then(|f| game.lines.get(f))
}
