//! Every generated object follows `docs/data-contract.md`.

use std::collections::BTreeMap;

use linecast_demo::latest_season;
use linecast_domain::artifacts::{ProductCatalog, ReleaseManifest, SlateKind, keys};
use linecast_domain::{LineField, ModelType, SeasonLabel, Sport};
use proptest::prelude::*;

use crate::{Table, fixture_options, fixture_store, small, tables};

#[test]
fn every_object_of_the_data_contract_is_generated() {
    let store = fixture_store();
    let today = fixture_options().today;
    for sport in Sport::ALL {
        let mut expected = vec![
            keys::teams(*sport),
            keys::scores(*sport),
            keys::odds(*sport),
            keys::release(*sport, today),
            keys::dataset(*sport, &format!("{sport}_history.csv")),
        ];
        if sport.has_prediction_market() {
            expected.push(keys::markets(*sport));
        }
        let latest = latest_season(*sport, today);
        for mt in ModelType::ALL {
            expected.push(keys::predictions(*sport, *mt));
            for back in 0..3 {
                expected.push(keys::season(
                    *sport,
                    *mt,
                    SeasonLabel::starting(*sport, latest.start_year() - back),
                ));
            }
        }
        for key in expected {
            assert!(store.contains_key(&key), "missing {key}");
        }
        let releases = store
            .keys()
            .filter(|k| k.starts_with(&format!("releases/{sport}/")))
            .count();
        assert_eq!(releases, 7, "{sport}");
    }
    assert!(store.contains_key(keys::PRODUCT_CATALOG));
}

#[test]
fn season_store_headers_carry_every_contract_column_and_the_season_of_their_key() {
    let store = fixture_store();
    for (key, t) in tables(store, "seasons/") {
        let mt = ModelType::parse(key.split('/').nth(2).unwrap()).unwrap();
        let mut required = vec![
            "date",
            "time_est",
            "season",
            "season_type",
            "away_team",
            "home_team",
            "away_score",
            "home_score",
            mt.outcome_column(),
        ];
        required.extend(LineField::ALL.iter().map(|f| f.name()));
        required.extend([
            "BLEND",
            "IMPLIED",
            "CATB",
            "RF",
            "LGB",
            "LOGR",
            "XGB",
            "XT",
            "quote_source",
            "settlement_status",
            "model_probability_source",
            "model_training_through",
            "model_reconstruction_method",
            "forecast_source",
            "forecast_run",
            "forecast_published_at",
        ]);
        for c in required {
            assert!(t.col(c).is_some(), "{key} lacks {c}");
        }
        let season = key.rsplit('/').next().unwrap().trim_end_matches(".csv");
        let mut keys = Vec::new();
        for r in &t.rows {
            assert_eq!(t.get(r, "season"), season, "{key}");
            keys.push((
                t.get(r, "date"),
                t.get(r, "time_est"),
                t.get(r, "away_team"),
                t.get(r, "home_team"),
            ));
        }
        let n = keys.len();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), n, "{key}: game keys are unique");
    }
}

/// Checks the stored outcome of every row of every season store against its
/// scores and lines; returns how many pushes were seen.
fn check_outcomes(store: &BTreeMap<String, Vec<u8>>) -> usize {
    let mut pushes = 0;
    for (key, t) in tables(store, "seasons/") {
        let mt = ModelType::parse(key.split('/').nth(2).unwrap()).unwrap();
        for r in &t.rows {
            let stored = t.get(r, mt.outcome_column());
            let (Some(h), Some(a)) = (t.num(r, "home_score"), t.num(r, "away_score")) else {
                assert_eq!(stored, "", "{key}: outcome without a final");
                continue;
            };
            let margin = match mt {
                ModelType::WonOnPoints => t
                    .num(r, "home_money_line")
                    .or(t.num(r, "away_money_line"))
                    .map(|_| h - a),
                ModelType::WonOnSpread => t.num(r, "home_point_spread").map(|s| h + s - a),
                ModelType::OverUnder => t.num(r, "over_under").map(|ou| h + a - ou),
            };
            match margin {
                None => assert_eq!(stored, "", "{key}: outcome without a line"),
                Some(m) => {
                    if m == 0.0 {
                        pushes += 1;
                    }
                    assert_eq!(stored, if m > 0.0 { "1" } else { "0" }, "{key} {r:?}");
                }
            }
        }
    }
    pushes
}

#[test]
fn stored_outcomes_agree_with_scores_and_lines_and_pushes_read_zero() {
    assert!(check_outcomes(fixture_store()) > 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    /// For any seed and any date, every stored outcome is the one the scores
    /// and the posted line give, a push reads 0, and no row without a final
    /// or a line carries an outcome.
    #[test]
    fn outcomes_are_consistent_for_any_seed_and_date(seed in 0u64..10_000, day in 0i64..730) {
        let today = chrono::NaiveDate::from_ymd_opt(2025, 1, 1).unwrap() + chrono::Duration::days(day);
        check_outcomes(&small(seed, &today.format("%Y-%m-%d").to_string()));
    }
}

#[test]
fn release_manifests_and_the_catalog_parse_as_the_domain_types() {
    let store = fixture_store();
    let today = fixture_options().today;
    for (key, bytes) in store.iter().filter(|(k, _)| k.starts_with("releases/")) {
        let m: ReleaseManifest = serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert!(m.run_completed_at.is_some(), "{key}");
        if m.slate == SlateKind::OffDay {
            assert!(m.markets.values().all(|mk| !mk.expected && mk.published_at.is_none()));
        }
    }
    let mlb: ReleaseManifest = serde_json::from_slice(&store[&keys::release(Sport::Mlb, today)]).unwrap();
    assert_eq!(mlb.slate, SlateKind::OffDay, "mlb is out of season in November");
    let catalog: ProductCatalog = serde_json::from_slice(&store[keys::PRODUCT_CATALOG]).unwrap();
    for p in &catalog.products {
        assert!(store.contains_key(&p.key), "{}", p.key);
    }
    assert!(catalog.products.iter().any(|p| !p.refreshable));
}

#[test]
fn predictions_hold_yesterday_today_and_tomorrow_but_not_the_day_before_for_a_league_in_season() {
    let store = fixture_store();
    let t = Table::parse(&store["predictions/nba/won_on_points.csv"]);
    let dates: Vec<&str> = t.rows.iter().map(|r| t.get(r, "date")).collect();
    for d in ["2026-11-14", "2026-11-15", "2026-11-16"] {
        assert!(dates.contains(&d), "{d} in {dates:?}");
    }
    // A game leaves the releases when the New York day after its own ends.
    assert!(!dates.contains(&"2026-11-13"), "{dates:?}");
    assert!(t.rows.iter().all(|r| !t.get(r, "BLEND").is_empty()));
    let store_rows = Table::parse(&store["seasons/nba/won_on_points/2026-27.csv"]);
    let today_rows: Vec<_> = store_rows
        .rows
        .iter()
        .filter(|r| store_rows.get(r, "date") == "2026-11-15")
        .collect();
    assert!(!today_rows.is_empty());
    assert!(
        today_rows
            .iter()
            .all(|r| store_rows.get(r, "home_score").is_empty() && store_rows.get(r, "settlement_status").is_empty())
    );
    let tape = Table::parse(&store["scores/nba.csv"]);
    assert!(
        tape.rows
            .iter()
            .any(|r| tape.get(r, "status") == "scheduled" && tape.get(r, "date") > "2026-11-16"),
        "the tape carries the rest of the schedule"
    );
}

#[test]
fn team_columns_use_the_league_team_table() {
    let store = fixture_store();
    for sport in Sport::ALL {
        let teams = Table::parse(&store[&keys::teams(*sport)]);
        let slugs: Vec<&str> = teams.rows.iter().map(|r| teams.get(r, "slug")).collect();
        let tape = Table::parse(&store[&keys::scores(*sport)]);
        for r in &tape.rows {
            assert!(slugs.contains(&tape.get(r, "home_team")) && slugs.contains(&tape.get(r, "away_team")));
        }
    }
}
