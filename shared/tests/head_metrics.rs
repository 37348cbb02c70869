//! Head-versus-base-judge metrics against scikit-learn and scipy (committed fixture,
//! `fixtures/make_metrics_reference.py`): point values to 1e-12, confusion matrices exactly, and
//! the pairing and seeding of the bootstrap intervals. Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::calibration::metrics::{
    accuracy, compare_classification, compare_regression, confusion_matrix, mean_absolute_error,
    mean_squared_error, precision_recall_f1, Averaging, Paired,
};
use tribunal::math::resample::BootstrapParams;

#[derive(Deserialize)]
struct Fixture {
    regression: Vec<RegressionCase>,
    classification: Vec<ClassificationCase>,
}

#[derive(Deserialize)]
struct Regression {
    mse: f64,
    mae: f64,
    pearson: f64,
    spearman: f64,
    kendall_tau_b: f64,
}

#[derive(Deserialize)]
struct RegressionCase {
    name: String,
    truth: Vec<f64>,
    head: Vec<f64>,
    base: Vec<f64>,
    head_metrics: Regression,
    base_metrics: Regression,
}

#[derive(Deserialize)]
struct Classification {
    accuracy: f64,
    precision: f64,
    recall: f64,
    f1: f64,
    confusion: Vec<Vec<u64>>,
}

#[derive(Deserialize)]
struct ClassificationCase {
    name: String,
    classes: Vec<i64>,
    positive: Option<i64>,
    truth: Vec<i64>,
    head: Vec<i64>,
    base: Vec<i64>,
    head_metrics: Classification,
    base_metrics: Classification,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/metrics_reference.json")).unwrap()
}

fn boot(seed: u64) -> BootstrapParams {
    BootstrapParams {
        rounds: 100,
        seed,
        level: 0.9,
    }
}

fn check(what: &str, paired: &Paired, head: f64, base: f64) {
    for (side, interval, want) in [("head", &paired.head, head), ("base", &paired.base, base)] {
        assert!(
            (interval.estimate - want).abs() < 1e-12,
            "{what} {side}: {} vs reference {want}",
            interval.estimate
        );
        assert!(
            interval.lower <= interval.upper,
            "{what} {side}: {interval:?}"
        );
        assert_eq!(interval.level, 0.9);
    }
    assert!(
        (paired.difference.estimate - (head - base)).abs() < 1e-12,
        "{what}"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn regression_metrics_equal_sklearn_and_scipy() {
    for c in &fixture().regression {
        let m = compare_regression(&c.truth, &c.head, &c.base, &boot(1)).unwrap();
        let (h, b) = (&c.head_metrics, &c.base_metrics);
        check(&format!("{} MSE", c.name), &m.mse, h.mse, b.mse);
        check(&format!("{} MAE", c.name), &m.mae, h.mae, b.mae);
        check(&format!("{} r", c.name), &m.pearson, h.pearson, b.pearson);
        check(
            &format!("{} ρ", c.name),
            &m.spearman,
            h.spearman,
            b.spearman,
        );
        check(
            &format!("{} τ-b", c.name),
            &m.kendall_tau_b,
            h.kendall_tau_b,
            b.kendall_tau_b,
        );
        assert!((mean_squared_error(&c.truth, &c.head).unwrap() - h.mse).abs() < 1e-12);
        assert!((mean_absolute_error(&c.truth, &c.base).unwrap() - b.mae).abs() < 1e-12);
        assert_eq!(m.n, c.truth.len());
        assert_eq!(m.bootstrap, boot(1));
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn classification_metrics_equal_sklearn() {
    let cases = fixture().classification;
    assert_eq!(cases.len(), 2);
    for c in &cases {
        let averaging = match c.positive {
            Some(positive) => Averaging::Binary { positive },
            None => Averaging::Macro,
        };
        let m = compare_classification(&c.truth, &c.head, &c.base, &c.classes, averaging, &boot(2))
            .unwrap();
        let (h, b) = (&c.head_metrics, &c.base_metrics);
        check(
            &format!("{} accuracy", c.name),
            &m.accuracy,
            h.accuracy,
            b.accuracy,
        );
        check(
            &format!("{} precision", c.name),
            &m.precision,
            h.precision,
            b.precision,
        );
        check(&format!("{} recall", c.name), &m.recall, h.recall, b.recall);
        check(&format!("{} F1", c.name), &m.f1, h.f1, b.f1);
        assert_eq!(m.head_confusion, h.confusion, "{}", c.name);
        assert_eq!(m.base_confusion, b.confusion, "{}", c.name);
        assert_eq!(
            confusion_matrix(&c.truth, &c.head, &c.classes).unwrap(),
            h.confusion
        );
        assert!((accuracy(&c.truth, &c.base).unwrap() - b.accuracy).abs() < 1e-12);
        let prf = precision_recall_f1(&c.truth, &c.base, &c.classes, averaging).unwrap();
        assert!((prf.f1 - b.f1).abs() < 1e-12, "{}", c.name);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn intervals_are_paired_and_seeded() {
    let c = &fixture().regression[0];
    // The same predictions for head and base: every resample gives a difference of exactly 0.
    let same = compare_regression(&c.truth, &c.head, &c.head, &boot(3)).unwrap();
    for p in [
        &same.mse,
        &same.mae,
        &same.pearson,
        &same.spearman,
        &same.kendall_tau_b,
    ] {
        assert_eq!((p.difference.lower, p.difference.upper), (0.0, 0.0));
        assert_eq!(p.head, p.base);
    }
    let a = compare_regression(&c.truth, &c.head, &c.base, &boot(3)).unwrap();
    assert_eq!(
        a,
        compare_regression(&c.truth, &c.head, &c.base, &boot(3)).unwrap()
    );
    let b = compare_regression(&c.truth, &c.head, &c.base, &boot(4)).unwrap();
    assert_ne!(a.mse.head.lower, b.mse.head.lower);
    assert_eq!(a.mse.head.estimate, b.mse.head.estimate);
    // The head is much closer to the truth than the compressed judge.
    assert!(a.mse.difference.upper < 0.0, "{:?}", a.mse);
    assert!(a.mse.head.valid_rounds == 100);
}
