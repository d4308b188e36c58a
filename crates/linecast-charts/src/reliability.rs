//! The reliability diagram of a calibration: the diagonal, one line with a
//! point per non-empty bin for each model, and under it the bin counts of
//! the first model drawn. Drawn with plotters' SVG backend: inline
//! attributes only, no script, no fonts or images fetched.

use plotters::prelude::*;

/// The figures of one diagram.
#[derive(Debug, Clone, PartialEq)]
pub struct Reliability {
    /// The caption over the diagram.
    pub title: String,
    /// The models drawn, in drawing order (their colours follow it); the
    /// bin counts under the diagram are the first's.
    pub curves: Vec<Curve>,
}

/// One model's reliability.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The model's name, in the legend and the counts' caption.
    pub name: String,
    /// Games in its population.
    pub n: usize,
    /// Its Brier score, in the legend as given.
    pub brier: f64,
    /// Its reliability bins, lowest first.
    pub bins: Vec<Bin>,
}

/// One reliability bin, of width 0.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    pub lower: f64,
    /// Games in the bin.
    pub n: usize,
    /// Mean forecast; `None` for an empty bin (no point drawn).
    pub mean_predicted: Option<f64>,
    /// Share of the bin's games whose positive side won.
    pub observed_rate: Option<f64>,
}

/// A diagram could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DrawError(String);

/// Colours of the drawn models, in drawing order.
const PALETTE: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
    RGBColor(188, 189, 34),
];

/// The diagram of `figures`, as a standalone SVG document (720 × 720).
pub fn reliability_svg(figures: &Reliability) -> Result<String, DrawError> {
    let mut svg = String::new();
    draw(&mut svg, figures).map_err(|e| DrawError(e.to_string()))?;
    Ok(svg)
}

fn draw(svg: &mut String, figures: &Reliability) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (720, 720)).into_drawing_area();
    root.fill(&WHITE)?;
    let (upper, lower) = root.split_vertically(560);
    let mut chart = ChartBuilder::on(&upper)
        .caption(&figures.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..1f64, 0f64..1f64)?;
    chart
        .configure_mesh()
        .max_light_lines(1)
        .x_desc("forecast probability")
        .y_desc("observed rate")
        .draw()?;
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (1.0, 1.0)], BLACK.mix(0.4)))?
        .label("perfect calibration")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK.mix(0.4)));
    for (i, curve) in figures.curves.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        let points: Vec<(f64, f64)> = curve
            .bins
            .iter()
            .filter_map(|b| Some((b.mean_predicted?, b.observed_rate?)))
            .collect();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(2)))?
            .label(format!("{} (n = {}, Brier {})", curve.name, curve.n, curve.brier))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], colour.stroke_width(2)));
        chart.draw_series(points.iter().map(|&(x, y)| Circle::new((x, y), 4, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .draw()?;

    // The bin counts of the first model drawn.
    let first = figures.curves.first();
    let counts: Vec<(f64, usize)> = first.map_or_else(Vec::new, |c| c.bins.iter().map(|b| (b.lower, b.n)).collect());
    let most = counts.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let caption = first.map_or_else(|| "games per bin".to_owned(), |c| format!("{} games per bin", c.name));
    let mut bars = ChartBuilder::on(&lower)
        .caption(caption, ("sans-serif", 14))
        .margin(12)
        .x_label_area_size(24)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..1f64, 0usize..most)?;
    bars.configure_mesh().disable_x_mesh().max_light_lines(1).draw()?;
    bars.draw_series(
        counts
            .iter()
            .map(|&(lower, n)| Rectangle::new([(lower + 0.005, 0), (lower + 0.095, n)], PALETTE[0].mix(0.5).filled())),
    )?;
    root.present()?;
    Ok(())
}
