//! Power and sample size against statsmodels (NormalIndPower, zt_ind_solve_power,
//! proportion_effectsize; committed fixture, `fixtures/make_power_reference.py`).
//! Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::reliability::power::{Alternative, Effect, PowerParams};

#[derive(Deserialize)]
struct EffectSpec {
    proportions: Option<(f64, f64)>,
    d: Option<f64>,
}

#[derive(Deserialize)]
struct PowerAt {
    nobs1: f64,
    power: f64,
}

#[derive(Deserialize)]
struct Case {
    effect: EffectSpec,
    alpha: f64,
    power: f64,
    ratio: f64,
    alternative: String,
    effect_size: f64,
    nobs1: f64,
    power_at: Vec<PowerAt>,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn sample_sizes_equal_statsmodels() {
    let fixture: Fixture =
        serde_json::from_str(include_str!("fixtures/power_reference.json")).unwrap();
    assert_eq!(fixture.cases.len(), 13);
    for c in &fixture.cases {
        let effect = match (c.effect.proportions, c.effect.d) {
            (Some((p1, p2)), None) => Effect::Proportions { p1, p2 },
            (None, Some(d)) => Effect::Standardized { effect_size: d },
            _ => panic!("fixture effect needs proportions or d"),
        };
        let params = PowerParams {
            alpha: c.alpha,
            power: c.power,
            ratio: c.ratio,
            alternative: match c.alternative.as_str() {
                "two-sided" => Alternative::TwoSided,
                "larger" => Alternative::Larger,
                "smaller" => Alternative::Smaller,
                other => panic!("unknown alternative {other}"),
            },
        };
        let s = params.sample_size(&effect).unwrap();
        let label = format!(
            "{:?} {}",
            c.effect.proportions.or(c.effect.d.map(|d| (d, d))),
            c.alternative
        );
        assert!(
            (s.effect_size - c.effect_size).abs() < 1e-14,
            "{label}: h {} vs {}",
            s.effect_size,
            c.effect_size
        );
        // statsmodels solves with a root finder; agreement to 1e-6 relative.
        assert!(
            (s.nobs1 / c.nobs1 - 1.0).abs() < 1e-6,
            "{label}: nobs1 {} vs statsmodels {}",
            s.nobs1,
            c.nobs1
        );
        assert_eq!(s.n1, c.nobs1.ceil() as u64, "{label}");
        assert_eq!(s.n2, (c.ratio * c.nobs1).ceil() as u64, "{label}");
        assert!(s.achieved_power >= c.power, "{label}");
        for at in &c.power_at {
            let p = params
                .achieved_power(&effect, at.nobs1, c.ratio * at.nobs1)
                .unwrap();
            assert!(
                (p - at.power).abs() < 1e-12,
                "{label} n1={}: power {p} vs statsmodels {}",
                at.nobs1,
                at.power
            );
        }
    }
}
