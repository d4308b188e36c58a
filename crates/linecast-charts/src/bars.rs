//! Bar charts of request counts, drawn as inline SVG for the portal's
//! pages.
//!
//! Presentation attributes only (`fill`, `font-size`, ...), never a `style`
//! attribute or a `<style>` element, so the pages' CSP (`default-src 'self'`,
//! no inline style) holds. Each chart is an image with an accessible name
//! (`<title>`) and description (`<desc>`); the page shows the numbers in a
//! table beside it. Every text is escaped, though the portal passes only
//! dates and counts.

use std::fmt::Write as _;

use crate::numbers::grouped;

/// One bar: the full label (tooltips, the description), the short label
/// under the bar, and the count.
pub struct Bar {
    pub label: String,
    pub tick: String,
    pub value: u64,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 260.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 36.0;
/// Horizontal grid lines above the baseline.
const GRID_LINES: u64 = 4;

const BAR_FILL: &str = "#0b5cad";
const GRID_STROKE: &str = "#d5dae3";
const AXIS_STROKE: &str = "#4b5568";
const TEXT_FILL: &str = "#4b5568";

/// The top of the value axis: the smallest 1, 2 or 5 × 10ⁿ step whose
/// [`GRID_LINES`] multiples reach `max` (at least 1 per line).
fn axis_top(max: u64) -> u64 {
    let want = max.div_ceil(GRID_LINES).max(1);
    let mut magnitude: u64 = 1;
    loop {
        for factor in [1, 2, 5] {
            let step = magnitude.saturating_mul(factor);
            if step >= want {
                return step.saturating_mul(GRID_LINES);
            }
        }
        magnitude = magnitude.saturating_mul(10);
    }
}

/// XML text and attribute escaping.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An inline `<svg>` bar chart of `bars`, named `title`, described by
/// `description`; `id` prefixes the ids of its title and description (unique
/// per page).
pub fn bar_chart(id: &str, title: &str, description: &str, bars: &[Bar]) -> String {
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let top = axis_top(bars.iter().map(|b| b.value).max().unwrap_or(0));
    let baseline = TOP + plot_h;
    let id = escape(id);
    let mut svg = String::with_capacity(512 + bars.len() * 256);
    // `write!` to a String cannot fail.
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="{id}-title {id}-desc" font-family="system-ui, sans-serif" font-size="11"><title id="{id}-title">{}</title><desc id="{id}-desc">{}</desc>"#,
        escape(title),
        escape(description),
    );
    for line in 0..=GRID_LINES {
        let value = top / GRID_LINES * line;
        let y = baseline - plot_h * line as f64 / GRID_LINES as f64;
        let stroke = if line == 0 { AXIS_STROKE } else { GRID_STROKE };
        let _ = write!(
            svg,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{stroke}" stroke-width="1"/><text x="{:.1}" y="{:.1}" text-anchor="end" fill="{TEXT_FILL}">{}</text>"#,
            WIDTH - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            grouped(value),
        );
    }
    let slot = plot_w / bars.len().max(1) as f64;
    for (i, bar) in bars.iter().enumerate() {
        let x = LEFT + slot * i as f64;
        let height = plot_h * bar.value as f64 / top as f64;
        let _ = write!(
            svg,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{height:.1}" fill="{BAR_FILL}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" fill="{TEXT_FILL}">{}</text>"#,
            x + slot * 0.15,
            baseline - height,
            slot * 0.7,
            escape(&bar.label),
            requests(bar.value),
            x + slot / 2.0,
            baseline + 16.0,
            escape(&bar.tick),
        );
    }
    svg.push_str("</svg>");
    svg
}

/// `n requests` (one request).
pub fn requests(n: u64) -> String {
    if n == 1 {
        "1 request".to_owned()
    } else {
        format!("{} requests", grouped(n))
    }
}

/// A sentence summing up `bars`: the total and the busiest bar.
pub fn summary(bars: &[Bar]) -> String {
    let total = bars.iter().fold(0_u64, |a, b| a.saturating_add(b.value));
    // The first of equal maxima: `max_by_key` keeps the last.
    let busiest = bars.iter().rev().max_by_key(|b| b.value).filter(|b| b.value > 0);
    match busiest {
        Some(b) => format!(
            "{} in all; most on {} ({}).",
            requests(total),
            b.label,
            grouped(b.value)
        ),
        None => "No requests.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn bars(values: &[u64]) -> Vec<Bar> {
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
    fn the_axis_top_is_a_round_number_at_or_above_the_largest_bar() {
        assert_eq!(axis_top(0), 4);
        assert_eq!(axis_top(3), 4);
        assert_eq!(axis_top(5), 8);
        assert_eq!(axis_top(9), 20);
        assert_eq!(axis_top(200_000), 200_000);
        assert_eq!(axis_top(200_001), 400_000);
        for max in [1, 7, 19, 101, 12_345, 999_999] {
            assert!(axis_top(max) >= max, "{max}");
        }
    }

    #[test]
    fn a_chart_has_one_bar_per_value_a_name_and_no_inline_style() {
        let svg = bar_chart("daily", "Requests per day", "3 requests in all.", &bars(&[0, 2, 1]));
        assert!(svg.starts_with("<svg "));
        assert!(svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect ").count(), 3);
        assert!(svg.contains(r#"role="img" aria-labelledby="daily-title daily-desc""#));
        assert!(svg.contains(r#"<title id="daily-title">Requests per day</title>"#));
        assert!(svg.contains("<title>2026-11-02: 2 requests</title>"));
        assert!(svg.contains("<title>2026-11-03: 1 request</title>"));
        for inline in [" style=", "<style", "<script", "javascript:", "onload"] {
            assert!(!svg.contains(inline), "{inline}");
        }
    }

    #[test]
    fn the_tallest_bar_fills_its_share_of_the_axis_and_an_empty_one_is_flat() {
        let svg = bar_chart("c", "t", "d", &bars(&[4, 0]));
        let plot_h = HEIGHT - TOP - BOTTOM;
        assert!(svg.contains(&format!(r#"height="{plot_h:.1}""#)), "{svg}");
        assert!(svg.contains(r#"height="0.0""#));
    }

    #[test]
    fn counts_in_a_chart_are_grouped_in_threes() {
        let svg = bar_chart("c", "t", "d", &bars(&[12_345, 0]));
        assert!(svg.contains("<title>2026-11-01: 12,345 requests</title>"), "{svg}");
        // The axis: 0, 5,000, 10,000, 15,000, 20,000.
        for label in [">5,000</text>", ">20,000</text>"] {
            assert!(svg.contains(label), "{label}: {svg}");
        }
        assert!(!svg.contains(">20000<"), "{svg}");
    }

    #[test]
    fn text_is_escaped() {
        let svg = bar_chart("c", "a < b & \"c\"", "d", &[]);
        assert!(svg.contains("a &lt; b &amp; &quot;c&quot;"));
    }

    #[test]
    fn the_summary_names_the_total_and_the_first_busiest_bar() {
        assert_eq!(summary(&bars(&[1, 3, 3])), "7 requests in all; most on 2026-11-02 (3).");
        assert_eq!(
            summary(&bars(&[1_200, 198_378])),
            "199,578 requests in all; most on 2026-11-02 (198,378)."
        );
        assert_eq!(summary(&bars(&[0, 0])), "No requests.");
    }
}
