//! `data audit`: two predictions releases imported at instants the test
//! chooses and a season store written by hand; a row whose BLEND differs
//! from its release's is named by game id and exits 1, a store where every
//! live row matches exits 0, an unreadable database exits 2.

use std::path::Path;

use crate::support::Admin;

const HEADER: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,open_home_money_line,BLEND,CATB\n";
const SEASON_HEADER: &str = "date,time_est,season,season_type,away_team,home_team,away_score,home_score,home_money_line,away_money_line,BLEND,forecast_source,forecast_run,forecast_published_at\n";
const SEASON: &str = "store/seasons/nba/won_on_points/2026-27.csv";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Releases at 12:00Z and 18:00Z on 2026-11-14 (both before the 19:30 ET
/// starts, 00:30Z on the 15th): the Nets at 0.6000 then 0.6123, the Knicks
/// at 0.4400 then 0.4512.
fn imported(admin: &Admin) -> String {
    let source = admin.dir().join("versions");
    write(
        &source,
        "2026-11-14T12:00:00Z/predictions/nba/won_on_points.csv",
        &format!(
            "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,117,-140,117,-140,0.6000,0.58\n\
             2026-11-14,19:30:00,new_york_knicks,toronto_raptors,-120,100,-120,100,0.4400,0.45\n"
        ),
    );
    write(
        &source,
        "2026-11-14T18:00:00Z/predictions/nba/won_on_points.csv",
        &format!(
            "{HEADER}2026-11-14,19:30:00,brooklyn_nets,boston_celtics,120,-145,117,-140,0.6123,0.60\n\
             2026-11-14,19:30:00,new_york_knicks,toronto_raptors,-125,105,-120,100,0.4512,0.46\n"
        ),
    );
    std::fs::create_dir_all(admin.dir().join("store")).unwrap();
    let store_url = format!("file://{}", admin.dir().join("store").display());
    let source_arg = source.display().to_string();
    admin.ok(&["releases", "import", source_arg.as_str(), "--store", store_url.as_str()]);
    store_url
}

/// Both live rows name the 18:00Z release; the Knicks' BLEND is `knicks`.
/// A walk-forward row is not checked.
fn season(knicks: &str) -> String {
    format!(
        "{SEASON_HEADER}2026-11-14,19:30:00,2026-27,regular,brooklyn_nets,boston_celtics,101,110,-145,120,0.6123,live,r2,2026-11-14T18:00:00Z\n\
         2026-11-14,19:30:00,2026-27,regular,new_york_knicks,toronto_raptors,99,98,105,-125,{knicks},live,r2,2026-11-14T18:00:00Z\n\
         2026-11-14,20:00:00,2026-27,regular,dallas_mavericks,houston_rockets,108,102,-160,135,0.6400,walk_forward,bt-7,\n"
    )
}

#[test]
fn audit_names_a_mismatch_by_game_id_and_exits_1_and_exits_0_when_all_match() {
    let admin = Admin::new();
    let store_url = imported(&admin);
    // The Knicks' row says 0.4400 (the 12:00Z release's) but names 18:00Z,
    // whose BLEND is 0.4512.
    write(admin.dir(), SEASON, &season("0.4400"));
    let run = admin.run(&["data", "audit", "--store", store_url.as_str()]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let mismatches: Vec<&str> = run.stdout.lines().filter(|l| l.starts_with("mismatch ")).collect();
    assert_eq!(mismatches.len(), 1, "{}", run.stdout);
    let line = mismatches[0];
    assert!(
        line.starts_with("mismatch nba-20261114-new_york_knicks-toronto_raptors sport=nba model_type=won_on_points season=2026-27 row_BLEND=0.4400 release_BLEND=0.4512"),
        "{line}"
    );
    assert!(line.contains("release_published_at=2026-11-14T18:00:00Z"), "{line}");
    assert!(line.ends_with("(another BLEND)"), "{line}");
    assert!(
        run.stdout
            .contains("nba won_on_points 2026-27: matched 1, mismatch 1, not_kept 0, not_applicable 1"),
        "{}",
        run.stdout
    );

    // Another sport has no live rows: nothing to judge, exit 0.
    let run = admin.run(&["data", "audit", "--sport", "nhl", "--store", store_url.as_str()]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("total over 0 season store(s) with live rows: matched 0, mismatch 0"),
        "{}",
        run.stdout
    );

    // The row corrected to its release's BLEND: every live row matches.
    write(admin.dir(), SEASON, &season("0.4512"));
    let run = admin.run(&[
        "data",
        "audit",
        "--sport",
        "nba",
        "--season",
        "2026-27",
        "--store",
        store_url.as_str(),
    ]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("mismatch nba-"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("nba won_on_points 2026-27: matched 2, mismatch 0, not_kept 0, not_applicable 1"),
        "{}",
        run.stdout
    );
}

#[test]
fn audit_exits_2_with_a_message_when_the_database_cannot_be_read() {
    let admin = Admin::new();
    let store_url = imported(&admin);
    write(admin.dir(), SEASON, &season("0.4400"));
    // A database no migration was run on: its schema is pending.
    let other = format!("sqlite://{}?mode=rwc", admin.dir().join("other.db").display());
    let run = admin.run_with(
        &["data", "audit", "--store", store_url.as_str()],
        &[("LINECAST_DATABASE_URL", other.as_str())],
    );
    assert_eq!(run.code, Some(2), "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("error: the audit could not read the store or the database"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("mismatch"), "{}", run.stdout);
}
