//! `tribunal stats ppi` against ppi-python 0.2.3 on LLMFAO (`tests/fixtures/ppi_reference.json`,
//! made by `tests/fixtures/make_ppi_reference.py`): the prediction-powered win rates with the
//! power-tuned λ, the human-only (classical) intervals, and the Bradley–Terry leaderboard as
//! logistic regression; models without enough human labels are reported missing, loudly; a bad
//! label is located.

use serde_json::Value;
use tribunal_e2e::{run_tribunal, stdout_json, temp_dir};

fn reference() -> Value {
    let text =
        std::fs::read_to_string(tribunal_e2e::root().join("tests/fixtures/ppi_reference.json"))
            .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn close(ours: &Value, theirs: &Value, tol: f64, at: &str) {
    let (a, b) = (ours.as_f64().unwrap(), theirs.as_f64().unwrap());
    assert!((a - b).abs() <= tol, "{at}: {a} vs {b}");
}

#[test]
fn win_rates_equal_ppi_python_and_unestimable_models_are_said_so() {
    let want = reference();
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-battles.csv",
        "--alpha",
        "0.1",
        "--min-labels",
        "2",
    ]);
    let report = stdout_json(&output);
    assert_eq!(report["analysis"], "ppi");
    assert_eq!(report["n_labelled"], 300);
    let rates = report["win_rates"].as_array().unwrap();
    let mut matched = 0;
    for w in want["win_rates"].as_array().unwrap() {
        let model = w["model"].as_str().unwrap();
        let ours = rates.iter().find(|r| r["model"] == model).unwrap();
        let e = &ours["estimate"];
        close(&e["lambda"], &w["lambda"], 1e-9, model);
        for (ours, theirs) in [("ppi", "tuned"), ("human_only", "classical")] {
            for bound in ["estimate", "lower", "upper"] {
                close(&e[ours][bound], &w[theirs][bound], 1e-9, model);
            }
        }
        matched += 1;
    }
    assert_eq!(matched, 58);
    // The one model with fewer than two human labels has no win rate, and says why — in the
    // report and on stderr.
    let missing: Vec<&Value> = rates.iter().filter(|r| r["estimate"].is_null()).collect();
    assert_eq!(missing.len(), 1);
    assert!(missing[0]["note"]
        .as_str()
        .unwrap()
        .contains("1 human labels, fewer than min_labels = 2"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{}: no win rate",
            missing[0]["model"].as_str().unwrap()
        )),
        "{stderr}"
    );
}

#[test]
fn the_leaderboard_equals_ppi_python_on_the_elo_scale() {
    let want = &reference()["bradley_terry"];
    let scale = 400.0 / std::f64::consts::LN_10;
    for (lambda, name) in [(None, "tuned"), (Some("1"), "ppi")] {
        let mut args = vec![
            "stats",
            "ppi",
            "--input",
            "tests/fixtures/ppi-llmfao-ten-models.csv",
            "--alpha",
            "0.1",
        ];
        if let Some(l) = lambda {
            args.extend(["--lambda", l]);
        }
        let report = stdout_json(&run_tribunal(&args));
        let board = &report["leaderboard"];
        assert_eq!(board["reference"], want["reference_model"]);
        let models = want["models"].as_array().unwrap();
        for (k, model) in models.iter().enumerate().skip(1) {
            let row = board["ratings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| &r["model"] == model)
                .unwrap();
            let at = format!("{name} {model}");
            let (lo, hi) = (&want[name]["lower"][k - 1], &want[name]["upper"][k - 1]);
            let centre = (lo.as_f64().unwrap() + hi.as_f64().unwrap()) / 2.0;
            let theta = |v: &Value| Value::from(v.as_f64().unwrap() / scale);
            close(
                &theta(&row["ppi"]["estimate"]),
                &Value::from(centre),
                1e-6,
                &at,
            );
            close(&theta(&row["ppi"]["lower"]), lo, 1e-6, &at);
            close(&theta(&row["ppi"]["upper"]), hi, 1e-6, &at);
        }
        // The reference model sits at 0 with no interval of its own.
        let reference = board["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["model"] == want["reference_model"])
            .unwrap();
        assert_eq!(reference["ppi"]["estimate"], 0.0);
        // The labels the judge's are worth: n · Σ se²(human only) / Σ se²(PPI) over the models
        // (the traces of the two covariances); the tuned λ is chosen to shrink that trace, so
        // it is worth at least the labels themselves.
        let ratings = board["ratings"].as_array().unwrap();
        let sum = |field: &str| {
            ratings
                .iter()
                .map(|r| r[field]["se"].as_f64().unwrap().powi(2))
                .sum::<f64>()
        };
        let n = board["labels"].as_f64().unwrap();
        assert_eq!(n, 80.0);
        let effective = board["effective_n"].as_f64().unwrap();
        close(
            &Value::from(effective),
            &Value::from(n * sum("human_only") / sum("ppi")),
            1e-9 * effective,
            &format!("{name} effective_n"),
        );
        if lambda.is_none() {
            assert!(effective >= n, "{effective}");
        }
    }
}

#[test]
fn a_bad_label_is_located_and_a_one_sided_judge_is_not_identified() {
    let dir = temp_dir("ppi-cli");
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        "model_a,model_b,judge,human\nA,B,model_a,\nA,B,maybe,model_b\n",
    )
    .unwrap();
    let output = run_tribunal(&["stats", "ppi", "--input", bad.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.csv, line 3, column 3 (`judge`)") && stderr.contains("`maybe`"),
        "{stderr}"
    );
    // The judge lets A win every battle; the two humans say A lost: the leaderboard is not
    // identified and is left out with the reason, not printed as a confident number.
    let one_sided = dir.join("one-sided.csv");
    std::fs::write(
        &one_sided,
        "model_a,model_b,judge,human\nA,B,model_a,model_b\nA,B,model_a,model_b\n\
         A,B,model_a,\nA,B,model_a,\nA,B,model_a,\n",
    )
    .unwrap();
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        one_sided.to_str().unwrap(),
        "--lambda",
        "1",
    ]);
    let report = stdout_json(&output);
    assert!(report["leaderboard"].is_null());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no leaderboard: not identified"),
        "{stderr}"
    );
}

#[test]
fn a_target_width_gives_each_model_its_label_budget() {
    let report = stdout_json(&run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-battles.csv",
        "--target-width",
        "0.3",
    ]));
    assert_eq!(report["settings"]["target_width"], 0.3);
    let mut planned = 0;
    for rate in report["win_rates"].as_array().unwrap() {
        let Some(budget) = rate["budget"].as_object() else {
            continue;
        };
        planned += 1;
        // 25, 50, 100, … human labels, fewer than the model's battles.
        let widths = budget["widths"].as_array().unwrap();
        assert_eq!(widths[0]["n"], 25);
        for w in widths {
            assert!(w["n"].as_u64().unwrap() < rate["battles"].as_u64().unwrap());
            // The judge's labels never widen the planned interval.
            assert!(w["with_judge"].as_f64() <= w["human_only"].as_f64(), "{w}");
        }
        if let (Some(with), Some(without)) = (
            budget["n_with_judge"].as_u64(),
            budget["n_human_only"].as_u64(),
        ) {
            assert!(with <= without, "{}", rate["model"]);
        }
    }
    // Every model with a win rate (at least 10 human labels) and more than 25 battles.
    assert!(planned >= 20, "{planned} models planned");
    // A width of 0 plans nothing: refused before reading the file.
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-battles.csv",
        "--target-width",
        "0",
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("target_width"));
}

#[test]
fn the_bootstrap_is_seeded_and_recorded_and_the_rank_sets_hold_each_estimated_position() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "stats",
            "ppi",
            "--input",
            "tests/fixtures/ppi-llmfao-ten-models.csv",
        ];
        args.extend(extra);
        stdout_json(&run_tribunal(&args))
    };
    let report = run(&["--bootstrap-rounds", "200", "--seed", "7"]);
    assert_eq!(
        report["settings"]["bootstrap"],
        serde_json::json!({"rounds": 200, "seed": 7})
    );
    assert_eq!(run(&["--bootstrap-rounds", "200", "--seed", "7"]), report);
    assert_ne!(run(&["--bootstrap-rounds", "200", "--seed", "8"]), report);
    let ratings = report["leaderboard"]["ratings"].as_array().unwrap();
    let k = ratings.len() as u64;
    for (position, r) in ratings.iter().enumerate() {
        let (best, worst) = (
            r["ranks"]["best"].as_u64().unwrap(),
            r["ranks"]["worst"].as_u64().unwrap(),
        );
        // Ratings are best first: the position a model's estimate takes lies in its set.
        let position = position as u64 + 1;
        assert!(best <= position && position <= worst && worst <= k, "{r}");
        let boot = &r["bootstrap"];
        assert_eq!(boot["level"], 0.95);
        assert!(
            boot["lower"].as_f64() <= r["ppi"]["estimate"].as_f64(),
            "{r}"
        );
        assert!(
            r["ppi"]["estimate"].as_f64() <= boot["upper"].as_f64(),
            "{r}"
        );
    }
    // Each model against the next: the difference of their ratings; against the reference
    // (fixed at 0) its standard error is the other model's own.
    let neighbours = report["leaderboard"]["neighbours"].as_array().unwrap();
    assert_eq!(neighbours.len(), ratings.len() - 1);
    let reference = &report["leaderboard"]["reference"];
    let mut against_reference = 0;
    for (pair, (a, b)) in neighbours.iter().zip(ratings.iter().zip(&ratings[1..])) {
        assert_eq!(
            (&pair["better"], &pair["worse"]),
            (&a["model"], &b["model"])
        );
        let diff = a["ppi"]["estimate"].as_f64().unwrap() - b["ppi"]["estimate"].as_f64().unwrap();
        close(
            &pair["ppi"]["estimate"],
            &Value::from(diff),
            1e-9,
            "difference",
        );
        for (one, other) in [(a, b), (b, a)] {
            if &one["model"] == reference {
                close(&pair["ppi"]["se"], &other["ppi"]["se"], 1e-9, "se");
                against_reference += 1;
            }
        }
    }
    assert!(against_reference <= 2);
    for rate in report["win_rates"].as_array().unwrap() {
        // A model with fewer than 10 human labels has no win rate to bootstrap.
        let expected = if rate["estimate"].is_null() {
            Value::Null
        } else {
            Value::from(200)
        };
        assert_eq!(rate["bootstrap"]["valid_rounds"], expected, "{rate}");
    }
    // Without the bootstrap: no bootstrap interval, and the settings say so.
    let plain = run(&["--bootstrap-rounds", "0"]);
    assert_eq!(plain["settings"]["bootstrap"], Value::Null);
    assert_eq!(plain["leaderboard"]["ratings"][0]["bootstrap"], Value::Null);
    // One bootstrap round is no interval: refused, naming the setting.
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-ten-models.csv",
        "--bootstrap-rounds",
        "1",
    ]);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("rounds"),
        "{output:?}"
    );
}

#[test]
fn win_rates_from_fewer_than_ten_labels_are_withheld_by_default() {
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-battles.csv",
        "--bootstrap-rounds",
        "0",
    ]);
    let report = stdout_json(&output);
    assert_eq!(report["settings"]["min_labels"], 10);
    let mut withheld = 0;
    for rate in report["win_rates"].as_array().unwrap() {
        match rate["estimate"]["n"].as_u64() {
            Some(n) => assert!(n >= 10, "{rate}"),
            None => {
                withheld += 1;
                assert!(
                    rate["note"].as_str().unwrap().contains("min_labels"),
                    "{rate}"
                );
            }
        }
    }
    // 300 labels over 59 models: most models have fewer than 10.
    assert!(withheld > 20, "{withheld}");
    let warned = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("fewer than 20 human labels"));
    assert!(warned, "{}", report["warnings"]);
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-battles.csv",
        "--min-labels",
        "1",
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("min_labels"));
}

/// `--plan-labels 40 --plan-out`: the plan file keeps the input's rows and columns (ids
/// included), adds `label_probability` (summing to 40 over the unlabelled rows, 1 on the
/// labelled ones), `selected` and `priority`, and the report lists the same draw. Given back
/// with the selected rows labelled, the report weights those labels (active inference: said in
/// its notes, no bootstrap); given back with a selected row left unlabelled, it is refused at
/// that row's line.
#[test]
fn a_label_plan_is_written_and_read_back_labelled() {
    let dir = temp_dir("ppi-plan");
    let plan_path = dir.join("plan.csv");
    let input = "tests/fixtures/ppi-llmfao-ten-models.csv";
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        input,
        "--plan-labels",
        "40",
        "--seed",
        "3",
        "--plan-out",
        plan_path.to_str().unwrap(),
    ]);
    let report = stdout_json(&output);
    assert_eq!(
        report["settings"]["plan"],
        serde_json::json!({"labels": 40, "uniform_share": 0.2, "seed": 3})
    );
    let plan = &report["plan"];
    let text = std::fs::read_to_string(&plan_path).unwrap();
    assert_eq!(plan["csv"].as_str().unwrap(), text);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        header,
        [
            "id",
            "model_a",
            "model_b",
            "judge",
            "human",
            "label_probability",
            "selected",
            "priority"
        ]
    );
    let rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    let input_text = std::fs::read_to_string(tribunal_e2e::root().join(input)).unwrap();
    let mut ids: Vec<&str> = input_text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    let mut planned_ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    ids.sort_unstable();
    planned_ids.sort_unstable();
    assert_eq!(ids, planned_ids);
    let probability = |r: &Vec<String>| r[5].parse::<f64>().unwrap();
    let unlabelled: Vec<&Vec<String>> = rows.iter().filter(|r| r[4].is_empty()).collect();
    let expected: f64 = unlabelled.iter().map(|r| probability(r)).sum();
    assert!((expected - 40.0).abs() < 1e-6, "{expected}");
    assert!(rows
        .iter()
        .filter(|r| !r[4].is_empty())
        .all(|r| probability(r) == 1.0));
    let selected = rows.iter().filter(|r| r[6] == "1").count();
    assert_eq!(plan["selected"].as_u64().unwrap() as usize, selected);
    // Priorities 1, 2, … down the unlabelled rows, as the report's top battles.
    for (k, r) in unlabelled.iter().enumerate().take(20) {
        assert_eq!(r[7], (k + 1).to_string());
        assert_eq!(plan["top"][k]["priority"].as_u64().unwrap() as usize, k + 1);
    }

    // The annotators' labels: here the judge's verdict stands in for them.
    let labelled: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r[6] == "1" {
                r[4] = r[3].clone();
            }
            r.join(",")
        })
        .collect();
    let returned = dir.join("returned.csv");
    std::fs::write(
        &returned,
        format!("{}\n{}\n", header.join(","), labelled.join("\n")),
    )
    .unwrap();
    let back = stdout_json(&run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        returned.to_str().unwrap(),
    ]));
    let labels_before = rows.len() - unlabelled.len();
    assert_eq!(
        back["n_labelled"].as_u64().unwrap() as usize,
        labels_before + selected
    );
    assert!(back["notes"].to_string().contains("label_probability"));
    assert!(back["win_rates"]
        .as_array()
        .unwrap()
        .iter()
        .all(|w| w["bootstrap"].is_null()));

    // A selected row left unlabelled.
    let first = rows.iter().position(|r| r[6] == "1").unwrap();
    let mut broken = labelled.clone();
    let mut fields = rows[first].clone();
    fields[4] = String::new();
    broken[first] = fields.join(",");
    std::fs::write(
        &returned,
        format!("{}\n{}\n", header.join(","), broken.join("\n")),
    )
    .unwrap();
    let output = run_tribunal(&["stats", "ppi", "--input", returned.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("line {}", first + 2))
            && stderr.contains("the draw selected this row"),
        "{stderr}"
    );
}

/// `--cross-fit-folds 5`: the judge's labels are replaced by BTL heads on the `embedding`
/// column, cross-fitted on the human labels — recorded in the settings, said in the notes; the
/// judge-only estimate (now the heads') moves towards the humans', the human-only one does not
/// move; a file without embeddings is refused, saying what is missing.
#[test]
fn a_cross_fitted_head_replaces_the_judge_and_a_file_without_embeddings_is_refused() {
    let dir = temp_dir("ppi-cross-fit");
    // 400 battles of two models, 100 labelled: the judge's p(A) = σ(z/2), the humans'
    // outcome 1 when σ(2z) exceeds a deterministic uniform, the embedding z and a wave.
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut csv = String::from("model_a,model_b,judge,human,embedding\n");
    for i in 0..400u32 {
        let z = 3.0 * ((f64::from(i) * 0.618_034).fract() - 0.5);
        let u = (f64::from(i) * 0.414_213_6 + 0.1).fract();
        let human = if i < 100 {
            u8::from(u < sigmoid(2.0 * z)).to_string()
        } else {
            String::new()
        };
        csv.push_str(&format!(
            "m0,m1,{:.6},{human},{z:.6} {:.6}\n",
            sigmoid(z / 2.0),
            (f64::from(i) * 0.37).sin()
        ));
    }
    let input = dir.join("embedded.csv");
    std::fs::write(&input, csv).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["stats", "ppi", "--input", input.to_str().unwrap()];
        args.extend(extra);
        stdout_json(&run_tribunal(&args))
    };
    let plain = run(&["--bootstrap-rounds", "0"]);
    let cross = run(&[
        "--bootstrap-rounds",
        "0",
        "--cross-fit-folds",
        "5",
        "--seed",
        "2",
    ]);
    assert_eq!(
        cross["settings"]["cross_fit"],
        serde_json::json!({"folds": 5, "gamma": 1.0, "seed": 2})
    );
    assert!(cross["notes"]
        .to_string()
        .contains("cross-fitted in 5 folds"));
    let rate = |r: &Value| r["win_rates"][0]["estimate"].clone();
    // The judge-only estimate is now the heads': it moved towards the humans.
    let (p, c) = (rate(&plain), rate(&cross));
    assert_ne!(p["judge_only"]["estimate"], c["judge_only"]["estimate"]);
    let human = p["human_only"]["estimate"].as_f64().unwrap();
    let gap = |e: &Value| (e["judge_only"]["estimate"].as_f64().unwrap() - human).abs();
    assert!(gap(&c) < gap(&p), "{} vs {}", gap(&c), gap(&p));
    // The human-only estimate does not depend on the predictions.
    assert_eq!(p["human_only"], c["human_only"]);
    // A file without embeddings.
    let output = run_tribunal(&[
        "stats",
        "ppi",
        "--input",
        "tests/fixtures/ppi-llmfao-ten-models.csv",
        "--cross-fit-folds",
        "5",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("`embedding` column"), "{stderr}");
}
