//! SVG charts: a forest plot of ratings with intervals, a scatter of residuals, a reliability
//! diagram, a cross-validation curve, lines (routing curves, label budgets), share bars and
//! rank slopes. Every axis has round ticks with gridlines and a title; the text is 12 px: a
//! chart is laid out for the width the window gives it ([`fitted`]) rather than shrunk with
//! its text on a phone, and names too long for its label column are cut with "…" (whole in the
//! row's hover title). Each mark carries a `<title>` with its exact numbers (shown on hover);
//! and the charts of numbers that have no table beside them offer their data as a CSV download
//! ([`ChartData`]).

use crate::files::data_url;
use crate::glossary::term;
use leptos::prelude::*;

const WIDTH: f64 = 520.0;
const ROW: f64 = 16.0;
const LABEL: f64 = 215.0;
const PAD: f64 = 24.0;

/// The width a chart drawn `natural` wide gets: all of it where the window has room, else the
/// window's width less the page's margins and those of two cards, one inside the other (a
/// comparison's criterion in its report; at least 260).
fn fitted(natural: f64) -> f64 {
    let window = window()
        .inner_width()
        .ok()
        .and_then(|w| w.as_f64())
        .unwrap_or(f64::INFINITY);
    natural.min((window - 120.0).max(260.0))
}

/// The fewest decimals (up to 6) that print `step`'s multiples exactly.
fn decimals_of(step: f64) -> usize {
    (0..6)
        .find(|&d| {
            let scaled = step * 10f64.powi(d as i32);
            (scaled - scaled.round()).abs() < 1e-9 * scaled.abs().max(1.0)
        })
        .unwrap_or(6)
}

/// An axis covering [lo, hi] with 4 to 6 round ticks (1, 2, 2.5 or 5 times a power of ten
/// apart), the first and last of which are its ends: (start, end, ticks, decimals).
fn nice_axis(lo: f64, hi: f64) -> (f64, f64, Vec<f64>, usize) {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return (lo, hi, Vec::new(), 0);
    }
    let raw = (hi - lo) / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0] {
        let step = m * magnitude;
        if step < raw {
            continue;
        }
        let (first, last) = ((lo / step).floor() as i64, (hi / step).ceil() as i64);
        if last - first <= 5 {
            let ticks = (first..=last).map(|k| k as f64 * step).collect();
            return (
                first as f64 * step,
                last as f64 * step,
                ticks,
                decimals_of(step),
            );
        }
    }
    (lo, hi, vec![lo, hi], decimals_of(hi - lo))
}

/// About `n` round values (1, 2 or 5 times a power of ten apart) covering [lo, hi], and the
/// decimals that print them.
fn nice_ticks(lo: f64, hi: f64, n: usize) -> (Vec<f64>, usize) {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return (vec![lo].into_iter().filter(|v| v.is_finite()).collect(), 0);
    }
    let raw = (hi - lo) / n.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let (first, last) = ((lo / step).ceil() as i64, (hi / step).floor() as i64);
    ((first..=last).map(|k| k as f64 * step).collect(), decimals)
}

/// The smallest and largest finite values, or (0, 1) for none.
fn finite_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

/// `(lo, hi)` widened to at least `min_width`, about its middle.
fn at_least(lo: f64, hi: f64, min_width: f64) -> (f64, f64) {
    if hi - lo >= min_width {
        (lo, hi)
    } else {
        let mid = (lo + hi) / 2.0;
        (mid - min_width / 2.0, mid + min_width / 2.0)
    }
}

/// Horizontal gridlines at about `n` round values of [y0, y1] from x = `left` to `right`, each
/// labelled left of `left`; `py` maps a value to its height.
fn y_grid(
    y0: f64,
    y1: f64,
    n: usize,
    (left, right): (f64, f64),
    py: impl Fn(f64) -> f64,
) -> impl IntoView {
    let (ticks, decimals) = nice_ticks(y0, y1, n);
    ticks
        .into_iter()
        .map(|t| {
            view! {
                <line x1=left x2=right y1=py(t) y2=py(t) class="grid" />
                <text x=left - 4.0 y=py(t) + 4.0 text-anchor="end" class="tick">{format!("{t:.decimals$}")}</text>
            }
        })
        .collect_view()
}

/// The y axis' title, turned, left of its tick labels (which end `left` − 4), halfway down
/// the plot area [top, bottom].
fn y_title(text: String, left: f64, (top, bottom): (f64, f64)) -> impl IntoView {
    let (x, y) = (left - 44.0, (top + bottom) / 2.0);
    view! { <text transform=format!("translate({x} {y}) rotate(-90)") text-anchor="middle" class="axis-title">{text}</text> }
}

/// A row label that fits in `room` px of 12 px text (about 6.6 px a character, at most 30
/// characters), cut with "…" (the row's hover title has it whole).
fn short_label(label: &str, room: f64) -> String {
    let fits = ((room / 6.6) as usize).clamp(4, 30);
    if label.chars().count() <= fits {
        label.to_owned()
    } else {
        label.chars().take(fits - 1).chain(['…']).collect()
    }
}

/// The CSV rows `series,x,y` of named series of points.
fn series_csv(series: &[(String, Vec<(f64, f64)>)]) -> Vec<String> {
    series
        .iter()
        .flat_map(|(name, points)| {
            points
                .iter()
                .map(move |(x, y)| format!("{},{x},{y}", field(name)))
        })
        .collect()
}

/// A link that downloads a chart's numbers as CSV (`header`, then one line per row).
#[component]
pub fn ChartData(name: &'static str, header: &'static str, rows: Vec<String>) -> impl IntoView {
    let csv = std::iter::once(header.to_owned())
        .chain(rows)
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    view! {
        <a class="chart-data" download=format!("{name}.csv") href=data_url("text/csv", &csv)>
            "Chart data (CSV)"
        </a>
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line end.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

/// One row of a forest plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ForestRow {
    pub label: String,
    pub estimate: f64,
    /// A thin whisker (e.g. the bootstrap CI).
    pub ci: Option<(f64, f64)>,
    /// A wide translucent band (e.g. the conformal interval).
    pub band: Option<(f64, f64)>,
    /// A reference value drawn as a diamond (e.g. the human Elo).
    pub reference: Option<f64>,
}

impl ForestRow {
    /// The row's numbers in words, for its hover title.
    fn title(&self) -> String {
        let mut text = format!("{}: {:.1}", self.label, self.estimate);
        if let Some((a, b)) = self.ci {
            text.push_str(&format!(" [{a:.1}, {b:.1}]"));
        }
        if let Some((a, b)) = self.band {
            text.push_str(&format!(", band [{a:.1}, {b:.1}]"));
        }
        if let Some(r) = self.reference {
            text.push_str(&format!(", reference {r:.1}"));
        }
        text
    }
}

/// Ratings in rows (in the given order) with optional whiskers, bands and reference marks, on
/// the ratings' own scale (an anchored leaderboard's included) with 4–6 round ticks, gridlines
/// and the axis' title `axis`.
#[component]
pub fn ForestPlot(
    rows: Vec<ForestRow>,
    #[prop(into)] axis: String,
    #[prop(into)] caption: String,
) -> impl IntoView {
    let values = rows.iter().flat_map(|r| {
        [r.estimate]
            .into_iter()
            .chain(r.ci.into_iter().flat_map(|(a, b)| [a, b]))
            .chain(r.band.into_iter().flat_map(|(a, b)| [a, b]))
            .chain(r.reference)
    });
    let (lo, hi) = finite_range(values);
    let (lo, hi) = at_least(lo, hi, 1.0);
    let (lo, hi, ticks, decimals) = nice_axis(lo, hi);
    let width = fitted(WIDTH);
    let label = LABEL.min(0.4 * width);
    let x = move |v: f64| label + (v - lo) / (hi - lo) * (width - label - PAD);
    let axis_y = ROW * rows.len() as f64 + 1.5 * PAD;
    let height = axis_y + 2.0 + PAD;
    let grid = ticks
        .into_iter()
        .map(|t| {
            view! {
                <line x1=x(t) x2=x(t) y1=PAD / 2.0 y2=axis_y - PAD / 2.0 class="grid" />
                <text x=x(t) y=axis_y text-anchor="middle" class="tick">{format!("{t:.decimals$}")}</text>
            }
        })
        .collect_view();
    // An open end (±∞) is drawn to the chart's edge.
    let clip = move |v: f64| v.clamp(lo, hi);
    let marks = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let y = PAD + ROW * (i as f64 + 0.5);
            let band = r.band.map(|(a, b)| {
                view! { <rect x=x(clip(a)) y=y - 5.0 width=(x(clip(b)) - x(clip(a))).max(1.0) height="10" class="band" /> }
            });
            let ci = r
                .ci
                .map(|(a, b)| view! { <line x1=x(clip(a)) x2=x(clip(b)) y1=y y2=y class="whisker" /> });
            let reference = r.reference.map(|v| {
                let (cx, cy) = (x(v), y);
                view! {
                    <path d=format!("M{cx} {} L{} {cy} L{cx} {} L{} {cy} Z", cy - 4.0, cx + 4.0, cy + 4.0, cx - 4.0) class="reference" />
                }
            });
            view! {
                <g class="row">
                    <title>{r.title()}</title>
                    <text x=label - 8.0 y=y + 4.0 text-anchor="end" class="label">
                        {short_label(&r.label, label - 8.0)}
                    </text>
                    {band}
                    {ci}
                    <circle cx=x(r.estimate) cy=y r="3.5" class="dot" />
                    {reference}
                </g>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=caption.clone() viewBox=format!("0 0 {width} {height}") width=width height=height>
                {grid}
                <text x=label + (width - label - PAD) / 2.0 y=height - 4.0 text-anchor="middle" class="axis-title">{axis}</text>
                {marks}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}

/// A scatter of series of (x, y) points with a dashed line at y = 0, both axes ticked and
/// labelled; the points download as CSV.
#[component]
pub fn ScatterPlot(
    series: Vec<(String, Vec<(f64, f64)>)>,
    #[prop(into)] x_label: String,
    #[prop(into)] y_label: String,
) -> impl IntoView {
    const H: f64 = 300.0;
    const M: f64 = 48.0;
    const LEFT: f64 = 64.0;
    let w = fitted(520.0);
    let points = || series.iter().flat_map(|(_, p)| p.iter());
    let (x0, x1) = finite_range(points().map(|q| q.0));
    let (y0, y1) = finite_range(points().map(|q| q.1).chain([0.0]));
    let ((x0, x1), (y0, y1)) = (at_least(x0, x1, 1e-9), at_least(y0, y1, 1e-9));
    let px = move |v: f64| LEFT + (v - x0) / (x1 - x0) * (w - LEFT - M);
    let py = move |v: f64| H - M - (v - y0) / (y1 - y0) * (H - 2.0 * M);
    let (x_ticks, x_dec) = nice_ticks(x0, x1, 5);
    let grid = view! {
        {x_ticks.into_iter().map(|t| view! {
            <line x1=px(t) x2=px(t) y1=M y2=H - M class="grid" />
            <text x=px(t) y=H - M + 16.0 text-anchor="middle" class="tick">{format!("{t:.x_dec$}")}</text>
        }).collect_view()}
        {y_grid(y0, y1, 5, (LEFT, w - M), py)}
    };
    let csv = series_csv(&series);
    let marks = series
        .iter()
        .enumerate()
        .map(|(k, (name, pts))| {
            let class = format!("series s{k}");
            let dots = pts
                .iter()
                .map(|&(a, b)| {
                    view! {
                        <circle cx=px(a) cy=py(b) r="3" class=class.clone()>
                            <title>{format!("{name}: {a:.3}, {b:.3}")}</title>
                        </circle>
                    }
                })
                .collect_view();
            // The legend sits in the top margin, from the left, where long names fit.
            let legend_y = 14.0 + 14.0 * k as f64;
            view! {
                {dots}
                <circle cx=LEFT cy=legend_y - 4.0 r="4" class=class.clone() />
                <text x=LEFT + 10.0 y=legend_y class="tick">{name.clone()}</text>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=y_label.clone() viewBox=format!("0 0 {w} {H}") width=w height=H>
                {grid}
                <line x1=LEFT x2=w - M y1=py(0.0) y2=py(0.0) class="axis" />
                <text x=(LEFT + w - M) / 2.0 y=H - 6.0 text-anchor="middle" class="axis-title">{x_label.clone()}</text>
                {y_title(y_label.clone(), LEFT, (M, H - M))}
                {marks}
            </svg>
            <figcaption>{format!("{y_label} against {x_label}")}</figcaption>
            <ChartData name="scatter" header="series,x,y" rows=csv />
        </figure>
    }
}

/// A reliability diagram: observed frequency against mean predicted probability per bin, with
/// the diagonal of perfect calibration; the bins download as CSV.
#[component]
pub fn ReliabilityDiagram(bins: Vec<(f64, f64, usize)>, ece: f64) -> impl IntoView {
    const S: f64 = 280.0;
    const M: f64 = 40.0;
    let p = move |v: f64| M + v * (S - 2.0 * M);
    let q = move |v: f64| S - M - v * (S - 2.0 * M);
    let grid = [0.0, 0.25, 0.5, 0.75, 1.0]
        .map(|t| {
            view! {
                <line x1=p(t) x2=p(t) y1=q(0.0) y2=q(1.0) class="grid" />
                <line x1=p(0.0) x2=p(1.0) y1=q(t) y2=q(t) class="grid" />
                <text x=p(t) y=q(0.0) + 16.0 text-anchor="middle" class="tick">{format!("{t}")}</text>
                <text x=p(0.0) - 4.0 y=q(t) + 4.0 text-anchor="end" class="tick">{format!("{t}")}</text>
            }
        })
        .collect_view();
    let dots = bins
        .iter()
        .map(|&(pred, obs, n)| {
            let radius = 2.0 + (n as f64).sqrt().min(8.0);
            view! {
                <circle cx=p(pred) cy=q(obs) r=radius class="dot">
                    <title>{format!("predicted {pred:.3}, observed {obs:.3}, {n} battles")}</title>
                </circle>
            }
        })
        .collect_view();
    let csv = bins
        .iter()
        .map(|(pred, obs, n)| format!("{pred},{obs},{n}"))
        .collect();
    view! {
        <figure class="chart">
            <svg role="img" aria-label="reliability diagram" viewBox=format!("0 0 {S} {S}") width=S height=S>
                {grid}
                <line x1=p(0.0) y1=q(0.0) x2=p(1.0) y2=q(1.0) class="axis" />
                <rect x=p(0.0) y=q(1.0) width=p(1.0) - p(0.0) height=q(0.0) - q(1.0) class="frame" />
                <text x=S / 2.0 y=S - 4.0 text-anchor="middle" class="axis-title">"predicted"</text>
                <text transform=format!("translate(12 {}) rotate(-90)", S / 2.0) text-anchor="middle" class="axis-title">"observed"</text>
                {dots}
            </svg>
            <figcaption>{term("beta", "σ(β·s)")} " reliability: observed frequency (up) against predicted probability (across), " {term("ece", "ECE")} {format!(" = {ece:.4}")}</figcaption>
            <ChartData name="reliability-diagram" header="mean_predicted,observed,count" rows=csv />
        </figure>
    }
}

/// A cross-validation curve: mean validation loss ± one sd against γ on a log axis (a tick
/// per decade), the chosen γ ringed; the curve downloads as CSV.
#[component]
pub fn CvCurvePlot(gammas: Vec<f64>, mean: Vec<f64>, sd: Vec<f64>, chosen: usize) -> impl IntoView {
    const H: f64 = 260.0;
    const M: f64 = 56.0;
    const LEFT: f64 = 72.0;
    let w = fitted(520.0);
    let xs: Vec<f64> = gammas.iter().map(|g| g.log10()).collect();
    let lows: Vec<f64> = mean.iter().zip(&sd).map(|(m, s)| m - s).collect();
    let highs: Vec<f64> = mean.iter().zip(&sd).map(|(m, s)| m + s).collect();
    let (x0, x1) = at_least(
        finite_range(xs.iter().copied()).0,
        finite_range(xs.iter().copied()).1,
        1.0,
    );
    let (y0, y1) = at_least(
        finite_range(lows.iter().copied()).0,
        finite_range(highs.iter().copied()).1,
        1e-12,
    );
    let px = move |v: f64| LEFT + (v - x0) / (x1 - x0) * (w - LEFT - M);
    let py = move |v: f64| H - M - (v - y0) / (y1 - y0) * (H - 2.0 * M);
    let decades = (x0.ceil() as i64..=x1.floor() as i64).map(|d| {
        let t = d as f64;
        view! {
            <line x1=px(t) x2=px(t) y1=M y2=H - M class="grid" />
            <text x=px(t) y=H - M + 16.0 text-anchor="middle" class="tick">{format!("1e{d}")}</text>
        }
    });
    let lines = y_grid(y0, y1, 4, (LEFT, w - M), py);
    let marks = (0..xs.len())
        .map(|k| {
            let ring = (k == chosen).then(|| {
                view! { <circle cx=px(xs[k]) cy=py(mean[k]) r="7" class="chosen" /> }
            });
            view! {
                <g>
                    <title>{format!("γ = {:.3e}: loss {:.4} ± {:.4}", gammas[k], mean[k], sd[k])}</title>
                    <line x1=px(xs[k]) x2=px(xs[k]) y1=py(lows[k]) y2=py(highs[k]) class="whisker" />
                    <circle cx=px(xs[k]) cy=py(mean[k]) r="3" class="series s0" />
                    {ring}
                </g>
            }
        })
        .collect_view();
    let csv = (0..gammas.len())
        .map(|k| format!("{},{},{},{}", gammas[k], mean[k], sd[k], k == chosen))
        .collect();
    view! {
        <figure class="chart">
            <svg role="img" aria-label="cross-validation curve" viewBox=format!("0 0 {w} {H}") width=w height=H>
                {decades.collect_view()}
                {lines}
                <text x=(LEFT + w - M) / 2.0 y=H - 6.0 text-anchor="middle" class="axis-title">"γ (log scale)"</text>
                {y_title("validation loss".to_owned(), LEFT, (M, H - M))}
                {marks}
            </svg>
            <figcaption>"Mean validation loss ± 1 sd over the folds, by γ (log scale); ringed: the γ chosen"</figcaption>
            <ChartData name="cross-validation" header="gamma,mean_loss,sd_loss,chosen" rows=csv />
        </figure>
    }
}

/// Lines over one x range, one per named series (its legend above the plot): the routing
/// curves (accuracy against the share escalated, seed 004 Fig. 4) and the label budget
/// (interval width against human labels, on a log scale: a tick per 1, 2, 5 × 10^k). Both axes
/// have round ticks, gridlines and titles (`x_label`, `label`). The curves download as CSV.
#[component]
pub fn LinePlot(
    curves: Vec<(String, Vec<(f64, f64)>)>,
    #[prop(into)] x_label: String,
    #[prop(optional)] log_x: bool,
    #[prop(into)] label: String,
    #[prop(into)] caption: String,
) -> impl IntoView {
    const M: f64 = 48.0;
    const LEFT: f64 = 72.0;
    let w = fitted(560.0);
    let top = 20.0 + 14.0 * curves.len() as f64;
    let h = top + 200.0 + M;
    let along = move |x: f64| if log_x { x.ln() } else { x };
    let points = || curves.iter().flat_map(|(_, points)| points.iter());
    let (x0, x1) = finite_range(points().map(|p| along(p.0)));
    let (y0, y1) = finite_range(points().map(|p| p.1));
    let ((x0, x1), (y0, y1)) = (at_least(x0, x1, 1e-9), at_least(y0, y1, 1e-9));
    let px = move |v: f64| LEFT + (along(v) - x0) / (x1 - x0) * (w - LEFT - M);
    let py = move |v: f64| h - M - (v - y0) / (y1 - y0) * (h - top - M);
    let grid = y_grid(y0, y1, 4, (LEFT, w - M), py);
    let x_ticks: Vec<(f64, String)> = if log_x {
        let (lo, hi) = (x0.exp(), x1.exp());
        let decades = lo.log10().floor() as i32..=hi.log10().ceil() as i32;
        decades
            .flat_map(|d| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(d)))
            .filter(|t| *t >= lo * (1.0 - 1e-9) && *t <= hi * (1.0 + 1e-9))
            .map(|t| (t, format!("{t}")))
            .collect()
    } else {
        let (ticks, decimals) = nice_ticks(x0, x1, 5);
        ticks
            .into_iter()
            .map(|t| (t, format!("{t:.decimals$}")))
            .collect()
    };
    let x_grid = x_ticks
        .into_iter()
        .map(|(t, text)| {
            view! {
                <line x1=px(t) x2=px(t) y1=top y2=h - M class="grid" />
                <text x=px(t) y=h - M + 16.0 text-anchor="middle" class="tick">{text}</text>
            }
        })
        .collect_view();
    let csv = series_csv(&curves);
    let lines = curves
        .into_iter()
        .enumerate()
        .map(|(k, (name, points))| {
            let path = points
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect::<Vec<_>>()
                .join(" ");
            let legend_y = 14.0 + 14.0 * k as f64;
            let dots = points
                .iter()
                .map(|&(x, y)| {
                    view! {
                        <circle cx=px(x) cy=py(y) r="2.5" class=format!("series s{k}")>
                            <title>{format!("{name}: {x:.4}, {y:.4}")}</title>
                        </circle>
                    }
                })
                .collect_view();
            view! {
                <polyline points=path class=format!("series s{k}") fill="none" data-series=name.clone() />
                {dots}
                <circle cx=LEFT cy=legend_y - 4.0 r="4" class=format!("series s{k}") />
                <text x=LEFT + 10.0 y=legend_y class=format!("tick s{k}")>{name.clone()}</text>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=label.clone() viewBox=format!("0 0 {w} {h}") width=w height=h>
                {grid}
                {x_grid}
                <line x1=LEFT x2=w - M y1=h - M y2=h - M class="axis" />
                <text x=(LEFT + w - M) / 2.0 y=h - 8.0 text-anchor="middle" class="axis-title">{x_label}</text>
                {y_title(label.clone(), LEFT, (top, h - M))}
                {lines}
            </svg>
            <figcaption>{caption}</figcaption>
            <ChartData name="curves" header="series,x,y" rows=csv />
        </figure>
    }
}

/// One bar of a [`ShareBars`] chart: a share in [0, 1] with an optional interval.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareBar {
    pub label: String,
    pub share: f64,
    pub interval: Option<(f64, f64)>,
}

/// Horizontal bars of shares on a 0–100 % axis (ticks every 25 %, titled `axis`), each
/// labelled with its value.
#[component]
pub fn ShareBars(
    bars: Vec<ShareBar>,
    #[prop(into)] axis: String,
    #[prop(into)] caption: String,
) -> impl IntoView {
    const BAR: f64 = 22.0;
    let width = fitted(WIDTH);
    let label = LABEL.min(0.4 * width);
    let x = move |v: f64| label + v.clamp(0.0, 1.0) * (width - label - PAD);
    let height = BAR * bars.len() as f64 + 3.0 * PAD;
    let ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
        .map(|t| {
            view! {
                <line x1=x(t) x2=x(t) y1=PAD / 2.0 y2=height - 2.0 * PAD class="grid" />
                <text x=x(t) y=height - 1.5 * PAD text-anchor="middle" class="tick">{format!("{:.0}%", 100.0 * t)}</text>
            }
        })
        .collect_view();
    let marks = bars
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let y = PAD / 2.0 + BAR * i as f64 + 3.0;
            let whisker = b.interval.map(|(lo, hi)| {
                let mid = y + (BAR - 6.0) / 2.0;
                view! { <line x1=x(lo) x2=x(hi) y1=mid y2=mid class="whisker" /> }
            });
            view! {
                <text x=label - 8.0 y=y + 12.0 text-anchor="end" class="label">{short_label(&b.label, label - 8.0)}<title>{b.label.clone()}</title></text>
                <rect x=x(0.0) y=y width=(x(b.share) - x(0.0)).max(1.0) height=BAR - 6.0 class="bar">
                    <title>{format!("{}: {:.1}%", b.label, 100.0 * b.share)}</title>
                </rect>
                {whisker}
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=caption.clone() viewBox=format!("0 0 {width} {height}") width=width height=height>
                {ticks}
                <text x=label + (width - label - PAD) / 2.0 y=height - 4.0 text-anchor="middle" class="axis-title">{axis}</text>
                {marks}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}

/// One line of a [`RankSlopes`] chart: a model's rank on the left and on the right.
#[derive(Debug, Clone, PartialEq)]
pub struct RankSlope {
    pub label: String,
    pub left: usize,
    pub right: usize,
}

/// Ranks before (left) and after (right), one line per model, each end labelled with the
/// model; lines that move are drawn in colour (up or down). Hover shows both ranks.
#[component]
pub fn RankSlopes(
    slopes: Vec<RankSlope>,
    #[prop(into)] left: String,
    #[prop(into)] right: String,
    #[prop(into)] caption: String,
) -> impl IntoView {
    let width = fitted(WIDTH);
    let side = (0.365 * width).min(190.0);
    let rows = slopes
        .iter()
        .map(|s| s.left.max(s.right))
        .max()
        .unwrap_or(1) as f64;
    let y = move |rank: usize| PAD + ROW * (rank as f64 - 0.5);
    let height = ROW * rows + 2.0 * PAD;
    let (x0, x1) = (side, width - side);
    let lines = slopes
        .iter()
        .map(|s| {
            let class = match s.left.cmp(&s.right) {
                std::cmp::Ordering::Greater => "slope up",
                std::cmp::Ordering::Less => "slope down",
                std::cmp::Ordering::Equal => "slope",
            };
            view! {
                <g class=class>
                    <title>{format!("{}: rank {} → {}", s.label, s.left, s.right)}</title>
                    <line x1=x0 y1=y(s.left) x2=x1 y2=y(s.right) />
                    <text x=x0 - 6.0 y=y(s.left) + 4.0 text-anchor="end" class="label">{format!("{} {}", short_label(&s.label, side - 30.0), s.left)}</text>
                    <text x=x1 + 6.0 y=y(s.right) + 4.0 class="label">{format!("{} {}", s.right, short_label(&s.label, side - 30.0))}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=caption.clone() viewBox=format!("0 0 {width} {height}") width=width height=height>
                <text x=x0 y=PAD / 2.0 text-anchor="middle" class="axis-title">{left}</text>
                <text x=x1 y=PAD / 2.0 text-anchor="middle" class="axis-title">{right}</text>
                {lines}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}
