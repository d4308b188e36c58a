//! Real team tables per league: slug, display name, abbreviation. Display
//! names are written out rather than derived from slugs because naive title
//! case is wrong for many of them (`LA Clippers`, `St. John's Red Storm`).
//!
//! The college tables hold the best-known programmes only (40 and 48). The
//! `full` profile needs real Division I sizes (about 134 FBS football and 360
//! basketball teams), so [`roster`] extends a table with generated schools:
//! a place name made of a root and a suffix (`Ash` + `ford` = `Ashford`),
//! taken suffix by suffix over [`ROOTS`] x [`SUFFIXES`] (384 places), with a
//! mascot picked by position (`Ashford Otters`, slug `ashford_otters`,
//! abbreviation the first two letters of root and suffix, `ASFO`). Roots
//! and suffixes have distinct first two letters, so every generated slug and
//! abbreviation is unique; a candidate that collides with the real table
//! is skipped. The list is a pure function of the tables, so it is the same
//! in every run, and both college sports share it in the same order.

use std::sync::OnceLock;

use linecast_domain::Sport;

/// `(slug, display_name, abbreviation)`.
pub(crate) type Team = (&'static str, &'static str, &'static str);

/// The real table of a league (every profile but `full` uses only this).
pub(crate) fn teams(sport: Sport) -> &'static [Team] {
    match sport {
        Sport::Mlb => MLB,
        Sport::Nba => NBA,
        Sport::Nfl => NFL,
        Sport::Nhl => NHL,
        Sport::Ncaaf => NCAAF,
        Sport::Ncaab => NCAAB,
    }
}

/// The team table of a league with `n` teams: the real table when it is
/// long enough (the whole table, so smaller profiles keep writing every real
/// team), else the real table followed by generated schools, `n` in all
/// (capped at what the generator can name, [`max_teams`]).
pub(crate) fn roster(sport: Sport, n: usize) -> &'static [Team] {
    let real = teams(sport);
    if n <= real.len() {
        return real;
    }
    let extended = extended(sport);
    &extended[..n.min(extended.len())]
}

/// The most teams [`roster`] can name for `sport`.
#[cfg(test)]
pub(crate) fn max_teams(sport: Sport) -> usize {
    extended(sport).len()
}

const ROOTS: [&str; 24] = [
    "Ash", "Birch", "Cedar", "Clear", "Elm", "Fox", "Glen", "Hazel", "Holly", "Iron", "Lake", "Maple", "Mill", "Oak",
    "Pine", "Red", "Rock", "Silver", "Spring", "Stone", "Summer", "West", "Willow", "Wolf",
];

const SUFFIXES: [&str; 16] = [
    "ford", "field", "brook", "dale", "ton", "wood", "ville", "port", "mont", "bury", "haven", "stead", "mere", "gate",
    "crest", "water",
];

const MASCOTS: [&str; 23] = [
    "Otters", "Hawks", "Foxes", "Rams", "Herons", "Bison", "Lynx", "Falcons", "Badgers", "Comets", "Mustangs", "Owls",
    "Pioneers", "Ravens", "Stags", "Thunder", "Coyotes", "Hornets", "Mariners", "Vikings", "Wolves", "Bobcats",
    "Titans",
];

/// Owned strings of the generated schools, built once per process.
fn generated() -> &'static [(String, String, String)] {
    static SCHOOLS: OnceLock<Vec<(String, String, String)>> = OnceLock::new();
    SCHOOLS.get_or_init(|| {
        let mut out = Vec::with_capacity(ROOTS.len() * SUFFIXES.len());
        for suffix in SUFFIXES {
            for root in ROOTS {
                let place = format!("{root}{suffix}");
                let mascot = MASCOTS[out.len() * 7 % MASCOTS.len()];
                let slug = format!("{}_{}", place.to_ascii_lowercase(), mascot.to_ascii_lowercase());
                let abbr = format!("{}{}", &root[..2], &suffix[..2]).to_ascii_uppercase();
                out.push((slug, format!("{place} {mascot}"), abbr));
            }
        }
        out
    })
}

fn extended(sport: Sport) -> &'static [Team] {
    static EXTENDED: OnceLock<Vec<Vec<Team>>> = OnceLock::new();
    let all = EXTENDED.get_or_init(|| {
        Sport::ALL
            .iter()
            .map(|s| {
                let mut table: Vec<Team> = teams(*s).to_vec();
                for (slug, name, abbr) in generated() {
                    let clash = table.iter().any(|t| t.0 == slug || t.2 == abbr);
                    if !clash {
                        table.push((slug.as_str(), name.as_str(), abbr.as_str()));
                    }
                }
                table
            })
            .collect()
    });
    let ix = Sport::ALL.iter().position(|s| *s == sport).unwrap_or(0);
    all.get(ix).map_or(&[], Vec::as_slice)
}

const MLB: &[Team] = &[
    ("arizona_diamondbacks", "Arizona Diamondbacks", "ARI"),
    ("athletics", "Athletics", "ATH"),
    ("atlanta_braves", "Atlanta Braves", "ATL"),
    ("baltimore_orioles", "Baltimore Orioles", "BAL"),
    ("boston_red_sox", "Boston Red Sox", "BOS"),
    ("chicago_cubs", "Chicago Cubs", "CHC"),
    ("chicago_white_sox", "Chicago White Sox", "CWS"),
    ("cincinnati_reds", "Cincinnati Reds", "CIN"),
    ("cleveland_guardians", "Cleveland Guardians", "CLE"),
    ("colorado_rockies", "Colorado Rockies", "COL"),
    ("detroit_tigers", "Detroit Tigers", "DET"),
    ("houston_astros", "Houston Astros", "HOU"),
    ("kansas_city_royals", "Kansas City Royals", "KC"),
    ("los_angeles_angels", "Los Angeles Angels", "LAA"),
    ("los_angeles_dodgers", "Los Angeles Dodgers", "LAD"),
    ("miami_marlins", "Miami Marlins", "MIA"),
    ("milwaukee_brewers", "Milwaukee Brewers", "MIL"),
    ("minnesota_twins", "Minnesota Twins", "MIN"),
    ("new_york_mets", "New York Mets", "NYM"),
    ("new_york_yankees", "New York Yankees", "NYY"),
    ("philadelphia_phillies", "Philadelphia Phillies", "PHI"),
    ("pittsburgh_pirates", "Pittsburgh Pirates", "PIT"),
    ("san_diego_padres", "San Diego Padres", "SD"),
    ("san_francisco_giants", "San Francisco Giants", "SF"),
    ("seattle_mariners", "Seattle Mariners", "SEA"),
    ("st_louis_cardinals", "St. Louis Cardinals", "STL"),
    ("tampa_bay_rays", "Tampa Bay Rays", "TB"),
    ("texas_rangers", "Texas Rangers", "TEX"),
    ("toronto_blue_jays", "Toronto Blue Jays", "TOR"),
    ("washington_nationals", "Washington Nationals", "WSH"),
];

const NBA: &[Team] = &[
    ("atlanta_hawks", "Atlanta Hawks", "ATL"),
    ("boston_celtics", "Boston Celtics", "BOS"),
    ("brooklyn_nets", "Brooklyn Nets", "BKN"),
    ("charlotte_hornets", "Charlotte Hornets", "CHA"),
    ("chicago_bulls", "Chicago Bulls", "CHI"),
    ("cleveland_cavaliers", "Cleveland Cavaliers", "CLE"),
    ("dallas_mavericks", "Dallas Mavericks", "DAL"),
    ("denver_nuggets", "Denver Nuggets", "DEN"),
    ("detroit_pistons", "Detroit Pistons", "DET"),
    ("golden_state_warriors", "Golden State Warriors", "GSW"),
    ("houston_rockets", "Houston Rockets", "HOU"),
    ("indiana_pacers", "Indiana Pacers", "IND"),
    ("los_angeles_clippers", "LA Clippers", "LAC"),
    ("los_angeles_lakers", "Los Angeles Lakers", "LAL"),
    ("memphis_grizzlies", "Memphis Grizzlies", "MEM"),
    ("miami_heat", "Miami Heat", "MIA"),
    ("milwaukee_bucks", "Milwaukee Bucks", "MIL"),
    ("minnesota_timberwolves", "Minnesota Timberwolves", "MIN"),
    ("new_orleans_pelicans", "New Orleans Pelicans", "NOP"),
    ("new_york_knicks", "New York Knicks", "NYK"),
    ("oklahoma_city_thunder", "Oklahoma City Thunder", "OKC"),
    ("orlando_magic", "Orlando Magic", "ORL"),
    ("philadelphia_76ers", "Philadelphia 76ers", "PHI"),
    ("phoenix_suns", "Phoenix Suns", "PHX"),
    ("portland_trail_blazers", "Portland Trail Blazers", "POR"),
    ("sacramento_kings", "Sacramento Kings", "SAC"),
    ("san_antonio_spurs", "San Antonio Spurs", "SAS"),
    ("toronto_raptors", "Toronto Raptors", "TOR"),
    ("utah_jazz", "Utah Jazz", "UTA"),
    ("washington_wizards", "Washington Wizards", "WAS"),
];

const NFL: &[Team] = &[
    ("arizona_cardinals", "Arizona Cardinals", "ARI"),
    ("atlanta_falcons", "Atlanta Falcons", "ATL"),
    ("baltimore_ravens", "Baltimore Ravens", "BAL"),
    ("buffalo_bills", "Buffalo Bills", "BUF"),
    ("carolina_panthers", "Carolina Panthers", "CAR"),
    ("chicago_bears", "Chicago Bears", "CHI"),
    ("cincinnati_bengals", "Cincinnati Bengals", "CIN"),
    ("cleveland_browns", "Cleveland Browns", "CLE"),
    ("dallas_cowboys", "Dallas Cowboys", "DAL"),
    ("denver_broncos", "Denver Broncos", "DEN"),
    ("detroit_lions", "Detroit Lions", "DET"),
    ("green_bay_packers", "Green Bay Packers", "GB"),
    ("houston_texans", "Houston Texans", "HOU"),
    ("indianapolis_colts", "Indianapolis Colts", "IND"),
    ("jacksonville_jaguars", "Jacksonville Jaguars", "JAX"),
    ("kansas_city_chiefs", "Kansas City Chiefs", "KC"),
    ("las_vegas_raiders", "Las Vegas Raiders", "LV"),
    ("los_angeles_chargers", "Los Angeles Chargers", "LAC"),
    ("los_angeles_rams", "Los Angeles Rams", "LAR"),
    ("miami_dolphins", "Miami Dolphins", "MIA"),
    ("minnesota_vikings", "Minnesota Vikings", "MIN"),
    ("new_england_patriots", "New England Patriots", "NE"),
    ("new_orleans_saints", "New Orleans Saints", "NO"),
    ("new_york_giants", "New York Giants", "NYG"),
    ("new_york_jets", "New York Jets", "NYJ"),
    ("philadelphia_eagles", "Philadelphia Eagles", "PHI"),
    ("pittsburgh_steelers", "Pittsburgh Steelers", "PIT"),
    ("san_francisco_49ers", "San Francisco 49ers", "SF"),
    ("seattle_seahawks", "Seattle Seahawks", "SEA"),
    ("tampa_bay_buccaneers", "Tampa Bay Buccaneers", "TB"),
    ("tennessee_titans", "Tennessee Titans", "TEN"),
    ("washington_commanders", "Washington Commanders", "WAS"),
];

const NHL: &[Team] = &[
    ("anaheim_ducks", "Anaheim Ducks", "ANA"),
    ("boston_bruins", "Boston Bruins", "BOS"),
    ("buffalo_sabres", "Buffalo Sabres", "BUF"),
    ("calgary_flames", "Calgary Flames", "CGY"),
    ("carolina_hurricanes", "Carolina Hurricanes", "CAR"),
    ("chicago_blackhawks", "Chicago Blackhawks", "CHI"),
    ("colorado_avalanche", "Colorado Avalanche", "COL"),
    ("columbus_blue_jackets", "Columbus Blue Jackets", "CBJ"),
    ("dallas_stars", "Dallas Stars", "DAL"),
    ("detroit_red_wings", "Detroit Red Wings", "DET"),
    ("edmonton_oilers", "Edmonton Oilers", "EDM"),
    ("florida_panthers", "Florida Panthers", "FLA"),
    ("los_angeles_kings", "Los Angeles Kings", "LAK"),
    ("minnesota_wild", "Minnesota Wild", "MIN"),
    ("montreal_canadiens", "Montreal Canadiens", "MTL"),
    ("nashville_predators", "Nashville Predators", "NSH"),
    ("new_jersey_devils", "New Jersey Devils", "NJD"),
    ("new_york_islanders", "New York Islanders", "NYI"),
    ("new_york_rangers", "New York Rangers", "NYR"),
    ("ottawa_senators", "Ottawa Senators", "OTT"),
    ("philadelphia_flyers", "Philadelphia Flyers", "PHI"),
    ("pittsburgh_penguins", "Pittsburgh Penguins", "PIT"),
    ("san_jose_sharks", "San Jose Sharks", "SJS"),
    ("seattle_kraken", "Seattle Kraken", "SEA"),
    ("st_louis_blues", "St. Louis Blues", "STL"),
    ("tampa_bay_lightning", "Tampa Bay Lightning", "TBL"),
    ("toronto_maple_leafs", "Toronto Maple Leafs", "TOR"),
    ("utah_mammoth", "Utah Mammoth", "UTA"),
    ("vancouver_canucks", "Vancouver Canucks", "VAN"),
    ("vegas_golden_knights", "Vegas Golden Knights", "VGK"),
    ("washington_capitals", "Washington Capitals", "WSH"),
    ("winnipeg_jets", "Winnipeg Jets", "WPG"),
];

const NCAAF: &[Team] = &[
    ("alabama_crimson_tide", "Alabama Crimson Tide", "ALA"),
    ("georgia_bulldogs", "Georgia Bulldogs", "UGA"),
    ("ohio_state_buckeyes", "Ohio State Buckeyes", "OSU"),
    ("michigan_wolverines", "Michigan Wolverines", "MICH"),
    ("texas_longhorns", "Texas Longhorns", "TEX"),
    ("lsu_tigers", "LSU Tigers", "LSU"),
    ("oregon_ducks", "Oregon Ducks", "ORE"),
    ("clemson_tigers", "Clemson Tigers", "CLEM"),
    ("notre_dame_fighting_irish", "Notre Dame Fighting Irish", "ND"),
    ("penn_state_nittany_lions", "Penn State Nittany Lions", "PSU"),
    ("usc_trojans", "USC Trojans", "USC"),
    ("florida_state_seminoles", "Florida State Seminoles", "FSU"),
    ("oklahoma_sooners", "Oklahoma Sooners", "OU"),
    ("tennessee_volunteers", "Tennessee Volunteers", "TENN"),
    ("ole_miss_rebels", "Ole Miss Rebels", "MISS"),
    ("texas_am_aggies", "Texas A&M Aggies", "TAMU"),
    ("auburn_tigers", "Auburn Tigers", "AUB"),
    ("florida_gators", "Florida Gators", "FLA"),
    ("miami_hurricanes", "Miami Hurricanes", "MIA"),
    ("wisconsin_badgers", "Wisconsin Badgers", "WIS"),
    ("iowa_hawkeyes", "Iowa Hawkeyes", "IOWA"),
    ("utah_utes", "Utah Utes", "UTAH"),
    ("washington_huskies", "Washington Huskies", "WASH"),
    ("kansas_state_wildcats", "Kansas State Wildcats", "KSU"),
    ("missouri_tigers", "Missouri Tigers", "MIZ"),
    ("kentucky_wildcats", "Kentucky Wildcats", "UK"),
    ("arkansas_razorbacks", "Arkansas Razorbacks", "ARK"),
    ("south_carolina_gamecocks", "South Carolina Gamecocks", "SC"),
    ("north_carolina_tar_heels", "North Carolina Tar Heels", "UNC"),
    ("virginia_tech_hokies", "Virginia Tech Hokies", "VT"),
    ("louisville_cardinals", "Louisville Cardinals", "LOU"),
    ("byu_cougars", "BYU Cougars", "BYU"),
    ("tcu_horned_frogs", "TCU Horned Frogs", "TCU"),
    ("baylor_bears", "Baylor Bears", "BAY"),
    ("minnesota_golden_gophers", "Minnesota Golden Gophers", "MINN"),
    ("nebraska_cornhuskers", "Nebraska Cornhuskers", "NEB"),
    ("ucla_bruins", "UCLA Bruins", "UCLA"),
    ("boise_state_broncos", "Boise State Broncos", "BSU"),
    ("colorado_buffaloes", "Colorado Buffaloes", "COLO"),
    ("hawaii_rainbow_warriors", "Hawai'i Rainbow Warriors", "HAW"),
];

const NCAAB: &[Team] = &[
    ("duke_blue_devils", "Duke Blue Devils", "DUKE"),
    ("north_carolina_tar_heels", "North Carolina Tar Heels", "UNC"),
    ("kansas_jayhawks", "Kansas Jayhawks", "KU"),
    ("kentucky_wildcats", "Kentucky Wildcats", "UK"),
    ("gonzaga_bulldogs", "Gonzaga Bulldogs", "GONZ"),
    ("villanova_wildcats", "Villanova Wildcats", "NOVA"),
    ("uconn_huskies", "UConn Huskies", "CONN"),
    ("houston_cougars", "Houston Cougars", "HOU"),
    ("purdue_boilermakers", "Purdue Boilermakers", "PUR"),
    ("arizona_wildcats", "Arizona Wildcats", "ARIZ"),
    ("baylor_bears", "Baylor Bears", "BAY"),
    ("michigan_state_spartans", "Michigan State Spartans", "MSU"),
    ("tennessee_volunteers", "Tennessee Volunteers", "TENN"),
    ("alabama_crimson_tide", "Alabama Crimson Tide", "ALA"),
    ("auburn_tigers", "Auburn Tigers", "AUB"),
    ("florida_gators", "Florida Gators", "FLA"),
    ("texas_longhorns", "Texas Longhorns", "TEX"),
    ("ucla_bruins", "UCLA Bruins", "UCLA"),
    ("indiana_hoosiers", "Indiana Hoosiers", "IND"),
    ("illinois_fighting_illini", "Illinois Fighting Illini", "ILL"),
    ("iowa_state_cyclones", "Iowa State Cyclones", "ISU"),
    ("marquette_golden_eagles", "Marquette Golden Eagles", "MARQ"),
    ("creighton_bluejays", "Creighton Bluejays", "CREI"),
    ("st_johns_red_storm", "St. John's Red Storm", "SJU"),
    ("syracuse_orange", "Syracuse Orange", "SYR"),
    ("louisville_cardinals", "Louisville Cardinals", "LOU"),
    ("virginia_cavaliers", "Virginia Cavaliers", "UVA"),
    ("wisconsin_badgers", "Wisconsin Badgers", "WIS"),
    ("ohio_state_buckeyes", "Ohio State Buckeyes", "OSU"),
    ("michigan_wolverines", "Michigan Wolverines", "MICH"),
    ("arkansas_razorbacks", "Arkansas Razorbacks", "ARK"),
    ("texas_tech_red_raiders", "Texas Tech Red Raiders", "TTU"),
    ("san_diego_state_aztecs", "San Diego State Aztecs", "SDSU"),
    ("saint_marys_gaels", "Saint Mary's Gaels", "SMC"),
    ("byu_cougars", "BYU Cougars", "BYU"),
    ("xavier_musketeers", "Xavier Musketeers", "XAV"),
    ("providence_friars", "Providence Friars", "PROV"),
    ("memphis_tigers", "Memphis Tigers", "MEM"),
    ("dayton_flyers", "Dayton Flyers", "DAY"),
    ("oregon_ducks", "Oregon Ducks", "ORE"),
    ("usc_trojans", "USC Trojans", "USC"),
    ("maryland_terrapins", "Maryland Terrapins", "MD"),
    ("miami_hurricanes", "Miami Hurricanes", "MIA"),
    ("clemson_tigers", "Clemson Tigers", "CLEM"),
    ("mississippi_state_bulldogs", "Mississippi State Bulldogs", "MSST"),
    ("butler_bulldogs", "Butler Bulldogs", "BUT"),
    ("georgetown_hoyas", "Georgetown Hoyas", "GTWN"),
    ("utah_state_aggies", "Utah State Aggies", "USU"),
];

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn leagues_have_their_real_team_counts_and_slugs_are_lowercase_underscored_and_unique() {
        let counts = [(Sport::Mlb, 30), (Sport::Nba, 30), (Sport::Nfl, 32), (Sport::Nhl, 32)];
        for (sport, n) in counts {
            assert_eq!(teams(sport).len(), n, "{sport}");
        }
        for sport in Sport::ALL {
            let table = teams(*sport);
            assert!(table.len() >= 30, "{sport}");
            let mut slugs: Vec<_> = table.iter().map(|t| t.0).collect();
            for slug in &slugs {
                assert!(
                    slug.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                    "{slug}"
                );
            }
            slugs.sort_unstable();
            slugs.dedup();
            assert_eq!(slugs.len(), table.len(), "{sport} slugs unique");
            assert!(table.iter().all(|t| !t.1.contains(',') && !t.2.is_empty()));
        }
    }

    #[test]
    fn rosters_keep_the_real_table_and_extend_college_leagues_with_unique_generated_schools() {
        for sport in Sport::ALL {
            assert_eq!(
                roster(*sport, 8),
                teams(*sport),
                "{sport}: small leagues write the real table"
            );
            assert_eq!(roster(*sport, teams(*sport).len()), teams(*sport));
        }
        for (sport, n) in [(Sport::Ncaab, 362), (Sport::Ncaaf, 134)] {
            let table = roster(sport, n);
            assert_eq!(table.len(), n);
            assert_eq!(&table[..teams(sport).len()], teams(sport), "{sport}: real teams first");
            let mut slugs: Vec<_> = table.iter().map(|t| t.0).collect();
            let mut abbrs: Vec<_> = table.iter().map(|t| t.2).collect();
            for slug in &slugs {
                assert!(
                    slug.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                    "{slug}"
                );
            }
            slugs.sort_unstable();
            slugs.dedup();
            assert_eq!(slugs.len(), n, "{sport} slugs unique");
            let generated_abbrs: Vec<_> = abbrs.split_off(teams(sport).len());
            let mut unique = generated_abbrs.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(
                unique.len(),
                generated_abbrs.len(),
                "{sport} generated abbreviations unique"
            );
            assert!(generated_abbrs.iter().all(|a| !abbrs.contains(a)), "{sport}");
            assert!(table.iter().all(|t| !t.1.contains(',') && !t.1.is_empty()));
        }
        assert_eq!(roster(Sport::Ncaab, 10_000).len(), max_teams(Sport::Ncaab));
        assert!(max_teams(Sport::Ncaab) >= 400);
        // Deterministic and shared: the first generated ncaab school is the
        // first generated ncaaf school.
        assert_eq!(roster(Sport::Ncaab, 49)[48], roster(Sport::Ncaaf, 41)[40]);
        assert_eq!(
            roster(Sport::Ncaab, 49)[48],
            ("ashford_otters", "Ashford Otters", "ASFO")
        );
    }
}
