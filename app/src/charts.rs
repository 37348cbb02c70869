//! SVG charts: a forest plot of ratings with intervals, a scatter of residuals, a reliability
//! diagram, a cross-validation curve and routing curves.

use leptos::prelude::*;

const WIDTH: f64 = 520.0;
const ROW: f64 = 16.0;
const LABEL: f64 = 215.0;
const PAD: f64 = 24.0;

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

fn extent<'a>(values: impl Iterator<Item = &'a f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((1500.0_f64, 1500.0_f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    (lo, hi.max(lo + 1.0))
}

/// Ratings in rows (in the given order) with optional whiskers, bands and reference marks,
/// and a dashed line at 1500.
#[component]
pub fn ForestPlot(rows: Vec<ForestRow>, #[prop(into)] caption: String) -> impl IntoView {
    let values: Vec<f64> = rows
        .iter()
        .flat_map(|r| {
            [r.estimate]
                .into_iter()
                .chain(r.ci.into_iter().flat_map(|(a, b)| [a, b]))
                .chain(r.band.into_iter().flat_map(|(a, b)| [a, b]))
                .chain(r.reference)
        })
        .collect();
    let (lo, hi) = extent(values.iter());
    let x = move |v: f64| LABEL + (v - lo) / (hi - lo) * (WIDTH - LABEL - PAD);
    let height = ROW * rows.len() as f64 + 2.0 * PAD;
    let axis = x(1500.0);
    let marks = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let y = PAD + ROW * (i as f64 + 0.5);
            let band = r.band.map(|(a, b)| {
                view! { <rect x=x(a) y=y - 5.0 width=(x(b) - x(a)).max(1.0) height="10" class="band" /> }
            });
            let ci = r.ci.map(|(a, b)| view! { <line x1=x(a) x2=x(b) y1=y y2=y class="whisker" /> });
            let reference = r.reference.map(|v| {
                let (cx, cy) = (x(v), y);
                view! {
                    <path d=format!("M{cx} {} L{} {cy} L{cx} {} L{} {cy} Z", cy - 4.0, cx + 4.0, cy + 4.0, cx - 4.0) class="reference" />
                }
            });
            view! {
                <text x=LABEL - 8.0 y=y + 4.0 text-anchor="end" class="label">
                    {r.label.clone()}
                </text>
                {band}
                {ci}
                <circle cx=x(r.estimate) cy=y r="3.5" class="dot" />
                {reference}
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=caption.clone() viewBox=format!("0 0 {WIDTH} {height}") width=WIDTH height=height>
                <line x1=axis x2=axis y1=PAD / 2.0 y2=height - PAD / 2.0 class="axis" />
                <text x=axis y=PAD / 2.0 text-anchor="middle" class="tick">"1500"</text>
                <text x=LABEL y=height - 4.0 class="tick">{format!("{lo:.0}")}</text>
                <text x=WIDTH - PAD y=height - 4.0 text-anchor="end" class="tick">{format!("{hi:.0}")}</text>
                {marks}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}

/// A scatter of series of (x, y) points with a dashed line at y = 0.
#[component]
pub fn ScatterPlot(
    series: Vec<(String, Vec<(f64, f64)>)>,
    #[prop(into)] x_label: String,
    #[prop(into)] y_label: String,
) -> impl IntoView {
    const W: f64 = 520.0;
    const H: f64 = 300.0;
    const M: f64 = 40.0;
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.0))
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .chain([0.0])
        .collect();
    let fold = |v: &[f64]| {
        v.iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            })
    };
    let (x0, x1) = fold(&xs);
    let (y0, y1) = fold(&ys);
    let (x1, y1) = (x1.max(x0 + 1.0), y1.max(y0 + 1.0));
    let px = move |v: f64| M + (v - x0) / (x1 - x0) * (W - 2.0 * M);
    let py = move |v: f64| H - M - (v - y0) / (y1 - y0) * (H - 2.0 * M);
    let points = series
        .iter()
        .enumerate()
        .map(|(k, (name, pts))| {
            let class = format!("series s{k}");
            let dots = pts
                .iter()
                .map(|&(a, b)| view! { <circle cx=px(a) cy=py(b) r="3" class=class.clone() /> })
                .collect_view();
            let legend_y = 14.0 + 14.0 * k as f64;
            view! {
                {dots}
                <circle cx=W - 150.0 cy=legend_y - 4.0 r="4" class=class.clone() />
                <text x=W - 140.0 y=legend_y class="tick">{name.clone()}</text>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=y_label.clone() viewBox=format!("0 0 {W} {H}") width=W height=H>
                <line x1=M x2=W - M y1=py(0.0) y2=py(0.0) class="axis" />
                <text x=M y=H - 8.0 class="tick">{format!("{x0:.0}")}</text>
                <text x=W - M y=H - 8.0 text-anchor="end" class="tick">{format!("{x1:.0}")}</text>
                <text x=4.0 y=M class="tick">{format!("{y1:.0}")}</text>
                <text x=4.0 y=H - M class="tick">{format!("{y0:.0}")}</text>
                {points}
            </svg>
            <figcaption>{format!("{y_label} against {x_label}")}</figcaption>
        </figure>
    }
}

/// A reliability diagram: observed frequency against mean predicted probability per bin, with
/// the diagonal of perfect calibration.
#[component]
pub fn ReliabilityDiagram(bins: Vec<(f64, f64, usize)>, ece: f64) -> impl IntoView {
    const S: f64 = 260.0;
    const M: f64 = 30.0;
    let p = move |v: f64| M + v * (S - 2.0 * M);
    let q = move |v: f64| S - M - v * (S - 2.0 * M);
    let dots = bins
        .iter()
        .map(|&(pred, obs, n)| {
            let radius = 2.0 + (n as f64).sqrt().min(8.0);
            view! { <circle cx=p(pred) cy=q(obs) r=radius class="dot" /> }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label="reliability diagram" viewBox=format!("0 0 {S} {S}") width=S height=S>
                <line x1=p(0.0) y1=q(0.0) x2=p(1.0) y2=q(1.0) class="axis" />
                <rect x=p(0.0) y=q(1.0) width=p(1.0) - p(0.0) height=q(0.0) - q(1.0) class="frame" />
                {dots}
            </svg>
            <figcaption>{format!("σ(β·s) reliability: observed vs predicted, ECE = {ece:.4}")}</figcaption>
        </figure>
    }
}

/// A cross-validation curve: mean validation loss ± one sd against log₁₀ γ, the chosen γ
/// ringed.
#[component]
pub fn CvCurvePlot(gammas: Vec<f64>, mean: Vec<f64>, sd: Vec<f64>, chosen: usize) -> impl IntoView {
    const W: f64 = 520.0;
    const H: f64 = 260.0;
    const M: f64 = 44.0;
    let xs: Vec<f64> = gammas.iter().map(|g| g.log10()).collect();
    let lows: Vec<f64> = mean.iter().zip(&sd).map(|(m, s)| m - s).collect();
    let highs: Vec<f64> = mean.iter().zip(&sd).map(|(m, s)| m + s).collect();
    let range = |v: &[f64]| {
        v.iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                (a.min(v), b.max(v))
            })
    };
    let (x0, x1) = range(&xs);
    let (y0, y1) = (range(&lows).0, range(&highs).1);
    let (x1, y1) = (x1.max(x0 + 1.0), y1.max(y0 + 1e-12));
    let px = move |v: f64| M + (v - x0) / (x1 - x0) * (W - 2.0 * M);
    let py = move |v: f64| H - M - (v - y0) / (y1 - y0) * (H - 2.0 * M);
    let marks = (0..xs.len())
        .map(|k| {
            let ring = (k == chosen).then(|| {
                view! { <circle cx=px(xs[k]) cy=py(mean[k]) r="7" class="chosen" /> }
            });
            view! {
                <line x1=px(xs[k]) x2=px(xs[k]) y1=py(lows[k]) y2=py(highs[k]) class="whisker" />
                <circle cx=px(xs[k]) cy=py(mean[k]) r="3" class="series s0" />
                {ring}
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label="cross-validation curve" viewBox=format!("0 0 {W} {H}") width=W height=H>
                <line x1=M x2=W - M y1=H - M y2=H - M class="axis" />
                <text x=M y=H - 8.0 class="tick">{format!("γ = {:.0e}", 10f64.powf(x0))}</text>
                <text x=W - M y=H - 8.0 text-anchor="end" class="tick">{format!("γ = {:.0e}", 10f64.powf(x1))}</text>
                <text x=4.0 y=M class="tick">{format!("{y1:.3}")}</text>
                <text x=4.0 y=H - M class="tick">{format!("{y0:.3}")}</text>
                {marks}
            </svg>
            <figcaption>"Mean validation loss ± 1 sd over the folds, by γ (log scale); ringed: the γ chosen"</figcaption>
        </figure>
    }
}

/// Lines over one x range, one per named series (labelled at the right): the routing curves
/// (accuracy against the share escalated, seed 004 Fig. 4) and the label budget (interval
/// width against human labels, on a log scale). `x_ends` names the axis' two ends.
#[component]
pub fn LinePlot(
    curves: Vec<(String, Vec<(f64, f64)>)>,
    x_ends: (String, String),
    #[prop(optional)] log_x: bool,
    #[prop(into)] label: String,
    #[prop(into)] caption: String,
) -> impl IntoView {
    const W: f64 = 520.0;
    const H: f64 = 260.0;
    const M: f64 = 44.0;
    let along = move |x: f64| if log_x { x.ln() } else { x };
    let range = |values: &mut dyn Iterator<Item = f64>| {
        values
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            })
    };
    let points = || curves.iter().flat_map(|(_, points)| points.iter());
    let (x0, x1) = range(&mut points().map(|p| along(p.0)));
    let (y0, y1) = range(&mut points().map(|p| p.1));
    let (x1, y1) = (x1.max(x0 + 1e-9), y1.max(y0 + 1e-9));
    let px = move |v: f64| M + (along(v) - x0) / (x1 - x0) * (W - 2.0 * M);
    let py = move |v: f64| H - M - (v - y0) / (y1 - y0) * (H - 2.0 * M);
    let lines = curves
        .into_iter()
        .enumerate()
        .map(|(k, (name, points))| {
            let path = points
                .iter()
                .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
                .collect::<Vec<_>>()
                .join(" ");
            let (lx, ly) = (W - M + 4.0, M + 14.0 * k as f64);
            view! {
                <polyline points=path class=format!("series s{k}") fill="none" data-series=name.clone() />
                <text x=lx y=ly class=format!("tick s{k}")>{name}</text>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=label viewBox=format!("0 0 {} {H}", W + 110.0) width=W + 110.0 height=H>
                <line x1=M x2=W - M y1=H - M y2=H - M class="axis" />
                <text x=M y=H - 8.0 class="tick">{x_ends.0}</text>
                <text x=W - M y=H - 8.0 text-anchor="end" class="tick">{x_ends.1}</text>
                <text x=4.0 y=M class="tick">{format!("{y1:.3}")}</text>
                <text x=4.0 y=H - M class="tick">{format!("{y0:.3}")}</text>
                {lines}
            </svg>
            <figcaption>{caption}</figcaption>
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

/// Horizontal bars of shares on a 0–100 % axis (ticks every 25 %), each labelled with its
/// value; the SVG scales with its container.
#[component]
pub fn ShareBars(bars: Vec<ShareBar>, #[prop(into)] caption: String) -> impl IntoView {
    const BAR: f64 = 22.0;
    let x = move |v: f64| LABEL + v.clamp(0.0, 1.0) * (WIDTH - LABEL - PAD);
    let height = BAR * bars.len() as f64 + 2.0 * PAD;
    let ticks = [0.0, 0.25, 0.5, 0.75, 1.0]
        .map(|t| {
            view! {
                <line x1=x(t) x2=x(t) y1=PAD / 2.0 y2=height - PAD class="grid" />
                <text x=x(t) y=height - 8.0 text-anchor="middle" class="tick">{format!("{:.0}%", 100.0 * t)}</text>
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
                <text x=LABEL - 8.0 y=y + 12.0 text-anchor="end" class="label">{b.label.clone()}</text>
                <rect x=x(0.0) y=y width=(x(b.share) - x(0.0)).max(1.0) height=BAR - 6.0 class="bar">
                    <title>{format!("{}: {:.1}%", b.label, 100.0 * b.share)}</title>
                </rect>
                {whisker}
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=caption.clone() viewBox=format!("0 0 {WIDTH} {height}")>
                {ticks}
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
    const SIDE: f64 = 190.0;
    let rows = slopes
        .iter()
        .map(|s| s.left.max(s.right))
        .max()
        .unwrap_or(1) as f64;
    let y = move |rank: usize| PAD + ROW * (rank as f64 - 0.5);
    let height = ROW * rows + 2.0 * PAD;
    let (x0, x1) = (SIDE, WIDTH - SIDE);
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
                    <text x=x0 - 6.0 y=y(s.left) + 4.0 text-anchor="end" class="label">{format!("{} {}", s.label, s.left)}</text>
                    <text x=x1 + 6.0 y=y(s.right) + 4.0 class="label">{format!("{} {}", s.right, s.label)}</text>
                </g>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg role="img" aria-label=caption.clone() viewBox=format!("0 0 {WIDTH} {height}")>
                <text x=x0 y=PAD / 2.0 text-anchor="middle" class="tick">{left}</text>
                <text x=x1 y=PAD / 2.0 text-anchor="middle" class="tick">{right}</text>
                {lines}
            </svg>
            <figcaption>{caption}</figcaption>
        </figure>
    }
}
