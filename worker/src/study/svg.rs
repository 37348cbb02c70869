//! The report's figures as small, self-contained SVG files: a scatter of points with an
//! optional diagonal, and lines of (x, y) points. Numbers are written with fixed decimals, so
//! the same data give the same bytes.

/// One named series of points.
pub struct Series<'a> {
    pub name: &'a str,
    pub colour: &'a str,
    pub points: Vec<(f64, f64)>,
}

/// A figure's titles.
pub struct Axes<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub y: &'a str,
}

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Ticks: about five round numbers covering [lo, hi].
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * magnitude);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Draws `series` as markers (`lines` false) or as lines with markers, on axes fitted to the
/// data; with `diagonal`, the line y = x.
pub fn plot(axes: &Axes, series: &[Series], lines: bool, diagonal: bool) -> String {
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied())
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .collect();
    let (mut x0, mut x1, mut y0, mut y1) = all.iter().fold(
        (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ),
        |(a, b, c, d), &(x, y)| (a.min(x), b.max(x), c.min(y), d.max(y)),
    );
    if all.is_empty() {
        (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if diagonal {
        (x0, y0) = (x0.min(y0), x0.min(y0));
        (x1, y1) = (x1.max(y1), x1.max(y1));
    }
    let pad = |lo: f64, hi: f64| {
        let p = ((hi - lo) * 0.05).max(1e-9);
        (lo - p, hi + p)
    };
    let ((x0, x1), (y0, y1)) = (pad(x0, x1), pad(y0, y1));
    let px = |x: f64| LEFT + (x - x0) / (x1 - x0) * (WIDTH - LEFT - RIGHT);
    let py = |y: f64| HEIGHT - BOTTOM - (y - y0) / (y1 - y0) * (HEIGHT - TOP - BOTTOM);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{:.1}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n",
        WIDTH / 2.0,
        escape(axes.title)
    );
    for t in ticks(x0, x1) {
        svg.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\">{4}</text>\n",
            px(t),
            TOP,
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 16.0,
            trim(t)
        ));
    }
    for t in ticks(y0, y1) {
        svg.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{2:.1}\" y2=\"{1:.1}\" stroke=\"#ddd\"/>\
             <text x=\"{3:.1}\" y=\"{4:.1}\" text-anchor=\"end\">{5}</text>\n",
            LEFT,
            py(t),
            WIDTH - RIGHT,
            LEFT - 6.0,
            py(t) + 4.0,
            trim(t)
        ));
    }
    svg.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n\
         <text transform=\"translate(16 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
        (LEFT + WIDTH - RIGHT) / 2.0,
        HEIGHT - 18.0,
        escape(axes.x),
        (TOP + HEIGHT - BOTTOM) / 2.0,
        escape(axes.y)
    ));
    if diagonal {
        let (lo, hi) = (x0.max(y0), x1.min(y1));
        svg.push_str(&format!(
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#888\" stroke-dasharray=\"4 4\"/>\n",
            px(lo),
            py(lo),
            px(hi),
            py(hi)
        ));
    }
    for (k, s) in series.iter().enumerate() {
        let points: Vec<String> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        if lines && points.len() > 1 {
            svg.push_str(&format!(
                "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
                s.colour,
                points.join(" ")
            ));
        }
        for p in &points {
            let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
            svg.push_str(&format!(
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" fill=\"{}\" fill-opacity=\"0.7\"/>\n",
                s.colour
            ));
        }
        // The legend, top right.
        let ly = TOP + 14.0 + 16.0 * k as f64;
        let lx = WIDTH - RIGHT - 190.0;
        svg.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text>\n",
            lx,
            ly - 9.0,
            s.colour,
            lx + 16.0,
            ly,
            escape(s.name)
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

/// A tick label without trailing zeros.
fn trim(t: f64) -> String {
    let text = format!("{t:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".to_owned()
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_the_figure_is_deterministic() {
        assert_eq!(
            ticks(0.0, 1.0),
            [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(
            ticks(1180.0, 1730.0),
            [1200.0, 1300.0, 1400.0, 1500.0, 1600.0, 1700.0]
        );
        let series = [Series {
            name: "a <b>",
            colour: "#1f77b4",
            points: vec![(0.0, 0.1), (1.0, 0.9), (f64::NAN, 0.0)],
        }];
        let axes = Axes {
            title: "t",
            x: "x",
            y: "y",
        };
        let svg = plot(&axes, &series, true, true);
        assert_eq!(svg, plot(&axes, &series, true, true));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains("a &lt;b&gt;"));
        assert!(svg.contains("stroke-dasharray"));
    }
}
