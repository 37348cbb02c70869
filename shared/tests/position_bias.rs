//! Position bias against scipy.stats.binomtest and independently tallied AB/BA verdicts
//! (committed fixture, `fixtures/make_position_bias_reference.py`).
//! Runs natively and in headless Chromium.

use serde::Deserialize;
use tribunal::math::resample::BootstrapParams;
use tribunal::reliability::position_bias::{
    binomial_test_two_sided, PairVerdicts, PositionBiasParams,
};

#[derive(Deserialize)]
struct Binomial {
    k: u64,
    n: u64,
    p: f64,
    p_value: f64,
}

#[derive(Deserialize)]
struct Dataset {
    name: String,
    pairs: Vec<PairVerdicts>,
    n_first: u64,
    n_second: u64,
    n_both_orders: usize,
    flip_rate: f64,
    reversal_rate: f64,
    p_value: f64,
}

#[derive(Deserialize)]
struct Fixture {
    binomial: Vec<Binomial>,
    datasets: Vec<Dataset>,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/position_bias_reference.json")).unwrap()
}

fn close(ours: f64, scipy: f64) -> bool {
    (ours - scipy).abs() <= 1e-10 * scipy.abs().max(1e-300)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn binomial_test_equals_scipy() {
    let fixture = fixture();
    assert_eq!(fixture.binomial.len(), 16);
    for b in &fixture.binomial {
        let ours = binomial_test_two_sided(b.k, b.n, b.p);
        assert!(
            close(ours, b.p_value),
            "k={} n={} p={}: ours {ours} scipy {}",
            b.k,
            b.n,
            b.p,
            b.p_value
        );
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn simulated_ab_ba_runs_match_the_reference_tally() {
    let params = PositionBiasParams {
        bootstrap: BootstrapParams {
            rounds: 500,
            seed: 11,
            level: 0.95,
        },
        ..Default::default()
    };
    for d in &fixture().datasets {
        let r = params.compute(&d.pairs).unwrap();
        assert_eq!(
            (r.n_first, r.n_second),
            (d.n_first, d.n_second),
            "{}",
            d.name
        );
        assert_eq!(r.n_both_orders, d.n_both_orders, "{}", d.name);
        assert!(
            (r.flip_rate.estimate - d.flip_rate).abs() < 1e-15,
            "{}",
            d.name
        );
        assert!(
            (r.reversal_rate - d.reversal_rate).abs() < 1e-15,
            "{}",
            d.name
        );
        assert!(
            close(r.p_value, d.p_value),
            "{}: {} vs {}",
            d.name,
            r.p_value,
            d.p_value
        );
        let rate = d.n_first as f64 / (d.n_first + d.n_second) as f64;
        let ci = r.first_position_rate;
        assert!((ci.estimate - rate).abs() < 1e-15);
        assert!(ci.lower < rate && rate < ci.upper, "{}: {ci:?}", d.name);
        assert_eq!(r.settings.bootstrap.seed, 11);
    }
    // The first-biased judge is detected; the interval excludes ½. The unbiased one is not.
    let all: Vec<_> = fixture()
        .datasets
        .iter()
        .map(|d| params.compute(&d.pairs).unwrap())
        .collect();
    assert!(!all[0].significant);
    assert!(all[1].significant && all[1].first_position_rate.lower > 0.5);
    assert!(all[2].significant && all[2].first_position_rate.upper < 0.5);
}
