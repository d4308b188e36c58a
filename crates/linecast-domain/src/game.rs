//! The canonical game key: (date, time_est, away_team, home_team). Time is
//! part of the key so doubleheaders and moved start times stay distinct.
//!
//! And the public game id, `{sport}-{YYYYMMDD}-{away}-{home}` with `-2`,
//! `-3`… for the later games of the same teams on the same ET date: the one
//! home of its form and of its ordinal rule ([`assign_game_ids`]).

use std::collections::HashMap;

use chrono::{NaiveDate, NaiveTime};

use crate::{SharedStr, Sport, TeamName};

/// The public id of one game (`mlb-20261011-athletics-chicago_white_sox`).
pub type GameId = SharedStr;

/// Identity of one game. Orders by date, then ET start time, then teams.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameKey {
    pub date: NaiveDate,
    pub time_est: NaiveTime,
    pub away_team: TeamName,
    pub home_team: TeamName,
}

impl GameKey {
    pub fn new(
        date: NaiveDate,
        time_est: NaiveTime,
        away_team: impl Into<TeamName>,
        home_team: impl Into<TeamName>,
    ) -> Self {
        Self {
            date,
            time_est,
            away_team: away_team.into(),
            home_team: home_team.into(),
        }
    }

    /// `YYYY-MM-DD`.
    pub fn date_string(&self) -> String {
        self.date.format("%Y-%m-%d").to_string()
    }

    /// `HH:MM:SS` ET.
    pub fn time_string(&self) -> String {
        self.time_est.format("%H:%M:%S").to_string()
    }

    /// The id of this game when it is the `ordinal`-th (from 1, by start
    /// time) game of its teams on its ET date. The start time is not part of
    /// the id, so a moved start keeps it.
    pub fn game_id(&self, sport: Sport, ordinal: usize) -> GameId {
        let base = format!(
            "{}-{}-{}-{}",
            sport.code(),
            self.date.format("%Y%m%d"),
            self.away_team,
            self.home_team
        );
        if ordinal > 1 {
            format!("{base}-{ordinal}").into()
        } else {
            base.into()
        }
    }
}

/// The game id of each of `keys` (one artifact's games, in any order), in
/// the same order. The games of the same teams on the same ET date are
/// numbered by start time (ties keep the artifact's order): the first has
/// no suffix, the second `-2`, and so on. The numbering counts the games
/// the artifact carries, so an artifact must carry a doubleheader's earlier
/// game for the later one to be `-2` (docs/payloads.md, "Game ids").
pub fn assign_game_ids<'a>(sport: Sport, keys: impl IntoIterator<Item = &'a GameKey>) -> Vec<GameId> {
    let keys: Vec<&GameKey> = keys.into_iter().collect();
    let mut groups: HashMap<(NaiveDate, &str, &str), Vec<usize>> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        groups
            .entry((key.date, key.away_team.as_str(), key.home_team.as_str()))
            .or_default()
            .push(i);
    }
    let mut ordinals = vec![1; keys.len()];
    for members in groups.values_mut().filter(|m| m.len() > 1) {
        members.sort_by_key(|&i| (keys[i].time_est, i));
        for (n, &i) in members.iter().enumerate() {
            ordinals[i] = n + 1;
        }
    }
    keys.iter()
        .zip(ordinals)
        .map(|(key, n)| key.game_id(sport, n))
        .collect()
}

/// The sport and ET date a well-formed game id names, read back from its
/// form (`{sport}-{YYYYMMDD}-{away}-{home}`, optionally `-N`); `None` when
/// the text is not of that form (a malformed id, not an unknown game).
pub fn read_game_id(id: &str) -> Option<(Sport, NaiveDate)> {
    let mut parts = id.splitn(3, '-');
    let sport = Sport::parse(parts.next()?).ok()?;
    let date = parts.next()?;
    let teams = parts.next()?;
    let date = (date.len() == 8 && date.bytes().all(|b| b.is_ascii_digit()))
        .then(|| NaiveDate::parse_from_str(date, "%Y%m%d").ok())??;
    let well_formed = teams.len() >= 3
        && teams.contains('-')
        && !teams.starts_with('-')
        && !teams.ends_with('-')
        && teams
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    well_formed.then_some((sport, date))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubleheaders_are_distinct_and_ordered_by_time() {
        let d = NaiveDate::from_ymd_opt(2026, 7, 4).unwrap();
        let early = GameKey::new(d, NaiveTime::from_hms_opt(13, 5, 0).unwrap(), "nyy", "bos");
        let late = GameKey::new(d, NaiveTime::from_hms_opt(19, 10, 0).unwrap(), "nyy", "bos");
        assert_ne!(early, late);
        assert!(early < late);
        assert_eq!(late.time_string(), "19:10:00");
    }

    fn key(date: &str, time: &str, away: &str, home: &str) -> GameKey {
        GameKey::new(date.parse().unwrap(), time.parse().unwrap(), away, home)
    }

    #[test]
    fn a_game_id_is_sport_et_date_and_both_slugs() {
        let ids = assign_game_ids(
            Sport::Mlb,
            &[key("2026-10-11", "13:05:00", "athletics", "chicago_white_sox")],
        );
        assert_eq!(ids, ["mlb-20261011-athletics-chicago_white_sox"]);
        let ids = assign_game_ids(Sport::Ncaab, &[key("2027-01-02", "21:00:00", "duke", "unc")]);
        assert_eq!(ids, ["ncaab-20270102-duke-unc"]);
    }

    #[test]
    fn a_game_id_is_read_back_to_its_sport_and_date_and_anything_else_is_malformed() {
        let oct11 = NaiveDate::from_ymd_opt(2026, 10, 11).unwrap();
        assert_eq!(
            read_game_id("mlb-20261011-athletics-chicago_white_sox"),
            Some((Sport::Mlb, oct11))
        );
        assert_eq!(
            read_game_id("mlb-20261011-athletics-chicago_white_sox-2"),
            Some((Sport::Mlb, oct11))
        );
        for bad in [
            "",
            "mlb",
            "xfl-20261011-a-b",
            "mlb-2026-10-11-a-b",
            "mlb-20261311-a-b",
            "mlb-20261011-ab",
            "mlb-20261011-A-B",
            "mlb-20261011-a-b;drop",
            "mlb-20261011--b",
        ] {
            assert_eq!(read_game_id(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_later_games_of_a_doubleheader_are_numbered_by_start_in_any_artifact_order() {
        let late = key("2026-07-26", "19:10:00", "athletics", "chicago_white_sox");
        let early = key("2026-07-26", "13:10:00", "athletics", "chicago_white_sox");
        let other = key("2026-07-26", "13:10:00", "chicago_white_sox", "athletics");
        let ids = assign_game_ids(Sport::Mlb, [&late, &other, &early]);
        assert_eq!(
            ids,
            [
                "mlb-20260726-athletics-chicago_white_sox-2",
                "mlb-20260726-chicago_white_sox-athletics",
                "mlb-20260726-athletics-chicago_white_sox",
            ]
        );
    }

    #[test]
    fn a_moved_start_keeps_its_id() {
        let before = assign_game_ids(Sport::Nhl, &[key("2026-11-21", "19:00:00", "bruins", "rangers")]);
        let after = assign_game_ids(Sport::Nhl, &[key("2026-11-21", "20:30:00", "bruins", "rangers")]);
        assert_eq!(before, after);
        assert_eq!(after, ["nhl-20261121-bruins-rangers"]);
        // A doubleheader's second game moved later is still the second.
        let first = key("2026-07-04", "13:05:00", "nyy", "bos");
        let moved = assign_game_ids(Sport::Mlb, [&key("2026-07-04", "20:40:00", "nyy", "bos"), &first]);
        assert_eq!(moved, ["mlb-20260704-nyy-bos-2", "mlb-20260704-nyy-bos"]);
    }
}
