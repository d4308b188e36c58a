//! Kalshi's game-market ticker convention.
//!
//! A game is one event with one market per team winning:
//!
//! ```text
//! event   KXMLBGAME-26JUN281610LADSD     series - YY MON DD [HHMM] AWAY HOME [Gn]
//! market  KXMLBGAME-26JUN281610LADSD-SD  event - code of the team the yes side backs
//! ```
//!
//! The date is the game's ET date. The ET start `HHMM` appears for leagues
//! with doubleheaders (mlb) and is absent elsewhere (`KXNBAGAME-26MAR31NYKHOU`);
//! a trailing `G1`/`G2` may number a doubleheader's games. Team codes are
//! Kalshi's own (mostly the league's abbreviations) and are concatenated, so
//! the event alone cannot always be split; each market's suffix names its team.

use chrono::{NaiveDate, NaiveTime};

/// What an event ticker says about its game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EventCode {
    pub date: NaiveDate,
    pub time: Option<NaiveTime>,
    /// The teams' codes run together (away first by convention).
    pub teams: String,
    /// The doubleheader game number (`G2` -> 2).
    pub game_number: Option<u32>,
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];

fn two_digits(s: &str) -> Option<u32> {
    (s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Parses `SERIES-YYMONDD[HHMM]TEAMS[Gn]`; `None` for anything else.
pub(crate) fn parse_event(event_ticker: &str) -> Option<EventCode> {
    let (_series, rest) = event_ticker.split_once('-')?;
    if rest.len() < 7 || !rest.is_ascii() {
        return None;
    }
    let year = 2000 + i32::try_from(two_digits(&rest[0..2])?).ok()?;
    let month = MONTHS.iter().position(|m| *m == &rest[2..5])? as u32 + 1;
    let day = two_digits(&rest[5..7])?;
    let date = NaiveDate::from_ymd_opt(year, month, day)?;
    let mut rest = &rest[7..];

    let mut time = None;
    if rest.len() > 4 && rest.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
        time = Some(NaiveTime::from_hms_opt(
            two_digits(&rest[0..2])?,
            two_digits(&rest[2..4])?,
            0,
        )?);
        rest = &rest[4..];
    }

    let letters = rest.bytes().take_while(u8::is_ascii_uppercase).count();
    let (mut teams, digits) = rest.split_at(letters);
    let mut game_number = None;
    if !digits.is_empty() {
        // Only a `G<n>` doubleheader suffix may follow the team codes.
        teams = teams.strip_suffix('G')?;
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        game_number = Some(digits.parse().ok()?);
    }
    if teams.is_empty() {
        return None;
    }
    Some(EventCode {
        date,
        time,
        teams: teams.to_owned(),
        game_number,
    })
}

/// The team code a market's yes side backs: the ticker's suffix after its
/// event ticker (or, failing that, after its last `-`).
pub(crate) fn market_team_code<'a>(market_ticker: &'a str, event_ticker: &str) -> Option<&'a str> {
    let code = match market_ticker
        .strip_prefix(event_ticker)
        .and_then(|s| s.strip_prefix('-'))
    {
        Some(code) => code,
        None => market_ticker.rsplit_once('-')?.1,
    };
    (!code.is_empty()).then_some(code)
}

/// Given the event's run-together codes and one team's code, the other's.
pub(crate) fn other_code<'a>(teams: &'a str, code: &str) -> Option<&'a str> {
    let other = teams.strip_prefix(code).or_else(|| teams.strip_suffix(code))?;
    (!other.is_empty()).then_some(other)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn an_mlb_event_carries_its_et_start_time() {
        let e = parse_event("KXMLBGAME-26JUN281610LADSD").unwrap();
        assert_eq!(e.date, d(2026, 6, 28));
        assert_eq!(e.time, NaiveTime::from_hms_opt(16, 10, 0));
        assert_eq!(e.teams, "LADSD");
        assert_eq!(e.game_number, None);
    }

    #[test]
    fn an_nba_event_has_a_date_but_no_time() {
        let e = parse_event("KXNBAGAME-26MAR31NYKHOU").unwrap();
        assert_eq!(e.date, d(2026, 3, 31));
        assert_eq!(e.time, None);
        assert_eq!(e.teams, "NYKHOU");
    }

    #[test]
    fn a_doubleheader_suffix_is_read_as_the_game_number() {
        let e = parse_event("KXMLBGAME-26AUG291305BOSNYYG2").unwrap();
        assert_eq!(e.teams, "BOSNYY");
        assert_eq!(e.game_number, Some(2));
    }

    #[test]
    fn tickers_outside_the_convention_are_rejected() {
        for bad in [
            "KXMLBGAME",
            "KXMLBGAME-26XYZ28LADSD",
            "KXMLBGAME-26FEB30LADSD",
            "KXMLBGAME-26JUN28",
            "X-26JUN28LAD-SD",
        ] {
            assert_eq!(parse_event(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_market_suffix_names_the_yes_team() {
        assert_eq!(
            market_team_code("KXNBAGAME-26MAR31NYKHOU-NYK", "KXNBAGAME-26MAR31NYKHOU"),
            Some("NYK")
        );
        assert_eq!(
            market_team_code("KXNBAGAME-26MAR31NYKHOU-HOU", "elsewhere"),
            Some("HOU")
        );
        assert_eq!(
            market_team_code("KXNBAGAME-26MAR31NYKHOU-", "KXNBAGAME-26MAR31NYKHOU"),
            None
        );
    }

    #[test]
    fn the_other_code_is_what_remains_of_the_event_teams() {
        assert_eq!(other_code("LADSD", "SD"), Some("LAD"));
        assert_eq!(other_code("LADSD", "LAD"), Some("SD"));
        assert_eq!(other_code("LADSD", "NYY"), None);
    }

    proptest! {
        /// Any well-formed game event ticker round-trips: the parsed date,
        /// start time and team codes are the ones it was written from.
        #[test]
        fn a_written_event_ticker_parses_back(
            days in 0i64..3650,
            hm in proptest::option::of((0u32..24, 0u32..60)),
            away in "[A-Z]{2,4}",
            home in "[A-Z]{2,4}",
        ) {
            let date = d(2024, 1, 1) + chrono::Duration::days(days);
            let time = hm.map(|(h, m)| NaiveTime::from_hms_opt(h, m, 0).unwrap());
            let ticker = format!(
                "KXNHLGAME-{}{}{}",
                date.format("%y%b%d").to_string().to_uppercase(),
                time.map(|t| t.format("%H%M").to_string()).unwrap_or_default(),
                format_args!("{away}{home}"),
            );
            let e = parse_event(&ticker).unwrap();
            prop_assert_eq!(e.date, date);
            prop_assert_eq!(e.time, time);
            prop_assert_eq!(e.teams, format!("{away}{home}"));
        }
    }
}
