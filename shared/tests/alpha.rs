//! Krippendorff's α against the `krippendorff` package and Krippendorff's (2011) published
//! example (committed fixture, `fixtures/make_alpha_reference.py`).
//! Runs natively and in headless Chromium.

use serde::Deserialize;
use std::collections::HashMap;
use tribunal::reliability::alpha::{AlphaLevel, AlphaParams};

#[derive(Deserialize)]
struct Case {
    name: String,
    units: Vec<Vec<Option<f64>>>,
    nominal: f64,
    ordinal: f64,
    interval: f64,
    ratio: f64,
}

#[derive(Deserialize)]
struct Fixture {
    published_krippendorff_2011: HashMap<String, f64>,
    cases: Vec<Case>,
}

const LEVELS: [(AlphaLevel, &str); 4] = [
    (AlphaLevel::Nominal, "nominal"),
    (AlphaLevel::Ordinal, "ordinal"),
    (AlphaLevel::Interval, "interval"),
    (AlphaLevel::Ratio, "ratio"),
];

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn alpha_equals_the_krippendorff_package() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/alpha_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 7);
    for c in &fixture.cases {
        for (level, want) in LEVELS
            .iter()
            .zip([c.nominal, c.ordinal, c.interval, c.ratio])
        {
            let a = AlphaParams { level: level.0 }.compute(&c.units).unwrap();
            assert!(
                (a.alpha - want).abs() < 1e-12,
                "{} {}: ours {} package {want}",
                c.name,
                level.1,
                a.alpha
            );
            assert!(a.warnings.is_empty());
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn textbook_example_has_the_published_values() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/alpha_reference.json")).unwrap();
    let c = &fixture.cases[0];
    assert_eq!(c.name, "krippendorff-2011-example");
    for (level, name) in LEVELS {
        let a = AlphaParams { level }.compute(&c.units).unwrap();
        let published = fixture.published_krippendorff_2011[name];
        assert!(
            (a.alpha - published).abs() < 5e-4,
            "{name}: {} vs published {published}",
            a.alpha
        );
        // 12 units; unit 12 has a single value and is not pairable.
        assert_eq!((a.n_units, a.n_pairable_units), (12, 11));
        assert_eq!(a.values, [1.0, 2.0, 3.0, 4.0, 5.0]);
    }
    // By hand: 40 pairable values. Value 3 coincides with itself in units 3 and 4 (four 3s
    // each: 4·3/(4−1) = 4 each → 8); with 2 in unit 2 (2,2,3,2: 3·1/3 = 1) and unit 6
    // (1,2,3,4: 1/3); with 1 and 4 in unit 6 (1/3 each). So n₃ = 8 + 4/3 + 2/3 = 10.
    let a = AlphaParams {
        level: AlphaLevel::Nominal,
    }
    .compute(&c.units)
    .unwrap();
    assert!((a.n_pairable_values - 40.0).abs() < 1e-12);
    assert!((a.coincidence[2][2] - 8.0).abs() < 1e-12);
    assert!((a.coincidence[2][1] - 4.0 / 3.0).abs() < 1e-12);
    assert!((a.coincidence[2].iter().sum::<f64>() - 10.0).abs() < 1e-12);
}
