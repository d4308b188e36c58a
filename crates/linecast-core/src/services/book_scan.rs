//! A sport's scan of its named books' kept releases, which `Releases`
//! keeps per sport (`services::books` reads and extends it): its own
//! module, below both, so neither imports the other for it.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use linecast_domain::artifacts::BookRow;
use linecast_domain::time::et_instant;
use linecast_domain::{GameId, ModelType, SharedStr};

/// A sport's named books read release by release, oldest first: each game
/// and book's last row captured strictly before the game's start. Carried
/// forward while the kept releases it read are still the first ones.
#[derive(Debug, Clone, Default)]
pub struct BooksScan {
    pub(crate) read: usize,
    pub(crate) last: Option<(DateTime<Utc>, String)>,
    pub(crate) closes: HashMap<(GameId, SharedStr), BookRow>,
    /// The closes answered per market for the generation read.
    pub(crate) answered: HashMap<ModelType, Arc<HashMap<GameId, BookCloses>>>,
}

impl BooksScan {
    pub(crate) fn see(&mut self, published_at: DateTime<Utc>, rows: &[BookRow]) {
        for row in rows {
            let before_start = et_instant(row.key.date, row.key.time_est).is_some_and(|start| published_at < start);
            if before_start {
                self.closes.insert((row.game_id.clone(), row.book.clone()), row.clone());
            }
        }
    }
}

/// A game's closes on the named books, as the positive side's no-vig
/// probability of one market (home, or over).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BookCloses {
    /// The sharp book's close (`linecast_books::book::sharp_book`).
    pub sharp: Option<f64>,
    /// The consensus of every book's close (multiplicative, the median).
    pub consensus: Option<f64>,
}
