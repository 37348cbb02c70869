//! Comparing systems on pointwise scores against the reference libraries (committed fixture,
//! `tests/fixtures/make_compare_reference.py`): scipy's t intervals and `ttest_rel`,
//! statsmodels' Wilson intervals, clustered OLS, exact McNemar and Holm/BH, inspect-ai's
//! clustered `stderr`, on AlpacaEval's own annotations of five models; ppi-python's
//! `ppi_mean_ci` and judgy's corrected rate on simulated gold labels. Then coverage on seeded
//! simulations and the edges. Runs natively and in headless Chromium.

#[cfg(not(target_arch = "wasm32"))]
use rand::{Rng, SeedableRng};
#[cfg(not(target_arch = "wasm32"))]
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use tribunal::compare::comparison::{CompareParams, Comparison};
use tribunal::compare::score_table::{ScoreColumns, TableParams};
use tribunal::io::error::Error;

const REFERENCE: &str = include_str!("fixtures/compare_reference.json");
const ALPACA: &[u8] = include_bytes!("../../tests/fixtures/compare-alpaca-eval.csv");
const GOLD: &[u8] = include_bytes!("../../tests/fixtures/compare-gold-sim.csv");
const ALPACA_GOLD: &[u8] = include_bytes!("../../tests/fixtures/compare-alpaca-gold.csv");

fn close(found: f64, expected: f64, tol: f64, what: &str) {
    assert!(
        (found - expected).abs() <= tol * expected.abs().max(1e-3),
        "{what}: found {found}, expected {expected}"
    );
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn alpaca() -> Comparison {
    CompareParams {
        table: TableParams {
            columns: ScoreColumns {
                cluster: "dataset".to_owned(),
                ..ScoreColumns::default()
            },
            slices: vec!["dataset".to_owned()],
            length: Some("length".to_owned()),
        },
        bootstrap_rounds: 0,
        ..CompareParams::default()
    }
    .fit("compare-alpaca-eval.csv", ALPACA)
    .unwrap()
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn each_system_equals_scipy_statsmodels_and_inspect() {
    let reference: Value = serde_json::from_str(REFERENCE).unwrap();
    let found = alpaca();
    assert_eq!(found.systems.len(), 5);
    assert_eq!(found.criteria, ["preference", "win"]);
    assert_eq!(found.binary, [false, true]);
    assert_eq!(found.clusters, Some(5));
    let expected = reference["alpaca_eval"]["systems"].as_array().unwrap();
    assert_eq!(found.scores.len(), expected.len());
    for (row, want) in found.scores.iter().zip(expected) {
        let at = format!("{} / {}", row.criterion, row.system);
        assert_eq!(row.criterion, want["criterion"].as_str().unwrap(), "{at}");
        assert_eq!(row.system, want["system"].as_str().unwrap(), "{at}");
        assert_eq!(row.n_items, 805, "{at}");
        close(row.mean, number(&want["mean"]), 1e-12, &at);
        close(row.sd, number(&want["sd"]), 1e-12, &at);
        // Wilson for the pass rate, Student's t for the preference.
        close(row.interval.lower, number(&want["lower"]), 1e-11, &at);
        close(row.interval.upper, number(&want["upper"]), 1e-11, &at);
        let clustered = row.clustered.unwrap();
        assert_eq!(clustered.clusters, 5);
        let cl = &want["clustered"];
        close(clustered.interval.se, number(&cl["se"]), 1e-10, &at);
        close(
            clustered.interval.se,
            number(&want["inspect_stderr"]),
            1e-10,
            &at,
        );
        close(clustered.interval.lower, number(&cl["lower"]), 1e-10, &at);
        close(clustered.interval.upper, number(&cl["upper"]), 1e-10, &at);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn each_pair_equals_ttest_rel_clustered_ols_mcnemar_and_multipletests() {
    let reference: Value = serde_json::from_str(REFERENCE).unwrap();
    let found = alpaca();
    let expected = reference["alpaca_eval"]["pairs"].as_array().unwrap();
    assert_eq!(found.differences.len(), 20);
    for (d, want) in found.differences.iter().zip(expected) {
        let at = format!("{}: {} − {}", d.criterion, d.b, d.a);
        assert_eq!(
            (d.a.as_str(), d.b.as_str()),
            (want["a"].as_str().unwrap(), want["b"].as_str().unwrap()),
            "{at}"
        );
        assert_eq!((d.n_shared, d.only_a, d.only_b), (805, 0, 0), "{at}");
        close(d.difference, number(&want["difference"]), 1e-11, &at);
        close(d.sd, number(&want["sd"]), 1e-11, &at);
        close(d.p_value, number(&want["t_p"]), 1e-8, &at);
        close(d.interval.lower, number(&want["t_lower"]), 1e-10, &at);
        close(d.interval.upper, number(&want["t_upper"]), 1e-10, &at);
        let clustered = d.clustered.unwrap();
        let cl = &want["clustered"];
        close(clustered.interval.se, number(&cl["se"]), 1e-10, &at);
        close(clustered.interval.lower, number(&cl["lower"]), 1e-10, &at);
        close(clustered.p_value, number(&cl["p"]), 1e-8, &at);
        close(d.sign_test.p_value, number(&want["sign_p"]), 1e-9, &at);
        match d.mcnemar {
            Some(m) => close(m.p_value, number(&want["mcnemar_p"]), 1e-9, &at),
            None => assert!(want.get("mcnemar_p").is_none(), "{at}"),
        }
        close(d.holm, number(&want["holm"]), 1e-8, &at);
        close(d.bh, number(&want["bh"]), 1e-8, &at);
    }
    // Five sources are few clusters: the clustered test is far more cautious than the naive
    // one, and the reading says so through the adjusted p.
    assert!(found.reading.contains("Holm-adjusted"), "{}", found.reading);
    // The slices: five datasets and four length buckets, every value with five systems.
    assert_eq!(found.slices.len(), 2);
    assert_eq!(found.slices[0].values.len(), 5);
    assert_eq!(found.slices[1].values.len(), 4);
}

/// The judge-corrected rates of `file` equal ppi-python's and judgy's (`reference[section]`).
fn corrected_rates_equal(section: &str, file: &str, bytes: &[u8]) {
    let reference: Value = serde_json::from_str(REFERENCE).unwrap();
    let found = CompareParams {
        bootstrap_rounds: 0,
        ..CompareParams::default()
    }
    .fit(file, bytes)
    .unwrap();
    assert_eq!(found.judge_corrected.len(), 1);
    let corrected = &found.judge_corrected[0];
    let systems = reference[section]["systems"].as_array().unwrap();
    assert_eq!(corrected.systems.len(), systems.len());
    for (row, want) in corrected.systems.iter().zip(systems) {
        let at = &row.system;
        assert_eq!(row.system, want["system"].as_str().unwrap());
        let ppi = row.ppi.unwrap();
        close(ppi.ppi.estimate, number(&want["ppi"]), 1e-10, at);
        close(ppi.ppi.lower, number(&want["ppi_lower"]), 1e-9, at);
        close(ppi.ppi.upper, number(&want["ppi_upper"]), 1e-9, at);
        let m = row.misclassification.unwrap();
        close(m.estimate, number(&want["misclassification"]), 1e-12, at);
        assert!(m.lower < m.estimate && m.estimate < m.upper, "{at}: {m:?}");
        assert!(row.narrower.is_some());
    }
    let pairs = reference[section]["pairs"].as_array().unwrap();
    assert_eq!(found.differences.len(), pairs.len());
    for (d, want) in found.differences.iter().zip(pairs) {
        let at = format!("{} − {}", d.b, d.a);
        assert_eq!(
            (d.a.as_str(), d.b.as_str()),
            (want["a"].as_str().unwrap(), want["b"].as_str().unwrap())
        );
        let ppi = d.judge_corrected.unwrap();
        close(ppi.ppi.estimate, number(&want["ppi"]), 1e-10, &at);
        close(ppi.ppi.lower, number(&want["lower"]), 1e-9, &at);
        close(ppi.ppi.upper, number(&want["upper"]), 1e-9, &at);
    }
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn judge_corrected_rates_equal_ppi_python_and_judgy() {
    corrected_rates_equal("gold", "compare-gold-sim.csv", GOLD);
}

/// Real answers and a real second opinion: four models' AlpacaEval answers judged by
/// `alpaca_eval_gpt4_turbo_fn`, with its chain-of-thought sibling's verdict on a seeded 30 % as
/// the gold (`tests/fixtures/make_compare_reference.py`).
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn judge_corrected_rates_on_real_answers_equal_ppi_python_and_judgy() {
    corrected_rates_equal("alpaca_gold", "compare-alpaca-gold.csv", ALPACA_GOLD);
}

/// The same human labels in a gold file of their own (rows in reverse order, a label for a
/// system the scores lack, a criterion column naming the only criterion): the same judge-
/// corrected numbers as the `human` column gives, the join counted.
#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn a_gold_file_joins_on_item_and_system_like_the_human_column() {
    let quick = CompareParams {
        bootstrap_rounds: 0,
        ..CompareParams::default()
    };
    let text = std::str::from_utf8(GOLD).unwrap();
    let mut scores = String::from("item,system,score\n");
    let mut gold_rows = Vec::new();
    for line in text.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        scores.push_str(&format!("{},{},{}\n", cells[0], cells[1], cells[2]));
        if !cells[3].is_empty() {
            gold_rows.push(format!("{},{},score,{}\n", cells[1], cells[0], cells[3]));
        }
    }
    let labels = gold_rows.len();
    gold_rows.reverse();
    let gold = format!(
        "system,item,criterion,human\n{}omega,q000,score,1\n",
        gold_rows.concat()
    );
    let inline = quick.fit("compare-gold-sim.csv", GOLD).unwrap();
    let joined = quick
        .fit_with_gold(
            "scores.csv",
            scores.as_bytes(),
            Some(("gold.csv", gold.as_bytes())),
        )
        .unwrap();
    assert_eq!(
        serde_json::to_value(&joined.judge_corrected).unwrap(),
        serde_json::to_value(&inline.judge_corrected).unwrap()
    );
    let join = joined.gold.unwrap();
    assert_eq!(
        (join.rows, join.labelled, join.unmatched),
        (labels + 1, labels, 1)
    );
    assert!(joined
        .warnings
        .iter()
        .any(|w| w.starts_with("1 of the gold file's")));
    // A join that matches nothing is an error, not a report without correction.
    let stranger = b"item,system,human\nz1,alpha,1\n";
    let err = quick
        .fit_with_gold("scores.csv", scores.as_bytes(), Some(("g.csv", stranger)))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("none of its 1 labels names an answer"),
        "{err}"
    );
    // Gold for an answer the scores file labels already: located, not averaged in.
    let twice = b"item,system,human\nq001,alpha,1\n";
    let err = quick
        .fit_with_gold("compare-gold-sim.csv", GOLD, Some(("g.csv", twice)))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("g.csv, line 2, column 3 (`human`)"),
        "{err}"
    );
    // A label that is not a number: located.
    let bad = b"item,system,human\nq001,alpha,yes\n";
    let err = quick
        .fit_with_gold("scores.csv", scores.as_bytes(), Some(("g.csv", bad)))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("g.csv, line 2, column 3 (`human`)"),
        "{err}"
    );
}

/// Scores of two systems on `items` items in `clusters` clusters: item effects shared by every
/// system, a cluster effect with intra-cluster correlation `icc` of the item effects, and each
/// system's own noise (the simulations run natively only: 1,000 repetitions each).
#[cfg(not(target_arch = "wasm32"))]
fn simulated(rng: &mut ChaCha8Rng, items: usize, clusters: usize, icc: f64, shift: f64) -> String {
    let normal = |rng: &mut ChaCha8Rng| {
        let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let cluster_effect: Vec<f64> = (0..clusters).map(|_| icc.sqrt() * normal(rng)).collect();
    let mut text = "item,system,score,cluster\n".to_owned();
    for i in 0..items {
        let c = i % clusters;
        let item = cluster_effect[c] + (1.0 - icc).sqrt() * normal(rng);
        for (system, offset) in [("A", 0.0), ("B", shift)] {
            let score = item + offset + 0.5 * normal(rng);
            text.push_str(&format!("i{i},{system},{score},c{c}\n"));
        }
    }
    text
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn clustered_intervals_cover_where_naive_ones_do_not() {
    // 1,000 seeded evaluations of 400 items in 40 clusters (ICC 0.3): each system's mean.
    let (mut naive, mut clustered, mut paired_narrower) = (0, 0, 0);
    let reps = 1000;
    for rep in 0..reps {
        let mut rng = ChaCha8Rng::seed_from_u64(rep);
        let text = simulated(&mut rng, 400, 40, 0.3, 0.0);
        let c = CompareParams {
            bootstrap_rounds: 0,
            ..CompareParams::default()
        }
        .fit("sim.csv", text.as_bytes())
        .unwrap();
        // The true mean of A is 0.
        let a = &c.scores[0];
        naive += usize::from(a.interval.lower <= 0.0 && 0.0 <= a.interval.upper);
        let cl = a.clustered.unwrap().interval;
        clustered += usize::from(cl.lower <= 0.0 && 0.0 <= cl.upper);
        // The paired difference's interval is narrower than the two unpaired intervals'
        // combination (items correlate across systems).
        let b = &c.scores[1];
        let unpaired = (a.interval.se.powi(2) + b.interval.se.powi(2)).sqrt();
        paired_narrower += usize::from(c.differences[0].interval.se < unpaired);
    }
    let rate = |k: usize| k as f64 / reps as f64;
    // Binomial error at 1,000 repetitions: ±0.014 (2 sd) around 0.95.
    assert!(
        rate(clustered) >= 0.93,
        "clustered coverage {}",
        rate(clustered)
    );
    assert!(rate(naive) < 0.80, "naive coverage {}", rate(naive));
    assert_eq!(paired_narrower, reps as usize);
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_corrected_rate_covers_where_the_raw_judge_rate_does_not() {
    // A lenient judge (sensitivity 0.9, specificity 0.6) on a true pass rate of 0.6 passes
    // 0.6·0.9 + 0.4·0.4 = 0.70; people label 150 of 600 answers. 1,000 seeded repetitions.
    let (mut raw, mut corrected, mut ppi) = (0, 0, 0);
    let reps = 1000;
    for rep in 0..reps {
        let mut rng = ChaCha8Rng::seed_from_u64(10_000 + rep);
        let mut text = "item,system,score,human\n".to_owned();
        for i in 0..600 {
            let truth = rng.random::<f64>() < 0.6;
            let judge = if truth {
                rng.random::<f64>() < 0.9
            } else {
                rng.random::<f64>() >= 0.6
            };
            let human = if i < 150 {
                u8::from(truth).to_string()
            } else {
                String::new()
            };
            text.push_str(&format!("q{i},S,{},{human}\n", u8::from(judge)));
        }
        let c = CompareParams {
            bootstrap_rounds: 0,
            ..CompareParams::default()
        }
        .fit("gold.csv", text.as_bytes())
        .unwrap();
        let s = &c.scores[0];
        raw += usize::from(s.interval.lower <= 0.6 && 0.6 <= s.interval.upper);
        let row = &c.judge_corrected[0].systems[0];
        let m = row.misclassification.unwrap();
        corrected += usize::from(m.lower <= 0.6 && 0.6 <= m.upper);
        let p = row.ppi.unwrap().ppi;
        ppi += usize::from(p.lower <= 0.6 && 0.6 <= p.upper);
    }
    let rate = |k: usize| k as f64 / reps as f64;
    // The raw rate's interval centres on 0.70 and almost never holds 0.6; both corrected
    // ones cover within binomial error (±0.014 at 1,000 repetitions).
    assert!(rate(raw) < 0.05, "raw coverage {}", rate(raw));
    assert!(
        rate(corrected) >= 0.93,
        "corrected coverage {}",
        rate(corrected)
    );
    assert!(rate(ppi) >= 0.93, "PPI coverage {}", rate(ppi));
}

#[cfg_attr(not(target_arch = "wasm32"), test)]
#[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
fn the_edges_are_said_not_guessed() {
    let quick = CompareParams {
        bootstrap_rounds: 0,
        ..CompareParams::default()
    };
    // One item: the mean, no t interval, a warning.
    let one = quick
        .fit("one.csv", b"item,system,score\nq1,A,3\nq1,B,5\n")
        .unwrap();
    assert!(one.scores[0].interval.lower.is_nan());
    assert!(
        one.warnings.iter().any(|w| w.contains("one item")),
        "{:?}",
        one.warnings
    );
    // Every item passed: Wilson, not a zero-width interval at 100 %.
    let mut all = "item,system,score\n".to_owned();
    for i in 0..30 {
        all.push_str(&format!("q{i},A,1\nq{i},B,{}\n", u8::from(i % 3 > 0)));
    }
    let c = quick.fit("all.csv", all.as_bytes()).unwrap();
    assert_eq!(c.scores[0].mean, 1.0);
    assert!(c.scores[0].interval.lower < 0.9 && c.scores[0].interval.upper == 1.0);
    // Items not shared: counted, and a pair with none is not compared.
    let apart = quick
        .fit(
            "apart.csv",
            b"item,system,score\nq1,A,1\nq2,A,0\nq3,B,1\nq4,B,1\n",
        )
        .unwrap();
    assert_eq!(apart.differences[0].n_shared, 0);
    assert_eq!(
        (apart.differences[0].only_a, apart.differences[0].only_b),
        (2, 2)
    );
    assert!(apart.warnings.iter().any(|w| w.contains("share no item")));
    assert!(
        apart.reading.contains("nothing is compared"),
        "{}",
        apart.reading
    );
    // A system with no items in a slice: no row for it there.
    let sliced = CompareParams {
        table: TableParams {
            slices: vec!["topic".to_owned()],
            ..TableParams::default()
        },
        ..quick.clone()
    }
    .fit(
        "sliced.csv",
        b"item,system,score,topic\nq1,A,1,math\nq1,B,0,math\nq2,A,1,code\nq3,A,0,code\n",
    )
    .unwrap();
    let code: Vec<&str> = sliced.slices[0]
        .scores
        .iter()
        .filter(|s| s.value == "code")
        .map(|s| s.system.as_str())
        .collect();
    assert_eq!(code, ["A"]);
    // A non-numeric score: file, line, column.
    match quick.fit("bad.csv", b"item,system,score\nq1,A,1\nq2,A,pass\n") {
        Err(Error::Input { location, message }) => {
            assert_eq!((location.line, location.column), (3, Some(3)));
            assert!(message.contains("`pass`"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // A criterion with no scores.
    let c = quick
        .fit(
            "crit.csv",
            b"item,system,score,criterion\nq1,A,1,a\nq1,B,0,a\nq2,A,1,a\nq2,B,1,a\nq1,A,,b\n",
        )
        .unwrap();
    assert_eq!(c.criteria, ["a"]);
    assert!(
        c.warnings.iter().any(|w| w.contains("`b` has no scores")),
        "{:?}",
        c.warnings
    );
}
