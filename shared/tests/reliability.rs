//! The judge-reliability pipeline end to end: a long-format ratings CSV → item × rater matrix →
//! α, κ with bootstrap intervals, self-consistency and an A/A test. Known answers: Krippendorff's
//! (2011) published example, the `krippendorff` package and scikit-learn fixtures, and hand
//! counts. Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::aa_test::{AaLabels, AaMetric, AaRuns, AaTestParams, Flag};
use tribunal::reliability::agreement::{Adequacy, AgreementParams, KappaBand};
use tribunal::reliability::alpha::{AlphaLevel, AlphaParams};
use tribunal::reliability::consistency::{ConsistencyParams, Criterion, Stability};
use tribunal::reliability::ratings::{RatingsParams, ScoreScale, Selection};

/// Krippendorff's (2011) example as long CSV: observers A–D, units 1–12, missing cells absent.
fn textbook_csv(label: impl Fn(u32) -> String) -> String {
    let rows: [[Option<u32>; 12]; 4] = {
        let (n, s) = (None, Some);
        [
            [
                s(1),
                s(2),
                s(3),
                s(3),
                s(2),
                s(1),
                s(4),
                s(1),
                s(2),
                n,
                n,
                n,
            ],
            [
                s(1),
                s(2),
                s(3),
                s(3),
                s(2),
                s(2),
                s(4),
                s(1),
                s(2),
                s(5),
                n,
                s(3),
            ],
            [
                n,
                s(3),
                s(3),
                s(3),
                s(2),
                s(3),
                s(4),
                s(2),
                s(2),
                s(5),
                s(1),
                n,
            ],
            [
                s(1),
                s(2),
                s(3),
                s(3),
                s(2),
                s(4),
                s(4),
                s(1),
                s(2),
                s(5),
                s(1),
                n,
            ],
        ]
    };
    let mut csv = String::from("rater,item,score,topic\n");
    for (observer, row) in ["A", "B", "C", "D"].iter().zip(rows) {
        for (unit, value) in row.iter().enumerate() {
            if let Some(v) = value {
                let topic = if unit < 6 { "easy" } else { "hard" };
                csv.push_str(&format!("{observer},u{},{},{topic}\n", unit + 1, label(*v)));
            }
        }
    }
    csv
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn csv_to_alpha_reproduces_the_published_example() {
    let ratings = RatingsParams::default()
        .parse("textbook.csv", textbook_csv(|v| v.to_string()).as_bytes())
        .unwrap();
    let m = ratings.matrix(&Selection::default()).unwrap();
    assert_eq!((m.items.len(), m.raters.len(), m.n_ratings()), (12, 4, 41));
    // Published (Krippendorff 2011) to three decimals.
    for (level, published) in [
        (AlphaLevel::Nominal, 0.743),
        (AlphaLevel::Ordinal, 0.815),
        (AlphaLevel::Interval, 0.849),
        (AlphaLevel::Ratio, 0.797),
    ] {
        let a = AlphaParams { level }.compute(&m.values).unwrap();
        assert!((a.alpha - published).abs() < 5e-4, "{level:?}: {}", a.alpha);
    }
    // The same data as ordered labels, on the nominal scale with declared categories.
    let words = ["very low", "low", "mid", "high", "very high"];
    let named = RatingsParams {
        scale: ScoreScale::Nominal,
        categories: Some(words.iter().map(|w| w.to_string()).collect()),
    }
    .parse(
        "words.csv",
        textbook_csv(|v| words[v as usize - 1].to_owned()).as_bytes(),
    )
    .unwrap();
    let mw = named.matrix(&Selection::default()).unwrap();
    for level in [AlphaLevel::Nominal, AlphaLevel::Ordinal] {
        let a = AlphaParams { level }.compute(&mw.values).unwrap().alpha;
        let b = AlphaParams { level }.compute(&m.values).unwrap().alpha;
        assert!((a - b).abs() < 1e-15, "{level:?}");
    }
    // A slice keeps only its units: the six "easy" units.
    let easy = ratings
        .matrix(&Selection {
            slices: vec![("topic".into(), "easy".into())],
            ..Default::default()
        })
        .unwrap();
    assert_eq!(easy.items, ["u1", "u2", "u3", "u4", "u5", "u6"]);
}

#[derive(Deserialize)]
struct KappaCase {
    name: String,
    a: Vec<f64>,
    b: Vec<f64>,
    unweighted: f64,
    linear: f64,
    quadratic: f64,
}

#[derive(Deserialize)]
struct KappaFixture {
    cases: Vec<KappaCase>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn agreement_report_is_reproducible_by_seed() {
    let fixture: KappaFixture =
        serde_json::from_str(include_str!("fixtures/kappa_reference.json")).unwrap();
    let c = fixture
        .cases
        .iter()
        .find(|c| c.name == "likert-1-5-300")
        .unwrap();
    let params = |seed| AgreementParams {
        bootstrap: BootstrapParams {
            rounds: 300,
            seed,
            level: 0.95,
        },
        ..Default::default()
    };
    let first = params(42).pair(&c.a, &c.b).unwrap();
    let again = params(42).pair(&c.a, &c.b).unwrap();
    let other = params(43).pair(&c.a, &c.b).unwrap();
    assert_eq!(
        serde_json::to_string(&first).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
    assert_eq!(first.bootstrap.seed, 42);
    assert!(first.heuristics.contains("rules of thumb"));
    assert_ne!(first.kappa.interval.lower, other.kappa.interval.lower);
    assert_eq!(first.kappa.interval.estimate, other.kappa.interval.estimate);
    // Estimates equal scikit-learn; every interval holds its estimate.
    let linear = first.linear_kappa.as_ref().unwrap();
    let quadratic = first.quadratic_kappa.as_ref().unwrap();
    for (got, want) in [
        (&first.kappa, c.unweighted),
        (linear, c.linear),
        (quadratic, c.quadratic),
    ] {
        assert!((got.interval.estimate - want).abs() < 1e-12);
        assert!(got.interval.lower < want && want < got.interval.upper);
    }
    // Bands (heuristic): κ 0.61 substantial; quadratic κ 0.92 almost perfect and strong.
    assert_eq!(first.kappa.band, Some(KappaBand::Substantial));
    assert_eq!(first.kappa.adequacy, Some(Adequacy::Borderline));
    assert_eq!(quadratic.band, Some(KappaBand::AlmostPerfect));
    assert_eq!(quadratic.adequacy, Some(Adequacy::Strong));
    assert!(first.pearson.as_ref().unwrap().interval.estimate > 0.7);
    // The nominal scale reports only percent agreement and unweighted κ.
    let nominal = AgreementParams {
        scale: ScoreScale::Nominal,
        ..params(42)
    }
    .pair(&c.a, &c.b)
    .unwrap();
    assert!(nominal.linear_kappa.is_none() && nominal.pearson.is_none());
    assert_eq!(nominal.kappa, first.kappa);
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn group_alpha_and_named_raters_from_a_matrix() {
    let ratings = RatingsParams::default()
        .parse("textbook.csv", textbook_csv(|v| v.to_string()).as_bytes())
        .unwrap();
    let m = ratings.matrix(&Selection::default()).unwrap();
    let params = AgreementParams {
        bootstrap: BootstrapParams {
            rounds: 400,
            seed: 5,
            level: 0.9,
        },
        ..Default::default()
    };
    let g = params.group(&m, AlphaLevel::Interval).unwrap();
    // The krippendorff package gives 0.8491071428571428 (fixtures/alpha_reference.json).
    assert!((g.alpha.interval.estimate - 0.8491071428571428).abs() < 1e-12);
    assert_eq!(g.reading.band, Some(KappaBand::AlmostPerfect));
    assert!(g.alpha.interval.valid_rounds > 350);
    assert_eq!(g, params.group(&m, AlphaLevel::Interval).unwrap());
    // Observers A and B both rated units 1–9 (and B alone 10 and 12): nine pairs, eight equal.
    let ab = params.raters(&m, "A", "B").unwrap();
    assert_eq!(ab.n_items, 9);
    assert!((ab.percent_agreement.interval.estimate - 8.0 / 9.0).abs() < 1e-15);
    assert!(params.raters(&m, "A", "Z").is_err());
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn repeats_csv_to_self_consistency_and_aa_test() {
    // Five runs of one judge on four items, two criteria and the final label, plus a human.
    let mut csv = String::from("item,rater,score,criterion\n");
    let runs: [(&str, [[u8; 5]; 4]); 3] = [
        ("coverage", [[1; 5], [1; 5], [0; 5], [1; 5]]),
        (
            "relevance",
            [[0, 0, 0, 1, 0], [1; 5], [1, 1, 0, 0, 1], [1; 5]],
        ),
        ("label", [[0, 0, 0, 1, 0], [1; 5], [0; 5], [1; 5]]),
    ];
    for (criterion, items) in runs {
        for (i, repeats) in items.iter().enumerate() {
            for (r, v) in repeats.iter().enumerate() {
                csv.push_str(&format!("q{i},run{r},{v},{criterion}\n"));
            }
        }
    }
    for (i, v) in [0, 1, 0, 1].iter().enumerate() {
        csv.push_str(&format!("q{i},human,{v},label\n"));
    }
    let ratings = RatingsParams::default()
        .parse("runs.csv", csv.as_bytes())
        .unwrap();
    let repeats = |criterion: &str| {
        let mut m = ratings
            .matrix(&Selection {
                criterion: Some(criterion.into()),
                ..Default::default()
            })
            .unwrap();
        // Keep the judge's runs only.
        if let Ok(h) = m.rater_index("human") {
            m.raters.remove(h);
            for row in &mut m.values {
                row.remove(h);
            }
        }
        m
    };
    let (coverage, relevance, label) =
        (repeats("coverage"), repeats("relevance"), repeats("label"));
    let report = ConsistencyParams {
        label: Some("label".into()),
        ..Default::default()
    }
    .compute(&[
        Criterion {
            name: "coverage",
            repeats: &coverage,
        },
        Criterion {
            name: "relevance",
            repeats: &relevance,
        },
        Criterion {
            name: "label",
            repeats: &label,
        },
    ])
    .unwrap();
    // Relevance: H(4:1) = 0.7219 on q0, H(3:2) = 0.9710 on q2 → mean 0.4232 bits, "good".
    let h41 = -(0.8f64 * 0.8f64.log2() + 0.2 * 0.2f64.log2());
    let h32 = -(0.6f64 * 0.6f64.log2() + 0.4 * 0.4f64.log2());
    let rel = &report.criteria[1];
    assert!((rel.mean_entropy - (h41 + h32) / 4.0).abs() < 1e-15);
    assert_eq!(rel.stability, Stability::Good);
    assert_eq!(rel.share_consistent, 0.5);
    assert_eq!(report.criteria[0].mean_entropy, 0.0);
    assert_eq!(report.label_flip_rate, Some(0.25));
    assert_eq!(report.share_items_inconsistent, 0.5);

    // A/A: run0 against run3 on the label, with the human label as gold.
    let m = ratings
        .matrix(&Selection {
            criterion: Some("label".into()),
            ..Default::default()
        })
        .unwrap();
    let column = |name: &str| {
        let j = m.rater_index(name).unwrap();
        m.values
            .iter()
            .map(|row| row[j].unwrap())
            .collect::<Vec<f64>>()
    };
    let (a, b, gold) = (column("run0"), column("run3"), column("human"));
    let pass = |v: &[f64]| v.iter().map(|&x| x == 1.0).collect::<Vec<bool>>();
    let t = AaTestParams::default()
        .compute(&AaRuns {
            pass: Some((pass(&a), pass(&b))),
            labels: Some(AaLabels {
                run_a: a,
                run_b: b,
                gold,
            }),
            scores: None,
        })
        .unwrap();
    // Run 0 labels (0,1,0,1) equal the human's: κ = 1. Run 3 (1,1,0,1): P_o = ¾, P_e = ½ → κ ½.
    // Pass rates ½ and ¾: delta 25 pp, far beyond 2 × 2 pp; one item of four differs.
    let check = |metric| t.checks.iter().find(|c| c.metric == metric).unwrap();
    assert_eq!(check(AaMetric::KappaDelta).delta, 0.5);
    assert_eq!(check(AaMetric::PassRateDelta).delta, 0.25);
    assert_eq!(check(AaMetric::ItemDisagreement).delta, 0.25);
    assert_eq!(t.overall, Some(Flag::Red));
}
