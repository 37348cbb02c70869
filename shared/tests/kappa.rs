//! Cohen's κ against scikit-learn (committed fixture, `fixtures/make_kappa_reference.py`), and
//! the bootstrap standard error of κ against statsmodels' asymptotic one.
//! Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::kappa::{KappaParams, KappaWeights};

#[derive(Deserialize)]
struct Case {
    name: String,
    a: Vec<f64>,
    b: Vec<f64>,
    categories: Option<Vec<f64>>,
    expected_categories: Vec<f64>,
    confusion: Vec<Vec<u64>>,
    percent_agreement: f64,
    unweighted: f64,
    linear: f64,
    quadratic: f64,
    asymptotic_se: f64,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/kappa_reference.json")).unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn kappa_equals_scikit_learn() {
    let fixture = fixture();
    assert_eq!(fixture.cases.len(), 7);
    for c in &fixture.cases {
        for (weights, want) in [
            (KappaWeights::Unweighted, c.unweighted),
            (KappaWeights::Linear, c.linear),
            (KappaWeights::Quadratic, c.quadratic),
        ] {
            let params = KappaParams {
                weights,
                categories: c.categories.clone(),
            };
            let k = params.compute(&c.a, &c.b).unwrap();
            assert!(
                (k.kappa - want).abs() < 1e-12,
                "{} {weights:?}: ours {} scikit-learn {want}",
                c.name,
                k.kappa
            );
            assert_eq!(k.categories, c.expected_categories, "{}", c.name);
            assert_eq!(k.confusion, c.confusion, "{}", c.name);
            assert!((k.percent_agreement - c.percent_agreement).abs() < 1e-15);
            assert!(k.warnings.is_empty());
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn bootstrap_standard_error_matches_the_asymptotic_one() {
    let fixture = fixture();
    let c = fixture
        .cases
        .iter()
        .find(|c| c.name == "binary-2000")
        .unwrap();
    let boot = BootstrapParams {
        rounds: 2000,
        seed: 7,
        level: 0.95,
    };
    let k = KappaParams::default().bootstrap(&c.a, &c.b, &boot).unwrap();
    assert_eq!(k.bootstrap.seed, 7);
    let i = k.kappa_interval;
    assert!((i.estimate - c.unweighted).abs() < 1e-12);
    assert_eq!(i.valid_rounds, 2000);
    // Bootstrap and large-sample (statsmodels `std_kappa`) standard errors agree within 10 %
    // at n = 2000; the Monte Carlo error of a 2000-round SE is about 1.6 %.
    assert!(
        (i.se / c.asymptotic_se - 1.0).abs() < 0.10,
        "bootstrap SE {} vs asymptotic {}",
        i.se,
        c.asymptotic_se
    );
    // The percentile interval is close to the normal one, estimate ± 1.96 SE.
    let half = 1.959964 * c.asymptotic_se;
    assert!(
        (i.lower - (c.unweighted - half)).abs() < 0.2 * half,
        "{i:?}"
    );
    assert!(
        (i.upper - (c.unweighted + half)).abs() < 0.2 * half,
        "{i:?}"
    );
}
