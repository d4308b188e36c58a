//! `GET /api/v1/models/{sport}/{model_type}/calibration`: the payload, every
//! source, bad parameters, a missing season and the SVG diagram. The
//! numbers are checked against the served `/results` rows of the same
//! season, recomputed here in the plainest way, so the endpoint and the
//! results agree row for row.

use reqwest::Method;
use serde_json::Value;

use crate::access::{Via, send};
use crate::helpers::assert_error_shape;
use crate::results::Session;

const BASE: &str = "/api/v1/models/nba/won_on_points/calibration";
const ORDER: [&str; 9] = ["IMPLIED", "BLEND", "AI", "CATB", "RF", "LGB", "LOGR", "XGB", "XT"];

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn round(x: f64, places: i32) -> f64 {
    let k = 10f64.powi(places);
    (x * k).round() / k
}

/// Brier and n of `column` over graded rows of a served results page,
/// computed from the rows as served: y is the outcome column.
fn brier_from_rows(rows: &[Value], column: &str, outcome: &str) -> (usize, f64) {
    let mut n = 0;
    let mut sum = 0.0;
    for row in rows.iter().filter(|r| r["graded"] == true) {
        let Some(p) = row[column].as_f64() else { continue };
        let y = match &row[outcome] {
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Number(x) => x.as_f64().unwrap(),
            Value::String(s) => s.parse::<f64>().unwrap(),
            other => panic!("outcome {other}"),
        };
        n += 1;
        sum += (p - y) * (p - y);
    }
    (n, sum / n as f64)
}

#[tokio::test]
async fn calibration_agrees_with_the_served_results_rows_and_lists_models_in_order() {
    let mut s = Session::start().await;
    let body = s.ok(BASE).await;
    let season = body["season"].as_str().unwrap().to_owned();
    assert_eq!(body["sport"], "nba");
    assert_eq!(body["model_type"], "won_on_points");
    assert_eq!(body["source"], "all");
    assert_eq!(body["bins"], 10);
    assert!(body["grading"]["brier"].is_string() && body["grading"]["graded_game"].is_string());
    assert!(body["last_updated"].as_str().unwrap().ends_with('Z'));

    let rows_page = s
        .ok(&format!(
            "/api/v1/results/nba/won_on_points?season={season}&limit=100000"
        ))
        .await;
    let rows = rows_page["results"].as_array().unwrap();
    let graded = rows.iter().filter(|r| r["graded"] == true).count();
    assert_eq!(body["games"], graded, "the population is the graded rows");

    let models = body["models"].as_array().unwrap();
    let names: Vec<&str> = models.iter().map(|m| m["model"].as_str().unwrap()).collect();
    let expected: Vec<&str> = ORDER.iter().copied().filter(|m| names.contains(m)).collect();
    assert_eq!(names, expected, "payload order");
    assert!(names.contains(&"BLEND") && names.contains(&"IMPLIED"), "{names:?}");
    for model in models {
        let name = model["model"].as_str().unwrap();
        let bins = model["reliability_bins"].as_array().unwrap();
        assert_eq!(bins.len(), 10, "{name}");
        let n: u64 = bins.iter().map(|b| b["n"].as_u64().unwrap()).sum();
        assert_eq!(
            model["n"].as_u64().unwrap(),
            n,
            "{name}: the bins partition the population"
        );
        for (k, b) in bins.iter().enumerate() {
            assert!((f(&b["lower"]) - k as f64 / 10.0).abs() < 1e-9);
            if b["n"] == 0 {
                assert!(b["observed_rate"].is_null() && b["ci_low"].is_null(), "{name} bin {k}");
            } else {
                assert!(f(&b["ci_low"]) <= f(&b["observed_rate"]) && f(&b["observed_rate"]) <= f(&b["ci_high"]));
            }
        }
        assert!(f(&model["log_loss"]) >= 0.0);
        if name == "IMPLIED" {
            assert!(model["skill_vs_market"].is_null());
        } else {
            assert!(model["skill_vs_market"]["n"].as_u64().unwrap() <= model["n"].as_u64().unwrap());
        }
        assert_eq!(
            model["clv"]["unit"], "probability_points",
            "moneyline CLV is in probability points"
        );
        // BLEND and the stored model columns are served in the rows: the
        // Brier score must agree with the rows to its 6 decimals.
        if name != "IMPLIED" {
            let (n, brier) = brier_from_rows(rows, name, "won_on_points");
            assert_eq!(model["n"].as_u64().unwrap() as usize, n, "{name}");
            assert!(
                (f(&model["brier"]) - round(brier, 6)).abs() < 1e-9,
                "{name}: {} vs {brier}",
                model["brier"]
            );
        }
    }
}

#[tokio::test]
async fn every_source_is_served_and_the_live_and_reconstructed_populations_are_within_all() {
    let mut s = Session::start().await;
    for (sport, model_type) in [
        ("nba", "won_on_spread"),
        ("nhl", "over_under"),
        ("mlb", "won_on_points"),
    ] {
        let base = format!("/api/v1/models/{sport}/{model_type}/calibration");
        let all = s.ok(&base).await;
        let mut parts = 0;
        for source in ["live", "reconstructed"] {
            let body = s.ok(&format!("{base}?source={source}")).await;
            assert_eq!(body["source"], source);
            assert_eq!(body["season"], all["season"]);
            parts += body["games"].as_u64().unwrap();
            if body["games"] == 0 {
                assert_eq!(body["models"], Value::Array(Vec::new()));
            }
        }
        assert!(parts > 0 && parts <= all["games"].as_u64().unwrap(), "{base}");
        let unit = if model_type == "won_on_points" {
            "probability_points"
        } else {
            "points"
        };
        for model in all["models"].as_array().unwrap() {
            assert_eq!(model["clv"]["unit"], unit, "{base}");
        }
        let explicit = s.ok(&format!("{base}?source=all&format=json")).await;
        assert_eq!(explicit, all);
    }
}

#[tokio::test]
async fn bad_parameters_are_400s_naming_them_and_a_season_without_a_store_is_a_404() {
    let mut s = Session::start().await;
    for (query, name) in [
        ("source=everything", "source"),
        ("from=later", "from"),
        ("format=png", "format"),
        ("format=svg&models=BLEND,ENSEMBLE", "models"),
        ("season=20x5", "season"),
    ] {
        let (status, body) = s.json(&format!("{BASE}?{query}")).await;
        let detail = assert_error_shape(status, &body, 400);
        assert!(detail.contains(name), "{query}: {detail}");
    }
    let (status, body) = s.json(&format!("{BASE}?season=1999-00")).await;
    let detail = assert_error_shape(status, &body, 404);
    assert!(detail.contains("1999-00") && !detail.contains('/'), "{detail}");
    let r = send(&s.app, Method::GET, BASE, Via::Nothing, None).await;
    assert_error_shape(r.status, &r.body, 401);
}

#[tokio::test]
async fn the_svg_reliability_diagram_parses_and_draws_one_line_per_model() {
    let mut s = Session::start().await;
    for (query, models) in [
        ("format=svg", vec!["BLEND", "IMPLIED"]),
        ("format=svg&models=AI,BLEND,XGB", vec!["AI", "BLEND", "XGB"]),
    ] {
        let res = s.response(&format!("{BASE}?{query}")).await;
        assert_eq!(res.status(), 200);
        assert_eq!(
            res.headers().get("content-type").unwrap().to_str().unwrap(),
            "image/svg+xml"
        );
        let etag = res.headers().get("etag").unwrap().to_str().unwrap().to_owned();
        let text = res.text().await.unwrap();
        let doc = roxmltree::Document::parse(&text).expect("the diagram is XML");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        // The legend names each model drawn, once.
        for model in &models {
            let labels = doc
                .descendants()
                .filter(|n| n.has_tag_name("text"))
                .filter(|n| {
                    n.text()
                        .is_some_and(|t| t.trim().starts_with(&format!("{model} (n = ")))
                })
                .count();
            assert_eq!(labels, 1, "{query}: legend of {model}");
        }
        // One line per model (drawn 2 px wide), and its legend swatch.
        let model_lines = doc
            .descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke-width") == Some("2"))
            .count();
        assert_eq!(
            model_lines,
            2 * models.len(),
            "{query}: a line and a legend swatch per model"
        );
        // Rendered once: the same request gets the same tag.
        let again = s.response(&format!("{BASE}?{query}")).await;
        assert_eq!(again.headers().get("etag").unwrap().to_str().unwrap(), etag);
    }
}

/// The `text` of each legend entry of a diagram, in document order: the
/// model names before ` (n = `.
fn legend(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the diagram is XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text()?.trim().split_once(" (n = ").map(|(model, _)| model.to_owned()))
        .collect()
}

#[tokio::test]
async fn the_diagram_of_a_set_of_models_is_one_body_whatever_order_they_are_named_in() {
    let mut s = Session::start().await;
    for (queries, drawn, counted) in [
        (
            vec![
                "format=svg&models=AI,BLEND,XGB",
                "format=svg&models=XGB,AI,BLEND",
                "format=svg&models=BLEND,XGB,AI,XGB",
            ],
            vec!["BLEND", "AI", "XGB"],
            "BLEND games per bin",
        ),
        (
            vec![
                "format=svg",
                "format=svg&models=BLEND,IMPLIED",
                "format=svg&models=IMPLIED,BLEND",
            ],
            vec!["IMPLIED", "BLEND"],
            "IMPLIED games per bin",
        ),
    ] {
        let mut first: Option<(String, Vec<u8>)> = None;
        for query in queries {
            let res = s.response(&format!("{BASE}?{query}")).await;
            assert_eq!(res.status(), 200, "{query}");
            let etag = res.headers().get("etag").unwrap().to_str().unwrap().to_owned();
            let bytes = res.bytes().await.unwrap().to_vec();
            let text = std::str::from_utf8(&bytes).unwrap();
            // Drawn (legend, colours, bin counts) in the payload's order.
            assert_eq!(legend(text), drawn, "{query}");
            assert!(text.contains(counted), "{query}: {counted}");
            match &first {
                None => first = Some((etag, bytes)),
                Some((tag, body)) => {
                    assert_eq!(&etag, tag, "{query}: one ETag");
                    assert!(&bytes == body, "{query}: byte-identical body");
                }
            }
        }
    }
}

#[tokio::test]
async fn the_diagram_is_sent_with_a_policy_allowing_nothing_and_nosniff_on_200_and_304() {
    let mut s = Session::start().await;
    let path = format!("{BASE}?format=svg&models=AI,BLEND");
    let res = s.response(&path).await;
    assert_eq!(res.status(), 200);
    let header = |res: &reqwest::Response, name: &str| {
        res.headers().get(name).map_or_else(
            || panic!("{} without {name}", res.status()),
            |v| v.to_str().unwrap().to_owned(),
        )
    };
    assert_eq!(header(&res, "content-security-policy"), "default-src 'none'");
    assert_eq!(header(&res, "x-content-type-options"), "nosniff");
    let etag = header(&res, "etag");
    let again = s
        .app
        .get_keyed(&path, &s.app.api_key, &[("If-None-Match", &etag)])
        .await;
    assert_eq!(again.status(), 304);
    assert_eq!(header(&again, "content-security-policy"), "default-src 'none'");
    assert_eq!(header(&again, "x-content-type-options"), "nosniff");
}
