//! Holm and Benjamini–Hochberg against statsmodels' multipletests (committed fixture,
//! `fixtures/make_multiple_testing_reference.py`). Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::multiple_testing::{Correction, MultipleTestingParams};

#[derive(Deserialize)]
struct Expected {
    adjusted: Vec<f64>,
    reject: Vec<bool>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    p_values: Vec<f64>,
    alpha: f64,
    holm: Expected,
    benjamini_hochberg: Expected,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn adjusted_p_values_equal_statsmodels() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/multiple_testing_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 5);
    for c in &fixture.cases {
        for (correction, want) in [
            (Correction::Holm, &c.holm),
            (Correction::BenjaminiHochberg, &c.benjamini_hochberg),
        ] {
            let got = MultipleTestingParams {
                correction,
                alpha: c.alpha,
            }
            .compute(&c.p_values)
            .unwrap();
            for (g, w) in got.adjusted.iter().zip(&want.adjusted) {
                assert!(
                    (g - w).abs() < 1e-14,
                    "{} {correction:?}: ours {g} statsmodels {w}",
                    c.name
                );
            }
            assert_eq!(got.adjusted.len(), want.adjusted.len());
            assert_eq!(got.reject, want.reject, "{} {correction:?}", c.name);
        }
    }
}
