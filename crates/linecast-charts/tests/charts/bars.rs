//! The portal's bar charts.

use linecast_charts::bars::{Bar, bar_chart, summary};

use crate::assert_snapshot;

fn days(values: &[u64]) -> Vec<Bar> {
    values
        .iter()
        .enumerate()
        .map(|(i, &value)| Bar {
            label: format!("2026-11-{:02}", i + 1),
            tick: (i + 1).to_string(),
            value,
        })
        .collect()
}

#[test]
fn a_bar_chart_is_the_same_svg_for_the_same_counts() {
    let bars = days(&[3, 0, 7, 12, 1, 1, 0]);
    let svg = bar_chart("daily", "Requests per day", &summary(&bars), &bars);
    assert_snapshot("bars_daily.svg", &svg);
}

#[test]
fn a_bar_chart_is_well_formed_xml_with_a_bar_and_a_tick_per_count() {
    let bars = days(&[5, 0, 9]);
    let svg = bar_chart("monthly", "Requests per month", &summary(&bars), &bars);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("role"), Some("img"));
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("rect")).count(), 3);
    let ticks: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text") && n.attribute("text-anchor") == Some("middle"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(ticks, ["1", "2", "3"]);
    let desc = doc.descendants().find(|n| n.has_tag_name("desc")).unwrap();
    assert_eq!(desc.text(), Some("14 requests in all; most on 2026-11-03 (9)."));
}
