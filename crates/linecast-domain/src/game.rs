//! The canonical game key: (date, time_est, away_team, home_team). Time is
//! part of the key so doubleheaders and moved start times stay distinct.

use chrono::{NaiveDate, NaiveTime};

use crate::TeamName;

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
}
