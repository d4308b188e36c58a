//! Matching Kalshi events to linecast games.
//!
//! The rule, per event (one game, one market per team):
//! 1. Each market's team is its ticker suffix looked up as a team code:
//!    first the configured aliases (Kalshi code -> our abbreviation or slug),
//!    then the team table's abbreviation, then its slug (case-insensitive).
//!    A market whose code is unknown falls back to its `yes_sub_title` (then
//!    `subtitle`), matched to a display name exactly or as its unique
//!    word-boundary prefix ("Seattle" matches "Seattle Mariners"; "New York"
//!    matches two teams and so matches none).
//! 2. With only one team known, the other is the rest of the event's
//!    run-together codes (`LADSD` less `SD`).
//! 3. The game is the one on the ticker's ET date between exactly those two
//!    teams, in either order; home and away come from our game key, never
//!    from the ticker's order.
//! 4. Several such games that day (a doubleheader): the one starting at the
//!    ticker's `HHMM`, else the `Gn`-th by start time; otherwise no match.
//!
//! Unmatched events are dropped: the endpoint shows null prices for them.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use linecast_domain::GameKey;
use linecast_domain::artifacts::TeamTable;

use super::ticker::EventCode;

/// Resolves Kalshi team codes and names to team slugs for one sport.
#[derive(Debug, Default)]
pub(crate) struct TeamIndex {
    by_code: HashMap<String, String>,
    /// (normalized display name, slug)
    names: Vec<(String, String)>,
}

fn normalize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl TeamIndex {
    pub fn new(table: &TeamTable, aliases: Option<&BTreeMap<String, String>>) -> Self {
        let mut by_code = HashMap::new();
        // Slugs first so an abbreviation equal to another team's slug wins.
        for team in &table.teams {
            by_code.insert(team.slug.to_ascii_uppercase(), team.slug.clone());
        }
        for team in &table.teams {
            by_code.insert(team.abbreviation.to_ascii_uppercase(), team.slug.clone());
        }
        for (code, target) in aliases.into_iter().flatten() {
            let team = table
                .teams
                .iter()
                .find(|t| t.slug == *target || t.abbreviation.eq_ignore_ascii_case(target));
            if let Some(team) = team {
                by_code.insert(code.to_ascii_uppercase(), team.slug.clone());
            }
        }
        let names = table
            .teams
            .iter()
            .map(|t| (normalize(&t.display_name), t.slug.clone()))
            .collect();
        Self { by_code, names }
    }

    pub fn by_code(&self, code: &str) -> Option<&str> {
        self.by_code.get(&code.to_ascii_uppercase()).map(String::as_str)
    }

    pub fn by_name(&self, name: &str) -> Option<&str> {
        let wanted = normalize(name);
        if wanted.is_empty() {
            return None;
        }
        if let Some((_, slug)) = self.names.iter().find(|(n, _)| *n == wanted) {
            return Some(slug);
        }
        let prefix = format!("{wanted} ");
        let mut hits = self.names.iter().filter(|(n, _)| n.starts_with(&prefix));
        match (hits.next(), hits.next()) {
            (Some((_, slug)), None) => Some(slug),
            _ => None,
        }
    }
}

/// The candidate games, by ET date and unordered team pair.
#[derive(Debug, Default)]
pub(crate) struct GameIndex {
    games: HashMap<(NaiveDate, String, String), Vec<GameKey>>,
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

impl GameIndex {
    pub fn new(keys: impl IntoIterator<Item = GameKey>) -> Self {
        let mut games: HashMap<(NaiveDate, String, String), Vec<GameKey>> = HashMap::new();
        for key in keys {
            let (a, b) = pair(&key.away_team, &key.home_team);
            let slot = games.entry((key.date, a, b)).or_default();
            if !slot.contains(&key) {
                slot.push(key);
            }
        }
        for slot in games.values_mut() {
            slot.sort();
        }
        Self { games }
    }

    /// The game an event names, by rule steps 3 and 4 of the module docs.
    pub fn find(&self, event: &EventCode, team_a: &str, team_b: &str) -> Option<&GameKey> {
        let (a, b) = pair(team_a, team_b);
        let games = self.games.get(&(event.date, a, b))?;
        match games.as_slice() {
            [] => None,
            [only] => Some(only),
            several => {
                if let Some(time) = event.time
                    && let Some(hit) = several.iter().find(|k| k.time_est == time)
                {
                    return Some(hit);
                }
                let n = usize::try_from(event.game_number?).ok()?;
                several.get(n.checked_sub(1)?)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use chrono::NaiveTime;
    use linecast_domain::artifacts::TeamRow;

    use super::*;
    use crate::kalshi::ticker::parse_event;

    fn table() -> TeamTable {
        let row = |slug: &str, name: &str, abbr: &str| TeamRow {
            slug: slug.into(),
            display_name: name.into(),
            abbreviation: abbr.into(),
        };
        TeamTable {
            teams: vec![
                row("yankees", "New York Yankees", "NYY"),
                row("mets", "New York Mets", "NYM"),
                row("mariners", "Seattle Mariners", "SEA"),
                row("diamondbacks", "Arizona Diamondbacks", "ARI"),
            ],
        }
    }

    fn key(date: &str, time: &str, away: &str, home: &str) -> GameKey {
        GameKey::new(
            date.parse().unwrap(),
            NaiveTime::parse_from_str(time, "%H:%M").unwrap(),
            away,
            home,
        )
    }

    #[test]
    fn codes_resolve_through_abbreviations_slugs_and_aliases() {
        let aliases = BTreeMap::from([("AZ".to_owned(), "ARI".to_owned())]);
        let idx = TeamIndex::new(&table(), Some(&aliases));
        assert_eq!(idx.by_code("nyy"), Some("yankees"));
        assert_eq!(idx.by_code("MARINERS"), Some("mariners"));
        assert_eq!(idx.by_code("AZ"), Some("diamondbacks"));
        assert_eq!(idx.by_code("BOS"), None);
    }

    #[test]
    fn a_city_name_matches_only_when_one_team_plays_there() {
        let idx = TeamIndex::new(&table(), None);
        assert_eq!(idx.by_name("Seattle"), Some("mariners"));
        assert_eq!(idx.by_name("New York"), None);
        assert_eq!(idx.by_name("new york mets"), Some("mets"));
        assert_eq!(idx.by_name("Sea"), None);
    }

    #[test]
    fn a_single_game_matches_whatever_the_ticker_team_order() {
        let games = GameIndex::new([key("2026-06-28", "19:05", "yankees", "mariners")]);
        let event = parse_event("KXMLBGAME-26JUN282205SEANYY").unwrap();
        assert_eq!(games.find(&event, "mariners", "yankees").unwrap().home_team, "mariners");
    }

    #[test]
    fn a_doubleheader_is_split_by_start_time_then_game_number() {
        let games = GameIndex::new([
            key("2026-06-28", "13:05", "yankees", "mariners"),
            key("2026-06-28", "19:05", "yankees", "mariners"),
        ]);
        let by_time = parse_event("KXMLBGAME-26JUN281905NYYSEA").unwrap();
        assert_eq!(
            games
                .find(&by_time, "yankees", "mariners")
                .unwrap()
                .time_est
                .to_string(),
            "19:05:00"
        );
        let by_number = parse_event("KXMLBGAME-26JUN28NYYSEAG1").unwrap();
        assert_eq!(
            games
                .find(&by_number, "yankees", "mariners")
                .unwrap()
                .time_est
                .to_string(),
            "13:05:00"
        );
        let neither = parse_event("KXMLBGAME-26JUN28NYYSEA").unwrap();
        assert_eq!(games.find(&neither, "yankees", "mariners"), None);
    }

    #[test]
    fn a_game_on_another_date_does_not_match() {
        let games = GameIndex::new([key("2026-06-29", "19:05", "yankees", "mariners")]);
        let event = parse_event("KXMLBGAME-26JUN281905NYYSEA").unwrap();
        assert_eq!(games.find(&event, "yankees", "mariners"), None);
    }
}
