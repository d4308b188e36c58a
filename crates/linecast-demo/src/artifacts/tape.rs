//! `teams/{sport}.csv` and `scores/{sport}.csv` (the latest season's full
//! schedule: finals, postponements, and every game still to play).

use super::League;
use crate::csvw::Csv;
use crate::teams::roster;

pub(crate) fn teams(league: &League) -> Vec<u8> {
    let mut csv = Csv::new(&["slug", "display_name", "abbreviation"]);
    for (slug, name, abbr) in roster(league.sport, league.teams) {
        csv.cell(slug);
        csv.cell(name);
        csv.cell(abbr);
        csv.end_row();
    }
    csv.into_bytes()
}

pub(crate) fn scores(league: &League) -> Vec<u8> {
    let mut csv = Csv::new(&[
        "date",
        "time_est",
        "season",
        "season_type",
        "away_team",
        "home_team",
        "away_score",
        "home_score",
        "status",
    ]);
    let mut games: Vec<_> = league.latest().iter().collect();
    games.sort_by(|a, b| a.key.cmp(&b.key));
    for g in games {
        csv.cell(&g.key.date_string());
        csv.cell(&g.key.time_string());
        csv.cell(&g.season.to_string());
        csv.cell(g.phase.as_str());
        csv.cell(&g.key.away_team);
        csv.cell(&g.key.home_team);
        csv.int(g.away_score);
        csv.int(g.home_score);
        csv.cell(g.status.as_str());
        csv.end_row();
    }
    csv.into_bytes()
}
