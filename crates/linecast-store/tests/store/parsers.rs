//! Each parser on good input and on bad input, naming object, row and column;
//! and properties that no input makes a parser panic.

use chrono::NaiveDate;
use linecast_core::StoreError;
use linecast_domain::{LineField, ModelColumn, ModelType, SeasonLabel, Sport};
use linecast_store::parse;
use proptest::prelude::*;

use crate::helpers::{SCORES, SEASON, TEAMS};

fn corrupt_at(err: StoreError) -> (String, usize, String, String) {
    match err {
        StoreError::Corrupt {
            object,
            row,
            column,
            reason,
        } => (object, row, column, reason),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

fn nba_2025() -> SeasonLabel {
    SeasonLabel::parse(Sport::Nba, "2025-26").unwrap()
}

#[test]
fn a_team_table_parses_and_an_empty_display_name_names_its_row_and_column() {
    let table = parse::teams("teams/nba.csv", TEAMS.as_bytes()).unwrap();
    assert_eq!(table.teams.len(), 2);
    assert_eq!(table.find("new_york_knicks").unwrap().abbreviation, "NYK");

    let bad = "abbreviation,slug,display_name\nBOS,boston_celtics,Boston Celtics\nNYK,new_york_knicks,\n";
    let (object, row, column, _) = corrupt_at(parse::teams("teams/nba.csv", bad.as_bytes()).unwrap_err());
    assert_eq!(
        (object.as_str(), row, column.as_str()),
        ("teams/nba.csv", 2, "display_name")
    );
}

#[test]
fn a_missing_required_column_is_reported_on_row_zero() {
    let (_, row, column, reason) = corrupt_at(parse::teams("t", b"slug,display_name\nx,X\n").unwrap_err());
    assert_eq!((row, column.as_str()), (0, "abbreviation"));
    assert!(reason.contains("missing"));
}

#[test]
fn duplicate_team_slugs_are_refused() {
    let bad = format!("{TEAMS}boston_celtics,Celtics Again,BOS\n");
    let (_, row, column, _) = corrupt_at(parse::teams("t", bad.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (3, "slug"));
}

#[test]
fn a_score_tape_reads_nullable_scores_and_accepts_short_times() {
    let rows = parse::scores("scores/nba.csv", Sport::Nba, SCORES.as_bytes()).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].home_score, Some(99.0));
    assert_eq!(rows[1].home_score, None);
    assert_eq!(rows[1].key.time_string(), "19:30:00");
}

#[test]
fn a_score_tape_refuses_unknown_statuses_and_season_labels_of_the_wrong_form() {
    let bad_status = SCORES.replace("scheduled", "delayed");
    let (_, row, column, _) = corrupt_at(parse::scores("s", Sport::Nba, bad_status.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (2, "status"));
    let bad_season = SCORES.replacen("2025-26", "2025", 1);
    let (_, row, column, _) = corrupt_at(parse::scores("s", Sport::Nba, bad_season.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (1, "season"));
}

const PREDICTIONS: &str = "date,time_est,away_team,home_team,over_under,over_line,under_line,open_over_under,home_money_line,XT,BLEND,CATB,custom,AI\n\
2025-11-22,19:30:00,new_york_knicks,boston_celtics,212.5,-110,-110,0,-150,0.52,0.58,,c1,0.6\n";

#[test]
fn predictions_read_only_their_model_types_lines_and_keep_placeholder_openers_as_zero() {
    let table = parse::predictions("p", Sport::Nba, ModelType::OverUnder, PREDICTIONS.as_bytes()).unwrap();
    let row = &table.rows[0];
    assert_eq!(row.lines.get(LineField::OverUnder), Some(212.5));
    assert_eq!(
        row.lines.get(LineField::OpenOverUnder),
        Some(0.0),
        "suppressing the placeholder is the API's job"
    );
    assert_eq!(
        row.lines.get(LineField::HomeMoneyLine),
        None,
        "moneyline is not a line of over_under"
    );
    assert_eq!(row.models.get(ModelColumn::Blend), Some(0.58));
    assert_eq!(row.models.get(ModelColumn::Catb), None);
    assert_eq!(
        table.models_present,
        [ModelColumn::Ai, ModelColumn::Blend, ModelColumn::Catb, ModelColumn::Xt],
        "catalog order, not header order"
    );
    let extras: Vec<_> = row.extras.iter().map(|(k, v)| (&**k, v.as_str())).collect();
    assert_eq!(extras, [("custom", "c1")]);
}

#[test]
fn predictions_require_a_blend_value_and_probabilities_in_range() {
    let no_blend = PREDICTIONS.replace(",0.58,", ",,");
    let (_, row, column, _) =
        corrupt_at(parse::predictions("p", Sport::Nba, ModelType::OverUnder, no_blend.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (1, "BLEND"));
    let high = PREDICTIONS.replace(",0.52,", ",1.5,");
    let (_, row, column, _) =
        corrupt_at(parse::predictions("p", Sport::Nba, ModelType::OverUnder, high.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (1, "XT"));
}

#[test]
fn odds_parse_and_a_malformed_last_updated_is_named() {
    let good = "match_id,date,time_est,away_team,home_team,home_money_line,away_money_line,last_updated\n\
m1,2025-11-22,19:30:00,a,b,-120,100,2025-11-22 15:00:00\n";
    let rows = parse::odds("odds/nba.csv", Sport::Nba, good.as_bytes()).unwrap();
    assert_eq!(rows[0].lines.get(LineField::HomeMoneyLine), Some(-120.0));
    assert_eq!(rows[0].game_id, "nba-20251122-a-b");
    let bad = good.replace("2025-11-22 15:00:00", "2025-11-22T15:00:00Z");
    let (object, row, column, _) = corrupt_at(parse::odds("odds/nba.csv", Sport::Nba, bad.as_bytes()).unwrap_err());
    assert_eq!(
        (object.as_str(), row, column.as_str()),
        ("odds/nba.csv", 1, "last_updated")
    );
}

#[test]
fn a_season_store_keeps_every_column_and_unknown_columns_in_order() {
    let table = parse::season(
        "seasons/nba/over_under/2025-26.csv",
        Sport::Nba,
        ModelType::OverUnder,
        nba_2025(),
        SEASON.as_bytes(),
    )
    .unwrap();
    assert_eq!(table.rows.len(), 2);
    assert_eq!(table.columns.len(), 20);
    let first = &table.rows[0];
    assert_eq!(first.stored_outcome, Some(1));
    assert_eq!(first.lines.get(LineField::OpenOverUnder), Some(0.0));
    assert_eq!(first.models.get(ModelColumn::Implied), None);
    assert_eq!(first.settlement_status.as_deref(), Some("settled"));
    assert_eq!(
        first.provenance.forecast_published_at.as_deref(),
        Some("2025-11-20T23:00:00Z")
    );
    let extras: Vec<_> = first.extras.iter().map(|(k, v)| (&**k, v.as_str())).collect();
    assert_eq!(extras, [("note", "hello"), ("zeta", "z1")]);
    assert!(!table.rows[1].has_final());
}

#[test]
fn a_season_store_refuses_a_row_of_another_season() {
    let bad = SEASON.replacen(",2025-26,regular,,", ",2024-25,regular,,", 1);
    let (_, row, column, reason) =
        corrupt_at(parse::season("s", Sport::Nba, ModelType::OverUnder, nba_2025(), bad.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (2, "season"));
    assert!(reason.contains("2024-25"));
}

#[test]
fn a_season_store_refuses_a_duplicate_game_key() {
    let line = SEASON.lines().nth(1).unwrap();
    let bad = format!("{SEASON}{line}\n");
    let (_, row, column, reason) =
        corrupt_at(parse::season("s", Sport::Nba, ModelType::OverUnder, nba_2025(), bad.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (3, "date,time_est,away_team,home_team"));
    assert!(reason.contains("row 1"));
}

#[test]
fn a_season_store_refuses_bad_numbers_times_outcomes_and_ragged_rows() {
    let cases = [
        (SEASON.replacen(",101,99,", ",101,ninety,", 1), 1, "home_score"),
        (
            SEASON.replacen("19:30:00,new_york", "7:30pm,new_york", 1),
            2,
            "time_est",
        ),
        (SEASON.replacen(",hello,1,", ",hello,2,", 1), 1, "over"),
        (SEASON.replacen(",z1\n", ",z1,extra\n", 1), 1, "*"),
        (
            SEASON.replacen(",2025-11-20T23:00:00Z,", ",yesterday,", 1),
            1,
            "forecast_published_at",
        ),
    ];
    for (body, want_row, want_col) in cases {
        let (_, row, column, _) =
            corrupt_at(parse::season("s", Sport::Nba, ModelType::OverUnder, nba_2025(), body.as_bytes()).unwrap_err());
        assert_eq!((row, column.as_str()), (want_row, want_col), "{body}");
    }
}

#[test]
fn market_prices_must_be_probabilities() {
    let good = "date,time_est,away_team,home_team,ticker,home_price,away_price,captured_at\n\
2025-11-22,19:30:00,a,b,KX-1,0.55,0.46,2025-11-22T15:00:00Z\n";
    assert_eq!(
        parse::market_prices("m", good.as_bytes()).unwrap()[0].home_price,
        Some(0.55)
    );
    let bad = good.replace("0.46", "46");
    let (_, row, column, _) = corrupt_at(parse::market_prices("m", bad.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (1, "away_price"));
}

const RELEASE: &str = r#"{"sport": "nba", "slate_date": "2026-11-21", "release_id": "nba-2026-11-21-r1",
  "run_started_at": "2026-11-21T13:02:11Z", "run_completed_at": null, "slate": "active",
  "source_as_of": "2026-11-21T12:55:00Z",
  "artifacts": {"predictions": "2026-11-21T13:38:00Z", "results": null, "summaries": null, "model_tracking": null},
  "markets": {"won_on_points": {"expected": true, "published_at": null, "release_id": null, "source_as_of": null,
    "held_games": ["2026-11-21 19:30:00 boston_celtics@new_york_knicks"], "odds_arrived_at": null, "predictions_rebuilt_at": null}}}"#;

#[test]
fn a_release_manifest_parses_and_must_match_its_key() {
    let date = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    let manifest = parse::release("r", Sport::Nba, date, RELEASE.as_bytes()).unwrap();
    assert!(manifest.run_completed_at.is_none());
    assert_eq!(manifest.markets[&ModelType::WonOnPoints].held_games.len(), 1);
    let (_, row, column, _) = corrupt_at(parse::release("r", Sport::Nhl, date, RELEASE.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (0, "sport"));
    let (_, _, _, reason) = corrupt_at(parse::release("r", Sport::Nba, date, b"{\"sport\":").unwrap_err());
    assert!(reason.contains("invalid JSON"));
}

#[test]
fn a_catalog_product_key_must_be_its_dataset_key() {
    let good = r#"{"products": [{"product_id": "nba_history", "sport": "nba", "filename": "nba_history.csv", "key": "datasets/nba/nba_history.csv", "refreshable": true}]}"#;
    assert_eq!(parse::catalog("c", good.as_bytes()).unwrap().products.len(), 1);
    let bad = good.replace("\"key\": \"datasets/nba/", "\"key\": \"datasets/mlb/");
    let (_, row, column, _) = corrupt_at(parse::catalog("c", bad.as_bytes()).unwrap_err());
    assert_eq!((row, column.as_str()), (1, "key"));
}

#[test]
fn collect_mode_reports_every_bad_cell_not_just_the_first() {
    let bad = SEASON
        .replacen(",101,99,", ",x,y,", 1)
        .replacen("19:30:00,new_york", "bad,new_york", 1);
    let mut problems = parse::Problems::collect_all("s");
    let table = parse::collect::season(
        Sport::Nba,
        ModelType::OverUnder,
        nba_2025(),
        bad.as_bytes(),
        &mut problems,
    );
    let found: Vec<_> = problems
        .into_vec()
        .into_iter()
        .map(corrupt_at)
        .map(|(_, r, c, _)| (r, c))
        .collect();
    assert_eq!(
        found,
        [
            (1, "away_score".to_owned()),
            (1, "home_score".to_owned()),
            (2, "time_est".to_owned())
        ]
    );
    assert_eq!(table.unwrap().rows.len(), 0, "rows with problems are left out");
}

/// Every parser entry point, fed the same bytes.
fn parse_everything(bytes: &[u8]) {
    let date = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    let _ = parse::teams("x", bytes);
    let _ = parse::scores("x", Sport::Nba, bytes);
    let _ = parse::odds("x", Sport::Nba, bytes);
    let _ = parse::market_prices("x", bytes);
    let _ = parse::release("x", Sport::Nba, date, bytes);
    let _ = parse::catalog("x", bytes);
    for mt in ModelType::ALL {
        let _ = parse::predictions("x", Sport::Mlb, *mt, bytes);
        let _ = parse::season("x", Sport::Mlb, *mt, SeasonLabel::starting(Sport::Mlb, 2025), bytes);
        let mut p = parse::Problems::collect_all("x");
        let _ = parse::collect::season(Sport::Nba, *mt, nba_2025(), bytes, &mut p);
    }
}

/// Header names and cell values the contract uses, so generated CSV reaches
/// deep into the parsers rather than failing on the header.
fn csv_like() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "date",
        "time_est",
        "away_team",
        "home_team",
        "season",
        "season_type",
        "status",
        "slug",
        "display_name",
        "abbreviation",
        "BLEND",
        "XT",
        "over",
        "over_under",
        "open_over_under",
        "match_id",
        "last_updated",
        "ticker",
        "home_price",
        "captured_at",
        "forecast_published_at",
        "model_training_through",
        "x",
    ]);
    let cells = prop::sample::select(vec![
        "",
        "0",
        "1",
        "1.5",
        "-110",
        "NaN",
        "inf",
        "2025-11-20",
        "2025-02-30",
        "19:30",
        "19:30:00",
        "2025",
        "2025-26",
        "regular",
        "final",
        "a_b",
        "A B",
        "2025-11-20T23:00:00Z",
        "2025-11-22 15:00:00",
        "\"q,\"\"x\"",
        "\u{e9}",
    ]);
    (
        prop::collection::vec(names, 0..12),
        prop::collection::vec(prop::collection::vec(cells, 0..14), 0..6),
    )
        .prop_map(|(header, rows)| {
            let mut out = header.join(",");
            for row in rows {
                out.push('\n');
                out.push_str(&row.join(","));
            }
            out
        })
}

proptest! {
    /// No byte sequence makes any parser panic: bad input is always a Corrupt error.
    #[test]
    fn no_parser_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        parse_everything(&bytes);
    }

    /// No CSV-shaped text built from contract names and values makes any parser panic.
    #[test]
    fn no_parser_panics_on_contract_shaped_csv(text in csv_like()) {
        parse_everything(text.as_bytes());
    }

    /// No arbitrary string makes any parser panic.
    #[test]
    fn no_parser_panics_on_arbitrary_strings(text in ".{0,300}") {
        parse_everything(text.as_bytes());
    }
}

#[test]
fn crlf_line_ends_and_a_utf8_byte_order_mark_are_accepted() {
    let crlf = format!("\u{feff}{}", TEAMS.replace('\n', "\r\n"));
    let table = parse::teams("t", crlf.as_bytes()).unwrap();
    assert_eq!(table.teams[1].abbreviation, "NYK");
}

#[test]
fn quoted_cells_may_hold_commas_and_quotes() {
    let quoted = "slug,display_name,abbreviation\nx_y,\"Smith, \"\"The\"\" Team\",XY\n";
    assert_eq!(
        parse::teams("t", quoted.as_bytes()).unwrap().teams[0].display_name,
        "Smith, \"The\" Team"
    );
}

/// A graded season stays cached for as long as it is used, so what a parsed
/// row keeps on the heap is what the cache budget pays per game: a team
/// name or a repeated text (provenance, quote source) is held once per
/// table, not once per row.
#[test]
fn a_parsed_season_holds_each_team_name_and_repeated_text_once() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/store/seasons/mlb/won_on_points/2024.csv"
    );
    let bytes = std::fs::read(path).unwrap();
    let label = SeasonLabel::parse(Sport::Mlb, "2024").unwrap();
    let (table, heap) = linecast_heap::measured(|| {
        parse::season(
            "seasons/mlb/won_on_points/2024.csv",
            Sport::Mlb,
            ModelType::WonOnPoints,
            label,
            &bytes,
        )
        .unwrap()
    });
    let rows = table.rows.len();
    assert!(rows > 100, "the fixture season has {rows} rows");
    let heap = heap.unwrap();
    let per_row = heap / rows as u64;
    let fixed = std::mem::size_of::<linecast_domain::SeasonRow>() as u64;
    eprintln!("parsed season: {rows} rows, {heap} heap bytes, {per_row} per row, row size {fixed}");

    // One allocation per distinct name or text: equal values share it.
    let mut names = std::collections::HashMap::<&str, *const u8>::new();
    for row in &table.rows {
        for name in [&row.key.away_team, &row.key.home_team] {
            let first = *names.entry(&**name).or_insert(name.as_ptr());
            assert_eq!(first, name.as_ptr(), "team {name} is held more than once");
        }
    }
    let mut texts = std::collections::HashMap::<&str, *const u8>::new();
    for text in table.rows.iter().flat_map(|r| r.texts()).flatten() {
        let first = *texts.entry(text).or_insert(text.as_ptr());
        assert_eq!(first, text.as_ptr(), "text {text} is held more than once");
    }

    // What a row costs: its fixed part, its two extras and its game id
    // (one string of its own, about 60 bytes), nothing per name or text.
    // Parsed with owned strings and nine `Option<f64>` model slots, this
    // fixture took 938 bytes per row (a 720-byte row); before the game id,
    // 700 bounded it.
    assert!(per_row <= 770, "{per_row} heap bytes per row (row size {fixed})");
}
