//! The reliability diagram.

use linecast_charts::{Bin, Curve, Reliability, reliability_svg};

use crate::assert_snapshot;

/// Ten bins of width 0.1 around the diagonal, `shift` off it; bin `empty`
/// holds no game.
fn curve(name: &str, n: usize, brier: f64, shift: f64, empty: u32) -> Curve {
    let bins = (0..10_u32)
        .map(|k| {
            let lower = f64::from(k) / 10.0;
            let games = if k == empty { 0 } else { 3 + (k * 7) % 11 };
            let mid = lower + 0.05;
            Bin {
                lower,
                n: games as usize,
                mean_predicted: (games > 0).then_some(mid),
                observed_rate: (games > 0).then_some((mid + shift).clamp(0.0, 1.0)),
            }
        })
        .collect();
    Curve {
        name: name.to_owned(),
        n,
        brier,
        bins,
    }
}

fn figures(curves: Vec<Curve>) -> Reliability {
    Reliability {
        title: "Reliability: nba won_on_points 2025-26 (all, 412 games)".to_owned(),
        curves,
    }
}

#[test]
fn a_diagram_is_the_same_svg_for_the_same_figures() {
    let svg = reliability_svg(&figures(vec![
        curve("IMPLIED", 412, 0.2391, 0.0, 0),
        curve("BLEND", 398, 0.2377, -0.04, 9),
    ]))
    .unwrap();
    assert_snapshot("reliability_implied_blend.svg", &svg);
    let again = reliability_svg(&figures(vec![
        curve("IMPLIED", 412, 0.2391, 0.0, 0),
        curve("BLEND", 398, 0.2377, -0.04, 9),
    ]))
    .unwrap();
    assert_eq!(svg, again);
}

#[test]
fn a_diagram_draws_a_line_and_a_legend_entry_per_curve_and_one_point_per_non_empty_bin() {
    let svg = reliability_svg(&figures(vec![
        curve("AI", 300, 0.25, 0.03, 2),
        curve("BLEND", 398, 0.2377, -0.04, 9),
        curve("XGB", 380, 0.2412, 0.01, 10),
    ]))
    .unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the diagram is XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let text = |n: roxmltree::Node<'_, '_>| n.text().unwrap_or("").trim().to_owned();
    let texts: Vec<String> = doc.descendants().filter(|n| n.has_tag_name("text")).map(text).collect();
    for legend in [
        "AI (n = 300, Brier 0.25)",
        "BLEND (n = 398, Brier 0.2377)",
        "XGB (n = 380, Brier 0.2412)",
    ] {
        assert_eq!(texts.iter().filter(|t| *t == legend).count(), 1, "{legend}");
    }
    assert!(texts.iter().any(|t| t == "perfect calibration"));
    assert!(
        texts.iter().any(|t| t == "AI games per bin"),
        "the counts are the first curve's"
    );
    // A line and a legend swatch per curve, drawn 2 px wide.
    let lines = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke-width") == Some("2"))
        .count();
    assert_eq!(lines, 6);
    // A point per non-empty bin: 9 + 9 + 10.
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 28);
    for inline in ["<script", "<style", "javascript:", "<image", "href="] {
        assert!(!svg.contains(inline), "{inline}");
    }
}

#[test]
fn a_diagram_without_curves_still_draws_its_axes_and_an_empty_count_panel() {
    let svg = reliability_svg(&figures(Vec::new())).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("the diagram is XML");
    assert!(
        doc.descendants()
            .any(|n| n.has_tag_name("text") && n.text().is_some_and(|t| t.trim() == "games per bin"))
    );
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("circle")).count(), 0);
}
