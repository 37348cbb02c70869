//! Correlations against scipy.stats (committed fixture, `fixtures/make_correlation_reference.py`).
//! Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::correlation::{kendall_tau_b, pearson, spearman};

#[derive(Deserialize)]
struct Case {
    name: String,
    x: Vec<f64>,
    y: Vec<f64>,
    pearson: f64,
    spearman: f64,
    kendall_tau_b: f64,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn correlations_equal_scipy() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/correlation_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 3);
    for c in &fixture.cases {
        let got = [
            pearson(&c.x, &c.y).unwrap(),
            spearman(&c.x, &c.y).unwrap(),
            kendall_tau_b(&c.x, &c.y).unwrap(),
        ];
        let want = [c.pearson, c.spearman, c.kendall_tau_b];
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() < 1e-12,
                "{}: {got:?} vs scipy {want:?}",
                c.name
            );
        }
    }
}
