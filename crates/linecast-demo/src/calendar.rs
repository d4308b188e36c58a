//! League calendars: when each phase of a season runs and at which Eastern
//! start times games are usually played. Dates are derived from the season's
//! start year the way the leagues set them (Labor Day for the NFL, the last
//! Saturday of August for college football, the first Monday of November for
//! college basketball).

use chrono::{Datelike, Days, NaiveDate, NaiveTime, Weekday};
use linecast_domain::Sport;

pub(crate) fn ymd(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap_or(NaiveDate::MIN)
}

pub(crate) fn hm(h: u32, m: u32) -> NaiveTime {
    NaiveTime::from_hms_opt(h, m, 0).unwrap_or(NaiveTime::MIN)
}

pub(crate) fn plus(d: NaiveDate, days: i64) -> NaiveDate {
    if days >= 0 {
        d.checked_add_days(Days::new(days as u64)).unwrap_or(d)
    } else {
        d.checked_sub_days(Days::new(days.unsigned_abs())).unwrap_or(d)
    }
}

/// The first `weekday` on or after `d`.
pub(crate) fn next_weekday(d: NaiveDate, weekday: Weekday) -> NaiveDate {
    let ahead = (7 + i64::from(weekday.num_days_from_monday()) - i64::from(d.weekday().num_days_from_monday())) % 7;
    plus(d, ahead)
}

/// Inclusive date span of one phase.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Span {
    pub(crate) fn days(self) -> impl Iterator<Item = NaiveDate> {
        self.start.iter_days().take_while(move |d| *d <= self.end)
    }

    pub(crate) fn len(self) -> usize {
        (self.end - self.start).num_days().max(0) as usize + 1
    }
}

/// The phases of one season, by its start year.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Calendar {
    /// `None` for college sports, which have no preseason rows.
    pub preseason: Option<Span>,
    pub regular: Span,
    /// First day of the postseason.
    pub postseason_start: NaiveDate,
}

/// First Monday of September (Labor Day); NFL week 1 starts the Thursday after.
fn labor_day(year: i32) -> NaiveDate {
    next_weekday(ymd(year, 9, 1), Weekday::Mon)
}

pub(crate) fn calendar(sport: Sport, y: i32) -> Calendar {
    match sport {
        Sport::Mlb => Calendar {
            preseason: Some(Span {
                start: ymd(y, 2, 21),
                end: ymd(y, 3, 24),
            }),
            regular: Span {
                start: ymd(y, 3, 26),
                end: ymd(y, 9, 27),
            },
            postseason_start: ymd(y, 9, 30),
        },
        Sport::Nba => Calendar {
            preseason: Some(Span {
                start: ymd(y, 10, 4),
                end: ymd(y, 10, 17),
            }),
            regular: Span {
                start: ymd(y, 10, 21),
                end: ymd(y + 1, 4, 12),
            },
            postseason_start: ymd(y + 1, 4, 18),
        },
        Sport::Nhl => Calendar {
            preseason: Some(Span {
                start: ymd(y, 9, 21),
                end: ymd(y, 10, 4),
            }),
            regular: Span {
                start: ymd(y, 10, 7),
                end: ymd(y + 1, 4, 16),
            },
            postseason_start: ymd(y + 1, 4, 19),
        },
        Sport::Nfl => {
            let week1 = plus(labor_day(y), 3);
            Calendar {
                preseason: Some(Span {
                    start: plus(week1, -28),
                    end: plus(week1, -7),
                }),
                regular: Span {
                    start: week1,
                    end: plus(week1, 17 * 7 + 4),
                },
                postseason_start: plus(week1, 18 * 7 + 2),
            }
        }
        Sport::Ncaaf => {
            let week0 = next_weekday(ymd(y, 8, 25), Weekday::Sat);
            Calendar {
                preseason: None,
                regular: Span {
                    start: week0,
                    end: plus(week0, 14 * 7),
                },
                postseason_start: ymd(y, 12, 17),
            }
        }
        Sport::Ncaab => Calendar {
            preseason: None,
            regular: Span {
                start: next_weekday(ymd(y, 11, 1), Weekday::Mon),
                end: ymd(y + 1, 3, 15),
            },
            postseason_start: ymd(y + 1, 3, 19),
        },
    }
}

/// First day of the season (its preseason when it has one).
pub(crate) fn season_first_day(sport: Sport, y: i32) -> NaiveDate {
    let c = calendar(sport, y);
    c.preseason.map_or(c.regular.start, |p| p.start)
}

fn weekend(d: NaiveDate) -> bool {
    matches!(d.weekday(), Weekday::Sat | Weekday::Sun)
}

/// Typical Eastern start times with weights, for daily leagues.
pub(crate) fn daily_times(sport: Sport, d: NaiveDate) -> &'static [(NaiveTimeHm, u32)] {
    match (sport, weekend(d)) {
        (Sport::Mlb, false) => &[
            ((18, 40), 2),
            ((19, 5), 3),
            ((19, 10), 3),
            ((19, 40), 2),
            ((20, 10), 2),
            ((21, 40), 1),
            ((22, 10), 2),
            ((13, 10), 1),
        ],
        (Sport::Mlb, true) => &[
            ((13, 5), 3),
            ((13, 10), 2),
            ((13, 35), 1),
            ((16, 5), 2),
            ((16, 10), 1),
            ((18, 10), 1),
            ((19, 15), 1),
            ((22, 10), 1),
        ],
        (Sport::Nba, false) => &[
            ((19, 0), 4),
            ((19, 30), 4),
            ((20, 0), 3),
            ((21, 0), 2),
            ((22, 0), 2),
            ((22, 30), 1),
        ],
        (Sport::Nba, true) => &[
            ((13, 0), 1),
            ((15, 30), 1),
            ((18, 0), 2),
            ((19, 30), 3),
            ((20, 0), 2),
            ((21, 0), 2),
            ((22, 30), 1),
        ],
        (Sport::Nhl, false) => &[
            ((19, 0), 5),
            ((19, 30), 3),
            ((20, 0), 2),
            ((21, 0), 1),
            ((22, 0), 2),
            ((22, 30), 1),
        ],
        (Sport::Nhl, true) => &[
            ((13, 0), 1),
            ((15, 0), 1),
            ((17, 0), 1),
            ((19, 0), 4),
            ((20, 0), 1),
            ((22, 0), 2),
        ],
        (Sport::Ncaab, false) => &[
            ((18, 30), 1),
            ((19, 0), 4),
            ((20, 0), 2),
            ((21, 0), 2),
            ((21, 30), 1),
            ((22, 0), 1),
            ((23, 30), 1),
        ],
        (Sport::Ncaab, true) => &[
            ((12, 0), 2),
            ((14, 0), 2),
            ((16, 0), 2),
            ((18, 0), 1),
            ((20, 0), 1),
            ((22, 0), 1),
            ((23, 30), 1),
        ],
        (Sport::Ncaaf, _) => &[
            ((12, 0), 4),
            ((15, 30), 4),
            ((19, 0), 3),
            ((19, 30), 2),
            ((20, 0), 1),
            ((22, 30), 1),
            ((23, 30), 1),
        ],
        (Sport::Nfl, _) => &[((13, 0), 8), ((16, 5), 2), ((16, 25), 2)],
    }
}

/// `(hour, minute)`; kept as a pair so the tables above stay const.
pub(crate) type NaiveTimeHm = (u32, u32);

/// The latest usual start of a league, used to put one late game on today's slate.
pub(crate) fn late_slot(sport: Sport) -> NaiveTime {
    match sport {
        Sport::Mlb => hm(22, 10),
        Sport::Nba | Sport::Nhl => hm(22, 30),
        Sport::Nfl => hm(20, 20),
        Sport::Ncaaf | Sport::Ncaab => hm(23, 30),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn league_calendars_fall_in_their_real_months() {
        let mlb = calendar(Sport::Mlb, 2026);
        assert_eq!((mlb.regular.start.month(), mlb.regular.end.month()), (3, 9));
        let nfl = calendar(Sport::Nfl, 2026);
        assert_eq!(nfl.regular.start, ymd(2026, 9, 10));
        assert_eq!(nfl.regular.start.weekday(), Weekday::Thu);
        assert_eq!(nfl.regular.end.weekday(), Weekday::Mon);
        let ncaaf = calendar(Sport::Ncaaf, 2026);
        assert_eq!(ncaaf.regular.start, ymd(2026, 8, 29));
        let ncaab = calendar(Sport::Ncaab, 2026);
        assert_eq!(ncaab.regular.start, ymd(2026, 11, 2));
        assert_eq!(season_first_day(Sport::Nba, 2026), ymd(2026, 10, 4));
        assert_eq!(
            Span {
                start: ymd(2026, 1, 1),
                end: ymd(2026, 1, 3)
            }
            .len(),
            3
        );
    }
}
