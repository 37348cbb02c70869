//! `tribunal stats calibrate` as a user runs it: heads fitted from CSV files equal
//! scikit-learn's on the committed fixture (shared/tests/fixtures/heads_reference.json, made by
//! make_heads_reference.py), cross-validation picks γ and the head beats a miscalibrated judge on
//! held-out rows, the model file is written and loads, and bad files fail with located errors.

use std::path::Path;
use tribunal::calibration::head_file::{Head, HeadFile};
use tribunal_e2e::{
    btl_fixture_csv, embedding_cell, floats, heads_fixture, miscalibrated_ls_files, npy_f64,
    run_tribunal, stdout_json, temp_dir, write_csv,
};

fn assert_close(what: &str, ours: &[f64], theirs: &[f64], rel: f64) {
    assert_eq!(ours.len(), theirs.len(), "{what}");
    let scale = theirs.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (a, b) in ours.iter().zip(theirs) {
        assert!((a - b).abs() <= rel * scale, "{what}: {a} vs {b}");
    }
}

fn calibrate(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["stats", "calibrate"];
    all.extend_from_slice(args);
    stdout_json(&run_tribunal(&all))
}

/// `--head ls --train TRAIN --test TEST`.
fn ls_args<'a>(train: &'a str, test: &'a str) -> Vec<&'a str> {
    vec!["--head", "ls", "--train", train, "--test", test]
}

/// Runs `stats calibrate --head ls` on `train` and `test` with `extra`, expects exit status 1,
/// and returns stderr.
fn ls_fails(train: &str, test: &str, extra: &[&str]) -> String {
    let mut args = vec!["stats", "calibrate"];
    args.extend(ls_args(train, test));
    args.extend_from_slice(extra);
    let out = run_tribunal(&args);
    assert_eq!(out.status.code(), Some(1), "{extra:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Calibrates a `head` at the single γ `gamma`, writing the model file to `model`; returns the
/// report and the model file read back.
fn fixed_gamma(
    head: &str,
    train: &Path,
    test: &Path,
    gamma: &str,
    model: &Path,
    extra: &[&str],
) -> (serde_json::Value, HeadFile) {
    let mut args = vec![
        "--head",
        head,
        "--train",
        train.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
        "--gamma-min",
        gamma,
        "--gamma-max",
        gamma,
        "--gammas",
        "1",
        "--bootstrap",
        "200",
        "--model-out",
        model.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let json = calibrate(&args);
    let text = std::fs::read_to_string(model).unwrap();
    (json, HeadFile::from_json("model.json", &text).unwrap())
}

#[test]
fn ls_and_btl_heads_from_csv_equal_sklearn() {
    let dir = temp_dir("calibrate-sklearn");
    let f = heads_fixture();
    // LS, primal case (60 rows, d = 8, γ = 3). The test file's human scores are sklearn's own
    // predictions, so the head's test MSE must vanish while the judge's does not.
    let c = &f["ls"][0];
    let rows = |e: &str, s: &str, h: &str| -> Vec<String> {
        let (e, s, h) = (c[e].as_array().unwrap(), floats(&c[s]), floats(&c[h]));
        (0..e.len())
            .map(|i| format!("{},{:e},{:e}", embedding_cell(&e[i]), s[i], h[i]))
            .collect()
    };
    let train = write_csv(
        &dir,
        "ls-train.csv",
        "embedding,score,human",
        &rows("embeddings", "scores", "labels"),
    );
    let test = write_csv(
        &dir,
        "ls-test.csv",
        "embedding,score,human",
        &rows("test_embeddings", "test_scores", "predictions"),
    );
    let model = dir.join("ls-model.json");
    let gamma = c["gamma"].to_string();
    let (json, file) = fixed_gamma("ls", &train, &test, &gamma, &model, &[]);
    assert_eq!(
        (
            json["head"].as_str(),
            json["n_train"].as_u64(),
            json["dim"].as_u64()
        ),
        (Some("ls"), Some(60), Some(8))
    );
    let Head::Ls(head) = &file.head else {
        panic!("an LS head")
    };
    assert_close("LS weights", &head.weights, &floats(&c["weights"]), 1e-9);
    assert_close(
        "LS base weight",
        &[head.base_weight, head.intercept],
        &[
            c["base_weight"].as_f64().unwrap(),
            c["intercept"].as_f64().unwrap(),
        ],
        1e-9,
    );
    assert_eq!(
        file.training_data_hash,
        c["training_data_hash"].as_str().unwrap()
    );
    let mse = &json["regression"]["mse"];
    assert!(mse["head"]["estimate"].as_f64().unwrap() < 1e-12, "{mse}");
    assert!(mse["base"]["estimate"].as_f64().unwrap() > 1e-3, "{mse}");

    // BTL, primal case: coefficients within 1e-5 of sklearn's LogisticRegression.
    let c = &f["btl"][0];
    let train = btl_fixture_csv(&dir);
    let model = dir.join("btl-model.json");
    let gamma = c["gamma"].to_string();
    let (json, file) = fixed_gamma("btl", &train, &train, &gamma, &model, &[]);
    assert_eq!(json["classification"]["classes"], serde_json::json!([0, 1]));
    let Head::Btl(head) = &file.head else {
        panic!("a BTL head")
    };
    assert_close("BTL weights", &head.weights, &floats(&c["weights"]), 1e-5);
    assert_close(
        "BTL base weight",
        &[head.base_weight, head.intercept],
        &[
            c["base_weight"].as_f64().unwrap(),
            c["intercept"].as_f64().unwrap(),
        ],
        1e-5,
    );
}

#[test]
fn cross_validated_ls_head_beats_a_miscalibrated_judge() {
    // `miscalibrated_ls_files`: the judge compresses the human score towards the middle. The
    // head must cut the held-out MSE (interval of the difference below 0), and
    // cross-validation must choose from the requested grid.
    let dir = temp_dir("calibrate-cv");
    let (train, test) = miscalibrated_ls_files(&dir);
    let json = calibrate(&[
        "--head",
        "ls",
        "--train",
        train.to_str().unwrap(),
        "--test",
        test.to_str().unwrap(),
        "--seed",
        "3",
        "--gamma-min",
        "0.001",
        "--gamma-max",
        "1000",
        "--gammas",
        "7",
    ]);
    assert_eq!(json["settings"]["cv"]["seed"], 3);
    assert_eq!(json["settings"]["bootstrap"]["seed"], 3);
    let gammas = floats(&json["cv"]["gammas"]);
    assert_eq!(gammas.len(), 7);
    assert!((gammas[0] - 1e-3).abs() < 1e-15 && (gammas[6] - 1e3).abs() < 1e-9);
    assert!(gammas.contains(&json["cv"]["chosen_gamma"].as_f64().unwrap()));
    assert_eq!(floats(&json["cv"]["mean_loss"]).len(), 7);
    let difference = &json["regression"]["mse"]["difference"];
    assert!(difference["upper"].as_f64().unwrap() < 0.0, "{difference}");
    assert_eq!(json["model"]["seed"], 3);
    assert_eq!(json["model"]["format_version"], 1);
}

#[test]
fn bad_calibration_files_are_located() {
    let dir = temp_dir("calibrate-bad");
    let good = write_csv(
        &dir,
        "good.csv",
        "embedding,score,human",
        &["1 2,3,4".into(), "2 1,3,2".into()],
    );
    let fails = |args: &[&str], expected: &str| {
        let mut all = vec!["stats", "calibrate"];
        all.extend_from_slice(args);
        let out = run_tribunal(&all);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(expected), "{err} lacks {expected}");
    };
    let ragged = write_csv(
        &dir,
        "ragged.csv",
        "embedding,score,human",
        &["1 2,3,4".into(), "1 2 3,3,4".into()],
    );
    fails(
        &["--head", "ls", "--train", ragged.to_str().unwrap(), "--test", good.to_str().unwrap()],
        "ragged.csv, line 3, column 1 (`embedding`): expected an embedding of 2 numbers (as on line 2), found 3",
    );
    let wide = write_csv(
        &dir,
        "wide.csv",
        "embedding,score,human",
        &["1 2 3,3,4".into()],
    );
    fails(
        &["--head", "ls", "--train", good.to_str().unwrap(), "--test", wide.to_str().unwrap()],
        "wide.csv, line 2, column 1 (`embedding`): expected an embedding of 2 numbers (as in the training file), found 3",
    );
    fails(
        &[
            "--head",
            "ls",
            "--train",
            good.to_str().unwrap(),
            "--test",
            good.to_str().unwrap(),
        ],
        "5-fold cross-validation needs at least 5 units (one per fold), found 2",
    );
    let mn = write_csv(
        &dir,
        "mn.csv",
        "embedding,p_1,p_2,p_3,human",
        &["1 2,0.2,0.3,0.5,4".into()],
    );
    fails(
        &[
            "--head",
            "mn",
            "--train",
            mn.to_str().unwrap(),
            "--test",
            mn.to_str().unwrap(),
        ],
        "mn.csv, line 2, column 5 (`human`): expected one of the classes 1, 2, 3, found `4`",
    );
    fails(
        &[
            "--head",
            "btl",
            "--train",
            good.to_str().unwrap(),
            "--test",
            good.to_str().unwrap(),
        ],
        "good.csv, line 1: header lacks `p`",
    );
    let out = run_tribunal(&[
        "stats",
        "calibrate",
        "--head",
        "svm",
        "--train",
        "x",
        "--test",
        "y",
    ]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a head kind"));
}

#[test]
fn ablations_and_training_size_curve() {
    // On the miscalibrated judge (`miscalibrated_ls_files`): the human score depends on the
    // embedding, the judge sees it compressed. Without the embedding the head is a 1-D
    // recalibration of the score — better than the judge, worse than the full head; without the
    // score it still predicts from the embedding; dropping half of the 6 coordinates keeps 3.
    let dir = temp_dir("calibrate-ablation");
    let (train, test) = miscalibrated_ls_files(&dir);
    let (train, test) = (train.to_str().unwrap(), test.to_str().unwrap());
    let run = |extra: &[&str]| {
        let mut args = ls_args(train, test);
        args.extend(["--bootstrap", "200"]);
        args.extend_from_slice(extra);
        calibrate(&args)
    };
    let mse = |json: &serde_json::Value, who: &str| {
        json["regression"]["mse"][who]["estimate"].as_f64().unwrap()
    };
    let full = run(&[]);
    assert_eq!(full["ablation"], serde_json::Value::Null);
    let no_embedding = run(&["--ablation", "no-embedding"]);
    assert_eq!(no_embedding["ablation"]["ablation"], "no_embedding");
    assert_eq!(no_embedding["dim"], 1);
    assert!(mse(&full, "head") < mse(&no_embedding, "head"));
    assert!(mse(&no_embedding, "head") < mse(&no_embedding, "base"));
    let no_score = run(&["--ablation", "no-score"]);
    assert!(
        mse(&no_score, "head") < 0.1 * mse(&full, "base"),
        "{}",
        mse(&no_score, "head")
    );
    let dropped = run(&["--ablation", "drop:0.5", "--seed", "4"]);
    assert_eq!(dropped["dim"], 3);
    assert_eq!(dropped["ablation"]["seed"], 4);

    // Training-size curve: the base judge's test MSE does not depend on the subset; the head's
    // falls with more rows.
    let curve = run(&["--train-sizes", "20,200", "--repeats", "3"]);
    let points = curve["training_curve"]["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    assert_eq!(points[0]["metric"], "mse");
    assert_eq!(points[0]["head"].as_array().unwrap().len(), 3);
    assert_eq!(points[0]["base_mean"], points[1]["base_mean"]);
    assert!(points[0]["head_mean"].as_f64().unwrap() > points[1]["head_mean"].as_f64().unwrap());

    for (extra, expected) in [
        (
            &["--train-sizes", "500"][..],
            "a training size of 500 exceeds the 200 training rows",
        ),
        (
            &["--ablation", "drop:1"][..],
            "expected a fraction of coordinates in [0, 1), found 1",
        ),
    ] {
        let err = ls_fails(train, test, extra);
        assert!(err.contains(expected), "{err} lacks {expected}");
    }
    // An ablation that is not one is a usage error of its flag (status 2, as a bad `--head`),
    // found before any file is read.
    let mut args = vec!["stats", "calibrate"];
    args.extend(ls_args(train, test));
    args.extend(["--ablation", "drop:x"]);
    let out = run_tribunal(&args);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--ablation")
            && err.contains("expected `no-score`, `no-embedding` or `drop:F`"),
        "{err}"
    );
}

#[test]
fn embeddings_from_npy_files_give_the_same_head() {
    // The LS fixture case with its embeddings in .npy files and a CSV of `score,human` only:
    // the same coefficients as scikit-learn's Ridge (1e-9).
    let dir = temp_dir("calibrate-npy");
    let c = &heads_fixture()["ls"][0];
    let rows =
        |key: &str| -> Vec<Vec<f64>> { c[key].as_array().unwrap().iter().map(floats).collect() };
    let lines = |s: &str, h: &str| -> Vec<String> {
        floats(&c[s])
            .iter()
            .zip(floats(&c[h]))
            .map(|(s, h)| format!("{s:e},{h:e}"))
            .collect()
    };
    let train = write_csv(&dir, "train.csv", "score,human", &lines("scores", "labels"));
    let test = write_csv(
        &dir,
        "test.csv",
        "score,human",
        &lines("test_scores", "predictions"),
    );
    let (train_npy, test_npy) = (dir.join("train.npy"), dir.join("test.npy"));
    std::fs::write(&train_npy, npy_f64(&rows("embeddings"))).unwrap();
    std::fs::write(&test_npy, npy_f64(&rows("test_embeddings"))).unwrap();
    let model = dir.join("model.json");
    let gamma = c["gamma"].to_string();
    let embeddings = [
        "--train-embeddings",
        train_npy.to_str().unwrap(),
        "--test-embeddings",
        test_npy.to_str().unwrap(),
    ];
    let (json, file) = fixed_gamma("ls", &train, &test, &gamma, &model, &embeddings);
    assert_eq!(json["dim"], 8);
    let Head::Ls(head) = &file.head else {
        panic!("an LS head")
    };
    assert_close(
        "LS weights from .npy",
        &head.weights,
        &floats(&c["weights"]),
        1e-9,
    );

    // One embedding row short: located at the embedding file.
    std::fs::write(&test_npy, npy_f64(&rows("test_embeddings")[1..])).unwrap();
    let err = ls_fails(train.to_str().unwrap(), test.to_str().unwrap(), &embeddings);
    assert!(
        err.contains(
            "test.npy, byte 0 (`header`): expected 20 embedding rows, one per data row of"
        ),
        "{err}"
    );
}
