//! `teams/{sport}.csv`: slug, display name and abbreviation of every team.

use std::collections::HashMap;

use linecast_domain::artifacts::{TeamRow, TeamTable};

use super::problems::Problems;
use super::sheet::Sheet;

/// Parses a team table; slugs must be unique.
pub fn teams(bytes: &[u8], problems: &mut Problems) -> Option<TeamTable> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let slug = sheet.require("slug", problems);
    let display_name = sheet.require("display_name", problems);
    let abbreviation = sheet.require("abbreviation", problems);
    let (slug, display_name, abbreviation) = (slug?, display_name?, abbreviation?);
    let mut teams = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    sheet.each_row(problems, |c| {
        let s = c.slug(slug);
        let d = c.text(display_name);
        let a = c.text(abbreviation);
        let (Some(s), Some(d), Some(a)) = (s, d, a) else { return };
        if let Some(first) = seen.get(s) {
            c.fail("slug", format!("duplicate team slug '{s}' (first at row {first})"));
            return;
        }
        seen.insert(s.to_owned(), c.row());
        teams.push(TeamRow {
            slug: s.to_owned(),
            display_name: d.to_owned(),
            abbreviation: a.to_owned(),
        });
    });
    Some(TeamTable { teams })
}

/// Team slugs in `away_team`/`home_team` of any CSV that are not in `known`:
/// one problem per unknown slug, at its first row, counting the rows.
pub fn unknown_teams<S: std::hash::BuildHasher>(
    bytes: &[u8],
    known: &std::collections::HashSet<String, S>,
    problems: &mut Problems,
) {
    // Structural problems of the object are reported by its own parser.
    let mut scratch = Problems::collect_all("");
    let Some(mut sheet) = Sheet::open(bytes, &mut scratch) else {
        return;
    };
    let cols: Vec<_> = ["away_team", "home_team"]
        .into_iter()
        .filter_map(|n| sheet.column(n))
        .collect();
    let mut unknown: Vec<(String, usize, &'static str, usize)> = Vec::new();
    sheet.each_row(&mut scratch, |c| {
        for col in &cols {
            let slug = c.at(col.idx);
            // Empty and malformed slugs are the object's own parser's to report.
            let well_formed = slug
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            if slug.is_empty() || !well_formed || known.contains(slug) {
                continue;
            }
            match unknown.iter_mut().find(|(s, ..)| s == slug) {
                Some(entry) => entry.3 += 1,
                None => unknown.push((slug.to_owned(), c.row(), col.name, 1)),
            }
        }
    });
    for (slug, row, column, count) in unknown {
        problems.push(
            row,
            column,
            format!("team '{slug}' is not in the sport's team table ({count} cells)"),
        );
    }
}
