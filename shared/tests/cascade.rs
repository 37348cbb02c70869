//! Cascades of judges with a guaranteed agreement ("Trust or Escalate") against a committed
//! reference (`tests/fixtures/make_cascade_reference.py`: the thresholds by fixed-sequence
//! testing with scipy's `binom.cdf`, the cascade's shares and agreements, each judge alone,
//! the unlabelled items' route), then the guarantee itself on 1,000 seeded simulations, and the
//! edges. Runs natively and in headless Chromium (the simulations natively only).

use serde_json::Value;
use tribunal::io::error::Error;
use tribunal::selective::cascade::{CascadeParams, CascadeReport};

const REFERENCE: &str = include_str!("fixtures/cascade_reference.json");
const SIM: &[u8] = include_bytes!("../../tests/fixtures/cascade-sim.csv");

fn close(found: f64, expected: f64, what: &str) {
    assert!(
        (found - expected).abs() <= 1e-9 * expected.abs().max(1.0),
        "{what}: found {found}, expected {expected}"
    );
}

fn optional(found: Option<f64>, expected: &Value, what: &str) {
    match (found, expected.as_f64()) {
        (Some(f), Some(e)) => close(f, e, what),
        (None, None) => {}
        _ => panic!("{what}: found {found:?}, expected {expected}"),
    }
}

fn count(v: &Value) -> usize {
    v.as_u64().map_or(usize::MAX, |n| n as usize)
}

fn fit(params: CascadeParams, bytes: &[u8]) -> Result<CascadeReport, Error> {
    params.fit("judgments.csv", bytes)
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn thresholds_shares_and_agreements_equal_the_scipy_reference() {
    let reference: Value = serde_json::from_str(REFERENCE).unwrap();
    let cases = reference["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 2);
    for case in cases {
        let tiers: Vec<String> = case["tiers_given"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        let params = CascadeParams {
            tiers: tiers.clone(),
            alpha: case["alpha"].as_f64().unwrap(),
            delta: case["delta"].as_f64().unwrap(),
            ..CascadeParams::default()
        };
        let report = fit(params, SIM).unwrap();
        let name = tiers.join(">");
        assert_eq!(
            report.items.calibration,
            count(&case["calibration"]),
            "{name}"
        );
        assert_eq!(report.items.test, count(&case["test"]), "{name}");
        assert_eq!((report.items.items, report.items.unlabelled), (700, 100));
        for (tier, expected) in report.tiers.iter().zip(case["tiers"].as_array().unwrap()) {
            let what = format!("{name}: tier {}", tier.judge);
            assert_eq!(tier.judge, expected["judge"].as_str().unwrap());
            assert_eq!(tier.reached, count(&expected["reached"]), "{what}");
            assert_eq!(
                tier.calibration.judged,
                count(&expected["judged"]),
                "{what}"
            );
            optional(tier.calibration.threshold, &expected["threshold"], &what);
            assert_eq!(tier.calibration.kept, count(&expected["kept"]), "{what}");
            assert_eq!(
                tier.calibration.disagreements,
                count(&expected["disagreements"]),
                "{what}"
            );
            let chosen = tier
                .calibration
                .curve
                .iter()
                .find(|p| Some(p.threshold) == tier.calibration.threshold)
                .map(|p| p.p_value);
            optional(chosen, &expected["p_value"], &format!("{what}: p-value"));
            assert_eq!(tier.test.items, count(&expected["test_reached"]), "{what}");
            assert_eq!(tier.test.kept, count(&expected["test_kept"]), "{what}");
            close(
                tier.delta,
                case["delta"].as_f64().unwrap() / tiers.len() as f64,
                &what,
            );
        }
        let cascade = &case["cascade"];
        assert_eq!(report.cascade.kept, count(&cascade["kept"]), "{name}");
        optional(report.cascade.coverage, &cascade["coverage"], &name);
        optional(report.cascade.agreement, &cascade["agreement"], &name);
        optional(
            report.cascade.cost_per_item,
            &cascade["cost_per_item"],
            &name,
        );
        for (alone, expected) in report.alone.iter().zip(case["alone"].as_array().unwrap()) {
            let what = format!("{name}: {} alone", alone.judge);
            optional(alone.threshold, &expected["threshold"], &what);
            assert_eq!(alone.selective.kept, count(&expected["kept"]), "{what}");
            optional(alone.selective.agreement, &expected["agreement"], &what);
            assert_eq!(
                alone.no_abstention.kept,
                count(&expected["no_abstention_kept"]),
                "{what}"
            );
            optional(
                alone.no_abstention.agreement,
                &expected["no_abstention_agreement"],
                &what,
            );
        }
        let decided: Vec<usize> = case["unlabelled_decided"]
            .as_array()
            .unwrap()
            .iter()
            .map(count)
            .collect();
        assert_eq!(report.unlabelled.decided, decided, "{name}");
        let to_humans: Vec<&str> = case["to_humans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(report.unlabelled.to_humans, to_humans, "{name}");
    }
}

/// Judgments of two simulated tiers on `n` labelled items (Trust or Escalate's simulated
/// judge): tier k's confidence is uniform on [low_k, 1] and it agrees with the human with
/// probability equal to its confidence. Half the items calibrate, half test (`split`).
#[cfg(not(target_arch = "wasm32"))]
fn simulated(n: usize, lows: [f64; 2], rng: &mut impl rand::Rng) -> Vec<u8> {
    let mut csv = String::from("item,judge,verdict,confidence,human,split\n");
    for item in 0..n {
        let split = if item % 2 == 0 { "calibration" } else { "test" };
        for (k, low) in lows.iter().enumerate() {
            let c: f64 = rng.random_range(*low..1.0);
            let verdict = if rng.random::<f64>() < c { "A" } else { "B" };
            csv.push_str(&format!("{item},tier{k},{verdict},{c},A,{split}\n"));
        }
    }
    csv.into_bytes()
}

/// The disagreement rate on the items a cascade of the two simulated tiers keeps at
/// thresholds `lambdas`, exactly: for confidence uniform on [a, 1] with P(wrong | c) = 1 − c,
/// P(c ≥ λ) = (1 − λ)/(1 − a) and P(c ≥ λ, wrong) = (1 − λ)²/(2(1 − a)) for λ ≥ a.
#[cfg(not(target_arch = "wasm32"))]
fn true_risk(lambdas: [Option<f64>; 2], lows: [f64; 2]) -> Option<f64> {
    let tier = |lambda: Option<f64>, low: f64| match lambda {
        None => (0.0, 0.0),
        Some(l) => {
            let l = l.max(low);
            (
                (1.0 - l) / (1.0 - low),
                (1.0 - l).powi(2) / (2.0 * (1.0 - low)),
            )
        }
    };
    let (keep1, wrong1) = tier(lambdas[0], lows[0]);
    let (keep2, wrong2) = tier(lambdas[1], lows[1]);
    let kept = keep1 + (1.0 - keep1) * keep2;
    (kept > 0.0).then(|| (wrong1 + (1.0 - keep1) * wrong2) / kept)
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_guarantee_holds_in_a_thousand_seeded_simulations_and_a_naive_threshold_breaks_it() {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use tribunal::selective::guarantee::Test;
    let (alpha, delta, lows) = (0.15, 0.1, [0.5, 0.6]);
    let (mut failures, mut naive_failures, mut kept_some) = (0, 0, 0);
    for rep in 0..1000_u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(rep);
        let judgments = simulated(600, lows, &mut rng);
        let params = CascadeParams {
            alpha,
            delta,
            ..CascadeParams::default()
        };
        let report = fit(params, &judgments).unwrap();
        let lambdas = [0, 1].map(|k| report.tiers[k].calibration.threshold);
        if let Some(risk) = true_risk(lambdas, lows) {
            kept_some += 1;
            failures += usize::from(risk > alpha);
        }
        // The naive rule: the lowest threshold whose calibration agreement is ≥ 1 − α, on the
        // first tier alone — no test, no δ.
        let naive = report.tiers[0]
            .calibration
            .curve
            .iter()
            .rev()
            .find(|p| p.agreement >= 1.0 - alpha)
            .map(|p| p.threshold);
        if true_risk([naive, None], lows).is_some_and(|risk| risk > alpha) {
            naive_failures += 1;
        }
        // Each tier's chosen threshold passed its test at δ/2.
        for tier in &report.tiers {
            if let Some(t) = tier.calibration.threshold {
                let at = tier.calibration.curve.iter().find(|p| p.threshold == t);
                assert!(at.is_some_and(|p| p.test == Test::Rejected && p.p_value <= delta / 2.0));
            }
        }
    }
    eprintln!(
        "kept some: {kept_some}, broke it: {failures}, the naive rule broke it: {naive_failures}"
    );
    assert!(
        kept_some >= 900,
        "the cascade kept something in {kept_some} of 1,000"
    );
    assert!(
        failures <= 100,
        "{failures} of 1,000 calibrations broke the guarantee"
    );
    assert!(
        naive_failures > 100,
        "the naive threshold broke it {naive_failures} times: the simulation cannot tell"
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_file_with_no_human_label_or_a_bad_row_is_refused_where_it_is_wrong() {
    let unlabelled = b"item,judge,verdict,confidence,human\n1,a,A,0.9,\n2,a,B,0.8,\n";
    let error = fit(CascadeParams::default(), unlabelled).unwrap_err();
    assert!(matches!(error, Error::Insufficient(_)), "{error}");
    let cases: [(&[u8], u64, &str); 5] = [
        (
            b"item,judge,verdict,confidence,human\n1,a,A,high,A\n",
            2,
            "confidence",
        ),
        (
            b"item,judge,verdict,confidence,human\n1,a,A,0.9,A\n1,b,A,0.9,B\n",
            3,
            "human",
        ),
        (
            b"item,judge,verdict,confidence,human\n1,a,A,0.9,A\n1,a,B,0.5,A\n",
            3,
            "judge",
        ),
        (
            b"item,judge,verdict,confidence,human,split\n1,a,A,0.9,A,train\n",
            2,
            "split",
        ),
        (b"item,judge,verdict,human\n1,a,A,A\n", 1, ""),
    ];
    for (bytes, line, field) in cases {
        let error = fit(CascadeParams::default(), bytes).unwrap_err();
        let location = error.location().unwrap_or_else(|| panic!("{error}"));
        assert_eq!(location.line, line, "{error}");
        if !field.is_empty() {
            assert_eq!(location.field.as_deref(), Some(field), "{error}");
        }
    }
    let unknown = CascadeParams {
        tiers: vec!["gpt-5".to_owned()],
        ..CascadeParams::default()
    };
    let message = fit(unknown, SIM).unwrap_err().to_string();
    assert!(
        message.contains("gpt-5") && message.contains("small"),
        "{message}"
    );
    for bad in [0.0, 1.0, f64::NAN] {
        let params = CascadeParams {
            alpha: bad,
            ..CascadeParams::default()
        };
        assert!(params.validate().is_err());
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_judge_that_never_errs_keeps_all_and_too_few_items_keep_nothing_loudly() {
    // 200 labelled items, the judge always right and always certain: it keeps every test item.
    let mut csv = String::from("item,judge,verdict,confidence,human\n");
    for i in 0..200 {
        csv.push_str(&format!("i{i},perfect,A,1,A\n"));
    }
    let report = fit(CascadeParams::default(), csv.as_bytes()).unwrap();
    assert_eq!(report.cascade.coverage, Some(1.0));
    assert_eq!(report.cascade.agreement, Some(1.0));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    // 20 items: 10 calibrate, fewer than the 15 a perfect judge needs at α = 0.15, δ = 0.1,
    // even when the walk is told to start at once.
    let mut csv = String::from("item,judge,verdict,confidence,human\n");
    for i in 0..20 {
        csv.push_str(&format!("i{i},perfect,A,1,A\n"));
    }
    let at_once = CascadeParams {
        start_kept: Some(1),
        ..CascadeParams::default()
    };
    let report = fit(at_once, csv.as_bytes()).unwrap();
    assert_eq!(report.cascade.kept, 0);
    assert_eq!(report.tiers[0].calibration.start, 15);
    assert_eq!(report.tiers[0].calibration.fewest_testable, 15);
    let warnings = report.warnings.join("\n");
    assert!(warnings.contains("keeps no item"), "{warnings}");
    assert!(warnings.contains("keeps no test item"), "{warnings}");
    // Everything calibrates: nothing is tested, and the report says so.
    let params = CascadeParams {
        calibration_share: 1.0,
        ..CascadeParams::default()
    };
    let report = fit(params, csv.as_bytes()).unwrap();
    assert_eq!((report.items.test, report.cascade.coverage), (0, None));
    assert!(report.warnings.iter().any(|w| w.contains("no test items")));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_seeded_split_is_recorded_and_does_not_depend_on_the_rows_order() {
    // Without the split column: the seed splits the labelled items, whatever the row order.
    let text = std::str::from_utf8(SIM).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let header = lines.remove(0);
    let drop_split = |line: &str| {
        line.rsplit_once(',')
            .map_or(line.to_owned(), |(a, _)| a.to_owned())
    };
    let forward: Vec<String> = lines.iter().map(|l| drop_split(l)).collect();
    let mut backward = forward.clone();
    backward.reverse();
    let file = |rows: &[String]| format!("{}\n{}\n", drop_split(header), rows.join("\n"));
    let params = CascadeParams {
        seed: 7,
        tiers: ["small", "medium", "large"].map(str::to_owned).to_vec(),
        ..CascadeParams::default()
    };
    let a = fit(params.clone(), file(&forward).as_bytes()).unwrap();
    let b = fit(params.clone(), file(&backward).as_bytes()).unwrap();
    assert_eq!(a.items.calibration, 300);
    assert_eq!(a.cascade, b.cascade);
    assert_eq!(a.settings.seed, 7);
    let other = fit(
        CascadeParams { seed: 8, ..params },
        file(&forward).as_bytes(),
    )
    .unwrap();
    assert_ne!(
        (a.tiers[0].calibration.curve.len(), a.cascade.kept),
        (other.tiers[0].calibration.curve.len(), other.cascade.kept)
    );
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn on_llmfao_only_gpt4_is_trusted_and_only_where_the_guarantee_allows() {
    // Real judgments (tests/fixtures/make_cascade_llmfao.py): SmolLM2-135M with its
    // probability as confidence on 248 pairs, GPT-3.5 and GPT-4 with one verdict and no
    // confidence on all 2,139, the crowd's plurality winner as the human label (1,059 pairs
    // with a clear winner).
    const LLMFAO: &[u8] = include_bytes!("../../tests/data/llmfao/cascade-llmfao.csv");
    let tiers: Vec<String> = ["smollm2", "gpt-3.5", "gpt-4"].map(str::to_owned).to_vec();
    let at = |alpha: f64| {
        let params = CascadeParams {
            tiers: tiers.clone(),
            alpha,
            ..CascadeParams::default()
        };
        fit(params, LLMFAO).unwrap()
    };
    // GPT-4 agrees with the crowd on 70 % of the calibration pairs (158 of 530 disagree):
    // at 85 % nothing can be trusted, and the report says so for every tier.
    let strict = at(0.15);
    assert_eq!((strict.items.labelled, strict.items.items), (1059, 2139));
    assert_eq!(strict.cascade.kept, 0);
    assert_eq!(strict.unlabelled.to_humans.len(), 1080);
    assert_eq!(strict.warnings.len(), 4, "{:?}", strict.warnings);
    // At 65 %, GPT-4 — whose confidence is the same on every pair — is kept whole, on every
    // pair that reaches it, and the cascade is GPT-4 alone; the two other judges keep nothing.
    let loose = at(0.35);
    let gpt4 = &loose.tiers[2];
    assert_eq!(gpt4.calibration.threshold, Some(1.0));
    assert_eq!(
        (gpt4.calibration.kept, gpt4.calibration.disagreements),
        (530, 158)
    );
    assert_eq!(loose.cascade.coverage, Some(1.0));
    assert_eq!(
        loose.cascade.agreement,
        loose.alone[2].no_abstention.agreement
    );
    assert!(loose.tiers[..2]
        .iter()
        .all(|t| t.calibration.threshold.is_none()));
    assert_eq!(loose.unlabelled.decided, [0, 0, 1080]);
    // The bundled judge's cost is its seconds per judgment; the GPT rows carry none.
    assert!(loose.tiers[0].cost.is_some_and(|s| s > 1.0));
    assert_eq!(loose.cascade.cost_per_item, None);
}
