//! The JSON shapes of the serde feature, spelled by hand from
//! `docs/payloads.md` (summary entries, tracking's recent games, per-model
//! maps, model names).

use linecast_domain::{ModelColumn, ModelType, Sport};
use serde_json::json;

use super::fixtures::{RowExt, game};
use crate::{Model, summarize, track};

#[test]
fn a_model_is_written_as_its_public_name() {
    assert_eq!(
        serde_json::to_value(Model::Column(ModelColumn::Blend)).unwrap(),
        json!("BLEND")
    );
    assert_eq!(serde_json::to_value(Model::Ensemble).unwrap(), json!("ENSEMBLE"));
    assert_eq!(Model::Column(ModelColumn::Xgb).to_string(), "XGB");
    assert_eq!(Model::Ensemble.to_string(), "ENSEMBLE");
}

#[test]
fn a_summary_entry_is_an_object_of_its_fields_in_order_with_nulls() {
    // One NBA moneyline game, home won 2-1 at −110/−110, BLEND alone at 0.6.
    let rows = [game("2026-11-01", "a", "b")
        .score(1.0, 2.0)
        .ml(-110.0, -110.0)
        .prob(ModelColumn::Blend, 0.6)];
    let s = summarize(&rows, Sport::Nba, ModelType::WonOnPoints);
    let blend = s
        .entries
        .iter()
        .find(|e| e.model == Model::Column(ModelColumn::Blend))
        .unwrap();
    let text = serde_json::to_string(blend).unwrap();
    // Key order is the payload's; the first keys spelled out.
    assert!(
        text.starts_with(r#"{"model":"BLEND","total_games":1,"wins":1,"losses":0,"abstained":0,"win %":100.0,"#),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    // No away pick: the away rate is null, not 0 and not absent.
    assert_eq!(v["away %"], serde_json::Value::Null);
    assert_eq!(v["home %"], json!(100.0));
    // EV 0.6 × (1 + 100/110) − 1 = 0.1455 ≥ 0.10: one bt bet, a count.
    assert_eq!(v["bt bets"], json!(1));
}

#[test]
fn a_recent_game_is_its_key_and_a_map_of_hits_by_model_name() {
    // Home favourite at −150 won: BLEND (0.6 home) hit; IMPLIED picks the
    // favourite and hit too.
    let rows = [game("2026-11-01", "a", "b")
        .score(1.0, 2.0)
        .ml(-150.0, 130.0)
        .prob(ModelColumn::Blend, 0.6)];
    let t = track(&rows, Sport::Nba, ModelType::WonOnPoints);
    let v = serde_json::to_value(&t.recent_games[0]).unwrap();
    assert_eq!(v["date"], json!("2026-11-01"));
    assert_eq!(v["away_team"], json!("a"));
    assert_eq!(v["home_team"], json!("b"));
    assert!(v["time_est"].is_string(), "{v}");
    assert_eq!(v["hits"]["BLEND"], json!(1));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 5, "{keys:?}");
    // The per-model map of the season snapshot is keyed by name as well.
    let snap = serde_json::to_value(&t.snapshot.season).unwrap();
    assert_eq!(snap["BLEND"]["n"], json!(1));
    assert_eq!(snap["BLEND"]["win_pct"], json!(100.0));
}
