//! `tribunal stats agree|aa|consistency|position|irt` as a user runs them: the real binary on
//! the LLMFAO files and on small hand-made CSVs, JSON out, located errors and exit status 1 on
//! bad input.
//!
//! Expected agreement numbers come from an independent Python computation
//! (`fixtures/make_llmfao_agreement_reference.py` → `fixtures/llmfao_agreement_reference.json`:
//! the `krippendorff` package for α, pandas for the crowd majority, scikit-learn for κ, scipy for
//! correlations and the binomial test); point estimates must agree within 1e-9. Bootstrap
//! intervals have no external reference: they must contain the estimate and be reproducible by
//! seed. The IRT subcommand is checked against the same fit made through the library (the GRM
//! itself is checked against scipy and girth in `shared/tests/irt.rs`) and against hand-read
//! properties.

use serde_json::Value;
use tribunal_e2e::{run_tribunal, sliced_agreement_files, stdout_json, temp_dir};

const CROWD: &str = "tests/data/llmfao/crowd-comparisons.csv";
const GPT4: &str = "tests/data/llmfao/gpt4-crowd-comparisons.csv";
const GPT3: &str = "tests/data/llmfao/gpt3-crowd-comparisons.csv";
const LLMFAO: [&str; 8] = [
    "--item", "id", "--rater", "worker", "--score", "winner", "--scale", "nominal",
];
const SMALL_RATINGS: &str = "tests/fixtures/small-ratings.csv";
const SMALL_CROWD: &str = "tests/fixtures/small-crowd.csv";
const SMALL_JUDGE: &str = "tests/fixtures/small-judge.csv";
const IRT_JUDGE: &str = "tests/fixtures/small-irt-judge.csv";
const IRT_HUMAN: &str = "tests/fixtures/small-irt-human.csv";
const TOL: f64 = 1e-9;

fn reference() -> Value {
    serde_json::from_str(include_str!("fixtures/llmfao_agreement_reference.json")).unwrap()
}

/// A JSON number; null (how the CLI prints NaN) reads as NaN.
fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn assert_close(ours: &Value, theirs: &Value, what: &str) {
    let (a, b) = (num(ours), num(theirs));
    assert!((a - b).abs() <= TOL, "{what}: ours {a}, reference {b}");
}

/// `tribunal ARGS` succeeds and prints JSON.
fn run_json(args: &[&str]) -> Value {
    stdout_json(&run_tribunal(args))
}

/// `tribunal ARGS` fails with status 1, nothing on stdout; returns stderr.
fn run_fails(args: &[&str]) -> String {
    let out = run_tribunal(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "expected failure: {err}");
    assert!(out.stdout.is_empty(), "no JSON on failure");
    err
}

fn with(base: &[&'static str], more: &[&'static str]) -> Vec<&'static str> {
    base.iter().chain(more).copied().collect()
}

/// The interval of a reading contains its estimate and used most rounds.
fn assert_interval(reading: &Value, rounds: u64, what: &str) {
    let i = &reading["interval"];
    let (lo, est, hi) = (num(&i["lower"]), num(&i["estimate"]), num(&i["upper"]));
    assert!(lo <= est && est <= hi, "{what}: {lo} ≤ {est} ≤ {hi}");
    assert!(hi > lo, "{what}: a non-degenerate interval");
    let valid = i["valid_rounds"].as_u64().unwrap();
    assert!(
        valid > rounds * 9 / 10 && valid <= rounds,
        "{what}: {valid} rounds"
    );
}

#[test]
fn agree_on_llmfao_matches_krippendorff_and_scikit_learn() {
    let r = &reference()["llmfao"];
    let args = with(
        &["stats", "agree", "--input", CROWD],
        &with(
            &LLMFAO,
            &["--judge", GPT4, "--judge", GPT3, "--pair", "11,47"],
        ),
    );
    let json = run_json(&args);
    assert_eq!(json["statistic"], "agreement");
    assert_eq!(json["n_items"], r["n_items"]);
    assert_eq!(json["n_raters"], r["n_workers"]);
    assert_eq!(json["n_ratings"], r["n_ratings"]);
    // Settings and seed are echoed: defaults 1000 rounds, seed 0, 95 %, nominal α.
    let s = &json["settings"];
    assert_eq!(s["bootstrap"]["seed"], 0);
    assert_eq!(s["bootstrap"]["rounds"], 1000);
    assert_eq!(s["bootstrap"]["level"], 0.95);
    assert_eq!(s["level"], "nominal");
    assert_eq!(s["scale"], "nominal");
    assert_eq!(s["categories"], r["categories"]);
    assert_eq!(s["columns"]["item"], "id");

    // α across the 124 workers.
    let group = &json["group"];
    assert_close(
        &group["alpha"]["alpha"]["alpha"],
        &r["alpha_nominal"],
        "α (nominal) across workers",
    );
    assert_interval(&group["reading"], 1000, "α");
    assert_eq!(group["alpha"]["interval"], group["reading"]["interval"]);

    // The crowd majority: 308 tied pairs are excluded and counted.
    assert_eq!(json["majority"]["n_items"], r["n_majority"]);
    assert_eq!(json["majority"]["n_tied"], r["n_tied"]);
    assert!(json["warnings"][0]
        .as_str()
        .unwrap()
        .contains("308 of 2139 items have no majority label"));

    // κ of GPT-4 and GPT-3.5 against the majority.
    let judges = json["judges"].as_array().unwrap();
    assert_eq!(judges.len(), 2);
    for (j, source) in judges.iter().zip([GPT4, GPT3]) {
        let name = j["rater"].as_str().unwrap();
        let want = &r["judges"][name];
        assert_eq!(j["source"], source);
        for key in ["n_rated", "n_paired", "n_tied", "n_not_in_group"] {
            assert_eq!(j[key], want[key], "{name}: {key}");
        }
        let a = &j["agreement"];
        assert_close(&a["kappa"]["interval"]["estimate"], &want["kappa"], name);
        assert_close(
            &a["percent_agreement"]["interval"]["estimate"],
            &want["percent_agreement"],
            name,
        );
        assert_eq!(a["confusion"], want["confusion"], "{name}: confusion");
        assert_eq!(a["n_items"], want["n_paired"]);
        assert_interval(&a["kappa"], 1000, name);
        assert_interval(&a["percent_agreement"], 1000, name);
        assert!(a["linear_kappa"].is_null(), "nominal: no weighted κ");
    }
    let gpt4 = num(&judges[0]["agreement"]["kappa"]["interval"]["estimate"]);
    let gpt3 = num(&judges[1]["agreement"]["kappa"]["interval"]["estimate"]);
    assert!(gpt4 > gpt3, "GPT-4 agrees more with the crowd than GPT-3.5");

    // Two workers on the pairs both judged.
    let pair = &json["pairs"][0];
    assert_eq!(pair["a"], r["pair"]["a"]);
    assert_eq!(pair["n_items"], r["pair"]["n_items"]);
    assert_close(
        &pair["kappa"]["interval"]["estimate"],
        &r["pair"]["kappa"],
        "κ of two workers",
    );
}

#[test]
fn agree_intervals_are_reproducible_by_seed() {
    let run = |seed: &'static str| {
        run_json(&with(
            &["stats", "agree", "--input", CROWD],
            &with(
                &LLMFAO,
                &[
                    "--judge",
                    GPT4,
                    "--seed",
                    seed,
                    "--bootstrap",
                    "200",
                    "--confidence",
                    "0.9",
                ],
            ),
        ))
    };
    let (a, b, c) = (run("7"), run("7"), run("8"));
    let alpha = |j: &Value| j["group"]["reading"]["interval"].clone();
    let kappa = |j: &Value| j["judges"][0]["agreement"]["kappa"]["interval"].clone();
    assert_eq!(alpha(&a), alpha(&b));
    assert_eq!(kappa(&a), kappa(&b));
    assert_ne!(alpha(&a)["lower"], alpha(&c)["lower"]);
    assert_ne!(kappa(&a)["lower"], kappa(&c)["lower"]);
    assert_eq!(alpha(&a)["estimate"], alpha(&c)["estimate"]);
    assert_eq!(a["settings"]["bootstrap"]["seed"], 7);
    assert_eq!(c["settings"]["bootstrap"]["seed"], 8);
    assert_eq!(a["settings"]["bootstrap"]["rounds"], 200);
    assert_eq!(alpha(&a)["level"], 0.9);
    assert_interval(&a["group"]["reading"], 200, "α at 90 %");
    assert_interval(&a["judges"][0]["agreement"]["kappa"], 200, "κ at 90 %");
}

#[test]
fn agree_on_small_numeric_ratings_matches_every_level_and_statistic() {
    let r = &reference()["small_ratings"];
    for level in ["nominal", "ordinal", "interval", "ratio"] {
        let json = run_json(&[
            "stats",
            "agree",
            "--input",
            SMALL_RATINGS,
            "--level",
            level,
            "--bootstrap",
            "100",
        ]);
        assert_eq!(json["settings"]["level"], level);
        assert_eq!(json["n_items"], r["n_items"]);
        assert_eq!(json["n_ratings"], r["n_ratings"]);
        assert_close(
            &json["group"]["alpha"]["alpha"]["alpha"],
            &r["alpha"][level],
            level,
        );
    }
    // Default level on the numeric scale: interval.
    let json = run_json(&[
        "stats",
        "agree",
        "--input",
        SMALL_RATINGS,
        "--pair",
        "judge,alice",
    ]);
    assert_eq!(json["settings"]["level"], "interval");
    let p = &json["pairs"][0];
    let want = &r["pair"];
    assert_eq!(p["n_items"], want["n_items"]);
    for key in [
        "percent_agreement",
        "kappa",
        "linear_kappa",
        "quadratic_kappa",
        "pearson",
        "spearman",
        "kendall_tau_b",
    ] {
        assert_close(&p[key]["interval"]["estimate"], &want[key], key);
    }
    assert_eq!(p["a"], "judge");
    assert_eq!(p["b"], "alice");
}

#[test]
fn agree_small_crowd_majority_with_ties_and_a_judge_file_without_rater_column() {
    let r = &reference()["small_crowd"];
    let json = run_json(&[
        "stats",
        "agree",
        "--input",
        SMALL_CROWD,
        "--item",
        "pair",
        "--rater",
        "annotator",
        "--score",
        "verdict",
        "--scale",
        "nominal",
        "--judge",
        SMALL_JUDGE,
    ]);
    // The labels of both files, sorted, code both files.
    assert_eq!(json["settings"]["categories"], r["categories"]);
    assert_close(
        &json["group"]["alpha"]["alpha"]["alpha"],
        &r["alpha_nominal"],
        "α",
    );
    assert_eq!(json["majority"]["n_items"], r["n_majority"]);
    assert_eq!(json["majority"]["tied_items"], r["tied_items"]);
    let j = &json["judges"][0];
    assert_eq!(j["rater"], "small-judge", "named after the file");
    for key in ["n_rated", "n_paired", "n_tied", "n_not_in_group"] {
        assert_eq!(j[key], r["judge"][key], "{key}");
    }
    assert_close(
        &j["agreement"]["kappa"]["interval"]["estimate"],
        &r["judge"]["kappa"],
        "κ",
    );
    assert_eq!(j["agreement"]["confusion"], r["judge"]["confusion"]);
}

#[test]
fn agree_bad_input_is_located_or_warned() {
    let dir = temp_dir("reliability-bad");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };

    // A non-numeric score on the numeric scale (interval α): located.
    let bad = write("bad.csv", "item,rater,score\n1,a,3\n1,b,good\n");
    let err = run_fails(&["stats", "agree", "--input", &bad, "--level", "interval"]);
    assert!(
        err.contains("bad.csv, line 3, column 3 (`score`): expected a number (the scale is numeric), found `good`"),
        "{err}"
    );
    // LLMFAO's labels without --scale nominal: located at the first label.
    let err = run_fails(&[
        "stats", "agree", "--input", CROWD, "--item", "id", "--rater", "worker", "--score",
        "winner",
    ]);
    assert!(
        err.contains("crowd-comparisons.csv, line 2, column 6 (`winner`): expected a number"),
        "{err}"
    );
    // Columns that are not there: the header is named.
    let err = run_fails(&["stats", "agree", "--input", CROWD, "--scale", "nominal"]);
    assert!(
        err.contains(
            "crowd-comparisons.csv, line 1: expected a header with `item`, `rater` and `score`"
        ),
        "{err}"
    );
    // A judge file lacks the rater column but the input must have it.
    let err = run_fails(&with(&["stats", "agree", "--input", GPT4], &LLMFAO));
    assert!(
        err.contains("line 1: expected a header with `id`, `worker`"),
        "{err}"
    );
    let err = run_fails(&["stats", "agree", "--input", "no/such.csv"]);
    assert!(err.contains("reading no/such.csv"), "{err}");
    let ragged = write("ragged.csv", "item,rater,score\n1,a,1\n2,a\n");
    let err = run_fails(&["stats", "agree", "--input", &ragged]);
    assert!(
        err.contains("ragged.csv, line 3: expected 3 fields as in the header, found 2"),
        "{err}"
    );

    // One rater: an explicit error…
    let one = write("one.csv", "item,rater,score\n1,a,3\n2,a,4\n3,a,4\n");
    let err = run_fails(&["stats", "agree", "--input", &one]);
    assert!(
        err.contains("one.csv: the input has a single rater (`a`): Krippendorff's α needs two or more raters"),
        "{err}"
    );
    // …or, with a judge to compare, no α and a warning.
    let judge = write("judge.csv", "item,score\n1,3\n2,4\n3,3\n");
    let out = run_tribunal(&["stats", "agree", "--input", &one, "--judge", &judge]);
    let json = stdout_json(&out);
    assert!(json["group"].is_null());
    assert!(json["warnings"][0]
        .as_str()
        .unwrap()
        .contains("α is not computed: the input has a single rater"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("warning: "));
    assert_eq!(json["judges"][0]["rater"], "judge");
    assert_close(
        &json["judges"][0]["agreement"]["percent_agreement"]["interval"]["estimate"],
        &Value::from(2.0 / 3.0),
        "percent agreement with one rater",
    );

    // Constant ratings: α and κ are undefined (null) with warnings naming the file.
    let constant = write(
        "constant.csv",
        "item,rater,score\n1,a,3\n1,b,3\n2,a,3\n2,b,3\n",
    );
    let out = run_tribunal(&[
        "stats",
        "agree",
        "--input",
        &constant,
        "--pair",
        "a,b",
        "--bootstrap",
        "50",
    ]);
    let json = stdout_json(&out);
    assert!(json["group"]["alpha"]["alpha"]["alpha"].is_null());
    assert!(json["group"]["reading"]["band"].is_null());
    assert!(json["pairs"][0]["kappa"]["interval"]["estimate"].is_null());
    let warnings: Vec<&str> = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings[0].contains("constant.csv: α: every pairable rating has the same value (3)"),
        "{warnings:?}"
    );
    assert!(
        warnings[1].contains("constant.csv: `a` vs `b`: both raters gave every item the same"),
        "{warnings:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("warning: "), "{stderr}");

    // Unknown raters and settings.
    let err = run_fails(&[
        "stats",
        "agree",
        "--input",
        SMALL_RATINGS,
        "--pair",
        "judge,zoe",
    ]);
    assert!(err.contains("expected one of the raters"), "{err}");
    assert!(err.contains("found `zoe`"), "{err}");
    let err = run_fails(&[
        "stats",
        "agree",
        "--input",
        SMALL_RATINGS,
        "--bootstrap",
        "1",
    ]);
    assert!(err.contains("invalid setting `rounds`"), "{err}");
    // A malformed option is a usage error (clap's status 2).
    let out = run_tribunal(&[
        "stats",
        "agree",
        "--input",
        SMALL_RATINGS,
        "--pair",
        "judge",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected two names `A,B`, found `judge`"),
        "{err}"
    );
    // Labels on the nominal scale at the interval level: a defined value with a warning.
    let json = run_json(&with(
        &["stats", "agree", "--input", SMALL_CROWD],
        &[
            "--item",
            "pair",
            "--rater",
            "annotator",
            "--score",
            "verdict",
            "--scale",
            "nominal",
            "--level",
            "interval",
            "--bootstrap",
            "50",
        ],
    ));
    assert!(json["warnings"][0]
        .as_str()
        .unwrap()
        .contains("treats their sorted order `A`, `B`, `tie` as a scale"));
}

#[test]
fn aa_flags_two_runs_against_gold() {
    let dir = temp_dir("reliability-aa");
    let path = dir.join("aa.csv");
    std::fs::write(
        &path,
        "item,rater,score\n\
         1,run1,pass\n1,run2,pass\n1,gold,pass\n\
         2,run1,fail\n2,run2,pass\n2,gold,fail\n\
         3,run1,pass\n3,run2,pass\n3,gold,pass\n\
         4,run1,fail\n4,run2,fail\n4,gold,pass\n",
    )
    .unwrap();
    let json = run_json(&[
        "stats",
        "aa",
        "--input",
        path.to_str().unwrap(),
        "--scale",
        "nominal",
        "--runs",
        "run1,run2",
        "--gold",
        "gold",
        "--pass",
        "pass",
    ]);
    let check = |metric: &str| {
        json["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == metric)
            .unwrap()
            .clone()
    };
    // Pass rates 2/4 and 3/4; item 2 differs; κ against gold ½ and −⅓ (hand counts:
    // run 1 P_o = ¾, P_e = ½; run 2 P_o = ½, P_e = ⅝).
    let pr = check("pass_rate_delta");
    assert_eq!((num(&pr["run_a"]), num(&pr["run_b"])), (0.5, 0.75));
    assert_eq!(pr["flag"], "red");
    assert_eq!(num(&check("item_disagreement")["delta"]), 0.25);
    let k = check("kappa_delta");
    assert_close(&k["run_a"], &Value::from(0.5), "κ run 1");
    assert_close(&k["run_b"], &Value::from(-1.0 / 3.0), "κ run 2");
    assert_close(&k["delta"], &Value::from(5.0 / 6.0), "κ delta");
    assert_eq!(json["overall"], "red");
    assert_eq!(json["settings"]["bands"]["kappa_band"], 0.03);
    assert_eq!(json["n_items_both_runs"], 4);

    let err = run_fails(&[
        "stats",
        "aa",
        "--input",
        path.to_str().unwrap(),
        "--scale",
        "nominal",
        "--runs",
        "run1,run2",
        "--pass",
        "ok",
    ]);
    assert!(
        err.contains(
            "invalid setting `pass`: expected one of the labels `fail`, `pass`, found `ok`"
        ),
        "{err}"
    );
}

#[test]
fn consistency_entropy_per_criterion() {
    let dir = temp_dir("reliability-consistency");
    let path = dir.join("repeats.csv");
    std::fs::write(
        &path,
        "item,criterion,variant,score\n\
         q1,coverage,r1,1\nq1,coverage,r2,1\nq1,coverage,r3,1\n\
         q1,label,r1,1\nq1,label,r2,0\nq1,label,r3,1\n\
         q2,coverage,r1,0\nq2,coverage,r2,1\nq2,coverage,r3,0\n\
         q2,label,r1,0\nq2,label,r2,0\nq2,label,r3,0\n",
    )
    .unwrap();
    let json = run_json(&[
        "stats",
        "consistency",
        "--input",
        path.to_str().unwrap(),
        "--label",
        "label",
    ]);
    // One flip in three repeats: H = −(⅓ log₂ ⅓ + ⅔ log₂ ⅔).
    let h = -(1.0_f64 / 3.0 * (1.0_f64 / 3.0).log2() + 2.0 / 3.0 * (2.0_f64 / 3.0).log2());
    let coverage = &json["criteria"][0];
    assert_eq!(coverage["name"], "coverage");
    assert_eq!(coverage["repeats"], serde_json::json!(["r1", "r2", "r3"]));
    assert_close(&coverage["entropy"][1], &Value::from(h), "H(q2)");
    assert_close(&coverage["mean_entropy"], &Value::from(h / 2.0), "mean H");
    assert_eq!(coverage["stability"], "good");
    assert_eq!(num(&json["label_flip_rate"]), 0.5);
    assert_eq!(num(&json["share_items_inconsistent"]), 1.0);
    assert_eq!(json["settings"]["repeats_are"], "variants");

    let err = run_fails(&[
        "stats",
        "consistency",
        "--input",
        path.to_str().unwrap(),
        "--label",
        "tone",
    ]);
    assert!(err.contains("found `tone`"), "{err}");
}

#[test]
fn position_bias_of_the_llmfao_judges_and_an_ab_ba_file() {
    let r = &reference()["llmfao"]["position"];
    for (file, name) in [
        (GPT4, "gpt4-crowd-comparisons"),
        (GPT3, "gpt3-crowd-comparisons"),
    ] {
        let json = run_json(&[
            "stats",
            "position",
            "--input",
            file,
            "--item",
            "id",
            "--score",
            "winner",
            "--bootstrap",
            "300",
            "--seed",
            "5",
        ]);
        let want = &r[name];
        for key in ["n_first", "n_second", "n_ties"] {
            assert_eq!(json[key], want[key], "{name}: {key}");
        }
        assert_close(
            &json["first_position_rate"]["estimate"],
            &want["first_position_rate"],
            name,
        );
        let (p, q) = (num(&json["p_value"]), num(&want["p_value"]));
        assert!((p - q).abs() <= TOL * q, "{name}: p {p} vs scipy {q}");
        assert_eq!(json["significant"], true);
        assert_eq!(json["settings"]["test"]["bootstrap"]["seed"], 5);
        // One order only: the flip rate is undefined, with a warning.
        assert!(json["flip_rate"]["estimate"].is_null());
        assert_eq!(json["warnings"].as_array().unwrap().len(), 1);
    }

    let dir = temp_dir("reliability-position");
    let path = dir.join("abba.csv");
    // p1 consistent (A wins both), p2 reversal (first wins both times), p3 tie then A,
    // p4 only in AB.
    std::fs::write(
        &path,
        "item,variant,score\np1,ab,left\np1,ba,right\np2,ab,left\np2,ba,left\n\
         p3,ab,tie\np3,ba,right\np4,ab,right\n",
    )
    .unwrap();
    let json = run_json(&[
        "stats",
        "position",
        "--input",
        path.to_str().unwrap(),
        "--bootstrap",
        "100",
    ]);
    assert_eq!(json["n_both_orders"], 3);
    assert_close(
        &json["flip_rate"]["estimate"],
        &Value::from(2.0 / 3.0),
        "flip",
    );
    assert_close(&json["reversal_rate"], &Value::from(1.0 / 3.0), "reversal");
    assert_eq!(
        (json["n_first"].as_u64(), json["n_second"].as_u64()),
        (Some(3), Some(3))
    );

    std::fs::write(&path, "item,variant,score\np1,ab,left\np1,xy,right\n").unwrap();
    let err = run_fails(&["stats", "position", "--input", path.to_str().unwrap()]);
    assert!(err.contains("expected the orders `ab` and `ba`"), "{err}");
    std::fs::write(&path, "item,variant,score\np1,ab,first\n").unwrap();
    let err = run_fails(&["stats", "position", "--input", path.to_str().unwrap()]);
    assert!(
        err.contains("line 2, column 3 (`score`): expected one of the categories `left`, `right`, `tie`, found `first`"),
        "{err}"
    );
}

#[test]
fn irt_fits_the_grm_per_variant_and_aligns_with_humans() {
    use tribunal::reliability::irt::irt_grm::GrmParams;
    use tribunal::reliability::irt::irt_reliability::{HumanAlignment, ReliabilityParams};
    use tribunal::reliability::ratings::{RatingsParams, Selection};

    let json = run_json(&["stats", "irt", "--input", IRT_JUDGE, "--human", IRT_HUMAN]);
    assert_eq!(json["statistic"], "irt_grm");
    assert_eq!(
        json["variants"],
        serde_json::json!(["plain", "typo", "newline"])
    );
    assert_eq!(json["settings"]["rater"], "judge");
    assert_eq!(json["settings"]["original"], "plain");
    assert_eq!(json["settings"]["grm"]["quadrature_nodes"], 41);
    assert_eq!(json["fit"]["converged"], true);

    // The same fit through the library.
    let read = |path: &str| {
        RatingsParams::default()
            .parse(
                path,
                &std::fs::read(tribunal_e2e::root().join(path)).unwrap(),
            )
            .unwrap()
    };
    let judge = read(IRT_JUDGE).variant_matrix(None, None).unwrap();
    let grm = judge.whole_scores().unwrap();
    let fit = GrmParams::default().fit(&grm).unwrap();
    let ic = ReliabilityParams::default()
        .intrinsic_consistency(&fit, &grm)
        .unwrap();
    // Same code, same numbers; 1e-12 allows for serde_json's decimal → f64 parsing.
    let same = |ours: &Value, theirs: f64, what: &str| {
        let a = num(ours);
        assert!(
            (a - theirs).abs() <= 1e-12,
            "{what}: CLI {a}, library {theirs}"
        );
    };
    let thetas = json["fit"]["theta_mean"].as_array().unwrap();
    assert_eq!(thetas.len(), 60);
    for (ours, theirs) in thetas.iter().zip(&fit.theta_mean) {
        same(ours, *theirs, "EAP θ");
    }
    for (p, v) in fit.variants.iter().enumerate() {
        same(
            &json["fit"]["variants"][p]["alpha"],
            v.alpha.unwrap(),
            "α_p",
        );
    }
    let ic_json = &json["intrinsic_consistency"];
    same(&ic_json["c_v"], ic.c_v, "C_V");
    same(
        &ic_json["marginal_reliability"],
        ic.marginal_reliability,
        "ρ",
    );
    same(&json["marginal_reliability"], ic.marginal_reliability, "ρ");
    assert!(ic.marginal_reliability > 0.7 && ic_json["reliable"] == true);

    let human = read(IRT_HUMAN).matrix(&Selection::default()).unwrap();
    let hgrm = human.whole_scores().unwrap();
    let hfit = GrmParams::default().fit(&hgrm).unwrap();
    let scores = |m: &tribunal::reliability::irt::irt_grm::RatingMatrix| m.variant_scores(0);
    let alignment = HumanAlignment::compute(
        &fit.theta_mean,
        &scores(&grm),
        &hfit.theta_mean,
        &scores(&hgrm),
    )
    .unwrap();
    let h = &json["human"];
    assert_eq!(h["n_common_items"], 60);
    assert_eq!(h["score_rater"], "ann1");
    same(
        &h["alignment"]["theta_ratio"],
        alignment.theta_ratio,
        "θ_ratio",
    );
    same(&h["alignment"]["wasserstein"], alignment.wasserstein, "D_W");

    // Flat priors and a declared scale change the settings echoed.
    let flat = run_json(&[
        "stats",
        "irt",
        "--input",
        IRT_JUDGE,
        "--flat-priors",
        "--range",
        "1,5",
        "--original",
        "typo",
    ]);
    assert!(flat["settings"]["grm"]["log_alpha_prior"].is_null());
    assert_eq!(flat["settings"]["grm"]["scale"]["max"], 5);
    assert_eq!(flat["settings"]["original"], "typo");
    assert!(flat["human"].is_null());
}

#[test]
fn irt_bad_input_is_located_or_warned() {
    let dir = temp_dir("reliability-irt");
    let path = dir.join("irt.csv");
    let p = path.to_str().unwrap();
    std::fs::write(&path, "item,rater,score,variant\n1,j,1,a\n2,j,2.5,a\n").unwrap();
    let err = run_fails(&["stats", "irt", "--input", p]);
    assert!(
        err.contains("irt.csv, line 3 (`score`): expected a whole-number score ≥ 0"),
        "{err}"
    );
    std::fs::write(&path, "item,rater,score\n1,j,1\n2,j,2\n").unwrap();
    let err = run_fails(&["stats", "irt", "--input", p]);
    assert!(
        err.contains("the ratings have no `variant` column"),
        "{err}"
    );
    // One variant: the GRM is fitted, C_V is undefined (null) with a warning.
    std::fs::write(
        &path,
        "item,score,variant\n1,1,a\n2,2,a\n3,3,a\n4,2,a\n5,1,a\n6,3,a\n",
    )
    .unwrap();
    let out = run_tribunal(&["stats", "irt", "--input", p]);
    let json = stdout_json(&out);
    assert_eq!(json["settings"]["rater"], "irt", "named after the file");
    assert!(json["intrinsic_consistency"].is_null());
    assert!(json["warnings"][0]
        .as_str()
        .unwrap()
        .contains("C_V is not computed"));
    assert!(num(&json["marginal_reliability"]) > 0.0);
    // Constant ratings carry no information: an explicit error.
    std::fs::write(&path, "item,score,variant\n1,2,a\n2,2,a\n1,2,b\n2,2,b\n").unwrap();
    let err = run_fails(&["stats", "irt", "--input", p]);
    assert!(err.contains("graded response model"), "{err}");
}

#[test]
fn power_table_matches_statsmodels() {
    // statsmodels NormalIndPower (shared/tests/fixtures/power_reference.json): pass rates 0.55
    // vs 0.5 need 1564.53 items per group at 80 % power, 0.6 vs 0.5 need 387.17; Cohen's
    // d = 0.5 needs 62.79.
    let json = stdout_json(&run_tribunal(&[
        "stats", "power", "--p1", "0.55", "--p2", "0.5", "--power", "0.8",
    ]));
    let row = &json["rows"][0];
    assert!(
        (row["nobs1"].as_f64().unwrap() - 1564.5290112626938).abs() < 1e-6,
        "{row}"
    );
    assert_eq!(row["n1"], 1565);
    let json = stdout_json(&run_tribunal(&[
        "stats", "power", "--p1", "0.6", "--p2", "0.5,0.55", "--power", "0.8,0.9",
    ]));
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "every effect × every power");
    assert!((rows[0]["nobs1"].as_f64().unwrap() - 387.1677468578107).abs() < 1e-6);
    assert!(
        rows[1]["n1"].as_u64() > rows[0]["n1"].as_u64(),
        "more power, more items"
    );
    let json = stdout_json(&run_tribunal(&[
        "stats", "power", "--mean1", "3.5", "--mean2", "3.0", "--sd", "1", "--power", "0.8",
    ]));
    assert!((json["rows"][0]["nobs1"].as_f64().unwrap() - 62.79088416571135).abs() < 1e-6);

    let out = run_tribunal(&["stats", "power", "--p1", "0.5", "--p2", "1.5"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid setting"));
    let out = run_tribunal(&["stats", "power", "--p1", "0.5", "--effect-size", "0.2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected one kind of effect"));
}

#[test]
fn slices_test_each_against_the_rest_with_holm_and_bh() {
    // `sliced_agreement_files`: the judge agrees with the crowd's majority on 9/10 code items,
    // 4/10 math items and 7/10 prose items. Expected values from
    // scipy (two-proportion z-test, 2·norm.sf(|z|)) with Holm and BH by hand:
    // code z = 1.91703, p = 0.0552343; math z = −2.19089, p = 0.0284597; prose p = 0.784191;
    // Holm: math 0.0853792, code 0.110469, prose 0.784191; BH: code = math = 0.0828514.
    let dir = temp_dir("slices");
    let (crowd_path, judge_path) = sliced_agreement_files(&dir);
    let agree = |slice: &str| {
        run_tribunal(&[
            "stats",
            "agree",
            "--input",
            crowd_path.to_str().unwrap(),
            "--scale",
            "nominal",
            "--judge",
            judge_path.to_str().unwrap(),
            "--slice",
            slice,
            "--bootstrap",
            "100",
        ])
    };
    let json = stdout_json(&agree("topic"));
    let slices = &json["slices"];
    assert_eq!(
        slices["values"],
        serde_json::json!(["code", "math", "prose"])
    );
    let cells = slices["judges"][0]["slices"].as_array().unwrap();
    let expect = [
        (
            "code",
            9,
            1.9170289512680811,
            0.055234253718063876,
            0.11046850743612775,
            0.08285138057709582,
        ),
        (
            "math",
            4,
            -2.1908902300206643,
            0.028459736916310565,
            0.08537921074893169,
            0.08285138057709582,
        ),
        (
            "prose",
            7,
            0.27386127875258265,
            0.7841912294016193,
            0.7841912294016193,
            0.7841912294016193,
        ),
    ];
    for (cell, (value, agreeing, z, p, holm, bh)) in cells.iter().zip(expect) {
        assert_eq!(cell["value"], value);
        assert_eq!(
            (cell["n_compared"].as_u64(), cell["n_agreeing"].as_u64()),
            (Some(10), Some(agreeing))
        );
        for (key, want) in [("z", z), ("p_value", p), ("holm", holm), ("bh_q", bh)] {
            let got = cell[key].as_f64().unwrap();
            assert!((got - want).abs() < 1e-7, "{value} {key}: {got} vs {want}");
        }
        assert_eq!(cell["holm_reject"], false);
        let pa = cell["percent_agreement"]["interval"]["estimate"]
            .as_f64()
            .unwrap();
        assert!((pa - agreeing as f64 / 10.0).abs() < 1e-12);
    }

    let out = agree("length");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("expected one of the slice columns `topic`, found `length`"));
}
