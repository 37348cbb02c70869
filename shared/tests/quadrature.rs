//! Gauss–Hermite rules against numpy.polynomial.hermite.hermgauss (committed fixture,
//! `fixtures/make_quadrature_reference.py`). Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::quadrature::gauss_hermite;

#[derive(Deserialize)]
struct Case {
    n: usize,
    nodes: Vec<f64>,
    weights: Vec<f64>,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn gauss_hermite_equals_numpy_hermgauss() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/quadrature_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 13);
    for case in &fixture.cases {
        let rule = gauss_hermite(case.n).unwrap();
        assert_eq!(rule.nodes.len(), case.n);
        for (i, (got, want)) in rule.nodes.iter().zip(&case.nodes).enumerate() {
            assert!(
                (got - want).abs() <= 1e-12,
                "n = {}: node {i}: ours {got} numpy {want}",
                case.n
            );
        }
        // The outer weights are tiny (down to 2e-163 at n = 200), so they are also compared
        // relatively.
        for (i, (got, want)) in rule.weights.iter().zip(&case.weights).enumerate() {
            assert!(
                (got - want).abs() <= 1e-12 && (got - want).abs() <= 1e-11 * want,
                "n = {}: weight {i}: ours {got} numpy {want}",
                case.n
            );
        }
    }
}
