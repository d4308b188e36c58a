//! Season labels: `YYYY` for mlb, `YYYY-YY` (consecutive years) elsewhere.

use std::fmt;

use chrono::{Datelike, NaiveDate};

use crate::Sport;

/// A season label that failed validation for its sport.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid season '{value}' for {sport}; expected {expected}")]
pub struct InvalidSeason {
    pub sport: Sport,
    pub value: String,
    pub expected: &'static str,
}

/// A validated season label. Ordered by start year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeasonLabel {
    start_year: i32,
    split: bool,
}

impl SeasonLabel {
    /// Parses and validates a label for a sport.
    pub fn parse(sport: Sport, value: &str) -> Result<Self, InvalidSeason> {
        let err = || InvalidSeason {
            sport,
            value: value.to_owned(),
            expected: if sport.split_year() {
                "YYYY-YY with consecutive years, e.g. 2025-26"
            } else {
                "YYYY, e.g. 2025"
            },
        };
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if sport.split_year() {
            let (a, b) = value.split_once('-').ok_or_else(err)?;
            if a.len() != 4 || b.len() != 2 || !digits(a) || !digits(b) {
                return Err(err());
            }
            let start: i32 = a.parse().map_err(|_| err())?;
            let end: i32 = b.parse().map_err(|_| err())?;
            if (start + 1) % 100 != end || start < 1900 {
                return Err(err());
            }
            Ok(Self {
                start_year: start,
                split: true,
            })
        } else {
            if value.len() != 4 || !digits(value) {
                return Err(err());
            }
            let start: i32 = value.parse().map_err(|_| err())?;
            if start < 1900 {
                return Err(err());
            }
            Ok(Self {
                start_year: start,
                split: false,
            })
        }
    }

    /// The label for a season starting in `start_year`.
    pub const fn starting(sport: Sport, start_year: i32) -> Self {
        Self {
            start_year,
            split: sport.split_year(),
        }
    }

    /// The season a game date belongs to. Split-year leagues start their
    /// season in the summer or autumn: a game before July belongs to the
    /// season that started the previous year.
    pub fn containing(sport: Sport, date: NaiveDate) -> Self {
        let year = date.year();
        if sport.split_year() && date.month() < 7 {
            Self::starting(sport, year - 1)
        } else {
            Self::starting(sport, year)
        }
    }

    /// The first calendar year of the season.
    pub const fn start_year(self) -> i32 {
        self.start_year
    }

    /// The season before this one.
    #[must_use]
    pub const fn previous(self) -> Self {
        Self {
            start_year: self.start_year - 1,
            split: self.split,
        }
    }
}

impl fmt::Display for SeasonLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.split {
            write!(f, "{}-{:02}", self.start_year, (self.start_year + 1) % 100)
        } else {
            write!(f, "{}", self.start_year)
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for SeasonLabel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn mlb_uses_single_years_and_others_split_years() {
        assert_eq!(SeasonLabel::parse(Sport::Mlb, "2025").unwrap().to_string(), "2025");
        assert!(SeasonLabel::parse(Sport::Mlb, "2025-26").is_err());
        assert_eq!(
            SeasonLabel::parse(Sport::Nba, "2025-26").unwrap().to_string(),
            "2025-26"
        );
        assert_eq!(
            SeasonLabel::parse(Sport::Nhl, "1999-00").unwrap().to_string(),
            "1999-00"
        );
        assert!(SeasonLabel::parse(Sport::Nba, "2025").is_err());
        assert!(SeasonLabel::parse(Sport::Nba, "2025-27").is_err());
        assert!(SeasonLabel::parse(Sport::Nfl, "2025-2026").is_err());
        assert!(SeasonLabel::parse(Sport::Ncaab, "20a5-26").is_err());
        assert!(SeasonLabel::parse(Sport::Mlb, "+202").is_err());
        assert!(SeasonLabel::parse(Sport::Mlb, "").is_err());
    }

    #[test]
    fn split_year_seasons_contain_the_following_spring() {
        let d = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        assert_eq!(
            SeasonLabel::containing(Sport::Nba, d("2026-03-01")).to_string(),
            "2025-26"
        );
        assert_eq!(
            SeasonLabel::containing(Sport::Nba, d("2026-10-21")).to_string(),
            "2026-27"
        );
        assert_eq!(
            SeasonLabel::containing(Sport::Nfl, d("2026-01-10")).to_string(),
            "2025-26"
        );
        assert_eq!(SeasonLabel::containing(Sport::Mlb, d("2026-03-30")).to_string(), "2026");
    }

    proptest! {
        /// Formatting a label and parsing it back yields the same label, for every sport.
        #[test]
        fn labels_round_trip(year in 1950i32..2100, sport_ix in 0usize..6) {
            let sport = Sport::ALL[sport_ix];
            let label = SeasonLabel::starting(sport, year);
            prop_assert_eq!(SeasonLabel::parse(sport, &label.to_string()), Ok(label));
        }
    }
}
